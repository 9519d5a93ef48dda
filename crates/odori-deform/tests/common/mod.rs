//! Models built in code, so the deformation tests run without `../shared` and exercise what
//! the shared models do not: SDEF, QDEF, unnormalised and broken weights, UV and additional-UV
//! morphs, morphs across range boundaries.

#![allow(dead_code)]

pub mod arm;
#[cfg(feature = "gpu")]
pub mod gpu;

use glam::{Affine3A, Quat, Vec3};
use odori_format::pmx::*;

pub fn bone(name: &str, position: [f32; 3], parent: i32) -> Bone {
    Bone {
        name: name.into(),
        name_en: String::new(),
        position,
        parent,
        layer: 0,
        flags: bone_flags::ROTATABLE | bone_flags::VISIBLE | bone_flags::ENABLED,
        tail: BoneTail::Offset([0.0, 0.0, 0.0]),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

pub fn vertex(position: [f32; 3], normal: [f32; 3], uv: [f32; 2], weights: Weights) -> Vertex {
    Vertex {
        position,
        normal,
        uv,
        additional_uvs: [[0.0; 4]; 4],
        weights,
        edge_scale: 1.0,
    }
}

pub fn material(name: &str, index_count: i32) -> Material {
    Material {
        diffuse: [0.8, 0.7, 0.6, 1.0],
        ambient: [0.4, 0.35, 0.3],
        flags: material_flags::DOUBLE_SIDED,
        ..Material::new(name, index_count)
    }
}

pub fn pmx(
    bones: Vec<Bone>,
    vertices: Vec<Vertex>,
    indices: Vec<u32>,
    materials: Vec<Material>,
    morphs: Vec<Morph>,
    additional_uvs: u8,
) -> Pmx {
    Pmx {
        header: Header {
            version: 2.1,
            encoding: TextEncoding::Utf16Le,
            additional_uvs,
            vertex_index_size: 4,
            texture_index_size: 1,
            material_index_size: 1,
            bone_index_size: 2,
            morph_index_size: 1,
            rigid_body_index_size: 1,
            extra_globals: Vec::new(),
        },
        info: ModelInfo {
            name: "built in code".into(),
            ..Default::default()
        },
        vertices,
        indices,
        textures: Vec::new(),
        materials,
        bones,
        morphs,
        display_frames: Vec::new(),
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    }
}

/// A tiny deterministic generator (xorshift), so tests need no extra crate.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 32) as u32
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next_u32() as f32 / 4_294_967_296.0)
    }
    pub fn vec3(&mut self, r: f32) -> [f32; 3] {
        [self.range(-r, r), self.range(-r, r), self.range(-r, r)]
    }
    pub fn unit(&mut self) -> [f32; 3] {
        Vec3::from(self.vec3(1.0))
            .try_normalize()
            .unwrap_or(Vec3::Y)
            .to_array()
    }
}

pub const BONES: usize = 7;
pub const GRID_VERTICES: usize = 10_000;

/// Morph indices of [`every_weight_type`].
pub const MORPH_FACE: usize = 0;
pub const MORPH_WIDE: usize = 1;
pub const MORPH_GROUP: usize = 2;
pub const MORPH_UV: usize = 3;
pub const MORPH_UV1: usize = 4;
pub const MORPH_UV2: usize = 5;

/// 10,000 vertices on a chain of seven bones, cycling through every weight type and its
/// awkward cases: BDEF1; BDEF2; BDEF4 normalised, unnormalised, with −1 slots, with repeated
/// bones, with all-zero weights; SDEF; QDEF; a bone index past the end. Two additional UV
/// channels. Morphs: a vertex morph on a few vertices (one listed twice), a vertex morph
/// spanning every parallel range boundary, a group morph (deformation ignores it), a UV morph
/// and two additional-UV morphs.
pub fn every_weight_type() -> Pmx {
    let mut rng = Rng::new(7);
    let bones: Vec<Bone> = (0..BONES)
        .map(|i| bone(&format!("b{i}"), [0.0, 2.0 * i as f32, 0.0], i as i32 - 1))
        .collect();
    let mut vertices = Vec::with_capacity(GRID_VERTICES);
    for v in 0..GRID_VERTICES {
        let y = 14.0 * v as f32 / GRID_VERTICES as f32;
        let p = [rng.range(-2.0, 2.0), y, rng.range(-2.0, 2.0)];
        let b = ((y / 2.0) as i32).min(BONES as i32 - 2);
        let w = rng.range(0.0, 1.0);
        let weights = match v % 11 {
            0 => Weights::Bdef1 { bone: b },
            1 => Weights::Bdef2 {
                bones: [b, b + 1],
                weight: w,
            },
            2 => Weights::Bdef4 {
                bones: [b, b + 1, (b + 2) % BONES as i32, 0],
                weights: [0.4, 0.3, 0.2, 0.1],
            },
            3 => Weights::Bdef4 {
                bones: [b, b + 1, -1, -1],
                weights: [w * 0.5, 0.7, 0.0, 0.0], // sums to 0.7..1.2: renormalised
            },
            4 => Weights::Bdef4 {
                bones: [b, b, b + 1, 3],
                weights: [0.25, 0.25, 0.3, 0.2], // repeated bone
            },
            5 => Weights::Bdef4 {
                bones: [-1, b + 1, b, 2],
                weights: [0.0; 4], // all zero: first valid bone
            },
            6 | 7 => {
                let c = [0.0, 2.0 * (b + 1) as f32, 0.0];
                Weights::Sdef {
                    bones: [b, b + 1],
                    weight: w,
                    c,
                    r0: [0.0, c[1] - 1.0, 0.1],
                    r1: [0.0, c[1] + 1.0, -0.1],
                }
            }
            8 | 9 => Weights::Qdef {
                bones: [b, b + 1, (b + 3) % BONES as i32, -1],
                weights: [w * 0.6, (1.0 - w) * 0.6, 0.4, 0.0],
            },
            _ => Weights::Bdef2 {
                bones: [b, 99], // past the last bone: bone 0
                weight: w,
            },
        };
        let mut vx = vertex(
            p,
            rng.unit(),
            [rng.range(0.0, 1.0), rng.range(0.0, 1.0)],
            weights,
        );
        vx.additional_uvs[0] = [rng.range(0.0, 1.0), 0.5, 0.25, 1.0];
        vx.additional_uvs[1] = [0.0, rng.range(0.0, 1.0), 0.0, 0.0];
        vx.edge_scale = rng.range(0.0, 2.0);
        vertices.push(vx);
    }
    let mut indices = Vec::new();
    for t in 0..(GRID_VERTICES as u32 - 2) {
        indices.extend_from_slice(&[t, t + 1, t + 2]);
    }
    let split = (indices.len() / 3 / 2 * 3) as i32;
    let materials = vec![
        material("a", split),
        material("b", indices.len() as i32 - split),
    ];
    let face: Vec<VertexOffset> = [5, 17, 17, 300, 9_999]
        .iter()
        .map(|&v| VertexOffset {
            vertex: v,
            offset: rng.vec3(0.5),
        })
        .collect();
    let wide: Vec<VertexOffset> = (0..GRID_VERTICES as u32)
        .rev()
        .step_by(3)
        .map(|v| VertexOffset {
            vertex: v,
            offset: rng.vec3(0.2),
        })
        .collect();
    let uv = |channel: u8, rng: &mut Rng| MorphOffsets::Uv {
        channel,
        offsets: (0..GRID_VERTICES as u32)
            .step_by(7)
            .map(|v| UvOffset {
                vertex: v,
                offset: [rng.range(-0.1, 0.1), rng.range(-0.1, 0.1), 0.3, -0.2],
            })
            .collect(),
    };
    let morph = |name: &str, offsets| Morph {
        name: name.into(),
        name_en: String::new(),
        panel: 4,
        offsets,
    };
    let morphs = vec![
        morph("face", MorphOffsets::Vertex(face)),
        morph("wide", MorphOffsets::Vertex(wide)),
        morph(
            "group",
            MorphOffsets::Group(vec![GroupOffset {
                morph: 0,
                ratio: 1.0,
            }]),
        ),
        morph("uv", uv(0, &mut rng)),
        morph("uv1", uv(1, &mut rng)),
        morph("uv2", uv(2, &mut rng)),
    ];
    pmx(bones, vertices, indices, materials, morphs, 2)
}

/// Rigid skinning matrices for `count` bones: a random rotation and translation each.
pub fn random_pose(count: usize, seed: u64) -> Vec<Affine3A> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|_| {
            let axis = Vec3::from(rng.unit());
            let q = Quat::from_axis_angle(axis, rng.range(-2.5, 2.5));
            Affine3A::from_rotation_translation(q, Vec3::from(rng.vec3(3.0)))
        })
        .collect()
}

/// Largest absolute difference between two attribute arrays.
pub fn max_diff<const N: usize>(a: &[[f32; N]], b: &[[f32; N]]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f32::max)
}
