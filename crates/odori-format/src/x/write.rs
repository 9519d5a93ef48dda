//! The writer: text (DirectX's own separators, so other readers take it too) or binary
//! tokens, uncompressed. One walk over the file drives either encoding through [`Emit`].
//!
//! Reading what was written gives back an equal [`XFile`] (numbers in text are MMD's six
//! decimals when exact, else the shortest form that reads back to the same float).

use super::binary::{CLOSE, FLOAT_LIST, INTEGER_LIST, NAME, OPEN, SEMICOLON, STRING};
use super::header::{Encoding, FloatSize, Header};
use super::lex::error_at;
use super::text::is_identifier;
use super::{Frame, Material, MaterialList, MaterialSlot, Mesh, MeshNormals, XFile};
use crate::error::{ErrorKind, Result};
use crate::sjis::encode_sjis;
use crate::vpd::write::num;

/// Write `file` in its header's encoding; a compressed header is written uncompressed
/// (text for `tzip`, binary for `bzip`), the header saying so.
pub fn write(file: &XFile) -> Result<Vec<u8>> {
    if file.header.encoding.is_binary() {
        write_binary(file, file.header.float_size)
    } else {
        write_text(file)
    }
}

/// Write `file` as text. Names must be identifiers and strings must not hold `"`: text has
/// no way to write them otherwise.
pub fn write_text(file: &XFile) -> Result<Vec<u8>> {
    let header = Header {
        encoding: Encoding::Text,
        ..file.header
    };
    let mut e = Text {
        out: header.bytes().to_vec(),
        indent: 0,
    };
    e.out.extend_from_slice(b"\r\n");
    walk(file, &mut e)?;
    Ok(e.out)
}

/// Write `file` as binary tokens with floats of `float_size`.
pub fn write_binary(file: &XFile, float_size: FloatSize) -> Result<Vec<u8>> {
    let header = Header {
        encoding: Encoding::Binary,
        float_size,
        ..file.header
    };
    let mut e = Binary {
        out: header.bytes().to_vec(),
        f64: float_size == FloatSize::F64,
        ints: Vec::new(),
        floats: Vec::new(),
    };
    walk(file, &mut e)?;
    e.flush();
    Ok(e.out)
}

/// What the walk says; each encoding writes it its way.
trait Emit {
    fn open(&mut self, kind: &str, name: &str) -> Result<()>;
    fn close(&mut self);
    fn int(&mut self, v: u32);
    fn float(&mut self, v: f32);
    /// A separator: text writes it, binary drops it.
    fn sep(&mut self, s: &str);
    fn string(&mut self, s: &str) -> Result<()>;
    fn reference(&mut self, name: &str) -> Result<()>;
}

fn walk(file: &XFile, e: &mut dyn Emit) -> Result<()> {
    for m in &file.materials {
        material(m, e)?;
    }
    for f in &file.frames {
        frame(f, e)?;
    }
    for m in &file.meshes {
        mesh(m, e)?;
    }
    Ok(())
}

fn frame(f: &Frame, e: &mut dyn Emit) -> Result<()> {
    e.open("Frame", &f.name)?;
    if let Some(m) = &f.transform {
        e.open("FrameTransformMatrix", "")?;
        for (i, v) in m.iter().enumerate() {
            e.float(*v);
            e.sep(if i == 15 { ";;" } else { "," });
        }
        e.close();
    }
    for m in &f.meshes {
        mesh(m, e)?;
    }
    for c in &f.frames {
        frame(c, e)?;
    }
    e.close();
    Ok(())
}

/// `count;` then each item, `,` between them and `;` after the last.
fn array<T>(e: &mut dyn Emit, items: &[T], mut item: impl FnMut(&mut dyn Emit, &T)) {
    e.int(items.len() as u32);
    e.sep(";\r\n");
    for (i, it) in items.iter().enumerate() {
        item(e, it);
        e.sep(if i + 1 == items.len() {
            ";\r\n"
        } else {
            ",\r\n"
        });
    }
}

fn vector(e: &mut dyn Emit, v: &[f32]) {
    for x in v {
        e.float(*x);
        e.sep(";");
    }
}

fn faces(e: &mut dyn Emit, faces: &[Vec<u32>]) {
    array(e, faces, |e, face| {
        e.int(face.len() as u32);
        e.sep(";");
        for (i, v) in face.iter().enumerate() {
            e.int(*v);
            e.sep(if i + 1 == face.len() { ";" } else { "," });
        }
    });
}

fn mesh(m: &Mesh, e: &mut dyn Emit) -> Result<()> {
    e.open("Mesh", &m.name)?;
    array(e, &m.positions, |e, p| vector(e, p));
    faces(e, &m.faces);
    if let Some(n) = &m.normals {
        normals(n, e)?;
    }
    if let Some(uvs) = &m.uvs {
        e.open("MeshTextureCoords", "")?;
        array(e, uvs, |e, uv| vector(e, uv));
        e.close();
    }
    if let Some(colors) = &m.colors {
        e.open("MeshVertexColors", "")?;
        array(e, colors, |e, c| {
            e.int(c.vertex);
            e.sep(";");
            vector(e, &c.color);
            e.sep(";");
        });
        e.close();
    }
    if let Some(list) = &m.material_list {
        material_list(list, e)?;
    }
    e.close();
    Ok(())
}

fn normals(n: &MeshNormals, e: &mut dyn Emit) -> Result<()> {
    e.open("MeshNormals", "")?;
    array(e, &n.normals, |e, v| vector(e, v));
    faces(e, &n.faces);
    e.close();
    Ok(())
}

fn material_list(list: &MaterialList, e: &mut dyn Emit) -> Result<()> {
    e.open("MeshMaterialList", "")?;
    e.int(list.materials.len() as u32);
    e.sep(";\r\n");
    array(e, &list.face_materials, |e, i| e.int(*i));
    for slot in &list.materials {
        match slot {
            MaterialSlot::Inline(m) => material(m, e)?,
            MaterialSlot::Reference(name) => e.reference(name)?,
        }
    }
    e.close();
    Ok(())
}

fn material(m: &Material, e: &mut dyn Emit) -> Result<()> {
    e.open("Material", &m.name)?;
    vector(e, &m.face_color);
    e.sep(";\r\n");
    e.float(m.power);
    e.sep(";\r\n");
    vector(e, &m.specular);
    e.sep(";\r\n");
    vector(e, &m.emissive);
    e.sep(";\r\n");
    if let Some(t) = &m.texture {
        e.open("TextureFilename", "")?;
        e.string(t)?;
        e.close();
    }
    e.close();
    Ok(())
}

fn unwritable(what: &'static str, text: &str) -> crate::FormatError {
    error_at(
        "writer",
        what,
        0,
        ErrorKind::Unwritable(format!("{what} {text:?} cannot be written as .x text")),
    )
}

struct Text {
    out: Vec<u8>,
    indent: usize,
}

impl Text {
    fn line_start(&mut self) {
        if self.out.last() == Some(&b'\n') {
            self.out.extend(std::iter::repeat_n(b' ', self.indent * 2));
        }
    }

    /// A name the text lexer reads back as one identifier.
    fn name(&mut self, name: &str) -> Result<()> {
        let bytes = encode_sjis(name);
        if !is_identifier(&bytes) {
            return Err(unwritable("name", name));
        }
        self.out.extend_from_slice(&bytes);
        Ok(())
    }
}

impl Emit for Text {
    fn open(&mut self, kind: &str, name: &str) -> Result<()> {
        self.line_start();
        self.name(kind)?;
        if !name.is_empty() {
            self.out.push(b' ');
            self.name(name)?;
        }
        self.out.extend_from_slice(b" {\r\n");
        self.indent += 1;
        Ok(())
    }

    fn close(&mut self) {
        self.indent = self.indent.saturating_sub(1);
        if self.out.last() != Some(&b'\n') {
            self.out.extend_from_slice(b"\r\n");
        }
        self.line_start();
        self.out.extend_from_slice(b"}\r\n");
    }

    fn int(&mut self, v: u32) {
        self.line_start();
        self.out.extend_from_slice(v.to_string().as_bytes());
    }

    fn float(&mut self, v: f32) {
        self.line_start();
        self.out.extend_from_slice(num(v).as_bytes());
    }

    fn sep(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    fn string(&mut self, s: &str) -> Result<()> {
        if s.contains('"') {
            return Err(unwritable("string", s));
        }
        self.line_start();
        self.out.push(b'"');
        self.out.extend_from_slice(&encode_sjis(s));
        self.out.extend_from_slice(b"\";\r\n");
        Ok(())
    }

    fn reference(&mut self, name: &str) -> Result<()> {
        self.line_start();
        self.out.extend_from_slice(b"{ ");
        self.name(name)?;
        self.out.extend_from_slice(b" }\r\n");
        Ok(())
    }
}

/// Binary tokens; runs of numbers are gathered into one integer or float list.
struct Binary {
    out: Vec<u8>,
    f64: bool,
    ints: Vec<u32>,
    floats: Vec<f32>,
}

impl Binary {
    fn token(&mut self, code: u16) {
        self.out.extend_from_slice(&code.to_le_bytes());
    }

    fn counted(&mut self, code: u16, bytes: &[u8]) {
        self.flush();
        self.token(code);
        self.out
            .extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        self.out.extend_from_slice(bytes);
    }

    /// Write the pending number list.
    fn flush(&mut self) {
        if !self.ints.is_empty() {
            let ints = std::mem::take(&mut self.ints);
            self.token(INTEGER_LIST);
            self.out
                .extend_from_slice(&(ints.len() as u32).to_le_bytes());
            for v in ints {
                self.out.extend_from_slice(&v.to_le_bytes());
            }
        }
        if !self.floats.is_empty() {
            let floats = std::mem::take(&mut self.floats);
            self.token(FLOAT_LIST);
            self.out
                .extend_from_slice(&(floats.len() as u32).to_le_bytes());
            for v in floats {
                if self.f64 {
                    self.out.extend_from_slice(&f64::from(v).to_le_bytes());
                } else {
                    self.out.extend_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
}

impl Emit for Binary {
    fn open(&mut self, kind: &str, name: &str) -> Result<()> {
        self.counted(NAME, &encode_sjis(kind));
        if !name.is_empty() {
            self.counted(NAME, &encode_sjis(name));
        }
        self.token(OPEN);
        Ok(())
    }

    fn close(&mut self) {
        self.flush();
        self.token(CLOSE);
    }

    fn int(&mut self, v: u32) {
        if !self.floats.is_empty() {
            self.flush();
        }
        self.ints.push(v);
    }

    fn float(&mut self, v: f32) {
        if !self.ints.is_empty() {
            self.flush();
        }
        self.floats.push(v);
    }

    fn sep(&mut self, _: &str) {}

    fn string(&mut self, s: &str) -> Result<()> {
        self.counted(STRING, &encode_sjis(s));
        self.token(SEMICOLON);
        Ok(())
    }

    fn reference(&mut self, name: &str) -> Result<()> {
        self.flush();
        self.token(OPEN);
        self.counted(NAME, &encode_sjis(name));
        self.token(CLOSE);
        Ok(())
    }
}
