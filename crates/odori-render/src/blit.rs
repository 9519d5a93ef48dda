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
}
