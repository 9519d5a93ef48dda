//! The CPU renderer: MMD's look without any graphics driver, for machines where wgpu finds no
//! adapter (or on request). It draws the wgpu renderer's passes in the same order with the same
//! formulas ([`crate::shading`], which mirrors the WGSL): the light-space depth maps, then the
//! ground shadow, each model's materials in file order (alpha-blended) and its edges.
//!
//! Multisampling is done as MSAA does it: per-sample coverage and depth at the standard 4×
//! positions, one shading per pixel per triangle at the pixel centre, colour blended into each
//! covered sample, samples averaged at the end. Work is split into horizontal bands of
//! [`raster::BAND`] rows, each with the list of triangles that touch it in draw order (so
//! blending order is kept), and the bands are drawn in parallel on rayon's threads. Every
//! buffer is owned by the renderer and reused: after the first frame nothing is allocated.

pub mod raster;
mod setup;
pub mod texture;

use crate::materials::{self, MaterialUniform};
use crate::model::RenderModel;
use crate::renderer::{FrameView, RenderOptions, frame_uniform, ground_shares_map};
use crate::shading::{self, FrameValues, ModelIn, Samplers};
use crate::textures::TextureSource;
use glam::{Mat4, Vec2, Vec3, Vec4, Vec4Swizzles};
use odori_pose::MaterialState;
use odori_pose::material::MaterialValues;
use raster::{ATTRS, BAND, Cull, SUB, Tri};
use rayon::prelude::*;
use setup::{Job, Pass};
use std::collections::HashMap;
use std::sync::Arc;
use texture::{DepthMap, Mip};

/// Attribute layout of a model vertex (`ModelOut` in `mmd.wgsl`, with both sphere sources).
const A_WORLD: usize = 0;
const A_NORMAL: usize = 3;
const A_UV: usize = 6;
/// Sphere coordinate from the view-space normal (modes 1, 2).
const A_SPHERE_NV: usize = 8;
/// Additional UV 1 (sub-texture mode 3).
const A_UV1: usize = 10;
const A_SHADOW: usize = 12;

/// One material's images on the CPU.
struct CpuMaterial {
    texture: Option<Arc<Mip>>,
    sphere: Option<Arc<Mip>>,
    toon: Arc<Mip>,
    toon_shade: [f32; 4],
}

/// One model: its materials, this frame's vertices and state.
struct CpuModel {
    model: RenderModel,
    /// Indices repaired to stay inside the vertices.
    indices: Vec<u32>,
    materials: Vec<CpuMaterial>,
    base: Vec<MaterialValues>,
    /// This frame's uniforms (morphed).
    uniforms: Vec<MaterialUniform>,
    /// Per material: resolved diffuse alpha and edge size this frame (alpha 0 hides it).
    alpha: Vec<(f32, f32)>,
    visible: bool,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
}

impl CpuModel {
    fn shown(&self, i: usize) -> bool {
        self.visible && self.alpha[i].0 > 0.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ground,
    Model,
    Edge,
}

/// What a triangle belongs to.
#[derive(Debug, Clone, Copy)]
struct Draw {
    kind: Kind,
    model: u32,
    material: u32,
}

/// Per-frame scratch, kept between frames.
struct Work {
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

/// Draws one or more models into frames held in memory, on the CPU. The same interface as
/// [`crate::Renderer`] (see [`crate::AnyRenderer`]).
pub struct CpuRenderer {
    pub options: RenderOptions,
    samples: usize,
    models: Vec<CpuModel>,
    shadow: DepthMap,
    /// The ground shadow's own map when its casters differ from the self-shadow casters.
    ground_map: Option<DepthMap>,
    color: Vec<u32>,
    depth: Vec<f32>,
    slots: Vec<Vec<u8>>,
    work: Work,
    warnings: Vec<String>,
}

/// RGBA8 packed little-endian.
fn pack(c: [u8; 4]) -> u32 {
    u32::from_le_bytes(c)
}

fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// `SrcAlpha, OneMinusSrcAlpha` for colour, `One, OneMinusSrcAlpha` for alpha, in 8 bits.
#[inline(always)]
fn blend(dst: u32, src: Vec4) -> u32 {
    let a = src.w.clamp(0.0, 1.0);
    if a >= 1.0 {
        return pack([to_u8(src.x), to_u8(src.y), to_u8(src.z), 255]);
    }
    let d = dst.to_le_bytes();
    let k = 1.0 - a;
    let ch = |s: f32, d: u8| to_u8(s.clamp(0.0, 1.0) * a + d as f32 * (1.0 / 255.0) * k);
    pack([
        ch(src.x, d[0]),
        ch(src.y, d[1]),
        ch(src.z, d[2]),
        to_u8(a + d[3] as f32 * (1.0 / 255.0) * k),
    ])
}

impl CpuRenderer {
    /// A renderer for one model.
    pub fn new(model: RenderModel, textures: &TextureSource, options: RenderOptions) -> Self {
        CpuRenderer::with_models(vec![(model, textures)], options)
    }

    /// A renderer for several models drawn together, in the order given.
    pub fn with_models(models: Vec<(RenderModel, &TextureSource)>, options: RenderOptions) -> Self {
        // As on lavapipe, which offers 1 and 4 samples: the most up to what was asked for.
        let samples = if options.msaa >= 4 { 4 } else { 1 };
        let side = options.shadow_map_side();
        let share = ground_shares_map(models.iter().map(|(m, _)| m), &options);
        let mut warnings = Vec::new();
        // Images shared between materials (and models) are mipmapped once, keyed by address.
        // The map keeps each image alive beside its mips: a model's images are dropped once
        // its materials are built, and a later model's image allocated at a freed address
        // would otherwise be given the earlier image's mips (a render that changed with the
        // allocator's whims, seen with two models in one scene).
        type Entry = (Arc<image::RgbaImage>, Arc<Mip>);
        let mut mips: HashMap<*const image::RgbaImage, Entry> = HashMap::new();
        let mut mip = |img: &Arc<image::RgbaImage>| {
            (mips.entry(Arc::as_ptr(img)))
                .or_insert_with(|| (img.clone(), Arc::new(Mip::new(img))))
                .1
                .clone()
        };
        let models = (models.into_iter())
            .map(|(model, source)| {
                let (images, w) = materials::resolve_images(&model, source);
                warnings.extend(w);
                let materials: Vec<CpuMaterial> = (images.iter())
                    .map(|im| CpuMaterial {
                        texture: im.texture.as_ref().map(&mut mip),
                        sphere: im.sphere.as_ref().map(&mut mip),
                        toon: mip(&im.toon),
                        toon_shade: im.toon_shade,
                    })
                    .collect();
                let n = model.vertex_count();
                let (indices, _) =
                    odori_format::faces::repair_indices(model.indices.iter().copied(), n as u32);
                let base: Vec<MaterialValues> =
                    model.materials.iter().map(materials::base_values).collect();
                let mut m = CpuModel {
                    indices,
                    materials,
                    uniforms: Vec::new(),
                    alpha: vec![(1.0, 1.0); model.materials.len()],
                    base,
                    visible: true,
                    positions: vec![[0.0; 3]; n],
                    normals: vec![[0.0, 1.0, 0.0]; n],
                    uvs: vec![[0.0; 2]; n],
                    model,
                };
                set_state(&mut m, &[], true);
                m
            })
            .collect();
        let (w, h) = (options.width as usize, options.height as usize);
        CpuRenderer {
            samples,
            models,
            shadow: DepthMap::new(side),
            ground_map: (!share).then(|| DepthMap::new(side)),
            color: vec![0; w * h * samples],
            depth: vec![1.0; w * h * samples],
            slots: vec![Vec::new(); options.slots.max(1)],
            work: Work::default(),
            warnings,
            options,
        }
    }

    /// Texture problems met while loading the models' materials.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn model_count(&self) -> usize {
        self.models.len()
    }

    pub fn model(&self, i: usize) -> &RenderModel {
        &self.models[i].model
    }

    /// Samples per pixel actually used (1 or 4).
    pub fn samples(&self) -> u32 {
        self.samples as u32
    }

    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Model `i`'s deformed vertices this frame (one per vertex).
    pub fn upload_vertices(
        &mut self,
        i: usize,
        positions: &[[f32; 3]],
        normals: &[[f32; 3]],
        uvs: &[[f32; 2]],
    ) {
        let m = &mut self.models[i];
        let n = m.positions.len().min(positions.len());
        m.positions[..n].copy_from_slice(&positions[..n]);
        let n = m.normals.len().min(normals.len());
        m.normals[..n].copy_from_slice(&normals[..n]);
        let n = m.uvs.len().min(uvs.len());
        m.uvs[..n].copy_from_slice(&uvs[..n]);
    }

    /// Model `i`'s material-morph results (empty = unmorphed) and visibility this frame.
    pub fn set_model_state(&mut self, i: usize, materials: &[MaterialState], visible: bool) {
        set_state(&mut self.models[i], materials, visible);
    }

    /// Draw one frame into slot `slot`; read it with [`CpuRenderer::read`].
    pub fn render(&mut self, view: &FrameView, slot: usize) {
        let (u, ground) = frame_uniform(&self.options, view);
        let vp = Mat4::from_cols_array_2d(&u.proj) * Mat4::from_cols_array_2d(&u.view);
        let viewm = Mat4::from_cols_array_2d(&u.view);
        let lvp = Mat4::from_cols_array_2d(&u.light_view_proj);
        let frame = FrameValues {
            eye: Vec4::from(u.eye).xyz(),
            light_dir: Vec4::from(u.light_dir).xyz(),
            light_color: Vec4::from(u.light_color).xyz(),
            ground_color: Vec4::from(u.ground_color),
            self_shadow: u.viewport[3] > 0.5,
        };
        self.vertex_stage(vp, viewm, lvp);

        // Light-space depth: self-shadow casters, and ground-shadow casters (into the same
        // map when the sets agree, else their own).
        let shadow_needed = self.options.self_shadow || (ground && self.ground_map.is_none());
        if shadow_needed {
            let mut map = std::mem::replace(&mut self.shadow, DepthMap::new(0));
            self.depth_pass(&mut map, |m, i| {
                m.model.materials[i].cast_shadow && m.shown(i)
            });
            self.shadow = map;
        }
        if let (true, Some(mut map)) = (ground, self.ground_map.take()) {
            self.depth_pass(&mut map, |m, i| {
                m.model.materials[i].ground_shadow && m.shown(i)
            });
            self.ground_map = Some(map);
        }

        self.main_setup(ground, &u, vp);
        self.main_raster(&frame, lvp, slot);
    }

    /// Positions in clip space and light space, and the attributes `vs_model` passes on, for
    /// every vertex of every model.
    fn vertex_stage(&mut self, vp: Mat4, view: Mat4, lvp: Mat4) {
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
    fn depth_pass(&mut self, map: &mut DepthMap, casts: impl Fn(&CpuModel, usize) -> bool) {
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
    fn main_setup(&mut self, ground: bool, u: &crate::renderer::FrameUniform, vp: Mat4) {
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
    fn main_raster(&mut self, frame: &FrameValues, lvp: Mat4, slot: usize) {
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
        };
        let n = self.slots.len();
        let out = &mut self.slots[slot % n];
        out.resize((width * height * 4) as usize, 0);
        let band_px = (width * BAND) as usize;
        (self.color.par_chunks_mut(band_px * s))
            .zip(self.depth.par_chunks_mut(band_px * s))
            .zip(out.par_chunks_mut(band_px * 4))
            .zip(self.work.bins.par_iter())
            .enumerate()
            .for_each(|(b, (((color, depth), out), bin))| {
                ctx.band(b as u32 * BAND, color, depth, bin);
                resolve(color, out, s);
            });
    }

    /// Copy slot `slot`'s pixels (RGBA8, rows top to bottom) into `out`.
    pub fn read(&self, slot: usize, out: &mut Vec<u8>) {
        let src = &self.slots[slot % self.slots.len()];
        out.clear();
        out.extend_from_slice(src);
        out.resize((self.options.width * self.options.height * 4) as usize, 0);
    }

    /// Render one frame and return it: for tests and single images.
    pub fn render_image(&mut self, view: &FrameView) -> image::RgbaImage {
        self.render(view, 0);
        let mut px = Vec::new();
        self.read(0, &mut px);
        image::RgbaImage::from_raw(self.options.width, self.options.height, px)
            .expect("a frame has width × height pixels")
    }
}

/// The MSAA resolve: each pixel's samples averaged (rounded), written as RGBA8 bytes. With
/// four samples the channels are summed two at a time in 16-bit lanes of a `u32`.
fn resolve(color: &[u32], out: &mut [u8], samples: usize) {
    if samples == 1 {
        for (o, c) in out.chunks_exact_mut(4).zip(color) {
            o.copy_from_slice(&c.to_le_bytes());
        }
        return;
    }
    #[cfg(test)]
    assert_eq!(samples, 4);
    for (o, px) in out.chunks_exact_mut(4).zip(color.chunks_exact(4)) {
        let (mut even, mut odd) = (0u32, 0u32);
        for &c in px {
            even += c & 0x00ff_00ff;
            odd += (c >> 8) & 0x00ff_00ff;
        }
        let even = ((even + 0x0002_0002) >> 2) & 0x00ff_00ff;
        let odd = ((odd + 0x0002_0002) >> 2) & 0x00ff_00ff;
        o.copy_from_slice(&(even | (odd << 8)).to_le_bytes());
    }
}

/// A model's material uniforms and visibility from this frame's morph results.
fn set_state(m: &mut CpuModel, states: &[MaterialState], visible: bool) {
    m.uniforms.clear();
    for (k, desc) in m.model.materials.iter().enumerate() {
        let v = states.get(k).map_or(m.base[k], |s| s.resolve(&m.base[k]));
        let im = &m.materials[k];
        m.uniforms.push(materials::uniform(
            desc,
            &v,
            im.texture.is_some(),
            im.sphere.is_some(),
            im.toon_shade,
        ));
        m.alpha[k] = (v.diffuse.w, v.edge_size);
    }
    m.visible = visible;
}

/// What the bands read while they are drawn.
struct Ctx<'a> {
    width: u32,
    samples: usize,
    offsets: &'static [(i64, i64)],
    tris: &'a [Tri],
    draws: &'a [Draw],
    attrs: &'a [[f32; ATTRS]],
    models: &'a [CpuModel],
    frame: &'a FrameValues,
    lvp: Mat4,
    shadow: &'a DepthMap,
    ground: &'a DepthMap,
    background: u32,
}

/// The texture lookups of one quad: each texture's level of detail from the quad's
/// derivatives.
struct QuadSamplers<'a> {
    material: &'a CpuMaterial,
    lod: [f32; 3],
    map: &'a DepthMap,
}

impl Samplers for QuadSamplers<'_> {
    fn main(&self, uv: Vec2) -> Vec4 {
        (self.material.texture.as_ref()).map_or(Vec4::ONE, |t| t.sample(uv, self.lod[0], true))
    }
    fn sphere(&self, uv: Vec2) -> Vec4 {
        (self.material.sphere.as_ref()).map_or(Vec4::ONE, |t| t.sample(uv, self.lod[1], false))
    }
    fn toon(&self, uv: Vec2) -> Vec4 {
        self.material.toon.sample(uv, self.lod[2], false)
    }
    fn shadow_compare(&self, uv: Vec2, depth: f32) -> f32 {
        self.map.compare(uv, depth)
    }
    fn shadow_pcf4(&self, uv: Vec2, depth: f32, _texel: f32) -> f32 {
        self.map.pcf4(uv, depth)
    }
}

impl Ctx<'_> {
    /// Draw every binned triangle into one band (`BAND` rows from `y0`, fewer at the bottom).
    fn band(&self, y0: u32, color: &mut [u32], depth: &mut [f32], bin: &[u32]) {
        color.fill(self.background);
        depth.fill(1.0);
        let s = self.samples;
        let w = self.width as i32;
        let rows = (color.len() / (self.width as usize * s)) as i32;
        let y0 = y0 as i32;
        // Edge-function offsets of each quad pixel's samples from the quad's corner, per
        // triangle: the loops below only add (the same integers as `Tri::edges` computes;
        // the unit tests' build checks each against it).
        let mut off = [[[0i64; 3]; 4]; 4];
        for &t in bin {
            let tri = &self.tris[t as usize];
            let draw = self.draws[tri.draw as usize];
            let ys = tri.bbox[1].max(y0) & !1;
            let ye = tri.bbox[3].min(y0 + rows - 1);
            let xs = tri.bbox[0] & !1;
            let xe = tri.bbox[2];
            for (p, row) in off.iter_mut().enumerate() {
                let (dx, dy) = ((p & 1) as i64 * SUB, (p >> 1) as i64 * SUB);
                for (k, &(ox, oy)) in self.offsets.iter().enumerate() {
                    row[k] = std::array::from_fn(|i| tri.a[i] * (dx + ox) + tri.b[i] * (dy + oy));
                }
            }
            // `Tri::may_cover_quad`: the quad's centre is a corner plus (SUB, SUB); an edge
            // can reach no sample when its value there is below −(|a| + |b|)·SUB.
            let centre: [i64; 3] = std::array::from_fn(|i| (tri.a[i] + tri.b[i]) * SUB);
            let reach: [i64; 3] = std::array::from_fn(|i| (tri.a[i].abs() + tri.b[i].abs()) * SUB);
            let step: [i64; 3] = std::array::from_fn(|i| tri.a[i] * 2 * SUB);
            let mut qy = ys;
            while qy <= ye {
                // Edge values at the quad corner (qx, qy), stepped along the row.
                let mut corner = tri.edges(xs as i64 * SUB, qy as i64 * SUB);
                let mut qx = xs;
                while qx <= xe {
                    let e0 = corner;
                    corner = std::array::from_fn(|i| corner[i] + step[i]);
                    let may_cover = (0..3).all(|i| e0[i] + centre[i] + reach[i] >= 0);
                    #[cfg(test)]
                    assert_eq!(may_cover, tri.may_cover_quad(qx as i64, qy as i64));
                    if !may_cover {
                        qx += 2;
                        continue;
                    }
                    // Coverage and depth test of the quad's samples.
                    let mut mask = [0u8; 4];
                    let mut zs = [[0f32; 4]; 4];
                    for p in 0..4 {
                        let (px, py) = (qx + (p & 1) as i32, qy + (p >> 1) as i32);
                        if px >= w || py >= y0 + rows {
                            continue;
                        }
                        let base = (((py - y0) * w + px) as usize) * s;
                        for k in 0..s {
                            let o = &off[p][k];
                            let e = [e0[0] + o[0], e0[1] + o[1], e0[2] + o[2]];
                            #[cfg(test)]
                            assert_eq!(
                                e,
                                tri.edges(
                                    px as i64 * SUB + self.offsets[k].0,
                                    py as i64 * SUB + self.offsets[k].1
                                )
                            );
                            if e[0] < 0 || e[1] < 0 || e[2] < 0 {
                                continue;
                            }
                            let z = tri.depth(e);
                            if z <= depth[base + k] {
                                mask[p] |= 1 << k;
                                zs[p][k] = z;
                            }
                        }
                    }
                    if mask != [0; 4] {
                        self.quad(tri, draw, qx, qy, y0, mask, &zs, color, depth);
                    }
                    qx += 2;
                }
                qy += 2;
            }
        }
    }

    /// Shade a quad whose pixels have `mask` samples covered and in front, and write them.
    /// `p` (0..4: top left, top right, bottom left, bottom right) indexes the quad's pixels in
    /// every per-pixel array here.
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    fn quad(
        &self,
        tri: &Tri,
        draw: Draw,
        qx: i32,
        qy: i32,
        y0: i32,
        mask: [u8; 4],
        zs: &[[f32; 4]; 4],
        color: &mut [u32],
        depth: &mut [f32],
    ) {
        let s = self.samples;
        let w = self.width as i32;
        let centre = |p: usize| {
            let (px, py) = (qx + (p & 1) as i32, qy + (p >> 1) as i32);
            (px as i64 * SUB + SUB / 2, py as i64 * SUB + SUB / 2)
        };
        let mut write = |p: usize, c: Vec4, depth_write: bool| {
            let (px, py) = (qx + (p & 1) as i32, qy + (p >> 1) as i32);
            let base = (((py - y0) * w + px) as usize) * s;
            for k in 0..s {
                if mask[p] & (1 << k) != 0 {
                    if depth_write {
                        depth[base + k] = zs[p][k];
                    }
                    color[base + k] = blend(color[base + k], c);
                }
            }
        };
        let m = &self.models[draw.model as usize];
        match draw.kind {
            Kind::Edge => {
                let c = shading::fs_edge(&m.uniforms[draw.material as usize]);
                for p in 0..4 {
                    if mask[p] != 0 {
                        write(p, c, true);
                    }
                }
            }
            Kind::Ground => {
                let texel = 1.0 / self.ground.side as f32;
                let samplers = GroundSamplers { map: self.ground };
                for p in 0..4 {
                    if mask[p] == 0 {
                        continue;
                    }
                    let (x, y) = centre(p);
                    let wts = tri.weights(x, y);
                    let world = self.lerp3(tri, wts, A_WORLD);
                    let sh = self.lvp * world.extend(1.0);
                    if let Some(c) = shading::fs_ground(sh, self.frame, &samplers, texel) {
                        write(p, c, false);
                    }
                }
            }
            Kind::Model => {
                let mi = draw.material as usize;
                let uniform = &m.uniforms[mi];
                let material = &m.materials[mi];
                let sub_texture = uniform.params[1] > 2.5;
                let sphere_at = if sub_texture { A_UV1 } else { A_SPHERE_NV };
                let to_light = -self.frame.light_dir;
                let mut inputs = [None::<ModelIn>; 4];
                let mut uv = [Vec2::ZERO; 4];
                let mut suv = [Vec2::ZERO; 4];
                let mut tv = [0f32; 4];
                for p in 0..4 {
                    // Helper pixels (p 0..2 feed the derivatives) are interpolated too.
                    if mask[p] == 0 && p == 3 {
                        continue;
                    }
                    let (x, y) = centre(p);
                    let wts = tri.weights(x, y);
                    let i = ModelIn {
                        world: self.lerp3(tri, wts, A_WORLD),
                        normal: self.lerp3(tri, wts, A_NORMAL),
                        uv: self.lerp2(tri, wts, A_UV),
                        sphere_uv: self.lerp2(tri, wts, sphere_at),
                        shadow: self.lerp4(tri, wts, A_SHADOW),
                    };
                    uv[p] = i.uv;
                    suv[p] = i.sphere_uv;
                    // The toon ramp is read only without self-shadow (`fs_model`).
                    if !self.frame.self_shadow {
                        let n = i.normal * (1.0 / i.normal.length());
                        tv[p] = shading::toon_uv(n.dot(to_light)).y;
                    }
                    inputs[p] = Some(i);
                }
                // Coarse derivatives: along the quad's top row and left column.
                let lod = |mip: Option<&Arc<Mip>>, v: &[Vec2; 4]| {
                    mip.map_or(0.0, |t| t.lod(v[1] - v[0], v[2] - v[0]))
                };
                let tvv = [
                    Vec2::new(0.5, tv[0]),
                    Vec2::new(0.5, tv[1]),
                    Vec2::new(0.5, tv[2]),
                    Vec2::ZERO,
                ];
                let samplers = QuadSamplers {
                    material,
                    lod: [
                        lod(material.texture.as_ref(), &uv),
                        lod(material.sphere.as_ref(), &suv),
                        if self.frame.self_shadow {
                            0.0
                        } else {
                            lod(Some(&material.toon), &tvv)
                        },
                    ],
                    map: self.shadow,
                };
                let texel = 1.0 / self.shadow.side as f32;
                for p in 0..4 {
                    if mask[p] == 0 {
                        continue;
                    }
                    let Some(i) = &inputs[p] else { continue };
                    if let Some(c) = shading::fs_model(i, uniform, self.frame, &samplers, texel) {
                        write(p, c, true);
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn lerp<const N: usize>(&self, tri: &Tri, w: [f32; 3], at: usize) -> [f32; N] {
        let a = &self.attrs;
        let (r0, r1, r2) = (
            &a[tri.v[0] as usize],
            &a[tri.v[1] as usize],
            &a[tri.v[2] as usize],
        );
        std::array::from_fn(|j| r0[at + j] * w[0] + r1[at + j] * w[1] + r2[at + j] * w[2])
    }

    fn lerp2(&self, tri: &Tri, w: [f32; 3], at: usize) -> Vec2 {
        Vec2::from(self.lerp::<2>(tri, w, at))
    }

    fn lerp3(&self, tri: &Tri, w: [f32; 3], at: usize) -> Vec3 {
        Vec3::from(self.lerp::<3>(tri, w, at))
    }

    fn lerp4(&self, tri: &Tri, w: [f32; 3], at: usize) -> Vec4 {
        Vec4::from(self.lerp::<4>(tri, w, at))
    }
}

/// The ground pass reads only the light map.
struct GroundSamplers<'a> {
    map: &'a DepthMap,
}

impl Samplers for GroundSamplers<'_> {
    fn main(&self, _: Vec2) -> Vec4 {
        Vec4::ONE
    }
    fn sphere(&self, _: Vec2) -> Vec4 {
        Vec4::ONE
    }
    fn toon(&self, _: Vec2) -> Vec4 {
        Vec4::ONE
    }
    fn shadow_compare(&self, uv: Vec2, depth: f32) -> f32 {
        self.map.compare(uv, depth)
    }
    fn shadow_pcf4(&self, uv: Vec2, depth: f32, _texel: f32) -> f32 {
        self.map.pcf4(uv, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use raster::ClipVert;

    /// The packed resolve equals the per-channel rounded mean, (a + b + c + d + 2) / 4.
    #[test]
    fn resolve_is_the_rounded_mean() {
        let mut x = 0x1234_5678u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let color: Vec<u32> = (0..4 * 1000).map(|_| next()).collect();
        let mut out = vec![0u8; 4 * 1000];
        resolve(&color, &mut out, 4);
        for (px, o) in color.chunks_exact(4).zip(out.chunks_exact(4)) {
            for (c, &got) in o.iter().enumerate() {
                let sum: u32 = px.iter().map(|v| v.to_le_bytes()[c] as u32).sum();
                assert_eq!(got as u32, (sum + 2) / 4, "{px:x?}");
            }
        }
        resolve(&color[..1000], &mut out[..4000], 1);
        assert_eq!(
            &out[..4000],
            bytemuck::cast_slice::<u32, u8>(&color[..1000])
        );
    }

    /// The fill rule: a fan of triangles around a shared centre, with edges at all angles and
    /// vertices off the pixel grid, covers every sample inside the polygon exactly once (no
    /// gaps, no double blending along shared edges), for both windings.
    #[test]
    fn shared_edges_cover_each_sample_once() {
        let size = (64u32, 64u32);
        let centre = Vec4::new(0.013, -0.021, 0.5, 1.0);
        let n = 11;
        let ring: Vec<Vec4> = (0..n)
            .map(|k| {
                let a = k as f32 / n as f32 * std::f32::consts::TAU + 0.1;
                Vec4::new(0.8 * a.cos(), 0.77 * a.sin(), 0.5, 1.0)
            })
            .collect();
        for flip in [false, true] {
            let mut hits = vec![0u8; (64 * 64 * 4) as usize];
            for k in 0..n {
                let (a, b) = (ring[k], ring[(k + 1) % n]);
                let p = if flip { [centre, b, a] } else { [centre, a, b] };
                let t = raster::setup(p, [0, 1, 2], size, Cull::None, 0, false).unwrap();
                for py in t.bbox[1]..=t.bbox[3] {
                    for px in t.bbox[0]..=t.bbox[2] {
                        for (s, &(ox, oy)) in raster::sample_offsets(4).iter().enumerate() {
                            let e = t.edges(px as i64 * SUB + ox, py as i64 * SUB + oy);
                            if e.iter().all(|&v| v >= 0) {
                                hits[((py * 64 + px) * 4) as usize + s] += 1;
                            }
                        }
                    }
                }
            }
            assert!(hits.iter().all(|&h| h <= 1), "a sample drawn twice");
            // Samples well inside the polygon (radius 0.7 of 0.77) are all covered.
            for py in 0..64 {
                for px in 0..64 {
                    let x = (px as f32 + 0.5) / 32.0 - 1.0;
                    let y = 1.0 - (py as f32 + 0.5) / 32.0;
                    if x * x + y * y < 0.7 * 0.7 {
                        let at = ((py * 64 + px) * 4) as usize;
                        assert_eq!(&hits[at..at + 4], &[1; 4], "gap at {px}, {py}");
                    }
                }
            }
        }
    }

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

    /// Clipping keeps what is inside the depth range: a triangle crossing the near plane
    /// becomes a polygon whose vertices all satisfy 0 ≤ z ≤ w, with attributes interpolated.
    #[test]
    fn clipping_at_the_near_plane() {
        let v = |z: f32, a: f32| {
            let mut attr = [0.0; ATTRS];
            attr[0] = a;
            ClipVert {
                pos: Vec4::new(0.0, 0.5, z, 1.0),
                attr,
            }
        };
        let mut tri = [v(-1.0, 0.0), v(1.0, 2.0), v(0.5, 1.0)];
        tri[1].pos.x = 0.5;
        tri[2].pos.y = -0.5;
        let mut out = raster::poly_buffer();
        let n = raster::clip(tri, &mut out);
        assert_eq!(n, 4);
        for c in &out[..n] {
            assert!(c.pos.z >= 0.0 && c.pos.z <= c.pos.w, "{:?}", c.pos);
        }
        // The crossing on the edge from z = −1 to z = 1 is halfway: attribute 1.0.
        assert!(
            out[..n]
                .iter()
                .any(|c| c.pos.z == 0.0 && (c.attr[0] - 1.0).abs() < 1e-6)
        );
    }
}
