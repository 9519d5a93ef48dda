//! The GPU path: a wgpu compute shader (`skin.wgsl`) that deforms every vertex into a storage
//! buffer the renderer binds as its vertex buffer.
//!
//! Per frame the CPU uploads only the skinning matrices (64 bytes a bone, any number of bones:
//! they live in a storage buffer, not a fixed-size uniform array) and the morph weights (4
//! bytes a morph). Morphs use a gather layout built at load: each vertex owns the list of
//! (morph, channel, offset) entries that touch it and sums those whose weight is non-zero.
//! WGSL has no float atomics, so a scatter (one invocation per offset) would need an extra
//! pass and an integer encoding; uploading CPU-accumulated deltas would cost 12+ bytes a
//! touched vertex each frame. The gather costs nothing for vertices no morph touches, and a
//! loop over a few dozen entries for face vertices.
//!
//! Output layout, per vertex, 48 bytes (three 16-byte vec4s, see [`GpuSkinner::vertex_layout`]):
//! position xyz + 1.0, unit normal xyz + 0.0, UV xy + edge scale + 0.0. Additional UVs, when
//! the model has them, go to a second buffer ([`GpuSkinner::additional_uv_buffer`]): four
//! vec4s per vertex, the first `Mesh::additional_uv_count` of them meaningful.

mod layout;
mod readback;

use crate::Mesh;
use glam::Affine3A;
use layout::{Bone, OUT_VERTEX_BYTES, Params};
use wgpu::util::DeviceExt;

/// Byte offset of the edge scale inside an output vertex (the UV vec4's z), for a renderer
/// that draws outlines and wants it as a vertex attribute.
pub const EDGE_SCALE_OFFSET: u64 = 40;

const WORKGROUP: u32 = 64;

/// GPU buffers and pipeline for one mesh instance.
pub struct GpuSkinner {
    vertex_count: u32,
    bone_count: usize,
    morph_count: usize,
    additional_uv_count: usize,
    dispatch: (u32, u32),
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    bones: wgpu::Buffer,
    weights: wgpu::Buffer,
    output: wgpu::Buffer,
    additional_uvs: Option<wgpu::Buffer>,
    resident_bytes: u64,
    morph_entries: usize,
}

fn storage(device: &wgpu::Device, label: &str, bytes: &[u8]) -> wgpu::Buffer {
    // wgpu refuses empty bindings: pad an empty table with one zeroed element.
    let padded;
    let contents = if bytes.is_empty() {
        padded = [0u8; 64];
        &padded[..]
    } else {
        bytes
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE,
    })
}

fn entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: if binding == 0 {
                wgpu::BufferBindingType::Uniform
            } else {
                wgpu::BufferBindingType::Storage { read_only }
            },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl GpuSkinner {
    /// Upload `mesh` and build the pipeline. The rest record is 96 bytes a vertex, so a mesh
    /// needs `96 × vertices` of `max_storage_buffer_binding_size` (wgpu's default 128 MiB
    /// allows about 1.4 million vertices; request the adapter's limits for more).
    pub fn new(device: &wgpu::Device, mesh: &Mesh) -> Self {
        let (rest, entries, sdef) = layout::build(mesh);
        let entry_count = entries.len();
        let n = mesh.vertex_count() as u32;
        let groups = n.div_ceil(WORKGROUP).max(1);
        let max_x = device.limits().max_compute_workgroups_per_dimension.max(1);
        let x = groups.min(max_x);
        let dispatch = (x, groups.div_ceil(x));
        let params = Params {
            vertex_count: n,
            row_threads: x * WORKGROUP,
            additional_uvs: mesh.additional_uv_count as u32,
            pad: 0,
        };
        let bone_slots = mesh.bone_count.max(1);
        let morph_slots = mesh.morph_count().max(1);
        let identity: Vec<Bone> = vec![bone(&Affine3A::IDENTITY); bone_slots];
        let bones = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("odori-deform bones"),
            contents: bytemuck::cast_slice(&identity),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let weights = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("odori-deform morph weights"),
            contents: bytemuck::cast_slice(&vec![0f32; morph_slots]),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        });
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("odori-deform params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let rest = storage(
            device,
            "odori-deform rest vertices",
            bytemuck::cast_slice(&rest),
        );
        let entries = storage(
            device,
            "odori-deform morph entries",
            bytemuck::cast_slice(&entries),
        );
        let sdef = storage(device, "odori-deform sdef", bytemuck::cast_slice(&sdef));
        let rest_extra = storage(
            device,
            "odori-deform rest additional uvs",
            bytemuck::cast_slice(&mesh.additional_uvs),
        );
        let output = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("odori-deform deformed vertices"),
            size: OUT_VERTEX_BYTES * n.max(1) as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let additional_uvs = (mesh.additional_uv_count > 0).then(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("odori-deform deformed additional uvs"),
                size: 64 * n.max(1) as u64,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::VERTEX
                    | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        });
        // Without additional UVs the shader writes none; bind a small placeholder.
        let extra_out_placeholder;
        let extra_out = match &additional_uvs {
            Some(b) => b,
            None => {
                extra_out_placeholder = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("odori-deform additional uv placeholder"),
                    size: 64,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                });
                &extra_out_placeholder
            }
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("odori-deform skin.wgsl"),
            source: wgpu::ShaderSource::Wgsl(include_str!("skin.wgsl").into()),
        });
        let bind_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("odori-deform bindings"),
            entries: &[
                entry(0, true),
                entry(1, true),
                entry(2, true),
                entry(3, true),
                entry(4, true),
                entry(5, true),
                entry(6, true),
                entry(7, false),
                entry(8, false),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("odori-deform pipeline layout"),
            bind_group_layouts: &[Some(&bind_layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("odori-deform skinning"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let buffers = [
            &params,
            &rest,
            &sdef,
            &entries,
            &bones,
            &weights,
            &rest_extra,
            &output,
            extra_out,
        ];
        let bind_entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("odori-deform bind group"),
            layout: &bind_layout,
            entries: &bind_entries,
        });
        let resident_bytes = [
            &params,
            &rest,
            &sdef,
            &entries,
            &bones,
            &weights,
            &rest_extra,
            &output,
        ]
        .iter()
        .map(|b| b.size())
        .sum::<u64>()
            + additional_uvs.as_ref().map_or(0, |b| b.size());
        GpuSkinner {
            resident_bytes,
            morph_entries: entry_count,
            vertex_count: n,
            bone_count: mesh.bone_count,
            morph_count: mesh.morph_count(),
            additional_uv_count: mesh.additional_uv_count,
            dispatch,
            pipeline,
            bind_group,
            bones,
            weights,
            output,
            additional_uvs,
        }
    }

    /// Upload this frame's skinning matrices (world × inverse bind, by file bone index) and
    /// morph weights (by model morph index; missing ones count as 0). Writes straight into
    /// wgpu's staging memory: no intermediate buffer of ours. On a lost device (wgpu then
    /// gives no staging memory) nothing is written: the frame's read-back tells the caller.
    ///
    /// # Panics
    /// When `skinning` has fewer matrices than the mesh has bones.
    pub fn update(&self, queue: &wgpu::Queue, skinning: &[Affine3A], morph_weights: &[f32]) {
        if self.bone_count > 0 {
            assert!(
                skinning.len() >= self.bone_count,
                "{} skinning matrices for a mesh with {} bones",
                skinning.len(),
                self.bone_count
            );
            let size = (self.bone_count * size_of::<Bone>()) as u64;
            let Some(mut view) =
                queue.write_buffer_with(&self.bones, 0, size.try_into().expect("bones"))
            else {
                return;
            };
            const B: usize = size_of::<Bone>();
            for (i, m) in skinning[..self.bone_count].iter().enumerate() {
                view.slice(i * B..(i + 1) * B)
                    .copy_from_slice(bytemuck::bytes_of(&bone(m)));
            }
        }
        if self.morph_count > 0 {
            let size = (self.morph_count * 4) as u64;
            let Some(mut view) =
                queue.write_buffer_with(&self.weights, 0, size.try_into().expect("weights"))
            else {
                return;
            };
            for i in 0..self.morph_count {
                let w = morph_weights.get(i).copied().unwrap_or(0.0);
                view.slice(i * 4..(i + 1) * 4)
                    .copy_from_slice(&w.to_le_bytes());
            }
        }
    }

    /// Bytes [`GpuSkinner::update`] uploads per frame: 64 a bone, 4 a morph.
    pub fn upload_bytes_per_frame(&self) -> u64 {
        (self.bone_count.max(1) * size_of::<Bone>() + self.morph_count.max(1) * 4) as u64
    }

    /// GPU memory held by this skinner's buffers (rest data, morph entries, output).
    pub fn resident_bytes(&self) -> u64 {
        self.resident_bytes
    }

    /// Entries of the gather-layout morph table (32 bytes each): one per vertex offset of every
    /// vertex and UV morph.
    pub fn morph_entry_count(&self) -> usize {
        self.morph_entries
    }

    /// Record the skinning dispatch. Submit it before any draw that reads
    /// [`GpuSkinner::output_buffer`]; wgpu orders the compute write before the vertex read.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("odori-deform skinning"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.dispatch_workgroups(self.dispatch.0, self.dispatch.1, 1);
    }

    /// The deformed vertices: usable as a vertex buffer with [`GpuSkinner::vertex_layout`], as
    /// a storage buffer, or as a copy source.
    pub fn output_buffer(&self) -> &wgpu::Buffer {
        &self.output
    }

    /// Deformed additional UVs (64 bytes a vertex), when the model has any.
    pub fn additional_uv_buffer(&self) -> Option<&wgpu::Buffer> {
        self.additional_uvs.as_ref()
    }

    /// Vertex buffer layout of [`GpuSkinner::output_buffer`]: location 0 position
    /// (`Float32x3` at 0), 1 normal (`Float32x3` at 16), 2 UV (`Float32x2` at 32); stride 48.
    /// The edge scale sits at [`EDGE_SCALE_OFFSET`] for a renderer that wants it.
    pub fn vertex_layout() -> wgpu::VertexBufferLayout<'static> {
        const ATTRIBUTES: [wgpu::VertexAttribute; 3] = [
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: 0,
            },
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 16,
                shader_location: 1,
            },
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x2,
                offset: 32,
                shader_location: 2,
            },
        ];
        wgpu::VertexBufferLayout {
            array_stride: OUT_VERTEX_BYTES,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &ATTRIBUTES,
        }
    }
}

/// A skinning matrix as four padded columns.
fn bone(m: &Affine3A) -> Bone {
    let c = |v: glam::Vec3A| [v.x, v.y, v.z, 0.0];
    [
        c(m.matrix3.x_axis),
        c(m.matrix3.y_axis),
        c(m.matrix3.z_axis),
        c(m.translation),
    ]
}
