//! A frame's passes on the CPU, in the wgpu renderer's order: the vertex stage, the light-space
//! depth maps, the main pass's triangle set-up and binning, then the bands drawn in parallel and
//! resolved.

use super::CpuRenderer;
use super::band::{BandCounts, Ctx, Draw, Kind};
use super::blend::{pack, to_u8};
use super::models::CpuModel;
use super::raster::{self, ATTRS, BAND, Cull, Tri};
use super::resolve::resolve;
use super::setup::{self, Job, Pass};
use super::texture::DepthMap;
use crate::shading::{self, FrameValues};
use glam::{Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

/// Per-frame scratch, kept between frames.
pub(super) struct Work {
    clip: Vec<Vec4>,
    light: Vec<Vec4>,
    /// Screen-space normal direction (`(vp · normal).xy`) for edges.
    nc: Vec<Vec2>,
    attrs: Vec<[f32; ATTRS]>,
    tris: Vec<Tri>,
    draws: Vec<Draw>,
    bins: Vec<Vec<u32>>,
    map_bins: Vec<Vec<u32>>,
    jobs: Vec<setup::Job>,
    outs: Vec<setup::Out>,
    /// The ground rectangle's triangles.
    ground: setup::Out,
    /// Triangles per set-up job ([`setup::CHUNK`]; tests vary it).
    chunk: u32,
}

impl Default for Work {
    fn default() -> Work {
        Work {
            clip: Vec::new(),
            light: Vec::new(),
            nc: Vec::new(),
            attrs: Vec::new(),
            tris: Vec::new(),
            draws: Vec::new(),
            bins: Vec::new(),
            map_bins: Vec::new(),
            jobs: Vec::new(),
            outs: Vec::new(),
            ground: setup::Out::default(),
            chunk: setup::CHUNK,
        }
    }
}

impl CpuRenderer {
    /// Positions in clip space and light space, and the attributes `vs_model` passes on, for
    /// every vertex of every model.
    pub(super) fn vertex_stage(&mut self, vp: Mat4, view: Mat4, lvp: Mat4) {
        let total: usize = self.models.iter().map(|m| m.positions.len()).sum();
        let w = &mut self.work;
        w.clip.resize(total, Vec4::ZERO);
        w.light.resize(total, Vec4::ZERO);
        w.nc.resize(total, Vec2::ZERO);
        w.attrs.truncate(total);
        w.attrs.resize(total, [0.0; ATTRS]);
        let mut at = 0;
        for m in &self.models {
            let n = m.positions.len();
            let range = at..at + n;
            at += n;
            (w.clip[range.clone()].par_iter_mut())
                .zip(w.light[range.clone()].par_iter_mut())
                .zip(w.nc[range.clone()].par_iter_mut())
                .zip(w.attrs[range].par_iter_mut())
                .enumerate()
                .with_min_len(1024)
                .for_each(|(k, (((clip, light), nc), attr))| {
                    let p = Vec3::from(m.positions[k]);
                    let n = Vec3::from(m.normals[k]);
                    let world = p.extend(1.0);
                    *clip = vp * world;
                    *light = lvp * world;
                    *nc = (vp * n.extend(0.0)).xy();
                    let nv = (view * n.extend(0.0)).xyz();
                    let s = shading::sphere_uv_from_view_normal(nv);
                    let uv = m.uvs[k];
                    let uv1 = m.model.uv1.get(k).copied().unwrap_or([0.0; 4]);
                    *attr = [
                        p.x, p.y, p.z, n.x, n.y, n.z, uv[0], uv[1], s.x, s.y, uv1[0], uv1[1],
                        light.x, light.y, light.z, light.w,
                    ];
                });
        }
    }

    /// Depth from the light of the materials `casts` selects, into `map`.
    pub(super) fn depth_pass(
        &mut self,
        map: &mut DepthMap,
        casts: impl Fn(&CpuModel, usize) -> bool,
    ) {
        let side = map.side;
        let w = &mut self.work;
        w.tris.clear();
        w.attrs
            .truncate(self.models.iter().map(|m| m.positions.len()).sum());
        w.jobs.clear();
        let mut base = 0u32;
        for (mi, m) in self.models.iter().enumerate() {
            for (i, d) in m.model.materials.iter().enumerate() {
                if !casts(m, i) {
                    continue;
                }
                // Culled as in the model pass (see `Pipelines::shadow_culled`).
                let job = Job {
                    pass: Pass::Light,
                    cull: if d.double_sided {
                        Cull::None
                    } else {
                        Cull::Back
                    },
                    draw: 0,
                    model: mi as u32,
                    start: d.indices.start,
                    end: d.indices.end,
                    base,
                    edge_px: 0.0,
                };
                setup::push_jobs(&mut w.jobs, job, w.chunk);
            }
            base += m.positions.len() as u32;
        }
        let inputs = setup::Inputs {
            models: &self.models,
            clip: &w.clip,
            light: &w.light,
            nc: &w.nc,
            attrs: &w.attrs,
            size: (side, side),
            viewport: Vec2::ZERO,
        };
        setup::run_all(&w.jobs, &inputs, &mut w.outs);
        setup::join_all(w.jobs.len(), &w.outs, &mut w.tris, &mut w.attrs);
        let bands = side.div_ceil(BAND) as usize;
        w.map_bins.resize_with(bands, Vec::new);
        w.map_bins.iter_mut().for_each(Vec::clear);
        for (k, t) in w.tris.iter().enumerate() {
            raster::bin(&mut w.map_bins, t, k as u32);
        }
        let tris = &w.tris;
        (map.depth.par_chunks_mut((side * BAND) as usize))
            .zip(w.map_bins.par_iter())
            .enumerate()
            .for_each(|(b, (rows, bin))| {
                raster::depth_band(rows, b as u32 * BAND, side, tris, bin);
            });
        map.summarise();
    }

    /// Every triangle of the main pass, in draw order: the ground rectangle, then per model its
    /// materials in file order and its edges.
    pub(super) fn main_setup(&mut self, ground: bool, u: &crate::renderer::FrameUniform, vp: Mat4) {
        let size = (self.options.width, self.options.height);
        let w = &mut self.work;
        w.tris.clear();
        w.draws.clear();
        let total: usize = self.models.iter().map(|m| m.positions.len()).sum();
        w.attrs.truncate(total);
        let casts_on_ground = |m: &CpuModel| {
            (m.model.materials.iter().enumerate()).any(|(i, d)| d.ground_shadow && m.shown(i))
        };
        if ground && self.models.iter().any(casts_on_ground) {
            let draw = w.draws.len() as u32;
            w.draws.push(Draw {
                kind: Kind::Ground,
                model: 0,
                material: 0,
            });
            let first = w.attrs.len() as u32;
            let mut p = [Vec4::ZERO; 4];
            for (i, c) in p.iter_mut().enumerate() {
                let world = shading::ground_corner(i as u32, u.ground_area);
                let mut a = [0.0; ATTRS];
                a[..3].copy_from_slice(&world.to_array());
                w.attrs.push(a);
                *c = vp * world.extend(1.0);
            }
            // A triangle strip: (0, 1, 2), (2, 1, 3).
            let g = &mut w.ground;
            g.tris.clear();
            g.attrs.clear();
            for (q, v) in [([0, 1, 2], [0, 1, 2]), ([2, 1, 3], [2, 1, 3])] {
                let v = v.map(|k| first + k);
                let q = q.map(|k| p[k]);
                setup::emit(&w.attrs, g, q, v, size, Cull::None, draw, false);
            }
            setup::join(g, &mut w.tris, &mut w.attrs);
        }
        let viewport = Vec2::new(u.viewport[0], u.viewport[1]);
        w.jobs.clear();
        let mut base = 0u32;
        for (mi, m) in self.models.iter().enumerate() {
            let mats = &m.model.materials;
            for (i, d) in mats.iter().enumerate() {
                if !m.shown(i) || d.indices.is_empty() {
                    continue;
                }
                let draw = w.draws.len() as u32;
                w.draws.push(Draw {
                    kind: Kind::Model,
                    model: mi as u32,
                    material: i as u32,
                });
                let job = Job {
                    pass: Pass::Model,
                    cull: if d.double_sided {
                        Cull::None
                    } else {
                        Cull::Back
                    },
                    draw,
                    model: mi as u32,
                    start: d.indices.start,
                    end: d.indices.end,
                    base,
                    edge_px: 0.0,
                };
                setup::push_jobs(&mut w.jobs, job, w.chunk);
            }
            if self.options.edges {
                for (i, d) in mats.iter().enumerate() {
                    if !(d.edge && m.shown(i) && m.alpha[i].1 > 0.0 && !d.indices.is_empty()) {
                        continue;
                    }
                    let draw = w.draws.len() as u32;
                    w.draws.push(Draw {
                        kind: Kind::Edge,
                        model: mi as u32,
                        material: i as u32,
                    });
                    // vs_edge: out along the screen-space normal by a fixed number of pixels.
                    let job = Job {
                        pass: Pass::Edge,
                        cull: Cull::Front,
                        draw,
                        model: mi as u32,
                        start: d.indices.start,
                        end: d.indices.end,
                        base,
                        edge_px: m.uniforms[i].params[0] * u.viewport[2],
                    };
                    setup::push_jobs(&mut w.jobs, job, w.chunk);
                }
            }
            base += m.positions.len() as u32;
        }
        let inputs = setup::Inputs {
            models: &self.models,
            clip: &w.clip,
            light: &w.light,
            nc: &w.nc,
            attrs: &w.attrs,
            size,
            viewport,
        };
        setup::run_all(&w.jobs, &inputs, &mut w.outs);
        setup::join_all(w.jobs.len(), &w.outs, &mut w.tris, &mut w.attrs);
        let bands = self.options.height.div_ceil(BAND) as usize;
        w.bins.resize_with(bands, Vec::new);
        w.bins.iter_mut().for_each(Vec::clear);
        for (k, t) in w.tris.iter().enumerate() {
            raster::bin(&mut w.bins, t, k as u32);
        }
    }

    /// Draw the binned triangles band by band in parallel and resolve into slot `slot`.
    pub(super) fn main_raster(&mut self, frame: &FrameValues, lvp: Mat4, slot: usize) {
        let (width, height) = (self.options.width, self.options.height);
        let s = self.samples;
        let bg = self.options.background.map(to_u8);
        let ctx = Ctx {
            width,
            samples: s,
            offsets: raster::sample_offsets(s),
            tris: &self.work.tris,
            draws: &self.work.draws,
            attrs: &self.work.attrs,
            models: &self.models,
            frame,
            lvp,
            shadow: &self.shadow,
            ground: self.ground_map.as_ref().unwrap_or(&self.shadow),
            background: pack(bg),
            lanes: self.lanes,
            avx2: self.lanes && s == 4 && avx2_available(),
        };
        let n = self.slots.len();
        let out = &mut self.slots[slot % n];
        out.resize((width * height * 4) as usize, 0);
        let band_px = (width * BAND) as usize;
        let counts: BandCounts = (self.color.par_chunks_mut(band_px * s))
            .zip(self.depth.par_chunks_mut(band_px * s))
            .zip(out.par_chunks_mut(band_px * 4))
            .zip(self.work.bins.par_iter())
            .enumerate()
            .map(|(b, (((color, depth), out), bin))| {
                let counts = ctx.band(b as u32 * BAND, color, depth, bin);
                resolve(color, out, s);
                counts
            })
            .sum();
        let total = &mut self.shaded;
        *(if self.lanes {
            &mut total.lanes
        } else {
            &mut total.scalar
        }) += counts.shaded;
        total.avx2_tested += counts.avx2_tested;
    }
}

/// Whether the samples can be tested in AVX2 lanes on this CPU.
fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return super::cover_lanes::available();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RenderModel;
    use crate::renderer::{FrameView, RenderOptions};

    /// Set-up on several threads gives what one thread gives: the demo character at its rest
    /// pose drawn with jobs of 7 triangles (hundreds of jobs, joined in order) and with one
    /// job per material have the same triangle list, the same light map and the same pixels,
    /// bit for bit.
    #[test]
    fn parallel_setup_equals_one_job_per_material() {
        let demo = crate::demo::Demo::new();
        let model = RenderModel::from_pmx(&demo.pmx);
        let positions: Vec<[f32; 3]> = demo.pmx.vertices.iter().map(|v| v.position).collect();
        let normals: Vec<[f32; 3]> = demo.pmx.vertices.iter().map(|v| v.normal).collect();
        let uvs: Vec<[f32; 2]> = demo.pmx.vertices.iter().map(|v| v.uv).collect();
        let view = FrameView {
            camera: crate::camera::framing(model.bounds.0, model.bounds.1, 1.0),
            light: crate::light::Light::DEFAULT,
            bounds: model.bounds,
        };
        let options = RenderOptions {
            width: 200,
            height: 200,
            msaa: 1,
            ..RenderOptions::default()
        };
        let draw = |chunk: u32| {
            let mut r = CpuRenderer::new(model.clone(), &demo.textures, options.clone());
            r.work.chunk = chunk;
            r.upload_vertices(0, &positions, &normals, &uvs);
            let img = r.render_image(&view);
            let tris: Vec<([i64; 3], [u32; 3], u32)> =
                r.work.tris.iter().map(|t| (t.c, t.v, t.draw)).collect();
            (img, tris, r.shadow.depth.clone(), r.work.jobs.len())
        };
        let (img_a, tris_a, map_a, jobs_a) = draw(7);
        let (img_b, tris_b, map_b, jobs_b) = draw(u32::MAX / 4);
        assert!(jobs_a > 10 * jobs_b, "{jobs_a} jobs against {jobs_b}");
        assert!(tris_a.len() > 1000);
        assert_eq!(tris_a, tris_b);
        assert_eq!(map_a, map_b);
        assert_eq!(img_a.as_raw(), img_b.as_raw());
        // Something was drawn: not every pixel is the background.
        assert!(img_a.pixels().any(|p| p.0 != [255; 4]));
    }
}
