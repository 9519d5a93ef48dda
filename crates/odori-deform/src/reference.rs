//! The scalar reference: one vertex at a time, written to be read, not to be fast. Tests hold
//! the fast CPU path and the GPU path to it.
//!
//! It follows the textbook statements directly: vertex morphs are added to the rest position
//! in model space; a linear (BDEF) vertex is the weighted sum of the point transformed by each
//! bone; SDEF recomputes its midpoints from C, R0 and R1 on the spot; QDEF builds a dual
//! quaternion per bone. Normals take the rotation part and are renormalised.

use crate::Deformed;
use crate::Mesh;
use crate::math::rotation as quat;
use crate::mesh::morphs::weight;
use crate::mesh::{Kind, Skin};
use glam::{Affine3A, Mat3, Quat, Vec3};

/// Deform `mesh` one vertex at a time. Same inputs and outputs as [`crate::deform`].
pub fn deform_reference(
    mesh: &Mesh,
    skinning: &[Affine3A],
    morph_weights: &[f32],
    out: &mut Deformed,
) {
    out.prepare(mesh);
    let bones = crate::bones(mesh, skinning);
    let table = &mesh.morphs;

    // Vertex morphs: rest position plus each active morph's weighted offsets, in morph order.
    out.positions.copy_from_slice(&mesh.positions);
    for run in &table.vertex {
        let w = weight(morph_weights, run.morph);
        if w == 0.0 {
            continue;
        }
        for o in &table.vertex_offsets[run.start as usize..run.end as usize] {
            let p = &mut out.positions[o.vertex as usize];
            for (x, d) in p.iter_mut().zip(o.offset) {
                *x += w * d;
            }
        }
    }

    // Skinning, one vertex at a time.
    for v in 0..mesh.vertex_count() {
        let p = Vec3::from(out.positions[v]);
        let n = Vec3::from(mesh.normals[v]);
        let s = &mesh.skin[v];
        let (p, n) = match mesh.kinds[v] {
            Kind::Linear1 => linear(bones, s, 1, p, n),
            Kind::Linear2 => linear(bones, s, 2, p, n),
            Kind::Linear4 => linear(bones, s, 4, p, n),
            Kind::Sdef => sdef(bones, s, &mesh.sdef[s.bones[2] as usize], p, n),
            Kind::Qdef => qdef(bones, s, p, n),
        };
        out.positions[v] = p.to_array();
        out.normals[v] = n.normalize_or_zero().to_array();
    }

    // UV morphs: the main UV takes x and y of each offset; additional UVs take all four.
    out.uvs.copy_from_slice(&mesh.uvs);
    out.additional_uvs.copy_from_slice(&mesh.additional_uvs);
    let dirty = out.uv_dirty.get_or_insert([false; 5]);
    for (channel, runs) in table.uv.iter().enumerate() {
        dirty[channel] = table.uv_channel_active(channel, morph_weights);
        for run in runs {
            let w = weight(morph_weights, run.morph);
            if w == 0.0 {
                continue;
            }
            for o in &table.uv_offsets[run.start as usize..run.end as usize] {
                let v = o.vertex as usize;
                if channel == 0 {
                    out.uvs[v][0] += w * o.offset[0];
                    out.uvs[v][1] += w * o.offset[1];
                } else {
                    for k in 0..4 {
                        out.additional_uvs[v][channel - 1][k] += w * o.offset[k];
                    }
                }
            }
        }
    }
}

fn rotation(m: &Affine3A) -> Mat3 {
    Mat3::from(m.matrix3)
}

/// BDEF: Σ wᵢ·Mᵢ·p, and Σ wᵢ·Rᵢ·n.
fn linear(bones: &[Affine3A], s: &Skin, count: usize, p: Vec3, n: Vec3) -> (Vec3, Vec3) {
    let mut pos = Vec3::ZERO;
    let mut nrm = Vec3::ZERO;
    for i in 0..count {
        let m = &bones[s.bones[i] as usize];
        let w = s.weights[i];
        pos += w * m.transform_point3(p);
        nrm += w * (rotation(m) * n);
    }
    (pos, nrm)
}

/// SDEF (see `mesh::skin::sdef_terms` for the formulation and its source).
fn sdef(
    bones: &[Affine3A],
    s: &Skin,
    t: &crate::mesh::SdefTerms,
    p: Vec3,
    n: Vec3,
) -> (Vec3, Vec3) {
    let (m0, m1) = (&bones[s.bones[0] as usize], &bones[s.bones[1] as usize]);
    let (w0, w1) = (s.weights[0], s.weights[1]);
    let (c, r0, r1) = (Vec3::from(t.c), Vec3::from(t.r0), Vec3::from(t.r1));
    let rw = r0 * w0 + r1 * w1;
    let cr0 = (c + (c + r0 - rw)) * 0.5;
    let cr1 = (c + (c + r1 - rw)) * 0.5;
    // glam's slerp takes the shorter arc (it flips the end quaternion on a negative dot).
    let q = quat(m0).slerp(quat(m1), w1);
    let pos = q * (p - c) + w0 * m0.transform_point3(cr0) + w1 * m1.transform_point3(cr1);
    (pos, q * n)
}

/// QDEF: dual-quaternion linear blending. Each bone's rigid transform becomes a unit dual
/// quaternion (real part q, dual part ½·t·q); the blend is their weighted sum, with each
/// real part flipped onto the first one's hemisphere, divided by the real part's length.
fn qdef(bones: &[Affine3A], s: &Skin, p: Vec3, n: Vec3) -> (Vec3, Vec3) {
    let mut real = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut dual = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut pivot = None;
    for i in 0..4 {
        let w = s.weights[i];
        if w == 0.0 {
            continue;
        }
        let m = &bones[s.bones[i] as usize];
        let mut q = quat(m);
        let t = Vec3::from(m.translation);
        let first = *pivot.get_or_insert(q);
        if q.dot(first) < 0.0 {
            q = -q;
        }
        let d = Quat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
        real += q * w;
        dual += d * w;
    }
    let len = real.length();
    let (real, dual) = (real / len, dual / len);
    // Translation of a unit dual quaternion: t = 2·dual·conj(real), vector part.
    let r = Vec3::new(real.x, real.y, real.z);
    let d = Vec3::new(dual.x, dual.y, dual.z);
    let t = 2.0 * (real.w * d - dual.w * r + r.cross(d));
    (real * p + t, real * n)
}
