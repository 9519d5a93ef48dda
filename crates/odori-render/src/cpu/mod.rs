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
//!
//! The files, one job each: this one the renderer's interface; `models` the models' materials
//! and per-frame state; `passes` a frame's passes (vertex stage, light depth, set-up, bands);
//! [`raster`] triangles to samples; `setup` triangle set-up on every thread; `band` a band's
//! coverage and depth tests; `shade` the shading of a quad; `blend` the 8-bit blending;
//! `resolve` the MSAA resolve; [`texture`] the texture and shadow-map lookups.

mod band;
mod blend;
#[cfg(target_arch = "x86_64")]
mod cover_lanes;
mod models;
mod passes;
pub mod raster;
mod resolve;
mod setup;
mod shade;
pub mod texture;

use crate::materials;
use crate::model::RenderModel;
use crate::renderer::{FrameView, RenderOptions, frame_uniform, ground_shares_map};
use crate::shading::FrameValues;
use crate::textures::TextureSource;
use glam::{Mat4, Vec4, Vec4Swizzles};
use models::{CpuMaterial, CpuModel, set_state};
use odori_pose::MaterialState;
use odori_pose::material::MaterialValues;
use passes::Work;
use std::collections::HashMap;
use std::sync::Arc;
use texture::{DepthMap, Mip};

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
    /// Shade quads in SIMD lanes (the default) or one value at a time.
    lanes: bool,
    shaded: ShadedQuads,
}

/// Quads a [`CpuRenderer`] has shaded since it was made, by the path that shaded them: a cheap
/// count (one addition per frame) that shows which code drew the pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShadedQuads {
    /// In SIMD lanes: the four pixels' weights together, the attributes four at a time and
    /// (on x86-64) the four channels of each sample blended together.
    pub lanes: u64,
    /// One value at a time.
    pub scalar: u64,
    /// Quads (shaded or not) whose four samples a pixel were tested for coverage and depth in
    /// AVX2 lanes (MSAA 4 with the lanes on, where the CPU has AVX2).
    pub avx2_tested: u64,
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
            lanes: true,
            shaded: ShadedQuads::default(),
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

    /// Shade in SIMD lanes (`true`, the default) or one value at a time: the two paths make
    /// the same operations in the same order and draw the same pixels; the choice is there to
    /// compare them.
    pub fn set_simd_shading(&mut self, lanes: bool) {
        self.lanes = lanes;
    }

    /// Quads shaded so far, by path.
    pub fn shaded_quads(&self) -> ShadedQuads {
        self.shaded
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
        let shadow_needed = frame.self_shadow || (ground && self.ground_map.is_none());
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

    /// Copy slot `slot`'s pixels (RGBA8, rows top to bottom) into `out` (always there: true,
    /// as [`crate::Renderer::read`] says when a frame was read).
    pub fn read(&self, slot: usize, out: &mut Vec<u8>) -> bool {
        let src = &self.slots[slot % self.slots.len()];
        out.clear();
        out.extend_from_slice(src);
        out.resize((self.options.width * self.options.height * 4) as usize, 0);
        true
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
