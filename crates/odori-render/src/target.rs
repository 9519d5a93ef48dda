//! The offscreen frame: an MSAA colour and depth target resolved into a single-sample
//! texture, and readback buffers (rows padded to wgpu's 256-byte copy alignment) so frames can
//! be read while the next one renders.

pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

/// Byte order of the frame on the GPU. Reads ([`crate::Renderer::read`]) always give RGBA.
/// BGRA is for a window whose surface is BGRA (Vulkan on X11 and Windows offer only BGRA):
/// the frame is then copied onto the surface as it is instead of drawn through a shader,
/// which costs a software rasteriser a noticeable share of a frame. The CPU rasteriser
/// ignores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorOrder {
    #[default]
    Rgba,
    Bgra,
}

impl ColorOrder {
    /// The frame's texture format (values stored as they are: MMD shades in gamma space).
    pub fn format(self) -> wgpu::TextureFormat {
        match self {
            ColorOrder::Rgba => COLOR_FORMAT,
            ColorOrder::Bgra => wgpu::TextureFormat::Bgra8Unorm,
        }
    }

    /// The order whose format is `format`, if any: a surface the frame can be copied onto.
    pub fn of_format(format: wgpu::TextureFormat) -> Option<ColorOrder> {
        [ColorOrder::Rgba, ColorOrder::Bgra]
            .into_iter()
            .find(|o| o.format() == format)
    }
}
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

pub struct Target {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    /// Multisampled colour (absent when `samples == 1`: draw straight into `resolved`).
    msaa: Option<wgpu::TextureView>,
    resolved: wgpu::Texture,
    resolved_view: wgpu::TextureView,
    pub depth: wgpu::TextureView,
    /// Bytes per padded row in the readback buffers.
    padded_row: u32,
    readback: Vec<wgpu::Buffer>,
}

impl Target {
    /// `samples` is rounded down to what the adapter supports for the colour format (1, 2,
    /// 4, 8...). `slots` readback buffers allow that many frames in flight.
    pub fn new(
        device: &wgpu::Device,
        adapter_samples: &[u32],
        width: u32,
        height: u32,
        samples: u32,
        slots: usize,
        order: ColorOrder,
    ) -> Target {
        let samples = adapter_samples
            .iter()
            .copied()
            .filter(|&s| s <= samples.max(1))
            .max()
            .unwrap_or(1);
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let tex = |label, format, samples, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let msaa = (samples > 1).then(|| {
            tex(
                "msaa colour",
                order.format(),
                samples,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
            .create_view(&Default::default())
        });
        let resolved = tex(
            "colour",
            order.format(),
            1,
            // Sampled or copied from: a window player puts it on its surface.
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
        );
        let resolved_view = resolved.create_view(&Default::default());
        let depth = tex(
            "depth",
            DEPTH_FORMAT,
            samples,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        )
        .create_view(&Default::default());
        let padded_row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = (0..slots.max(1))
            .map(|_| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size: padded_row as u64 * height as u64,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                    mapped_at_creation: false,
                })
            })
            .collect();
        Target {
            width,
            height,
            samples,
            msaa,
            resolved,
            resolved_view,
            depth,
            padded_row,
            readback,
        }
    }

    /// The resolved (single-sample) colour of the last frame rendered.
    pub fn resolved_view(&self) -> &wgpu::TextureView {
        &self.resolved_view
    }

    /// The resolved colour texture itself (to copy from).
    pub fn resolved(&self) -> &wgpu::Texture {
        &self.resolved
    }

    pub fn slots(&self) -> usize {
        self.readback.len()
    }

    /// The colour attachment: MSAA texture resolving into the single-sample one.
    pub fn color_attachment(&self, clear: wgpu::Color) -> wgpu::RenderPassColorAttachment<'_> {
        let (view, resolve_target) = match &self.msaa {
            Some(m) => (m, Some(&self.resolved_view)),
            None => (&self.resolved_view, None),
        };
        wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(clear),
                // The MSAA samples are not needed after the resolve.
                store: if self.msaa.is_some() {
                    wgpu::StoreOp::Discard
                } else {
                    wgpu::StoreOp::Store
                },
            },
        }
    }

    /// Record the copy of the resolved frame into readback slot `slot`.
    pub fn copy_to_slot(&self, encoder: &mut wgpu::CommandEncoder, slot: usize) {
        encoder.copy_texture_to_buffer(
            self.resolved.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback[slot],
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Wait for slot `slot`'s copy and write its pixels, tightly packed RGBA8 (whatever the
    /// order on the GPU), into `out`. False when there were none to read (the device was
    /// lost): `out` is then blank, not the frame.
    pub fn read_slot(&self, device: &wgpu::Device, slot: usize, out: &mut Vec<u8>) -> bool {
        let buffer = &self.readback[slot];
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        // Errors here mean a lost device; the frame then stays as it was (blank).
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        let row = (self.width * 4) as usize;
        out.resize(row * self.height as usize, 0);
        if let (Ok(Ok(())), Ok(data)) = (rx.recv(), slice.get_mapped_range()) {
            for (y, dst) in out.chunks_exact_mut(row).enumerate() {
                let start = y * self.padded_row as usize;
                dst.copy_from_slice(&data[start..start + row]);
                if self.resolved.format() == ColorOrder::Bgra.format() {
                    for px in dst.chunks_exact_mut(4) {
                        px.swap(0, 2);
                    }
                }
            }
            drop(data);
            buffer.unmap();
            return true;
        }
        false
    }
}
