//! egui's panels painted with wgpu by odori's own painter (`shaders/panels.wgsl`), in place
//! of egui-wgpu's. Why: egui-wgpu's fragment shader keeps a manual bilinear filter (integer
//! modulo per tap) and dithering behind uniform flags, and Mesa's lavapipe runs both sides of
//! every branch for every pixel, which made the panels cost several times what a plain
//! `textureSample` shader costs there (CHANGELOG.md has the measurement). On a GPU either
//! costs next to nothing. The painter does what the panels need: egui's
//! managed textures (the font atlas, whole or in patches), meshes clipped by their
//! rectangles; paint callbacks are not used by the player and are skipped.

use odori_render::wgpu;
use std::collections::HashMap;
use std::ops::Range;

/// One vertex as the shader reads it (egui's own layout depends on a cargo feature).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct PanelVertex {
    pos: [f32; 2],
    uv: [f32; 2],
    color: [u8; 4],
}

/// A texture egui manages, with the bind group the meshes that use it draw with.
struct PanelTexture {
    texture: wgpu::Texture,
    group: wgpu::BindGroup,
}

/// One mesh of the frame: which texture, where (scissor, window pixels), which indices.
struct Draw {
    texture: egui::TextureId,
    scissor: [u32; 4],
    indices: Range<u32>,
    base_vertex: i32,
}

pub struct Painter {
    pipeline: wgpu::RenderPipeline,
    screen: wgpu::Buffer,
    screen_group: wgpu::BindGroup,
    texture_layout: wgpu::BindGroupLayout,
    textures: HashMap<egui::TextureId, PanelTexture>,
    vertex_buffer: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    // Kept between frames so that painting allocates only when the panels grow.
    vertices: Vec<PanelVertex>,
    indices: Vec<u32>,
    draws: Vec<Draw>,
    pixels: Vec<u8>,
}

impl Painter {
    pub fn new(device: &wgpu::Device, surface_format: wgpu::TextureFormat) -> Painter {
        let shader = device.create_shader_module(wgpu::include_wgsl!("shaders/panels.wgsl"));
        let screen_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("panels screen"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("panels texture"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
            ],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("panels"),
            bind_group_layouts: &[Some(&screen_layout), Some(&texture_layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("panels"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<PanelVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &wgpu::vertex_attr_array![
                        0 => Float32x2, 1 => Float32x2, 2 => Unorm8x4
                    ],
                })],
            },
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some(if surface_format.is_srgb() {
                    "fs_decode"
                } else {
                    "fs_plain"
                }),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: surface_format,
                    // egui's colours are premultiplied.
                    blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: wgpu::PrimitiveState {
                cull_mode: None,
                ..Default::default()
            },
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        });
        let screen = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("panels screen"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let screen_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("panels screen"),
            layout: &screen_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: screen.as_entire_binding(),
            }],
        });
        Painter {
            pipeline,
            screen,
            screen_group,
            texture_layout,
            textures: HashMap::new(),
            vertex_buffer: vertex_buffer(device, 0),
            index_buffer: index_buffer(device, 0),
            vertices: Vec::new(),
            indices: Vec::new(),
            draws: Vec::new(),
            pixels: Vec::new(),
        }
    }

    /// Apply egui's new textures and patches (`delta.set`); call before [`Painter::prepare`].
    pub fn update_textures(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        delta: &egui::TexturesDelta,
    ) {
        let patches = (delta.set.iter()).flat_map(|(id, list)| list.iter().map(move |d| (id, d)));
        for (id, image) in patches {
            let egui::ImageData::Color(color) = &image.image;
            let [w, h] = color.size.map(|s| s as u32);
            self.pixels.clear();
            self.pixels
                .extend(color.pixels.iter().flat_map(|c| c.to_array()));
            let origin = match image.pos {
                // A patch of a texture egui made before.
                Some([x, y]) => wgpu::Origin3d {
                    x: x as u32,
                    y: y as u32,
                    z: 0,
                },
                None => {
                    let texture = self.new_texture(device, w, h, image.options);
                    self.textures.insert(*id, texture);
                    wgpu::Origin3d::ZERO
                }
            };
            let Some(target) = self.textures.get(id) else {
                continue;
            };
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &target.texture,
                    mip_level: 0,
                    origin,
                    aspect: wgpu::TextureAspect::All,
                },
                &self.pixels,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(4 * w),
                    rows_per_image: Some(h),
                },
                wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
            );
        }
    }

    /// Forget the textures egui let go of (`delta.free`); call after the frame is submitted.
    pub fn free_textures(&mut self, delta: &egui::TexturesDelta) {
        for id in &delta.free {
            self.textures.remove(id);
        }
    }

    fn new_texture(
        &self,
        device: &wgpu::Device,
        width: u32,
        height: u32,
        options: egui::TextureOptions,
    ) -> PanelTexture {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("panels"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            // Not sRGB: egui filters its colours as display values.
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let filter = |f: egui::TextureFilter| match f {
            egui::TextureFilter::Nearest => wgpu::FilterMode::Nearest,
            egui::TextureFilter::Linear => wgpu::FilterMode::Linear,
        };
        let address = match options.wrap_mode {
            egui::TextureWrapMode::ClampToEdge => wgpu::AddressMode::ClampToEdge,
            egui::TextureWrapMode::Repeat => wgpu::AddressMode::Repeat,
            egui::TextureWrapMode::MirroredRepeat => wgpu::AddressMode::MirrorRepeat,
        };
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("panels"),
            address_mode_u: address,
            address_mode_v: address,
            mag_filter: filter(options.magnification),
            min_filter: filter(options.minification),
            ..Default::default()
        });
        let view = texture.create_view(&Default::default());
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("panels"),
            layout: &self.texture_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        });
        PanelTexture { texture, group }
    }

    /// Upload the frame's meshes (`paint`, egui's tessellation) for a window of `size` pixels
    /// at `pixels_per_point`.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        paint: &[egui::ClippedPrimitive],
        size: (u32, u32),
        pixels_per_point: f32,
    ) {
        self.vertices.clear();
        self.indices.clear();
        self.draws.clear();
        for p in paint {
            let egui::epaint::Primitive::Mesh(mesh) = &p.primitive else {
                continue; // paint callbacks: the player has none
            };
            let Some(scissor) = scissor(p.clip_rect, size, pixels_per_point) else {
                continue;
            };
            if mesh.indices.is_empty() {
                continue;
            }
            let start = self.indices.len() as u32;
            let base_vertex = self.vertices.len() as i32;
            self.vertices
                .extend(mesh.vertices.iter().map(|v| PanelVertex {
                    pos: [v.pos.x, v.pos.y],
                    uv: [v.uv.x, v.uv.y],
                    color: v.color.to_array(),
                }));
            self.indices.extend_from_slice(&mesh.indices);
            self.draws.push(Draw {
                texture: mesh.texture_id,
                scissor,
                indices: start..self.indices.len() as u32,
                base_vertex,
            });
        }
        let points = [
            size.0 as f32 / pixels_per_point,
            size.1 as f32 / pixels_per_point,
            0.0,
            0.0,
        ];
        queue.write_buffer(&self.screen, 0, bytemuck::cast_slice(&points));
        let vertex_bytes: &[u8] = bytemuck::cast_slice(&self.vertices);
        if vertex_bytes.len() as u64 > self.vertex_buffer.size() {
            self.vertex_buffer = vertex_buffer(device, vertex_bytes.len() as u64);
        }
        let index_bytes: &[u8] = bytemuck::cast_slice(&self.indices);
        if index_bytes.len() as u64 > self.index_buffer.size() {
            self.index_buffer = index_buffer(device, index_bytes.len() as u64);
        }
        if !vertex_bytes.is_empty() {
            queue.write_buffer(&self.vertex_buffer, 0, vertex_bytes);
        }
        if !index_bytes.is_empty() {
            queue.write_buffer(&self.index_buffer, 0, index_bytes);
        }
    }

    /// Draw what [`Painter::prepare`] uploaded into `pass` (which covers the window).
    pub fn render(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.draws.is_empty() {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.screen_group, &[]);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        for d in &self.draws {
            let Some(t) = self.textures.get(&d.texture) else {
                continue;
            };
            let [x, y, w, h] = d.scissor;
            pass.set_scissor_rect(x, y, w, h);
            pass.set_bind_group(1, &t.group, &[]);
            pass.draw_indexed(d.indices.clone(), d.base_vertex, 0..1);
        }
    }
}

/// egui's clip rectangle (points) as a scissor rectangle in window pixels, or None when
/// nothing of it is on the window.
fn scissor(clip: egui::Rect, (w, h): (u32, u32), pixels_per_point: f32) -> Option<[u32; 4]> {
    let px = |v: f32, max: u32| ((v * pixels_per_point).round().max(0.0) as u32).min(max);
    let (x0, y0) = (px(clip.min.x, w), px(clip.min.y, h));
    let (x1, y1) = (px(clip.max.x, w), px(clip.max.y, h));
    (x1 > x0 && y1 > y0).then_some([x0, y0, x1 - x0, y1 - y0])
}

fn vertex_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    buffer(device, size, wgpu::BufferUsages::VERTEX, "panels vertices")
}

fn index_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    buffer(device, size, wgpu::BufferUsages::INDEX, "panels indices")
}

/// A buffer of at least `size` bytes (rounded up to grow in steps, never empty).
fn buffer(
    device: &wgpu::Device,
    size: u64,
    usage: wgpu::BufferUsages,
    label: &str,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.max(1 << 16).next_power_of_two(),
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
    use super::scissor;
    use egui::{Rect, pos2};

    /// Evidence: the pixel arithmetic by hand (points × 1.5, rounded, clamped to 100×50).
    #[test]
    fn clip_rectangles_become_scissors_in_window_pixels() {
        let r = |x0, y0, x1, y1| Rect::from_min_max(pos2(x0, y0), pos2(x1, y1));
        assert_eq!(
            scissor(r(10.0, 4.0, 30.0, 20.0), (100, 50), 1.5),
            Some([15, 6, 30, 24])
        );
        // Clamped to the window on every side.
        assert_eq!(
            scissor(r(-5.0, -5.0, 500.0, 500.0), (100, 50), 1.0),
            Some([0, 0, 100, 50])
        );
        // Nothing of it on the window, or empty: no draw.
        assert_eq!(scissor(r(120.0, 0.0, 200.0, 10.0), (100, 50), 1.0), None);
        assert_eq!(scissor(r(5.0, 5.0, 5.0, 9.0), (100, 50), 1.0), None);
    }
}
