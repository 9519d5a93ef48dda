//! The window drawn without any graphics driver: odori's CPU rasteriser draws the scene,
//! the panels are painted over it on the CPU ([`SoftPainter`]), and the picture goes to the
//! window through a software surface (softbuffer: shared memory on X11 and Wayland).

use crate::Options;
use crate::soft_painter::SoftPainter;
use odori_playback::Scene;
use odori_playback::offline::renderer_for;
use odori_render::{AnyRenderer, Device};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::window::Window;

pub struct CpuSurface {
    surface: softbuffer::Surface<Arc<Window>, Arc<Window>>,
    size: (u32, u32),
    /// The renderer's last frame, RGBA8 (also what a screenshot saves).
    picture: Vec<u8>,
    panels: SoftPainter,
}

impl CpuSurface {
    /// A software surface on `window` and a CPU renderer for `scene` at the window's size;
    /// `why` says why the CPU rasteriser draws (the start-up line).
    pub fn new(
        window: Arc<Window>,
        scene: &Scene,
        options: &Options,
        why: Option<String>,
    ) -> Result<(CpuSurface, AnyRenderer, String), String> {
        let context = softbuffer::Context::new(window.clone())
            .map_err(|e| format!("cannot draw in the window: {e}"))?;
        let surface = softbuffer::Surface::new(&context, window.clone())
            .map_err(|e| format!("cannot draw in the window: {e}"))?;
        let size = window.inner_size();
        let size = (size.width.max(1), size.height.max(1));
        let device = Device::Cpu { why };
        let describe = device.describe();
        let renderer = renderer_for(
            scene,
            device,
            super::render_options(size.0, size.1, options),
        );
        let mut s = CpuSurface {
            surface,
            size: (0, 0),
            picture: Vec::new(),
            panels: SoftPainter::default(),
        };
        s.set_size(size)?;
        Ok((s, renderer, describe))
    }

    fn set_size(&mut self, (w, h): (u32, u32)) -> Result<(), String> {
        let (Some(nw), Some(nh)) = (NonZeroU32::new(w), NonZeroU32::new(h)) else {
            return Err("the window has no pixels".into());
        };
        self.surface.resize(nw, nh).map_err(|e| e.to_string())?;
        self.size = (w, h);
        Ok(())
    }

    /// A renderer for a changed scene with the same options.
    pub fn replace_scene(&mut self, renderer: &mut AnyRenderer, scene: &Scene) {
        let options = renderer.options().clone();
        *renderer = renderer_for(scene, Device::Cpu { why: None }, options);
    }

    /// Follow the window's new size: the CPU renderer's frames are sized when it is made, so
    /// a new one is made (the next redraw draws anew).
    pub fn resize(&mut self, renderer: &mut AnyRenderer, scene: &Scene, width: u32, height: u32) {
        if self.set_size((width, height)).is_err() {
            return;
        }
        let mut options = renderer.options().clone();
        options.width = width;
        options.height = height;
        *renderer = renderer_for(scene, Device::Cpu { why: None }, options);
        self.picture.clear();
    }

    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Keep the renderer's frame just drawn (slot 0) as the picture shown.
    pub fn take_frame(&mut self, renderer: &AnyRenderer) {
        renderer.read(0, &mut self.picture);
    }

    /// Put the picture and egui's `paint` on the window; the time spent getting the
    /// surface's buffer, and copying, painting and presenting it.
    pub fn present(
        &mut self,
        paint: &[egui::ClippedPrimitive],
        textures: &egui::TexturesDelta,
        pixels_per_point: f32,
    ) -> Option<(Duration, Duration)> {
        self.panels.update_textures(textures);
        let acquiring = Instant::now();
        let mut buffer = self.surface.buffer_mut().ok()?;
        let acquire = acquiring.elapsed();
        let n = (self.size.0 * self.size.1) as usize;
        if buffer.len() < n || self.picture.len() < n * 4 {
            self.panels.free_textures(textures);
            return None;
        }
        // Copying and painting count as presenting: on a GPU the blit and the panels' pass
        // are submitted there too.
        let presenting = Instant::now();
        // RGBA bytes to the surface's 0x00RRGGBB words.
        for (out, px) in buffer[..n].iter_mut().zip(self.picture.chunks_exact(4)) {
            *out = u32::from(px[0]) << 16 | u32::from(px[1]) << 8 | u32::from(px[2]);
        }
        self.panels
            .paint(&mut buffer[..n], self.size, paint, pixels_per_point);
        self.panels.free_textures(textures);
        buffer.present().ok()?;
        Some((acquire, presenting.elapsed()))
    }
}
