//! Models built in code for scene tests: a small stage and a hand microphone, as PMX. Shared
//! by the playback library's scene tests and the window's (`odori/tests/play.rs` includes
//! this file by path).

#![allow(dead_code)]

use glam::Vec3;
use odori_format::pmx::*;

/// A box of a model built in code: its corners and its material.
pub struct Block {
    pub min: [f32; 3],
    pub max: [f32; 3],
    pub material: usize,
}

/// A material of a model built in code: name, diffuse RGBA, ambient, flags.
pub fn material(name: &str, diffuse: [f32; 4], ambient: [f32; 3], flags: u8) -> Material {
    Material {
        diffuse,
        ambient,
        specular: [0.2; 3],
        specular_power: 20.0,
        flags,
        edge_size: 0.8,
        ..Material::new(name, 0)
    }
}

/// A one-bone model (`センター` at the origin) of boxes, each face with its own normal.
pub fn boxes(name: &str, materials: Vec<Material>, blocks: &[Block]) -> Pmx {
    let mut materials = materials;
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    for (k, m) in materials.iter_mut().enumerate() {
        let before = indices.len();
        for b in blocks.iter().filter(|b| b.material == k) {
            let (lo, hi) = (Vec3::from(b.min), Vec3::from(b.max));
            // Per face: the normal and two tangents spanning it.
            for (n, u, v) in [
                (Vec3::X, Vec3::Z, Vec3::Y),
                (Vec3::NEG_X, Vec3::Y, Vec3::Z),
                (Vec3::Y, Vec3::X, Vec3::Z),
                (Vec3::NEG_Y, Vec3::Z, Vec3::X),
                (Vec3::Z, Vec3::Y, Vec3::X),
                (Vec3::NEG_Z, Vec3::X, Vec3::Y),
            ] {
                let c = (lo + hi) * 0.5;
                let h = (hi - lo) * 0.5;
                let at = |a: f32, b: f32| c + n * h + u * h * a + v * h * b;
                let base = vertices.len() as u32;
                for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                    vertices.push(Vertex {
                        position: at(a, b).to_array(),
                        normal: n.to_array(),
                        uv: [0.0; 2],
                        additional_uvs: [[0.0; 4]; 4],
                        weights: Weights::Bdef1 { bone: 0 },
                        edge_scale: 1.0,
                    });
                }
                // MMD draws clockwise faces as front faces (left-handed): wind so the normal
                // side is the front.
                let ccw = u.cross(v).dot(n) > 0.0;
                let quad = if ccw {
                    [0, 2, 1, 0, 3, 2]
                } else {
                    [0, 1, 2, 0, 2, 3]
                };
                indices.extend(quad.map(|q| base + q));
            }
        }
        m.index_count = (indices.len() - before) as i32;
    }
    Pmx {
        header: Header {
            version: 2.0,
            encoding: TextEncoding::Utf16Le,
            additional_uvs: 0,
            vertex_index_size: 4,
            texture_index_size: 1,
            material_index_size: 1,
            bone_index_size: 1,
            morph_index_size: 1,
            rigid_body_index_size: 1,
            extra_globals: Vec::new(),
        },
        info: ModelInfo {
            name: name.into(),
            ..Default::default()
        },
        vertices,
        indices,
        textures: Vec::new(),
        materials,
        bones: vec![Bone {
            name: "センター".into(),
            name_en: String::new(),
            position: [0.0; 3],
            parent: -1,
            layer: 0,
            flags: bone_flags::ROTATABLE | bone_flags::VISIBLE | bone_flags::ENABLED,
            tail: BoneTail::Offset([0.0; 3]),
            append: None,
            fixed_axis: None,
            local_axes: None,
            external_parent: None,
            ik: None,
        }],
        morphs: Vec::new(),
        display_frames: Vec::new(),
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    }
}

pub const SHADOWED: u8 = material_flags::CAST_SELF_SHADOW | material_flags::RECEIVE_SELF_SHADOW;

/// A small stage: a checkered floor of two materials whose top is the ground (y = 0), a wall
/// behind the dancer (MMD's dancers face −Z, the camera), and two pillars.
pub fn stage() -> Pmx {
    let mut blocks = Vec::new();
    for i in -4..4 {
        for j in -4..4 {
            let (x, z) = (i as f32 * 5.0, j as f32 * 5.0);
            blocks.push(Block {
                min: [x, -1.0, z],
                max: [x + 5.0, 0.0, z + 5.0],
                material: ((i + j) & 1) as usize,
            });
        }
    }
    blocks.push(Block {
        min: [-20.0, 0.0, 20.0],
        max: [20.0, 24.0, 21.0],
        material: 2,
    });
    for x in [-14.0, 12.0] {
        blocks.push(Block {
            min: [x, 0.0, 8.0],
            max: [x + 2.0, 22.0, 10.0],
            material: 3,
        });
    }
    let materials = vec![
        material(
            "floor_light",
            [0.85, 0.82, 0.75, 1.0],
            [0.45, 0.43, 0.4],
            SHADOWED,
        ),
        material(
            "floor_dark",
            [0.35, 0.38, 0.5, 1.0],
            [0.2, 0.22, 0.3],
            SHADOWED,
        ),
        material("wall", [0.8, 0.7, 0.6, 1.0], [0.45, 0.38, 0.32], SHADOWED),
        material("pillar", [0.7, 0.25, 0.2, 1.0], [0.4, 0.12, 0.1], SHADOWED),
    ];
    boxes("stage", materials, &blocks)
}

/// A hand microphone along +Y: a dark handle 2.4 units long and a silver head, with edges.
pub fn microphone() -> Pmx {
    let flags = SHADOWED | material_flags::GROUND_SHADOW | material_flags::EDGE;
    let materials = vec![
        material("handle", [0.12, 0.12, 0.14, 1.0], [0.06, 0.06, 0.07], flags),
        material("head", [0.8, 0.82, 0.85, 1.0], [0.4, 0.41, 0.43], flags),
    ];
    let blocks = [
        Block {
            min: [-0.22, -1.2, -0.22],
            max: [0.22, 1.2, 0.22],
            material: 0,
        },
        Block {
            min: [-0.42, 1.2, -0.42],
            max: [0.42, 2.0, 0.42],
            material: 1,
        },
    ];
    boxes("microphone", materials, &blocks)
}
