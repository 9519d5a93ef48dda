//! Models on screen: GPU buffers, the light-space depth maps, and the passes of a frame in
//! MMD's order — light depth (self-shadow casters; ground-shadow casters share the map when
//! the two sets agree), then in the main pass the ground shadow, the materials in file order
//! (alpha-blended, so order matters as in MMD) and their edges.

use crate::camera::CameraPose;
use crate::gpu::Gpu;
use crate::light::Light;
use crate::materials::{self, Materials};
use crate::model::RenderModel;
use crate::pipelines::Pipelines;
use crate::shadows::{depth_map, ground_area, light_view_proj, lights_ground};
use crate::target::{ColorOrder, Target};
use crate::textures::TextureSource;
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use odori_pose::MaterialState;
use wgpu::util::DeviceExt;

/// What a frame looks like beyond the model: size, antialiasing, which MMD effects are on.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    pub width: u32,
    pub height: u32,
    /// MSAA samples (rounded down to what the adapter supports).
    pub msaa: u32,
    pub self_shadow: bool,
    pub ground_shadow: bool,
    pub edges: bool,
    /// Clear colour, RGBA 0..1 (MMD's default background is white).
    pub background: [f32; 4],
    /// RGBA of the ground shadow.
    pub ground_color: [f32; 4],
    /// Side of the light-space depth maps (self-shadow and ground shadow), texels; 0 (the
    /// default): follow the output, see [`RenderOptions::shadow_map_side`].
    pub shadow_map_size: u32,
    /// Frames in flight (readback buffers).
    pub slots: usize,
    /// Byte order of the frame on the GPU (reads are RGBA either way); see [`ColorOrder`].
    pub color_order: ColorOrder,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: 1280,
            height: 720,
            msaa: 4,
            self_shadow: true,
            ground_shadow: true,
            edges: true,
            background: [1.0, 1.0, 1.0, 1.0],
            ground_color: [0.0, 0.0, 0.0, 0.35],
            shadow_map_size: 0,
            slots: 3,
            color_order: ColorOrder::Rgba,
        }
    }
}

impl RenderOptions {
    /// The depth maps' side in texels: `shadow_map_size` when set (clamped to 64..=8192),
    /// else twice the output height clamped to 1024..=4096 (1024 up to 512 lines, 1440 at
    /// 720p, 2160 at 1080p), so a map texel stays about half an output pixel on a model that
    /// fills the frame and the ground shadow's edge does not stair-step at large sizes.
    pub fn shadow_map_side(&self) -> u32 {
        if self.shadow_map_size == 0 {
            self.height.saturating_mul(2).clamp(1024, 4096)
        } else {
            self.shadow_map_size.clamp(64, 8192)
        }
    }
}

/// What a frame shows beyond the models' own state: the camera, the light, and a box around
/// every posed model (what the light-space maps cover).
#[derive(Debug, Clone, Copy)]
pub struct FrameView {
    pub camera: CameraPose,
    pub light: Light,
    /// A box around the posed models (min, max).
    pub bounds: (Vec3, Vec3),
}

/// Matches `Frame` in `frame.wgsl`; the CPU rasteriser reads the same values.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct FrameUniform {
    pub view: [[f32; 4]; 4],
    pub proj: [[f32; 4]; 4],
    pub light_view_proj: [[f32; 4]; 4],
    pub eye: [f32; 4],
    pub light_dir: [f32; 4],
    pub light_color: [f32; 4],
    pub ground_color: [f32; 4],
    pub ground_area: [f32; 4],
    pub viewport: [f32; 4],
}

/// Whether self-shadow is drawn this frame: on in the options, and not switched off by the
/// light's self-shadow keys (MMD's セルフシャドウ panel set to 影なし).
pub(crate) fn self_shadow_on(o: &RenderOptions, view: &FrameView) -> bool {
    o.self_shadow && view.light.shadow.is_on()
}

/// The frame's uniform values, and whether the ground shadow is drawn (on, and the light
/// comes from above): the same for both renderers.
pub(crate) fn frame_uniform(o: &RenderOptions, view: &FrameView) -> (FrameUniform, bool) {
    let aspect = o.width as f32 / o.height.max(1) as f32;
    let light_dir = view.light.direction.try_normalize().unwrap_or(Vec3::NEG_Y);
    let ground = o.ground_shadow && lights_ground(light_dir);
    let (lo, hi) = view.bounds;
    let focus = ((lo + hi) * 0.5, (hi - lo).length() * 0.5);
    let lvp = light_view_proj(light_dir, focus);
    let uniform = FrameUniform {
        view: view.camera.view().to_cols_array_2d(),
        proj: view.camera.projection(aspect).to_cols_array_2d(),
        light_view_proj: lvp.to_cols_array_2d(),
        eye: view.camera.eye().extend(1.0).to_array(),
        light_dir: light_dir.extend(0.0).to_array(),
        light_color: view.light.color.extend(1.0).to_array(),
        ground_color: o.ground_color,
        ground_area: ground_area(light_dir, view.bounds),
        viewport: [
            o.width as f32,
            o.height as f32,
            // Edge width in pixels per unit of edge size: one pixel up to 720 lines (MMD's
            // look at its usual sizes), growing with taller frames.
            (o.height as f32 / 720.0).max(1.0),
            if self_shadow_on(o, view) { 1.0 } else { 0.0 },
        ],
    };
    (uniform, ground)
}

/// Whether the ground shadow reuses the self-shadow map: unless the two caster sets differ by
/// more than a tenth of the ground casters' triangles (parts flagged for only one of them are
/// usually small, eyes and cheeks, and inside the body's silhouette anyway); a second
/// light-space pass costs as much as the first on a CPU rasteriser.
pub(crate) fn ground_shares_map<'a>(
    models: impl Iterator<Item = &'a RenderModel> + Clone,
    options: &RenderOptions,
) -> bool {
    let tris = |f: &dyn Fn(&crate::model::MaterialDesc) -> bool| -> usize {
        (models.clone())
            .flat_map(|m| &m.materials)
            .filter(|m| f(m))
            .map(|m| m.indices.len())
            .sum()
    };
    let differing = tris(&|m| m.ground_shadow != m.cast_shadow);
    let ground_tris = tris(&|m| m.ground_shadow);
    options.self_shadow && differing * 10 <= ground_tris
}

/// One model's GPU side: its materials, vertex buffers and this frame's state.
struct DrawModel {
    model: RenderModel,
    materials: Materials,
    deformed: wgpu::Buffer,
    static_vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    /// Per material: resolved diffuse alpha and edge size this frame (alpha 0 hides it).
    alpha: Vec<(f32, f32)>,
    /// The model's visibility keys this frame.
    visible: bool,
}

impl DrawModel {
    fn shown(&self, i: usize) -> bool {
        self.visible && self.alpha[i].0 > 0.0
    }
}

/// Draws one or more models (a scene) into offscreen frames that are read back.
pub struct Renderer {
    pub gpu: Gpu,
    pub options: RenderOptions,
    models: Vec<DrawModel>,
    target: Target,
    pipelines: Pipelines,
    frame_buffer: wgpu::Buffer,
    frame_group: wgpu::BindGroup,
    shadow_group: wgpu::BindGroup,
    shadow_view: wgpu::TextureView,
    /// The ground shadow's depth map when its casters differ from the self-shadow casters
    /// (else the self-shadow map serves both).
    ground_view: Option<wgpu::TextureView>,
    ground_group: wgpu::BindGroup,
    staging: Vec<[f32; 12]>,
    warnings: Vec<String>,
}

impl Renderer {
    /// A renderer for one model.
    pub fn new(
        gpu: Gpu,
        model: RenderModel,
        textures: &TextureSource,
        options: RenderOptions,
    ) -> Renderer {
        Renderer::with_models(gpu, vec![(model, textures)], options)
    }

    /// A renderer for several models drawn together, in the order given (MMD draws models in
    /// the order they were loaded, each model's materials in file order).
    pub fn with_models(
        gpu: Gpu,
        models: Vec<(RenderModel, &TextureSource)>,
        options: RenderOptions,
    ) -> Renderer {
        let device = &gpu.device;
        let target = Target::new(
            device,
            &gpu.sample_counts,
            options.width,
            options.height,
            options.msaa,
            options.slots,
            options.color_order,
        );
        let pipelines = Pipelines::new(device, target.samples, options.color_order.format());
        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame"),
            size: std::mem::size_of::<FrameUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame"),
            layout: &pipelines.frame_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_buffer.as_entire_binding(),
            }],
        });
        let shadow_size = options.shadow_map_side();
        let shadow_view = depth_map(device, shadow_size, "self-shadow map");
        let shadow_sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("shadow compare"),
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let map_group = |view: &wgpu::TextureView| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("light depth map"),
                layout: &pipelines.shadow_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&shadow_sampler),
                    },
                ],
            })
        };
        let shadow_group = map_group(&shadow_view);
        let share = ground_shares_map(models.iter().map(|(m, _)| m), &options);
        let ground_view = (!share).then(|| depth_map(device, shadow_size, "ground-shadow map"));
        let ground_group = map_group(ground_view.as_ref().unwrap_or(&shadow_view));
        let pair = (gpu.device.clone(), gpu.queue.clone());
        let mut warnings = Vec::new();
        let models = models
            .into_iter()
            .map(|(model, textures)| {
                let materials = Materials::new(&pair, &pipelines.material_layout, &model, textures);
                warnings.extend(materials.warnings.iter().cloned());
                DrawModel::new(device, model, materials)
            })
            .collect();
        Renderer {
            gpu,
            options,
            models,
            target,
            pipelines,
            frame_buffer,
            frame_group,
            shadow_group,
            shadow_view,
            ground_view,
            ground_group,
            staging: Vec::new(),
            warnings,
        }
    }

    /// Texture problems met while loading the models' materials.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// How many models this renderer draws.
    pub fn model_count(&self) -> usize {
        self.models.len()
    }

    /// Model `i`'s materials and draw ranges.
    pub fn model(&self, i: usize) -> &RenderModel {
        &self.models[i].model
    }

    /// MSAA samples actually used.
    pub fn samples(&self) -> u32 {
        self.target.samples
    }

    pub fn slots(&self) -> usize {
        self.target.slots()
    }

    /// Upload model `i`'s CPU-deformed vertices (positions, normals, UVs; one per vertex).
    pub fn upload_vertices(
        &mut self,
        i: usize,
        positions: &[[f32; 3]],
        normals: &[[f32; 3]],
        uvs: &[[f32; 2]],
    ) {
        self.staging.clear();
        self.staging
            .extend(positions.iter().zip(normals).zip(uvs).map(|((p, n), t)| {
                [
                    p[0], p[1], p[2], 1.0, n[0], n[1], n[2], 0.0, t[0], t[1], 0.0, 0.0,
                ]
            }));
        if !self.staging.is_empty() {
            self.gpu.queue.write_buffer(
                &self.models[i].deformed,
                0,
                bytemuck::cast_slice(&self.staging),
            );
        }
    }

    /// Draw model `i` from `buffer` instead of the vertices [`Renderer::upload_vertices`]
    /// writes: a GPU skinner's output in the same layout (per vertex: vec4 position, vec4
    /// normal, vec4 uv; odori-deform's `GpuSkinner::output_buffer`). Record the skinner's
    /// work with [`Renderer::render_with`] so it runs before the frame's passes.
    pub fn set_vertex_buffer(&mut self, i: usize, buffer: wgpu::Buffer) {
        self.models[i].deformed = buffer;
    }

    /// Model `i`'s state this frame: its material-morph results (`Instance::materials`; empty
    /// = unmorphed) and its visibility keys. Kept until the next call.
    pub fn set_model_state(&mut self, i: usize, materials: &[MaterialState], visible: bool) {
        let queue = &self.gpu.queue;
        let m = &mut self.models[i];
        m.materials.update(queue, &m.model, materials);
        // Which materials draw this frame: alpha 0 hides a material (MMD's idiom for parts
        // switched by material morphs).
        for (k, desc) in m.model.materials.iter().enumerate() {
            let v =
                materials::drawn_values(&m.model, &materials::base_values(desc), materials.get(k));
            m.alpha[k] = (v.diffuse.w, v.edge_size);
        }
        m.visible = visible;
    }

    /// Record and submit one frame into readback slot `slot`; read it with [`Renderer::read`].
    pub fn render(&mut self, view: &FrameView, slot: usize) {
        self.render_with(view, slot, |_| {});
    }

    /// [`Renderer::render`], with `before` recording work (GPU skinning) into the frame's
    /// command encoder ahead of the draw passes.
    pub fn render_with(
        &mut self,
        view: &FrameView,
        slot: usize,
        before: impl FnOnce(&mut wgpu::CommandEncoder),
    ) {
        self.record(view, Some(slot), before);
    }

    /// Draw one frame into [`Renderer::color_view`] only, without the copy into a readback
    /// slot that [`Renderer::render`] records: a window player or a web page shows most frames
    /// and saves few, and the copy is a full-frame memcpy on a software rasteriser and a
    /// `glReadPixels` per frame on WebGL2.
    pub fn draw(&mut self, view: &FrameView) {
        self.record(view, None, |_| {});
    }

    /// Record and submit a frame; with `slot`, copy it into that readback slot too.
    fn record(
        &mut self,
        view: &FrameView,
        slot: Option<usize>,
        before: impl FnOnce(&mut wgpu::CommandEncoder),
    ) {
        let (uniform, ground) = frame_uniform(&self.options, view);
        let queue = &self.gpu.queue;
        queue.write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&uniform));

        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        before(&mut encoder);
        // Light-space depth: self-shadow casters, and ground-shadow casters (into the same
        // map when the sets agree, else their own).
        let shadow_needed =
            self_shadow_on(&self.options, view) || (ground && self.ground_view.is_none());
        if shadow_needed {
            self.depth_pass(&mut encoder, &self.shadow_view, |m, i| {
                m.model.materials[i].cast_shadow && m.shown(i)
            });
        }
        if let (true, Some(view)) = (ground, &self.ground_view) {
            self.depth_pass(&mut encoder, view, |m, i| {
                m.model.materials[i].ground_shadow && m.shown(i)
            });
        }
        {
            let bg = self.options.background.map(|c| c as f64);
            let color = self.target.color_attachment(wgpu::Color {
                r: bg[0],
                g: bg[1],
                b: bg[2],
                a: bg[3],
            });
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("main"),
                color_attachments: &[Some(color)],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.target.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frame_group, &[]);
            let casts_on_ground = |m: &DrawModel| {
                (m.model.materials.iter().enumerate()).any(|(i, d)| d.ground_shadow && m.shown(i))
            };
            if ground && self.models.iter().any(casts_on_ground) {
                pass.set_pipeline(&self.pipelines.ground);
                pass.set_bind_group(1, &self.ground_group, &[]);
                pass.draw(0..4, 0..1);
            }
            pass.set_bind_group(2, &self.shadow_group, &[]);
            for m in &self.models {
                pass.set_vertex_buffer(0, m.deformed.slice(..));
                pass.set_vertex_buffer(1, m.static_vertices.slice(..));
                pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
                let mats = &m.model.materials;
                for (i, d) in mats.iter().enumerate() {
                    if !m.shown(i) || d.indices.is_empty() {
                        continue;
                    }
                    let p = &self.pipelines;
                    pass.set_pipeline(match (d.additive, d.double_sided) {
                        (false, true) => &p.model_double,
                        (false, false) => &p.model_culled,
                        (true, true) => &p.additive_double,
                        (true, false) => &p.additive_culled,
                    });
                    let offset = (i as u64 * materials::STRIDE) as u32;
                    pass.set_bind_group(1, &m.materials.list[i].bind_group, &[offset]);
                    pass.draw_indexed(d.indices.clone(), 0, 0..1);
                }
                if self.options.edges {
                    pass.set_pipeline(&self.pipelines.edge);
                    for (i, d) in mats.iter().enumerate() {
                        if d.edge && m.shown(i) && m.alpha[i].1 > 0.0 && !d.indices.is_empty() {
                            let offset = (i as u64 * materials::STRIDE) as u32;
                            pass.set_bind_group(1, &m.materials.list[i].bind_group, &[offset]);
                            pass.draw_indexed(d.indices.clone(), 0, 0..1);
                        }
                    }
                }
            }
        }
        if let Some(slot) = slot {
            self.target
                .copy_to_slot(&mut encoder, slot % self.target.slots());
        }
        self.gpu.queue.submit([encoder.finish()]);
    }

    /// Depth from the light of the materials `casts` selects (model, material), into `view`.
    fn depth_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        casts: impl Fn(&DrawModel, usize) -> bool,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("light depth"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.frame_group, &[]);
        for m in &self.models {
            pass.set_vertex_buffer(0, m.deformed.slice(..));
            pass.set_vertex_buffer(1, m.static_vertices.slice(..));
            pass.set_index_buffer(m.indices.slice(..), wgpu::IndexFormat::Uint32);
            for (i, d) in m.model.materials.iter().enumerate() {
                if casts(m, i) && !d.indices.is_empty() {
                    pass.set_pipeline(if d.double_sided {
                        &self.pipelines.shadow_double
                    } else {
                        &self.pipelines.shadow_culled
                    });
                    pass.draw_indexed(d.indices.clone(), 0, 0..1);
                }
            }
        }
    }

    /// The last rendered frame's colour (RGBA8, not sRGB-encoded: the values a PNG stores),
    /// for a window player to draw on its surface. Replaced by [`Renderer::resize`].
    pub fn color_view(&self) -> &wgpu::TextureView {
        self.target.resolved_view()
    }

    /// The texture behind [`Renderer::color_view`] (in [`RenderOptions::color_order`]), for
    /// a window that copies the frame onto its surface.
    pub fn color_texture(&self) -> &wgpu::Texture {
        self.target.resolved()
    }

    /// Change the output size (a window resized): the colour, depth and readback targets are
    /// made anew; models, textures and pipelines stay.
    pub fn resize(&mut self, width: u32, height: u32) {
        let (width, height) = (width.max(1), height.max(1));
        if (width, height) == (self.options.width, self.options.height) {
            return;
        }
        self.options.width = width;
        self.options.height = height;
        self.target = Target::new(
            &self.gpu.device,
            &self.gpu.sample_counts,
            width,
            height,
            self.target.samples,
            self.options.slots,
            self.options.color_order,
        );
    }

    /// Wait for slot `slot` and copy its pixels (RGBA8, rows top to bottom) into `out`;
    /// false when the device was lost and `out` is not the frame.
    pub fn read(&self, slot: usize, out: &mut Vec<u8>) -> bool {
        self.target
            .read_slot(&self.gpu.device, slot % self.target.slots(), out)
    }

    /// Render one frame and read it back (no overlap): for tests and single images.
    pub fn render_image(&mut self, view: &FrameView) -> image::RgbaImage {
        self.render(view, 0);
        let mut px = Vec::new();
        self.read(0, &mut px);
        image::RgbaImage::from_raw(self.options.width, self.options.height, px)
            .expect("readback has width × height pixels")
    }
}

impl DrawModel {
    /// The model's vertex and index buffers, its materials already uploaded.
    fn new(device: &wgpu::Device, model: RenderModel, materials: Materials) -> DrawModel {
        let n = model.vertex_count().max(1);
        let deformed = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("deformed vertices"),
            size: (n * 48) as u64,
            usage: wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        let mut static_data: Vec<[f32; 8]> = model
            .uv1
            .iter()
            .zip(&model.edge_scale)
            .map(|(uv, &e)| [uv[0], uv[1], uv[2], uv[3], e, 0.0, 0.0, 0.0])
            .collect();
        static_data.resize(n, [0.0; 8]);
        let static_vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("static vertices"),
            contents: bytemuck::cast_slice(&static_data),
            usage: wgpu::BufferUsages::VERTEX,
        });
        // A render model built by hand may hold indices past its vertices: the same repair
        // as the file's (`odori_format::faces`), so nothing is read past the buffer.
        let vc = model.vertex_count() as u32;
        let (mut index_data, _) =
            odori_format::faces::repair_indices(model.indices.iter().copied(), vc);
        index_data.resize(index_data.len().max(3), 0);
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices"),
            contents: bytemuck::cast_slice(&index_data),
            usage: wgpu::BufferUsages::INDEX,
        });
        let alpha = (model.materials.iter())
            .map(|d| {
                let v = materials::drawn_values(&model, &materials::base_values(d), None);
                (v.diffuse.w, v.edge_size)
            })
            .collect();
        DrawModel {
            model,
            materials,
            deformed,
            static_vertices,
            indices,
            alpha,
            visible: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenderOptions;

    #[test]
    fn shadow_map_follows_the_output_unless_set() {
        let at = |width, height| RenderOptions {
            width,
            height,
            ..Default::default()
        };
        assert_eq!(RenderOptions::default().shadow_map_size, 0);
        assert_eq!(at(256, 256).shadow_map_side(), 1024);
        assert_eq!(at(1280, 720).shadow_map_side(), 1440);
        assert_eq!(at(1920, 1080).shadow_map_side(), 2160);
        assert_eq!(at(7680, 4320).shadow_map_side(), 4096);
        let set = RenderOptions {
            shadow_map_size: 1024,
            ..at(1920, 1080)
        };
        assert_eq!(set.shadow_map_side(), 1024);
    }
}
