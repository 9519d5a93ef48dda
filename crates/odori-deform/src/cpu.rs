//! The fast CPU path: vertex ranges in parallel (rayon), each vertex with SIMD vector math
//! (glam's SSE2 `Vec3A`/`Affine3A`), writing into the caller's buffers without allocating.
//!
//! Per range of [`CHUNK`] vertices: if an active vertex morph touches the range, the rest
//! positions are copied into the output and the morph offsets (found by binary search in the
//! CSR tables) added there, and skinning then runs in place; otherwise skinning reads the rest
//! positions directly. Linear vertices blend their 1, 2 or 4 matrices first and transform
//! once (cheaper than transforming by each bone when normals are wanted too). UV channels are
//! rewritten only when a morph on them is active now or was last frame.

use crate::math::{rotation as quat, slerp};
use crate::mesh::morphs::weight;
use crate::mesh::{Kind, SdefTerms, Skin};
use crate::{Deformed, Mesh};
use glam::{Affine3A, Mat3A, Quat, Vec3A, Vec4};
use rayon::prelude::*;
use std::ops::Range;

/// Vertices per parallel task: 24 KiB of positions, small enough to stay in L1/L2 between
/// the morph and skinning steps, large enough that rayon's per-task cost is noise.
pub(crate) const CHUNK: usize = 2048;

/// Below this many vertices the work runs on the calling thread: waking the pool costs more
/// than it saves.
const PARALLEL_MIN: usize = 2 * CHUNK;

/// Deform `mesh` with the bones' skinning matrices (world × inverse bind, indexed by file bone
/// index) and morph weights (indexed like the model's morphs; missing weights count as 0)
/// into `out`. `out` is sized on first use; after that nothing is allocated.
///
/// # Panics
/// When `skinning` has fewer matrices than the mesh has bones.
pub fn deform(mesh: &Mesh, skinning: &[Affine3A], morph_weights: &[f32], out: &mut Deformed) {
    out.prepare(mesh);
    let bones = crate::bones(mesh, skinning);
    let n = mesh.vertex_count();
    let parallel = n >= PARALLEL_MIN;

    let task = |(c, (pos, nrm)): (usize, (&mut [[f32; 3]], &mut [[f32; 3]]))| {
        skin_range(mesh, bones, morph_weights, c * CHUNK, pos, nrm);
    };
    let positions = out.positions.as_mut_slice();
    let normals = out.normals.as_mut_slice();
    if parallel {
        positions
            .par_chunks_mut(CHUNK)
            .zip(normals.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(task);
    } else {
        positions
            .chunks_mut(CHUNK)
            .zip(normals.chunks_mut(CHUNK))
            .enumerate()
            .for_each(task);
    }

    let dirty = out.uv_dirty.get_or_insert([false; 5]);
    for (channel, was_dirty) in dirty.iter_mut().enumerate() {
        let active = mesh.morphs.uv_channel_active(channel, morph_weights);
        if !active && !*was_dirty {
            continue;
        }
        *was_dirty = active;
        if channel == 0 {
            let task = |(c, uv): (usize, &mut [[f32; 2]])| {
                uv_range(mesh, morph_weights, c * CHUNK, uv);
            };
            if parallel {
                out.uvs.par_chunks_mut(CHUNK).enumerate().for_each(task);
            } else {
                out.uvs.chunks_mut(CHUNK).enumerate().for_each(task);
            }
        } else {
            let task = |(c, uv): (usize, &mut [[[f32; 4]; 4]])| {
                additional_uv_range(mesh, morph_weights, channel, c * CHUNK, uv);
            };
            if parallel {
                out.additional_uvs
                    .par_chunks_mut(CHUNK)
                    .enumerate()
                    .for_each(task);
            } else {
                out.additional_uvs
                    .chunks_mut(CHUNK)
                    .enumerate()
                    .for_each(task);
            }
        }
    }
}

/// Morph and skin vertices `start..start + pos.len()`.
fn skin_range(
    mesh: &Mesh,
    bones: &[Affine3A],
    weights: &[f32],
    start: usize,
    pos: &mut [[f32; 3]],
    nrm: &mut [[f32; 3]],
) {
    let range = start..start + pos.len();
    let vertices = range.start as u32..range.end as u32;
    let table = &mesh.morphs;
    let morphed = table.vertex.iter().any(|run| {
        weight(weights, run.morph) != 0.0 && !table.vertex_run_in(run, &vertices).is_empty()
    });
    let ctx = Ctx {
        bones,
        kinds: &mesh.kinds[range.clone()],
        skin: &mesh.skin[range.clone()],
        normals: &mesh.normals[range.clone()],
        sdef: &mesh.sdef,
    };
    if morphed {
        pos.copy_from_slice(&mesh.positions[range]);
        for run in &table.vertex {
            let w = weight(weights, run.morph);
            if w == 0.0 {
                continue;
            }
            for o in table.vertex_run_in(run, &vertices) {
                let p = &mut pos[o.vertex as usize - start];
                for k in 0..3 {
                    p[k] += w * o.offset[k];
                }
            }
        }
        skin::<true>(&ctx, &[], pos, nrm);
    } else {
        skin::<false>(&ctx, &mesh.positions[range], pos, nrm);
    }
}

/// One range's inputs.
struct Ctx<'a> {
    bones: &'a [Affine3A],
    kinds: &'a [Kind],
    skin: &'a [Skin],
    normals: &'a [[f32; 3]],
    sdef: &'a [SdefTerms],
}

/// Skin one range. `IN_PLACE`: the (morphed) input positions are already in `pos`;
/// otherwise they are read from `rest`.
#[inline(always)]
fn skin<const IN_PLACE: bool>(
    ctx: &Ctx,
    rest: &[[f32; 3]],
    pos: &mut [[f32; 3]],
    nrm: &mut [[f32; 3]],
) {
    let len = pos.len();
    let (kinds, skins, normals) = (&ctx.kinds[..len], &ctx.skin[..len], &ctx.normals[..len]);
    let rest = if IN_PLACE { rest } else { &rest[..len] };
    let nrm = &mut nrm[..len];
    for i in 0..len {
        let p = Vec3A::from_array(if IN_PLACE { pos[i] } else { rest[i] });
        let n = Vec3A::from_array(normals[i]);
        let s = &skins[i];
        let (p, n) = match kinds[i] {
            Kind::Linear1 => {
                let m = &ctx.bones[s.bones[0] as usize];
                (m.transform_point3a(p), m.matrix3 * n)
            }
            Kind::Linear2 => {
                let m = blend2(ctx.bones, s);
                (m.transform_point3a(p), m.matrix3 * n)
            }
            Kind::Linear4 => {
                let m = blend4(ctx.bones, s);
                (m.transform_point3a(p), m.matrix3 * n)
            }
            Kind::Sdef => sdef(ctx.bones, s, &ctx.sdef[s.bones[2] as usize], p, n),
            Kind::Qdef => qdef(ctx.bones, s, p, n),
        };
        pos[i] = p.to_array();
        nrm[i] = n.normalize_or_zero().to_array();
    }
}

#[inline(always)]
fn blend2(bones: &[Affine3A], s: &Skin) -> Affine3A {
    let (a, b) = (&bones[s.bones[0] as usize], &bones[s.bones[1] as usize]);
    let (wa, wb) = (s.weights[0], s.weights[1]);
    Affine3A {
        matrix3: Mat3A::from_cols(
            a.matrix3.x_axis * wa + b.matrix3.x_axis * wb,
            a.matrix3.y_axis * wa + b.matrix3.y_axis * wb,
            a.matrix3.z_axis * wa + b.matrix3.z_axis * wb,
        ),
        translation: a.translation * wa + b.translation * wb,
    }
}

#[inline(always)]
fn blend4(bones: &[Affine3A], s: &Skin) -> Affine3A {
    let m = [
        &bones[s.bones[0] as usize],
        &bones[s.bones[1] as usize],
        &bones[s.bones[2] as usize],
        &bones[s.bones[3] as usize],
    ];
    let w = Vec4::from_array(s.weights);
    let col =
        |f: fn(&Affine3A) -> Vec3A| f(m[0]) * w.x + f(m[1]) * w.y + f(m[2]) * w.z + f(m[3]) * w.w;
    Affine3A {
        matrix3: Mat3A::from_cols(
            col(|a| a.matrix3.x_axis),
            col(|a| a.matrix3.y_axis),
            col(|a| a.matrix3.z_axis),
        ),
        translation: col(|a| a.translation),
    }
}

/// SDEF with the precomputed midpoints (`mesh::skin::sdef_terms`), written as a displacement
/// of P: `P + (q·(P − C) − (P − C)) + Σ wᵢ·(Mᵢ·crᵢ − crᵢ)`. That equals the usual
/// `q·(P − C) + Σ wᵢ·Mᵢ·crᵢ` because `Σ wᵢ·crᵢ = C`, and both brackets are exactly zero at
/// rest, so an unposed SDEF vertex stays exactly where it is.
#[inline(never)]
fn sdef(bones: &[Affine3A], s: &Skin, t: &SdefTerms, p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
    let (m0, m1) = (&bones[s.bones[0] as usize], &bones[s.bones[1] as usize]);
    let (w0, w1) = (s.weights[0], s.weights[1]);
    let q = slerp(quat(m0), quat(m1), w1);
    let pc = p - Vec3A::from_array(t.c);
    let (cr0, cr1) = (Vec3A::from_array(t.cr0), Vec3A::from_array(t.cr1));
    let moved = (m0.transform_point3a(cr0) - cr0) * w0 + (m1.transform_point3a(cr1) - cr1) * w1;
    (p + (q * pc - pc) + moved, q * n)
}

/// QDEF: dual-quaternion linear blending (see the reference for the derivation).
#[inline(never)]
fn qdef(bones: &[Affine3A], s: &Skin, p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
    let mut real = Vec4::ZERO;
    let mut dual = Vec4::ZERO;
    let mut pivot = Vec4::ZERO;
    for i in 0..4 {
        let w = s.weights[i];
        if w == 0.0 {
            continue;
        }
        let m = &bones[s.bones[i] as usize];
        let mut q = quat(m);
        if pivot == Vec4::ZERO {
            pivot = Vec4::from(q);
        } else if Vec4::from(q).dot(pivot) < 0.0 {
            q = -q;
        }
        let t = m.translation;
        let d = Quat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
        real += Vec4::from(q) * w;
        dual += Vec4::from(d) * w;
    }
    // Divide (rather than multiply by the reciprocal) so that a lone identity stays exact.
    let len = real.length();
    let (real, dual) = (real / len, dual / len);
    let q = Quat::from_vec4(real);
    let r = Vec3A::from_vec4(real);
    let d = Vec3A::from_vec4(dual);
    let t = (d * real.w - r * dual.w + r.cross(d)) * 2.0;
    (q * p + t, q * n)
}

/// Main UVs `start..start + uv.len()`: rest plus active UV morphs.
fn uv_range(mesh: &Mesh, weights: &[f32], start: usize, uv: &mut [[f32; 2]]) {
    let vertices = start as u32..(start + uv.len()) as u32;
    uv.copy_from_slice(&mesh.uvs[range(&vertices)]);
    for run in &mesh.morphs.uv[0] {
        let w = weight(weights, run.morph);
        if w == 0.0 {
            continue;
        }
        for o in mesh.morphs.uv_run_in(run, &vertices) {
            let t = &mut uv[o.vertex as usize - start];
            t[0] += w * o.offset[0];
            t[1] += w * o.offset[1];
        }
    }
}

/// Additional UV `channel` (1..=4) for vertices `start..start + uv.len()`.
fn additional_uv_range(
    mesh: &Mesh,
    weights: &[f32],
    channel: usize,
    start: usize,
    uv: &mut [[[f32; 4]; 4]],
) {
    let vertices = start as u32..(start + uv.len()) as u32;
    for (dst, src) in uv.iter_mut().zip(&mesh.additional_uvs[range(&vertices)]) {
        dst[channel - 1] = src[channel - 1];
    }
    for run in &mesh.morphs.uv[channel] {
        let w = weight(weights, run.morph);
        if w == 0.0 {
            continue;
        }
        for o in mesh.morphs.uv_run_in(run, &vertices) {
            let t = &mut uv[o.vertex as usize - start][channel - 1];
            for k in 0..4 {
                t[k] += w * o.offset[k];
            }
        }
    }
}

fn range(v: &Range<u32>) -> Range<usize> {
    v.start as usize..v.end as usize
}
