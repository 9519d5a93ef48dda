//! Putting the renderer's offscreen frame on a presentable surface (a window's, a web
//! page's canvas). The renderer draws offscreen (MSAA, readable for screenshots), and a
//! surface's format is whatever the platform offers. When the frame is in the surface's
//! format (see [`frame_order`]) it is copied as it is; otherwise it is drawn through
//! `shaders/blit.wgsl`. A software rasteriser pays for every pixel a shader writes, and a
//! copy costs it a fraction of that draw.

use crate::target::ColorOrder;

/// How the renderer's current frame reaches the surface: the pipeline and bind group that
/// draw it, and the frame's texture to copy when its format is the surface's.
pub struct Blit {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    group: Option<wgpu::BindGroup>,
    surface_format: wgpu::TextureFormat,
    /// Set when the frame can be copied (same format as the surface).
    copy_from: Option<wgpu::Texture>,
    /// Whether the last [`Blit::pass`] copied the frame (else drew it).
    copied: bool,
}

impl Blit {
    pub fn new(device: &wgpu::Device, surface_format: wgpu::TextureFormat) -> Blit {
        let shader = device.create_shader_module(wgpu::include_wgsl!("shaders/blit.wgsl"));
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("blit"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("blit"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("blit"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &shader,
                entry_point: Some(if surface_format.is_srgb() {
                    "fs_decode"
                } else {
                    "fs_plain"
                }),
                compilation_options: Default::default(),
                targets: &[Some(surface_format.into())],
            }),
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            multiview_mask: None,
            cache: None,
        });
        Blit {
            pipeline,
            layout,
            group: None,
            surface_format,
            copy_from: None,
            copied: false,
        }
    }

    /// Point at the renderer's colour target (after it was made or resized).
    pub fn set_source(&mut self, device: &wgpu::Device, frame: &wgpu::Texture) {
        let view = frame.create_view(&Default::default());
        // Drawing stays possible: a frame whose size lags the surface's (mid-resize) is drawn.
        self.group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("blit"),
            layout: &self.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        }));
        self.copy_from = (frame.format() == self.surface_format).then(|| frame.clone());
    }

    /// Whether the last [`Blit::pass`] copied the frame onto the surface (else drew it).
    pub fn copied(&self) -> bool {
        self.copied
    }

    /// Draw the frame into `pass` (which covers the surface).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(g) = &self.group {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, g, &[]);
            pass.draw(0..3, 0..1);
        }
    }

    /// A pass onto `target` (a surface image, configured by [`surface_config`]) holding the
    /// frame, copied or drawn over white; the caller may draw more on top (a window's panels)
    /// before dropping it. Copied when the frame is in the surface's format and size and the
    /// image takes copies (wgpu's GL surfaces, WebGL's included, do not, whatever the
    /// configuration asked).
    pub fn pass(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::Texture,
    ) -> wgpu::RenderPass<'static> {
        let copy = (self.copy_from.as_ref()).filter(|f| {
            f.size() == target.size() && target.usage().contains(wgpu::TextureUsages::COPY_DST)
        });
        self.copied = copy.is_some();
        if let Some(frame) = copy {
            encoder.copy_texture_to_texture(
                frame.as_image_copy(),
                target.as_image_copy(),
                target.size(),
            );
        }
        let view = target.create_view(&Default::default());
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("blit"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: if copy.is_some() {
                            wgpu::LoadOp::Load
                        } else {
                            wgpu::LoadOp::Clear(wgpu::Color::WHITE)
                        },
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            .forget_lifetime();
        if copy.is_none() {
            self.draw(&mut pass);
        }
        pass
    }
}

/// How a surface is set up to show the renderer's frames: a format that stores values as
/// they are (no sRGB encoding) when the surface has one, since the frame's values go on it
/// unchanged (or decoded, through the shader, for an sRGB-only surface), RGBA8 or BGRA8
/// first, which the renderer can draw in for a copy; copy-writable when the surface allows;
/// the surface's first alpha mode. `None`: the surface offers no format.
pub fn surface_config(
    caps: &wgpu::SurfaceCapabilities,
    (width, height): (u32, u32),
    present_mode: wgpu::PresentMode,
) -> Option<wgpu::SurfaceConfiguration> {
    let formats = || caps.formats.iter().copied();
    let format = (formats().find(|&f| ColorOrder::of_format(f).is_some()))
        .or(formats().find(|f| !f.is_srgb()))
        .or(formats().next())?;
    let mut usage = wgpu::TextureUsages::RENDER_ATTACHMENT;
    if caps.usages.contains(wgpu::TextureUsages::COPY_DST) {
        usage |= wgpu::TextureUsages::COPY_DST;
    }
    Some(wgpu::SurfaceConfiguration {
        usage,
        format,
        width: width.max(1),
        height: height.max(1),
        present_mode,
        desired_maximum_frame_latency: 2,
        alpha_mode: (caps.alpha_modes.first().copied()).unwrap_or(wgpu::CompositeAlphaMode::Auto),
        view_formats: vec![],
        color_space: wgpu::SurfaceColorSpace::Auto,
    })
}

/// The byte order a renderer should draw in for `config`'s surface: the surface's own when
/// the frame can be copied onto it ([`Blit`] then copies), else RGBA (drawn through the
/// shader).
pub fn frame_order(config: &wgpu::SurfaceConfiguration) -> ColorOrder {
    match ColorOrder::of_format(config.format) {
        Some(order) if config.usage.contains(wgpu::TextureUsages::COPY_DST) => order,
        _ => ColorOrder::Rgba,
    }
}

/// The surface's next image; `None` when there is none this time (minimised, being resized),
/// after configuring the surface anew when it was outdated or lost.
pub fn next_image(
    surface: &wgpu::Surface<'_>,
    device: &wgpu::Device,
    config: &wgpu::SurfaceConfiguration,
) -> Option<wgpu::SurfaceTexture> {
    match surface.get_current_texture() {
        wgpu::CurrentSurfaceTexture::Success(t) | wgpu::CurrentSurfaceTexture::Suboptimal(t) => {
            Some(t)
        }
        wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
            surface.configure(device, config);
            None
        }
        _ => None,
    }
}
