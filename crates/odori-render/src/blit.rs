//! Drawing the renderer's offscreen frame onto a presentable surface (a window's, a web
//! page's canvas), see `shaders/blit.wgsl`: the renderer draws offscreen (MSAA, a fixed
//! colour format), and a surface's format is whatever the platform offers.

/// The pipeline and the bind group for the renderer's current colour target.
pub struct Blit {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    group: Option<wgpu::BindGroup>,
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
        }
    }

    /// Point at the renderer's colour target (after it was made or resized).
    pub fn set_source(&mut self, device: &wgpu::Device, view: &wgpu::TextureView) {
        self.group = Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("blit"),
            layout: &self.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(view),
            }],
        }));
    }

    /// Draw the frame into `pass` (which covers the surface).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(g) = &self.group {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, g, &[]);
            pass.draw(0..3, 0..1);
        }
    }

    /// A pass onto `target` (a surface image) cleared to white with the frame drawn in it;
    /// the caller may draw more on top (a window's panels) before dropping it.
    pub fn pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
    ) -> wgpu::RenderPass<'static> {
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("blit"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::WHITE),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            })
            .forget_lifetime();
        self.draw(&mut pass);
        pass
    }
}

/// How a surface is set up to show the renderer's frames: a format that stores values as
/// they are (no sRGB encoding) when the surface has one, since the blit writes the frame's
/// values unchanged (or decodes them for an sRGB-only surface); the surface's first alpha
/// mode. `None`: the surface offers no format.
pub fn surface_config(
    caps: &wgpu::SurfaceCapabilities,
    (width, height): (u32, u32),
    present_mode: wgpu::PresentMode,
) -> Option<wgpu::SurfaceConfiguration> {
    let format = (caps.formats.iter().copied())
        .find(|f| !f.is_srgb())
        .or(caps.formats.first().copied())?;
    Some(wgpu::SurfaceConfiguration {
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
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
