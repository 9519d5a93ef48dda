//! The reader: header, decompression, tokens, the object tree, then the templates MMD uses
//! read member by member.
//!
//! Member layouts (the DirectX file format reference's standard templates):
//!
//! ```text
//! Mesh               { nVertices; Vector vertices[nVertices]; nFaces; MeshFace faces[nFaces]; ... }
//! MeshFace           { nFaceVertexIndices; DWORD faceVertexIndices[n]; }
//! MeshNormals        { nNormals; Vector normals[n]; nFaceNormals; MeshFace faceNormals[n]; }
//! MeshTextureCoords  { nTextureCoords; Coords2d textureCoords[n]; }
//! MeshVertexColors   { nVertexColors; IndexedColor vertexColors[n]; }   // index; r; g; b; a
//! MeshMaterialList   { nMaterials; nFaceIndexes; DWORD faceIndexes[n]; [Material | {ref}]... }
//! Material           { ColorRGBA faceColor; power; ColorRGB specularColor; ColorRGB emissiveColor; [TextureFilename] }
//! TextureFilename    { STRING filename; }
//! FrameTransformMatrix { Matrix4x4 frameMatrix; }
//! ```
//!
//! Values after the ones a template defines are ignored, as Direct3D's loader ignores them;
//! children MMD does not draw (skin weights, animation, ...) are dropped.

use super::header::{FloatSize, Header, LEN as HEADER_LEN};
use super::lex::{Lexer, Source, lossy};
use super::text::decode;
use super::tree::{Child, Object, Scalar, objects};
use super::{
    Frame, Material, MaterialList, MaterialSlot, Mesh, MeshNormals, VertexColor, XFile, mszip,
};
use crate::error::Result;

/// Parse a `.x` file in any of its four encodings.
pub fn parse(bytes: &[u8]) -> Result<XFile> {
    let header = Header::parse(bytes)?;
    let decompressed;
    let (data, start) = if header.encoding.is_compressed() {
        decompressed = mszip::inflate(bytes)?;
        (&decompressed[..], 0)
    } else {
        (bytes, HEADER_LEN)
    };
    let source = Source {
        data,
        text: !header.encoding.is_binary(),
        decompressed: header.encoding.is_compressed(),
    };
    let mut lex = Lexer::new(source, start, header.float_size == FloatSize::F64);
    let tree = objects(&mut lex)?;
    let reader = Reader { source };
    let mut file = XFile {
        header,
        materials: Vec::new(),
        frames: Vec::new(),
        meshes: Vec::new(),
    };
    for obj in &tree {
        if obj.is("Frame") {
            file.frames.push(reader.frame(obj)?);
        } else if obj.is("Mesh") {
            file.meshes.push(reader.mesh(obj)?);
        } else if obj.is("Material") {
            file.materials.push(reader.material(obj)?);
        }
    }
    Ok(file)
}

struct Reader<'a> {
    source: Source<'a>,
}

/// An object's values read in order, each read naming its field for messages.
struct Fields<'o, 'a> {
    obj: &'o Object,
    section: &'static str,
    next: usize,
    source: Source<'a>,
}

impl Fields<'_, '_> {
    fn error(&self, field: &'static str, offset: usize, message: String) -> crate::FormatError {
        self.source.error(self.section, field, offset, message)
    }

    fn take(&mut self, field: &'static str, what: &str) -> Result<&Scalar> {
        let Some(v) = self.obj.values.get(self.next) else {
            let message = format!("`{}` ends where {what} should be", self.obj.kind);
            return Err(self.error(field, self.obj.end, message));
        };
        self.next += 1;
        Ok(&v.scalar)
    }

    fn offset(&self) -> usize {
        self.obj
            .values
            .get(self.next)
            .map_or(self.obj.end, |v| v.offset)
    }

    fn uint(&mut self, field: &'static str, what: &str) -> Result<u32> {
        let at = self.offset();
        let v = match *self.take(field, what)? {
            Scalar::Int(i) => u32::try_from(i).ok(),
            Scalar::Float(f) if f.fract() == 0.0 && (0.0..=u32::MAX as f32).contains(&f) => {
                Some(f as u32)
            }
            _ => None,
        };
        v.ok_or_else(|| {
            let found = self.describe(self.next - 1);
            self.error(
                field,
                at,
                format!("expected {what} (a whole number), found {found}"),
            )
        })
    }

    /// A count of elements that each take at least `per` values: more than the values left
    /// can hold is an error, so nothing is allocated on a hostile count.
    fn count(&mut self, field: &'static str, what: &str, per: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.uint(field, what)? as usize;
        let left = self.obj.values.len() - self.next;
        if n > left / per.max(1) {
            let message = format!(
                "{what} is {n}, but `{}` holds only {left} more values ({per} per element)",
                self.obj.kind
            );
            return Err(self.error(field, at, message));
        }
        Ok(n)
    }

    fn float(&mut self, field: &'static str, what: &str) -> Result<f32> {
        let at = self.offset();
        match *self.take(field, what)? {
            Scalar::Float(f) => Ok(f),
            Scalar::Int(i) if i.unsigned_abs() <= 1 << 24 => Ok(i as f32),
            _ => {
                let found = self.describe(self.next - 1);
                Err(self.error(
                    field,
                    at,
                    format!("expected {what} (a number), found {found}"),
                ))
            }
        }
    }

    fn floats<const N: usize>(&mut self, field: &'static str, what: &str) -> Result<[f32; N]> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = self.float(field, what)?;
        }
        Ok(out)
    }

    fn string(&mut self, field: &'static str, what: &str) -> Result<String> {
        let at = self.offset();
        let source = self.source;
        match self.take(field, what)? {
            Scalar::Str(s) => decode(&source, s, at, field),
            _ => {
                let found = self.describe(self.next - 1);
                Err(self.error(
                    field,
                    at,
                    format!("expected {what} (a string), found {found}"),
                ))
            }
        }
    }

    fn describe(&self, index: usize) -> String {
        match self.obj.values.get(index).map(|v| &v.scalar) {
            Some(Scalar::Int(i)) => format!("{i}"),
            Some(Scalar::Float(f)) => format!("{f}"),
            Some(Scalar::Str(s)) => format!("the string {:?}", lossy(s)),
            None => "nothing".into(),
        }
    }

    /// Polygons: `count` faces of `n; i, i, ...;`, every index below `limit`.
    fn faces(
        &mut self,
        field: &'static str,
        count: usize,
        limit: usize,
        what: &str,
    ) -> Result<Vec<Vec<u32>>> {
        let mut faces = Vec::with_capacity(count);
        for face in 0..count {
            let n = self.count(field, "the face's corner count", 1)?;
            let mut corners = Vec::with_capacity(n);
            for _ in 0..n {
                let at = self.offset();
                let i = self.uint(field, "a corner index")?;
                if i as usize >= limit {
                    let message = format!(
                        "face {face}: {what} index {i} out of range (the mesh has {limit})"
                    );
                    return Err(self.error(field, at, message));
                }
                corners.push(i);
            }
            faces.push(corners);
        }
        Ok(faces)
    }
}

impl<'a> Reader<'a> {
    fn fields<'o>(&self, obj: &'o Object, section: &'static str) -> Fields<'o, 'a> {
        Fields {
            obj,
            section,
            next: 0,
            source: self.source,
        }
    }

    /// The object's name, decoded.
    fn name(&self, obj: &Object) -> Result<String> {
        decode(&self.source, &obj.name, obj.name_at, "name")
    }

    fn frame(&self, obj: &Object) -> Result<Frame> {
        let mut frame = Frame {
            name: self.name(obj)?,
            transform: None,
            frames: Vec::new(),
            meshes: Vec::new(),
        };
        for child in &obj.children {
            let Child::Object(c) = child else {
                // A frame naming a mesh defined elsewhere: MMD's accessories do not do it.
                continue;
            };
            if c.is("FrameTransformMatrix") {
                let mut f = self.fields(c, "frame transform");
                frame.transform = Some(f.floats::<16>("matrix", "a matrix element")?);
            } else if c.is("Frame") {
                frame.frames.push(self.frame(c)?);
            } else if c.is("Mesh") {
                frame.meshes.push(self.mesh(c)?);
            }
        }
        Ok(frame)
    }

    fn mesh(&self, obj: &Object) -> Result<Mesh> {
        let mut f = self.fields(obj, "mesh");
        let n = f.count("vertex count", "the vertex count", 3)?;
        let mut positions = Vec::with_capacity(n);
        for _ in 0..n {
            positions.push(f.floats::<3>("vertices", "a vertex coordinate")?);
        }
        let nf = f.count("face count", "the face count", 1)?;
        let faces = f.faces("faces", nf, n, "vertex")?;
        let mut mesh = Mesh {
            name: self.name(obj)?,
            positions,
            faces,
            normals: None,
            uvs: None,
            colors: None,
            material_list: None,
        };
        for child in &obj.children {
            let Child::Object(c) = child else { continue };
            if c.is("MeshNormals") {
                mesh.normals = Some(self.normals(c)?);
            } else if c.is("MeshTextureCoords") {
                let mut t = self.fields(c, "texture coordinates");
                let count = t.count("count", "the coordinate count", 2)?;
                let mut uvs = Vec::with_capacity(count);
                for _ in 0..count {
                    uvs.push(t.floats::<2>("coordinates", "a texture coordinate")?);
                }
                mesh.uvs = Some(uvs);
            } else if c.is("MeshVertexColors") {
                let mut v = self.fields(c, "vertex colors");
                let count = v.count("count", "the colour count", 5)?;
                let mut colors = Vec::with_capacity(count);
                for _ in 0..count {
                    let at = v.offset();
                    let vertex = v.uint("vertex", "a vertex index")?;
                    if vertex as usize >= n {
                        let message =
                            format!("vertex index {vertex} out of range (the mesh has {n})");
                        return Err(v.error("vertex", at, message));
                    }
                    let color = v.floats::<4>("color", "a colour component")?;
                    colors.push(VertexColor { vertex, color });
                }
                mesh.colors = Some(colors);
            } else if c.is("MeshMaterialList") {
                mesh.material_list = Some(self.material_list(c)?);
            }
        }
        Ok(mesh)
    }

    fn normals(&self, obj: &Object) -> Result<MeshNormals> {
        let mut f = self.fields(obj, "normals");
        let n = f.count("normal count", "the normal count", 3)?;
        let mut normals = Vec::with_capacity(n);
        for _ in 0..n {
            normals.push(f.floats::<3>("normals", "a normal coordinate")?);
        }
        let nf = f.count("face count", "the face normal count", 1)?;
        let faces = f.faces("faces", nf, n, "normal")?;
        Ok(MeshNormals { normals, faces })
    }

    fn material_list(&self, obj: &Object) -> Result<MaterialList> {
        let mut f = self.fields(obj, "material list");
        let count_at = f.offset();
        let declared = f.uint("material count", "the material count")? as usize;
        let nf = f.count("face count", "the face index count", 1)?;
        let mut face_materials = Vec::with_capacity(nf);
        for _ in 0..nf {
            let at = f.offset();
            let i = f.uint("face materials", "a material index")?;
            if i as usize >= declared {
                let message = format!("material index {i} out of range ({declared} materials)");
                return Err(f.error("face materials", at, message));
            }
            face_materials.push(i);
        }
        let mut materials = Vec::new();
        for child in &obj.children {
            match child {
                Child::Object(c) if c.is("Material") => {
                    materials.push(MaterialSlot::Inline(self.material(c)?));
                }
                Child::Reference(name, at) => {
                    let name = decode(&self.source, name, *at, "reference")?;
                    materials.push(MaterialSlot::Reference(name));
                }
                Child::Object(_) => {}
            }
        }
        if materials.len() != declared {
            let message = format!(
                "the list declares {declared} materials and holds {}",
                materials.len()
            );
            return Err(f.error("material count", count_at, message));
        }
        Ok(MaterialList {
            face_materials,
            materials,
        })
    }

    fn material(&self, obj: &Object) -> Result<Material> {
        let mut f = self.fields(obj, "material");
        let face_color = f.floats::<4>("face color", "a face colour component")?;
        let power = f.float("power", "the specular power")?;
        let specular = f.floats::<3>("specular color", "a specular colour component")?;
        let emissive = f.floats::<3>("emissive color", "an emissive colour component")?;
        let mut texture = None;
        for child in &obj.children {
            if let Child::Object(c) = child
                && c.is("TextureFilename")
            {
                let mut t = self.fields(c, "texture filename");
                texture = Some(t.string("filename", "the texture file name")?);
            }
        }
        Ok(Material {
            name: self.name(obj)?,
            face_color,
            power,
            specular,
            emissive,
            texture,
        })
    }
}
