//! Triangle set-up on every thread: each pass's triangles are cut into jobs (a material's
//! index range in chunks of [`CHUNK`] triangles), the jobs are clipped and set up in parallel
//! into buffers of their own, and the buffers are joined in job order, so the triangle list
//! (and with it the blending order) is the one a single thread makes. Clipped polygons' new
//! vertices are numbered inside their job ([`LOCAL`]) and renumbered when joined. Every
//! buffer is kept between frames.

use super::raster::{self, ATTRS, ClipVert, Cull, Tri};
use glam::{Vec2, Vec4};
use rayon::prelude::*;

/// Triangles per job.
pub const CHUNK: u32 = 1024;
/// Marks a clipped vertex's row as its job's own until the jobs are joined.
pub const LOCAL: u32 = 1 << 31;

/// Which positions a job's triangles use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    /// Light space (the depth maps), culled as the material's model pass, depth bias.
    Light,
    /// Clip space (a material).
    Model,
    /// Clip space pushed out along the screen-space normal (`vs_edge`), front faces culled.
    Edge,
}

/// Up to [`CHUNK`] triangles of one material.
#[derive(Debug, Clone, Copy)]
pub struct Job {
    pub pass: Pass,
    pub cull: Cull,
    /// The draw the triangles belong to.
    pub draw: u32,
    pub model: u32,
    /// Range in the model's indices.
    pub start: u32,
    pub end: u32,
    /// The model's first row in the shared vertex arrays.
    pub base: u32,
    /// `vs_edge`'s push in pixels (edge size × pixels per unit) for edge jobs.
    pub edge_px: f32,
}

/// What one job made.
#[derive(Default)]
pub struct Out {
    pub tris: Vec<Tri>,
    /// Rows of clipped vertices (numbered `LOCAL | k`).
    pub attrs: Vec<[f32; ATTRS]>,
}

/// Push the jobs of a material's `start..end` indices, `chunk` triangles each.
pub fn push_jobs(jobs: &mut Vec<Job>, job: Job, chunk: u32) {
    let mut at = job.start;
    while at < job.end {
        let end = (at + 3 * chunk).min(job.end);
        jobs.push(Job {
            start: at,
            end,
            ..job
        });
        at = end;
    }
}

/// What the jobs read.
pub struct Inputs<'a> {
    pub models: &'a [super::models::CpuModel],
    pub clip: &'a [Vec4],
    pub light: &'a [Vec4],
    /// Screen-space normal direction per vertex (edges).
    pub nc: &'a [Vec2],
    pub attrs: &'a [[f32; ATTRS]],
    pub size: (u32, u32),
    pub viewport: Vec2,
}

/// Clip (when needed), set up and append one triangle of shared rows `v`.
#[allow(clippy::too_many_arguments)]
pub fn emit(
    attrs: &[[f32; ATTRS]],
    out: &mut Out,
    p: [Vec4; 3],
    v: [u32; 3],
    size: (u32, u32),
    cull: Cull,
    draw: u32,
    bias: bool,
) {
    if raster::inside(&p) {
        if let Some(t) = raster::setup(p, v, size, cull, draw, bias) {
            out.tris.push(t);
        }
        return;
    }
    if raster::outside(&p) {
        return;
    }
    let vert = |k: usize| ClipVert {
        pos: p[k],
        attr: attrs.get(v[k] as usize).copied().unwrap_or([0.0; ATTRS]),
    };
    let tri = [vert(0), vert(1), vert(2)];
    let mut poly = raster::poly_buffer();
    let n = raster::clip(tri, &mut poly);
    if n < 3 {
        return;
    }
    let first = LOCAL | out.attrs.len() as u32;
    out.attrs.extend(poly[..n].iter().map(|c| c.attr));
    for k in 1..n - 1 {
        let q = [poly[0].pos, poly[k].pos, poly[k + 1].pos];
        let idx = [first, first + k as u32, first + k as u32 + 1];
        if let Some(t) = raster::setup(q, idx, size, cull, draw, bias) {
            out.tris.push(t);
        }
    }
}

/// Run one job into `out` (cleared first).
fn run(job: &Job, inp: &Inputs, out: &mut Out) {
    out.tris.clear();
    out.attrs.clear();
    let m = &inp.models[job.model as usize];
    let edge_scale = &m.model.edge_scale;
    let idx = &m.indices[job.start as usize..job.end as usize];
    for t in idx.chunks_exact(3) {
        let v = [job.base + t[0], job.base + t[1], job.base + t[2]];
        let p = match job.pass {
            Pass::Light => v.map(|k| inp.light[k as usize]),
            Pass::Model => v.map(|k| inp.clip[k as usize]),
            Pass::Edge => [0, 1, 2].map(|k| {
                let c = inp.clip[v[k] as usize];
                let scale = edge_scale.get(t[k] as usize).copied().unwrap_or(1.0);
                let push = crate::shading::edge_push(
                    inp.nc[v[k] as usize],
                    job.edge_px * scale,
                    inp.viewport,
                    c.w,
                );
                Vec4::new(c.x + push.x, c.y + push.y, c.z, c.w)
            }),
        };
        let bias = job.pass == Pass::Light;
        emit(inp.attrs, out, p, v, inp.size, job.cull, job.draw, bias);
    }
}

/// Run `jobs` in parallel, one [`Out`] each (`outs` grown as needed); [`join_all`] then
/// appends them in job order.
pub fn run_all(jobs: &[Job], inp: &Inputs, outs: &mut Vec<Out>) {
    if outs.len() < jobs.len() {
        outs.resize_with(jobs.len(), Out::default);
    }
    (outs[..jobs.len()].par_iter_mut())
        .zip(jobs.par_iter())
        .for_each(|(out, job)| run(job, inp, out));
}

/// Append the first `n` outputs' triangles to `tris` and their clipped rows to `attrs`.
pub fn join_all(n: usize, outs: &[Out], tris: &mut Vec<Tri>, attrs: &mut Vec<[f32; ATTRS]>) {
    for out in &outs[..n] {
        join(out, tris, attrs);
    }
}

/// Append one job's triangles, renumbering its own rows after the rows already there.
pub fn join(out: &Out, tris: &mut Vec<Tri>, attrs: &mut Vec<[f32; ATTRS]>) {
    let first = attrs.len() as u32;
    attrs.extend_from_slice(&out.attrs);
    tris.extend(out.tris.iter().map(|t| {
        let mut t = *t;
        for v in &mut t.v {
            if *v & LOCAL != 0 {
                *v = first + (*v & !LOCAL);
            }
        }
        t
    }));
}
