//! Reading the GPU's output back to the CPU: for tests and tools, not for a frame loop.

use super::GpuSkinner;
use super::layout::OUT_VERTEX_BYTES;
use crate::Deformed;

impl GpuSkinner {
    /// Copy the GPU's output back into `out` (sized for the mesh). Waits for the GPU, and
    /// allocates: for tests and tools, not for a frame loop.
    pub fn read_back(&self, device: &wgpu::Device, queue: &wgpu::Queue, out: &mut Deformed) {
        let n = self.vertex_count as usize;
        let vertices = read_buffer(device, queue, &self.output, OUT_VERTEX_BYTES * n as u64);
        let floats: &[[f32; 12]] = bytemuck::cast_slice(&vertices);
        out.positions.clear();
        out.normals.clear();
        out.uvs.clear();
        out.edge_scale.clear();
        for v in floats.iter().take(n) {
            out.positions.push([v[0], v[1], v[2]]);
            out.normals.push([v[4], v[5], v[6]]);
            out.uvs.push([v[8], v[9]]);
            out.edge_scale.push(v[10]);
        }
        out.additional_uvs.clear();
        if let Some(buffer) = &self.additional_uvs {
            let bytes = read_buffer(device, queue, buffer, 64 * n as u64);
            let uvs: &[[[f32; 4]; 4]] = bytemuck::cast_slice(&bytes);
            out.additional_uvs.extend(uvs.iter().take(n).map(|a| {
                let mut a = *a;
                a[self.additional_uv_count..].fill([0.0; 4]);
                a
            }));
        }
        // The host copy no longer tracks which UV channels hold morphs.
        out.uv_dirty = Some([true; 5]);
    }
}

fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: &wgpu::Buffer,
    size: u64,
) -> Vec<u8> {
    let size = size.max(4);
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("odori-deform read back"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("odori-deform read back"),
    });
    encoder.copy_buffer_to_buffer(source, 0, &staging, 0, size);
    queue.submit([encoder.finish()]);
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| {
        r.expect("mapping the read-back buffer")
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("waiting for the GPU");
    let bytes = slice.get_mapped_range().expect("mapped range").to_vec();
    staging.unmap();
    bytes
}
