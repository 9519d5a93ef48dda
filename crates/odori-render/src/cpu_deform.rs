//! TEMPORARY (branch `render` only): a minimal CPU skinning path so the renderer can be built
//! and tested before `odori-deform` lands. Linear blend skinning only (SDEF and QDEF are
//! treated as BDEF2 / BDEF4), vertex and main-UV morphs. Replace every use with
//! `odori_deform::{Mesh, Deformed, deform}` (or `gpu::GpuSkinner`) once it is on main.

use glam::{Affine3A, Vec2, Vec3A};
use odori_format::pmx::Weights;
use odori_format::{Pmd, Pmx};
use odori_pose::Model;
use odori_pose::model::MorphKind;

/// Rest data with up to four influences per vertex.
pub struct Mesh {
    positions: Vec<Vec3A>,
    normals: Vec<Vec3A>,
    uvs: Vec<Vec2>,
    bones: Vec<[u32; 4]>,
    weights: Vec<[f32; 4]>,
}

/// Deformed vertex streams (the subset of `odori_deform::Deformed` the renderer reads).
#[derive(Default, Clone)]
pub struct Deformed {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
}

impl Mesh {
    pub fn from_pmx(pmx: &Pmx) -> Mesh {
        let n = pmx.bones.len() as i32;
        let b = |i: i32| if (0..n).contains(&i) { i as u32 } else { 0 };
        let mut m = Mesh::empty();
        for v in &pmx.vertices {
            m.positions.push(v.position.into());
            m.normals.push(v.normal.into());
            m.uvs.push(v.uv.into());
            let (bs, ws) = match v.weights {
                Weights::Bdef1 { bone } => ([b(bone), 0, 0, 0], [1.0, 0.0, 0.0, 0.0]),
                Weights::Bdef2 { bones, weight } | Weights::Sdef { bones, weight, .. } => (
                    [b(bones[0]), b(bones[1]), 0, 0],
                    [weight, 1.0 - weight, 0.0, 0.0],
                ),
                Weights::Bdef4 { bones, weights } | Weights::Qdef { bones, weights } => {
                    let s: f32 = weights.iter().sum();
                    let s = if s > 1e-6 { s } else { 1.0 };
                    (bones.map(b), weights.map(|w| w / s))
                }
            };
            m.bones.push(bs);
            m.weights.push(ws);
        }
        m
    }

    pub fn from_pmd(pmd: &Pmd) -> Mesh {
        let n = pmd.bones.len() as u32;
        let b = |i: u16| if (i as u32) < n { i as u32 } else { 0 };
        let mut m = Mesh::empty();
        for v in &pmd.vertices {
            m.positions.push(v.position.into());
            m.normals.push(v.normal.into());
            m.uvs.push(v.uv.into());
            let w = v.weight.min(100) as f32 / 100.0;
            m.bones.push([b(v.bones[0]), b(v.bones[1]), 0, 0]);
            m.weights.push([w, 1.0 - w, 0.0, 0.0]);
        }
        m
    }

    fn empty() -> Mesh {
        Mesh {
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            bones: Vec::new(),
            weights: Vec::new(),
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
}

/// Skin `mesh` with `skinning` after applying the model's vertex and UV morphs at `weights`.
pub fn deform(
    mesh: &Mesh,
    model: &Model,
    skinning: &[Affine3A],
    weights: &[f32],
    out: &mut Deformed,
) {
    let n = mesh.vertex_count();
    let mut pos = mesh.positions.clone();
    let mut uvs = mesh.uvs.clone();
    for (morph, &w) in model.morphs.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        match &morph.kind {
            MorphKind::Vertex(offsets) => {
                for &(v, d) in offsets {
                    if let Some(p) = pos.get_mut(v as usize) {
                        *p += d * w;
                    }
                }
            }
            MorphKind::Uv(0, offsets) => {
                for &(v, d) in offsets {
                    if let Some(t) = uvs.get_mut(v as usize) {
                        *t += glam::Vec2::new(d.x, d.y) * w;
                    }
                }
            }
            _ => {}
        }
    }
    out.positions.resize(n, [0.0; 3]);
    out.normals.resize(n, [0.0; 3]);
    out.uvs.resize(n, [0.0; 2]);
    for i in 0..n {
        let mut p = Vec3A::ZERO;
        let mut nn = Vec3A::ZERO;
        for k in 0..4 {
            let w = mesh.weights[i][k];
            if w == 0.0 {
                continue;
            }
            let m = skinning
                .get(mesh.bones[i][k] as usize)
                .copied()
                .unwrap_or(Affine3A::IDENTITY);
            p += m.transform_point3a(pos[i]) * w;
            nn += m.transform_vector3a(mesh.normals[i]) * w;
        }
        out.positions[i] = p.into();
        out.normals[i] = nn.normalize_or_zero().into();
        out.uvs[i] = uvs[i].into();
    }
}
