//! Bind group layouts and the render pipelines of each pass: model with and without culling,
//! inverted-hull edges and light-space depth (`shaders/mmd.wgsl`), ground shadow
//! (`shaders/ground.wgsl`); both modules start with `shaders/frame.wgsl`.

use crate::target::DEPTH_FORMAT;

pub const SHADOW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Per-vertex stride of the deformed stream: vec4 position, vec4 normal, vec4 uv
/// (odori-deform's GPU skinner output layout).
pub const DEFORMED_STRIDE: u64 = 48;
/// Per-vertex stride of the static stream: vec4 additional UV 1, vec4 (edge scale, 0, 0, 0).
pub const STATIC_STRIDE: u64 = 32;

pub struct Pipelines {
    pub frame_layout: wgpu::BindGroupLayout,
    pub material_layout: wgpu::BindGroupLayout,
    pub shadow_layout: wgpu::BindGroupLayout,
    pub model_culled: wgpu::RenderPipeline,
    pub model_double: wgpu::RenderPipeline,
    /// The model pipelines for an additive material (加算合成): source × alpha added to the
    /// destination.
    pub additive_culled: wgpu::RenderPipeline,
    pub additive_double: wgpu::RenderPipeline,
    pub edge: wgpu::RenderPipeline,
    pub ground: wgpu::RenderPipeline,
    /// Light-space depth, culled as the material is in the model pass (MikuMikuDance
    /// keeps a material's cull state for its shadow-buffer draw: full.fx's `ZplotTec` sets
    /// none of its own): back faces culled, and for double-sided materials none.
    pub shadow_culled: wgpu::RenderPipeline,
    pub shadow_double: wgpu::RenderPipeline,
}

fn vertex_layouts() -> [wgpu::VertexBufferLayout<'static>; 2] {
    const DEFORMED: [wgpu::VertexAttribute; 3] =
        wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4, 2 => Float32x4];
    const STATIC: [wgpu::VertexAttribute; 2] =
        wgpu::vertex_attr_array![3 => Float32x4, 4 => Float32x4];
    [
        wgpu::VertexBufferLayout {
            array_stride: DEFORMED_STRIDE,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &DEFORMED,
        },
        wgpu::VertexBufferLayout {
            array_stride: STATIC_STRIDE,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &STATIC,
        },
    ]
}

impl Pipelines {
    pub fn new(device: &wgpu::Device, samples: u32, color: wgpu::TextureFormat) -> Pipelines {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("mmd.wgsl"),
            source: wgpu::ShaderSource::Wgsl(
                concat!(
                    include_str!("shaders/frame.wgsl"),
                    include_str!("shaders/mmd.wgsl")
                )
                .into(),
            ),
        });
        let ground_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("ground.wgsl"),
            source: wgpu::ShaderSource::Wgsl(
                concat!(
                    include_str!("shaders/frame.wgsl"),
                    include_str!("shaders/ground.wgsl")
                )
                .into(),
            ),
        });
        let vf = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: vf,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let tex = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let samp = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        };
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: vf,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: true,
                        min_binding_size: None,
                    },
                    count: None,
                },
                tex(1),
                tex(2),
                tex(3),
                samp(4),
                samp(5),
            ],
        });
        let shadow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("shadow map"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Depth,
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                    count: None,
                },
            ],
        });
        let layout = |groups: &[&wgpu::BindGroupLayout]| {
            let groups: Vec<Option<&wgpu::BindGroupLayout>> =
                groups.iter().map(|g| Some(*g)).collect();
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &groups,
                immediate_size: 0,
            })
        };
        let full = layout(&[&frame_layout, &material_layout, &shadow_layout]);
        let with_material = layout(&[&frame_layout, &material_layout]);
        let frame_only = layout(&[&frame_layout]);
        let ground_layout = layout(&[&frame_layout, &shadow_layout]);
        let buffers = vertex_layouts().map(Some);
        let blend = Some(wgpu::ColorTargetState {
            format: color,
            blend: Some(wgpu::BlendState {
                color: wgpu::BlendComponent {
                    src_factor: wgpu::BlendFactor::SrcAlpha,
                    dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                    operation: wgpu::BlendOperation::Add,
                },
                // Keep the frame opaque where something translucent is drawn over the clear.
                alpha: wgpu::BlendComponent::OVER,
            }),
            write_mask: wgpu::ColorWrites::ALL,
        });
        let additive = Some(wgpu::ColorTargetState {
            format: color,
            blend: Some(wgpu::BlendState {
                color: wgpu::BlendComponent {
                    src_factor: wgpu::BlendFactor::SrcAlpha,
                    dst_factor: wgpu::BlendFactor::One,
                    operation: wgpu::BlendOperation::Add,
                },
                alpha: wgpu::BlendComponent::OVER,
            }),
            write_mask: wgpu::ColorWrites::ALL,
        });
        let multisample = wgpu::MultisampleState {
            count: samples,
            ..Default::default()
        };
        let depth = |write: bool| wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(write),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: Default::default(),
        };
        let pipeline = |label: &str,
                        layout: &wgpu::PipelineLayout,
                        vs: &str,
                        fs: Option<&str>,
                        cull: Option<wgpu::Face>,
                        depth_stencil: wgpu::DepthStencilState,
                        ms: wgpu::MultisampleState,
                        target: &Option<wgpu::ColorTargetState>| {
            let targets = [target.clone()];
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers: &buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    // MMD is Direct3D: left-handed, clockwise front faces.
                    front_face: wgpu::FrontFace::Cw,
                    cull_mode: cull,
                    ..Default::default()
                },
                depth_stencil: Some(depth_stencil),
                multisample: ms,
                fragment: fs.map(|fs| wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &targets,
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let model = |label: &str, cull: Option<wgpu::Face>, target| {
            pipeline(
                label,
                &full,
                "vs_model",
                Some("fs_model"),
                cull,
                depth(true),
                multisample,
                target,
            )
        };
        let model_culled = model("model", Some(wgpu::Face::Back), &blend);
        let model_double = model("model double-sided", None, &blend);
        let additive_culled = model("model additive", Some(wgpu::Face::Back), &additive);
        let additive_double = model("model additive double-sided", None, &additive);
        let edge = pipeline(
            "edge",
            &with_material,
            "vs_edge",
            Some("fs_edge"),
            Some(wgpu::Face::Front),
            depth(true),
            multisample,
            &blend,
        );
        let ground = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("ground shadow"),
            layout: Some(&ground_layout),
            vertex: wgpu::VertexState {
                module: &ground_module,
                entry_point: Some("vs_ground"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleStrip,
                ..Default::default()
            },
            depth_stencil: Some(depth(false)),
            multisample,
            fragment: Some(wgpu::FragmentState {
                module: &ground_module,
                entry_point: Some("fs_ground"),
                compilation_options: Default::default(),
                targets: std::slice::from_ref(&blend),
            }),
            multiview_mask: None,
            cache: None,
        });
        let light_depth = wgpu::DepthStencilState {
            format: SHADOW_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: wgpu::DepthBiasState {
                constant: 2,
                slope_scale: 2.0,
                clamp: 0.0,
            },
        };
        let shadow = |label, cull| {
            pipeline(
                label,
                &frame_only,
                "vs_shadow",
                None,
                cull,
                light_depth.clone(),
                wgpu::MultisampleState::default(),
                &blend,
            )
        };
        let shadow_culled = shadow("light depth", Some(wgpu::Face::Back));
        let shadow_double = shadow("light depth double-sided", None);
        Pipelines {
            frame_layout,
            material_layout,
            shadow_layout,
            model_culled,
            model_double,
            additive_culled,
            additive_double,
            edge,
            ground,
            shadow_culled,
            shadow_double,
        }
    }
}
