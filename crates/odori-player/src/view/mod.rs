//! The window's picture: which renderer draws it (by `odori_render::backend::choose`, as
//! every front end chooses), the renderer, and the surface it is presented on: wgpu's
//! ([`gpu`]) or a software one ([`cpu`]) for odori's CPU rasteriser.

mod cpu;
mod gpu;

use crate::Options;
use odori_playback::Scene;
use odori_render::backend::{AdapterSummary, Backend, Pick, choose};
use odori_render::renderer::FrameView;
use odori_render::{AnyRenderer, RenderOptions};
use std::sync::Arc;
use std::time::Duration;
use winit::window::Window;

/// One surface lives for the window's life, so the wgpu one is kept inline rather than boxed.
#[allow(clippy::large_enum_variant)]
enum Surface {
    Gpu(gpu::GpuSurface),
    Cpu(cpu::CpuSurface),
}

pub struct View {
    pub window: Arc<Window>,
    /// wgpu's renderer on the wgpu surface, the CPU rasteriser on the software one.
    pub renderer: AnyRenderer,
    /// Which renderer draws, on what, and why: the start-up line and the panel.
    pub adapter: String,
    surface: Surface,
}

/// The renderer's options for a window of `width` × `height`.
fn render_options(width: u32, height: u32, options: &Options) -> RenderOptions {
    RenderOptions {
        width,
        height,
        msaa: options.msaa,
        shadow_map_size: options.shadow_map_size,
        // One frame in flight is enough: it is read back only for screenshots.
        slots: 1,
        ..RenderOptions::default()
    }
}

impl View {
    /// The renderer `options.backend` and the adapters choose, drawing `scene` at the
    /// window's size, and its surface on `window`.
    pub fn new(window: Arc<Window>, scene: &Scene, options: &Options) -> Result<View, String> {
        let decision = match options.backend {
            Backend::Cpu => None,
            backend => {
                let adapters = odori_render::gpu::adapters();
                let list: Vec<AdapterSummary> =
                    adapters.iter().map(|a| (&a.get_info()).into()).collect();
                let d = choose(backend, &list).map_err(|why| {
                    format!(
                        "backend gpu: {why}; without a GPU install Mesa's lavapipe \
                         (apt-get install mesa-vulkan-drivers libvulkan1), or leave the \
                         backend to auto"
                    )
                })?;
                Some(d)
            }
        };
        let (surface, renderer, adapter) = match decision {
            Some(d) if matches!(d.pick, Pick::Adapter(_)) => {
                match gpu::GpuSurface::new(window.clone(), scene, options) {
                    Ok((s, r, a)) => (Surface::Gpu(s), r, a),
                    Err(e) if options.backend == Backend::Auto => {
                        let why = format!("the GPU adapter cannot draw in the window ({e})");
                        let (s, r, a) =
                            cpu::CpuSurface::new(window.clone(), scene, options, Some(why))?;
                        (Surface::Cpu(s), r, a)
                    }
                    Err(e) => return Err(e),
                }
            }
            d => {
                let why = d.map(|d| d.why);
                let (s, r, a) = cpu::CpuSurface::new(window.clone(), scene, options, why)?;
                (Surface::Cpu(s), r, a)
            }
        };
        Ok(View {
            window,
            renderer,
            adapter,
            surface,
        })
    }

    /// The view on odori's CPU rasteriser and a software surface, for a window whose GPU
    /// device was lost (`why`: the start-up line's reason). The old view must be dropped
    /// first: a window takes one surface at a time.
    pub fn on_cpu(
        window: Arc<Window>,
        scene: &Scene,
        options: &Options,
        why: String,
    ) -> Result<View, String> {
        let (s, renderer, adapter) =
            cpu::CpuSurface::new(window.clone(), scene, options, Some(why))?;
        Ok(View {
            window,
            renderer,
            adapter,
            surface: Surface::Cpu(s),
        })
    }

    /// Why the GPU device was lost, once it is (never on the CPU rasteriser). wgpu reports a
    /// loss when the device is polled, which nothing else in the window does: this polls,
    /// without waiting.
    pub fn lost(&self) -> Option<String> {
        let Surface::Gpu(s) = &self.surface else {
            return None;
        };
        if let Some(r) = self.renderer.as_gpu() {
            let _ = r.gpu.device.poll(odori_render::wgpu::PollType::Poll);
        }
        s.lost()
    }

    /// Destroy the GPU device, as a driver reset or a removed GPU would: the window's fall
    /// back to the CPU rasteriser, under test (the script's `lose-gpu`). Nothing on the CPU
    /// rasteriser.
    pub fn lose_device(&self) {
        if let Some(r) = self.renderer.as_gpu() {
            r.gpu.device.destroy();
        }
    }

    /// A renderer for a changed scene (models added), on the same device with the same
    /// options.
    pub fn replace_scene(&mut self, scene: &Scene) {
        match &mut self.surface {
            Surface::Gpu(s) => s.replace_scene(&mut self.renderer, scene),
            Surface::Cpu(s) => s.replace_scene(&mut self.renderer, scene),
        }
    }

    /// Follow the window's new size.
    pub fn resize(&mut self, scene: &Scene, width: u32, height: u32) {
        let (width, height) = (width.max(1), height.max(1));
        if (width, height) == self.size() {
            return;
        }
        match &mut self.surface {
            Surface::Gpu(s) => s.resize(&mut self.renderer, width, height),
            Surface::Cpu(s) => s.resize(&mut self.renderer, scene, width, height),
        }
    }

    pub fn size(&self) -> (u32, u32) {
        match &self.surface {
            Surface::Gpu(s) => s.size(),
            Surface::Cpu(s) => s.size(),
        }
    }

    /// How the last frame reached the window: `copy` (wgpu's fast path), `draw` (wgpu
    /// through a shader) or `soft` (the software surface).
    pub fn surface_kind(&self) -> &'static str {
        match &self.surface {
            Surface::Gpu(s) if s.frame_copied() => "copy",
            Surface::Gpu(_) => "draw",
            Surface::Cpu(_) => "soft",
        }
    }

    /// Draw the prepared frame seen through `view`; `keep` also keeps it readable for a
    /// screenshot ([`AnyRenderer::read`] of slot 0).
    pub fn draw(&mut self, view: &FrameView, keep: bool) {
        match &mut self.surface {
            Surface::Gpu(_) => match self.renderer.gpu_renderer() {
                // Shown only: no copy into the readback buffer.
                Some(r) if !keep => r.draw(view),
                _ => self.renderer.render(view, 0),
            },
            Surface::Cpu(s) => {
                self.renderer.render(view, 0);
                s.take_frame(&self.renderer);
            }
        }
    }

    /// Put the last frame and egui's `paint` on the window; the time spent acquiring the
    /// surface and presenting it. None when the surface could not be drawn this time
    /// (minimised, being resized).
    pub fn present(
        &mut self,
        paint: &[egui::ClippedPrimitive],
        mut textures: egui::TexturesDelta,
        pixels_per_point: f32,
    ) -> Option<(Duration, Duration)> {
        let shown = match &mut self.surface {
            Surface::Gpu(s) => s.present(&self.renderer, paint, &textures, pixels_per_point),
            Surface::Cpu(s) => s.present(paint, &textures, pixels_per_point),
        };
        // Every delta was applied above (egui checks that none is dropped unapplied).
        textures.clear();
        shown
    }
}
