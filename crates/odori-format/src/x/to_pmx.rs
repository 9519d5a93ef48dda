//! A `.x` accessory as a static PMX model, so everything that draws models draws it.
//!
//! The model has one root bone, every vertex weighted to it (BDEF1), one PMX material per
//! material slot of each mesh (faces grouped by slot, as MMD draws an accessory material by
//! material), and no morphs or physics.
//!
//! **Units.** MMD draws an accessory ten times its `.x` size: one `.x` unit is ten MMD units
//! (nanoem, which follows MMD, gives every accessory the initial world matrix
//! `scale(10, 10, 10)`, `Accessory::kInitialWorldMatrix`). The positions here are multiplied
//! by [`ACCESSORY_SCALE`], so the model stands at the size MMD shows with the accessory's
//! own scale `Si` at 1; a caller applies `Si` and the accessory's position and rotation on
//! top. Axes are left as they are: MMD's `.x` accessories and its models share Direct3D's
//! left-handed axes.
//!
//! **Materials.** Diffuse is the `.x` face colour (alpha included), specular colour and
//! power as stored, and ambient is the emissive colour: an accessory material has no ambient
//! of its own, and MMD lights it with its emissive colour where a model's material uses its
//! ambient (nanoem's accessory-to-model conversion sets ambient from emissive the same way).
//! `TextureFilename` follows MMD's `texture*sphere` convention ([`super::texture`]);
//! texture names are kept as written, to be found beside the `.x` file. Accessories have no
//! toon ramp and no edge. They cast and receive self-shadow and cast ground shadow, except
//! that a diffuse alpha of exactly 0.98 turns casting off, MMD's rule for every material.
//!
//! Per-vertex colours (`MeshVertexColors`) are not drawn: PMX has no vertex colour and
//! MMD's default accessory shading does not use them either.

use super::texture::{SphereMode, split};
use super::{Material as XMaterial, MaterialSlot, Mesh, XFile};
use crate::pmx::{
    Bone, BoneTail, DisplayFrame, DisplayItem, Header, Material, ModelInfo, Pmx, Toon, Vertex,
    Weights, bone_flags, material_flags,
};
use std::collections::HashMap;

/// MMD units per `.x` unit for an accessory drawn at scale 1.
pub const ACCESSORY_SCALE: f32 = 10.0;

/// The static model MMD draws for `x`, named `name`, and what could not be kept as the
/// file says (one line each: a material reference to nothing, texture coordinates that do
/// not match the vertices, ...).
pub fn to_pmx(x: &XFile, name: &str) -> (Pmx, Vec<String>) {
    let mut b = Builder::default();
    for (mesh_index, (mesh, transform)) in x.meshes_with_transforms().into_iter().enumerate() {
        b.mesh(x, mesh_index, mesh, transform.as_ref());
    }
    let pmx = Pmx {
        header: Header::wide(),
        info: ModelInfo {
            name: name.to_string(),
            name_en: name.to_string(),
            comment: "A DirectX .x accessory as a static model.".into(),
            comment_en: String::new(),
        },
        vertices: b.vertices,
        indices: b.indices,
        textures: b.textures,
        materials: b.materials,
        bones: vec![root_bone()],
        morphs: Vec::new(),
        display_frames: vec![
            DisplayFrame {
                name: "Root".into(),
                name_en: "Root".into(),
                special: 1,
                items: vec![DisplayItem::Bone(0)],
            },
            DisplayFrame {
                name: "表情".into(),
                name_en: "Exp".into(),
                special: 1,
                items: Vec::new(),
            },
        ],
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    };
    (pmx, b.warnings)
}

/// The one bone every vertex follows.
fn root_bone() -> Bone {
    Bone {
        name: "root".into(),
        name_en: "root".into(),
        position: [0.0; 3],
        parent: -1,
        layer: 0,
        flags: bone_flags::ROTATABLE
            | bone_flags::TRANSLATABLE
            | bone_flags::VISIBLE
            | bone_flags::ENABLED,
        tail: BoneTail::Offset([0.0, 1.0, 0.0]),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

#[derive(Default)]
struct Builder {
    vertices: Vec<Vertex>,
    indices: Vec<u32>,
    textures: Vec<String>,
    materials: Vec<Material>,
    warnings: Vec<String>,
}

/// The material D3D gives faces without a material list: opaque white, nothing else.
fn default_material() -> XMaterial {
    XMaterial {
        name: String::new(),
        face_color: [1.0; 4],
        power: 0.0,
        specular: [0.0; 3],
        emissive: [0.0; 3],
        texture: None,
    }
}

/// `[v, w] * m` for a row-major matrix and a row vector.
fn transform(m: Option<&[f32; 16]>, v: [f32; 3], w: f32) -> [f32; 3] {
    let Some(m) = m else { return v };
    let mut out = [0.0; 3];
    for (c, o) in out.iter_mut().enumerate() {
        *o = v[0] * m[c] + v[1] * m[4 + c] + v[2] * m[8 + c] + w * m[12 + c];
    }
    out
}

fn normalize(v: [f32; 3]) -> [f32; 3] {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if len > 0.0 && len.is_finite() {
        v.map(|c| c / len)
    } else {
        [0.0; 3]
    }
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Per-position normals from the faces (area-weighted sums), for a mesh without usable
/// `MeshNormals`. Direct3D's faces wind clockwise seen from the front, so the front normal
/// is `(b - a) × (c - a)` in its left-handed axes.
fn smooth_normals(mesh: &Mesh) -> Vec<[f32; 3]> {
    let mut sums = vec![[0.0f32; 3]; mesh.positions.len()];
    for face in &mesh.faces {
        for k in 1..face.len().saturating_sub(1) {
            let [a, b, c] = [face[0], face[k], face[k + 1]].map(|i| i as usize);
            let p = |i: usize| mesh.positions[i];
            let n = cross(sub(p(b), p(a)), sub(p(c), p(a)));
            for i in [a, b, c] {
                for (s, v) in sums[i].iter_mut().zip(n) {
                    *s += v;
                }
            }
        }
    }
    sums.into_iter().map(normalize).collect()
}

impl Builder {
    fn mesh(&mut self, x: &XFile, index: usize, mesh: &Mesh, m: Option<&[f32; 16]>) {
        let label = if mesh.name.is_empty() {
            format!("mesh {index}")
        } else {
            format!("mesh {index} `{}`", mesh.name)
        };
        // Per-corner normals when MeshNormals matches the faces corner for corner.
        let normals = mesh.normals.as_ref().filter(|n| {
            n.faces.len() == mesh.faces.len()
                && n.faces
                    .iter()
                    .zip(&mesh.faces)
                    .all(|(a, b)| a.len() == b.len())
        });
        if mesh.normals.is_some() && normals.is_none() {
            self.warnings.push(format!(
                "{label}: its normals do not match its faces; normals computed from the faces"
            ));
        }
        let smooth = if normals.is_none() {
            smooth_normals(mesh)
        } else {
            Vec::new()
        };
        let uvs = mesh
            .uvs
            .as_ref()
            .filter(|uv| uv.len() == mesh.positions.len());
        if mesh.uvs.is_some() && uvs.is_none() {
            self.warnings.push(format!(
                "{label}: {} texture coordinates for {} vertices; coordinates dropped",
                mesh.uvs.as_ref().map_or(0, Vec::len),
                mesh.positions.len()
            ));
        }

        // Materials of this mesh, each with its triangles.
        let slots: Vec<XMaterial> = match &mesh.material_list {
            Some(list) => list
                .materials
                .iter()
                .map(|slot| match slot {
                    MaterialSlot::Inline(mat) => mat.clone(),
                    MaterialSlot::Reference(name) => {
                        x.materials.iter().find(|mat| &mat.name == name).cloned()
                            .unwrap_or_else(|| {
                                self.warnings.push(format!(
                                    "{label}: material reference `{name}` names no material; drawn white"
                                ));
                                default_material()
                            })
                    }
                })
                .collect(),
            None => vec![default_material()],
        };
        let slots = if slots.is_empty() {
            vec![default_material()]
        } else {
            slots
        };
        let face_materials = mesh
            .material_list
            .as_ref()
            .map_or(&[][..], |l| &l.face_materials[..]);
        let mut triangles: Vec<Vec<u32>> = vec![Vec::new(); slots.len()];
        let mut corner_vertex: HashMap<(u32, u32), u32> = HashMap::new();
        let mut skipped = 0usize;
        for (f, face) in mesh.faces.iter().enumerate() {
            if face.len() < 3 {
                skipped += 1;
                continue;
            }
            // The reader checked every index against its material count.
            let slot = face_materials
                .get(f)
                .or(face_materials.last())
                .map_or(0, |&i| i as usize)
                .min(slots.len() - 1);
            let mut corner = |k: usize| -> u32 {
                let p = face[k];
                let n = normals.map_or(u32::MAX, |n| n.faces[f][k]);
                *corner_vertex.entry((p, n)).or_insert_with(|| {
                    let position = mesh.positions[p as usize];
                    let normal = match normals {
                        Some(ns) => ns.normals[n as usize],
                        None => smooth[p as usize],
                    };
                    let uv = uvs.map_or([0.0; 2], |uv| uv[p as usize]);
                    let world = transform(m, position, 1.0).map(|c| c * ACCESSORY_SCALE);
                    self.vertices.push(Vertex {
                        position: world,
                        normal: normalize(transform(m, normal, 0.0)),
                        uv,
                        additional_uvs: [[0.0; 4]; 4],
                        weights: Weights::Bdef1 { bone: 0 },
                        edge_scale: 1.0,
                    });
                    (self.vertices.len() - 1) as u32
                })
            };
            // A polygon is drawn as a fan from its first corner.
            let first = corner(0);
            for k in 1..face.len() - 1 {
                let (b, c) = (corner(k), corner(k + 1));
                triangles[slot].extend([first, b, c]);
            }
        }
        if skipped > 0 {
            self.warnings.push(format!(
                "{label}: {skipped} faces with fewer than 3 corners skipped"
            ));
        }
        for (k, (mat, tris)) in slots.iter().zip(triangles).enumerate() {
            let material = self.material(mat, &label, k, tris.len());
            self.materials.push(material);
            self.indices.extend(tris);
        }
    }

    fn texture_index(&mut self, name: &str) -> i32 {
        let i = match self.textures.iter().position(|t| t == name) {
            Some(i) => i,
            None => {
                self.textures.push(name.to_string());
                self.textures.len() - 1
            }
        };
        i as i32
    }

    fn material(&mut self, x: &XMaterial, mesh: &str, slot: usize, indices: usize) -> Material {
        let name = if x.name.is_empty() {
            format!("{mesh} material {slot}")
        } else {
            x.name.clone()
        };
        let mut m = Material::new(&name, indices as i32);
        m.diffuse = x.face_color;
        m.specular = x.specular;
        m.specular_power = x.power;
        m.ambient = x.emissive;
        m.edge_size = 0.0;
        m.toon = Toon::Texture(-1);
        m.flags = material_flags::GROUND_SHADOW | material_flags::RECEIVE_SELF_SHADOW;
        if x.face_color[3] != 0.98 {
            m.flags |= material_flags::CAST_SELF_SHADOW;
        }
        if let Some(file) = &x.texture {
            let names = split(file);
            if let Some(t) = &names.texture {
                m.texture = self.texture_index(t);
            }
            if let Some((s, mode)) = &names.sphere {
                m.sphere_texture = self.texture_index(s);
                m.sphere_mode = match mode {
                    SphereMode::Multiply => 1,
                    SphereMode::Add => 2,
                };
            }
        }
        m
    }
}
