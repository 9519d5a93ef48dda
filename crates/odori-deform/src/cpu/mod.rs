//! The fast CPU path: vertex ranges in parallel (rayon), each vertex with SIMD vector math
//! (glam's SSE2 `Vec3A`/`Affine3A`), writing into the caller's buffers without allocating.
//!
//! Per range of [`CHUNK`] vertices: if an active vertex morph touches the range, the rest
//! positions are copied into the output and the morph offsets (found by binary search in the
//! CSR tables) added there, and skinning then runs in place; otherwise skinning reads the rest
//! positions directly. Linear vertices blend their 1, 2 or 4 matrices first and transform
//! once (cheaper than transforming by each bone when normals are wanted too). UV channels are
//! rewritten only when a morph on them is active now or was last frame.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod portable;
pub(crate) mod simd;

use crate::mesh::morphs::weight;
use crate::mesh::{Kind, SdefTerms, Skin};
use crate::{Deformed, Mesh};
use glam::Affine3A;
use rayon::prelude::*;
use std::ops::Range;

/// One parallel task's share of the output: its index, positions and normals.
type Chunk<'a> = (usize, (&'a mut [[f32; 3]], &'a mut [[f32; 3]]));

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

    let task = |(c, (pos, nrm)): Chunk| {
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
                for (x, d) in p.iter_mut().zip(o.offset) {
                    *x += w * d;
                }
            }
        }
        skin::<true>(&ctx, &[], pos, nrm);
    } else {
        skin::<false>(&ctx, &mesh.positions[range], pos, nrm);
    }
}

/// One range's inputs.
pub(crate) struct Ctx<'a> {
    bones: &'a [Affine3A],
    kinds: &'a [Kind],
    skin: &'a [Skin],
    normals: &'a [[f32; 3]],
    sdef: &'a [SdefTerms],
}

/// Skin one range with the best kernel this CPU has.
#[inline]
fn skin<const IN_PLACE: bool>(
    ctx: &Ctx,
    rest: &[[f32; 3]],
    pos: &mut [[f32; 3]],
    nrm: &mut [[f32; 3]],
) {
    #[cfg(target_arch = "x86_64")]
    if simd::avx2() {
        // SAFETY: the CPU has AVX2 and FMA (checked at run time).
        unsafe { avx2::skin::<IN_PLACE>(ctx, rest, pos, nrm) };
        return;
    }
    portable::skin::<IN_PLACE>(ctx, rest, pos, nrm);
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
            for (x, d) in t.iter_mut().zip(o.offset) {
                *x += w * d;
            }
        }
    }
}

fn range(v: &Range<u32>) -> Range<usize> {
    v.start as usize..v.end as usize
}
