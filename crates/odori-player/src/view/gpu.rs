//! The window drawn with wgpu: the surface, the blit that puts the renderer's frame on it,
//! and egui's wgpu painter for the panels on top.

use crate::Options;
use crate::painter::Painter;
use odori_playback::Scene;
use odori_playback::offline::renderer_for;
use odori_render::blit::{self, Blit};
use odori_render::gpu::DeviceLoss;
use odori_render::{AnyRenderer, Device, Gpu, RenderOptions, Renderer, wgpu};
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::window::Window;

pub struct GpuSurface {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    blit: Blit,
    /// egui's panels (odori's own painter: see `painter.rs` for why).
    panels: Painter,
    /// Why the device was lost, once it is: the window then goes on on the CPU rasteriser.
    loss: DeviceLoss,
}

impl GpuSurface {
    /// Open an adapter that can present to `window`, and a renderer for `scene` on it at the
    /// window's size; the adapter's name for the start-up line.
    pub fn new(
        window: Arc<Window>,
        scene: &Scene,
        options: &Options,
    ) -> Result<(GpuSurface, AnyRenderer, String), String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
        if wgpu::Backends::from_env().is_none() {
            // Vulkan first, as the offline renderer does.
            desc.backends = wgpu::Backends::VULKAN | wgpu::Backends::GL;
        }
        let instance = wgpu::Instance::new(desc);
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| format!("cannot draw in the window: {e}"))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            apply_limit_buckets: false,
        }))
        .map_err(|e| format!("no GPU adapter can draw in this window ({e})"))?;
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("odori play"),
            required_features: wgpu::Features::empty(),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| format!("{}: cannot open the device: {e}", info.name))?;
        let loss = odori_render::gpu::watch_for_loss(&device);
        let sample_counts = Gpu::sample_counts(&adapter);
        let size = window.inner_size();
        let present_mode = if options.vsync {
            wgpu::PresentMode::AutoVsync
        } else {
            wgpu::PresentMode::AutoNoVsync
        };
        let config = blit::surface_config(
            &surface.get_capabilities(&adapter),
            (size.width, size.height),
            present_mode,
        )
        .ok_or("the window's surface offers no format")?;
        let format = config.format;
        surface.configure(&device, &config);
        let gpu = Gpu {
            device,
            queue,
            info,
            sample_counts,
        };
        let device = Device::Gpu(gpu);
        let adapter_name = device.describe();
        let renderer = renderer_for(
            scene,
            device,
            RenderOptions {
                // The surface's byte order, so the frame is copied onto it.
                color_order: blit::frame_order(&config),
                ..super::render_options(config.width, config.height, options)
            },
        );
        let r = wgpu_of(&renderer);
        let mut blit = Blit::new(&r.gpu.device, format);
        blit.set_source(&r.gpu.device, r.color_texture());
        let panels = Painter::new(&r.gpu.device, format);
        let surface = GpuSurface {
            surface,
            config,
            blit,
            panels,
            loss,
        };
        Ok((surface, renderer, adapter_name))
    }

    /// A renderer for a changed scene, on the same device with the same options.
    pub fn replace_scene(&mut self, renderer: &mut AnyRenderer, scene: &Scene) {
        let gpu = wgpu_of(renderer).gpu.clone();
        let options = renderer.options().clone();
        *renderer = renderer_for(scene, Device::Gpu(gpu), options);
        let r = wgpu_of(renderer);
        self.blit.set_source(&r.gpu.device, r.color_texture());
    }

    /// Follow the window's new size.
    pub fn resize(&mut self, renderer: &mut AnyRenderer, width: u32, height: u32) {
        self.config.width = width;
        self.config.height = height;
        self.surface
            .configure(&wgpu_of(renderer).gpu.device, &self.config);
        if let Some(r) = renderer.gpu_renderer() {
            r.resize(width, height);
        }
        let r = wgpu_of(renderer);
        self.blit.set_source(&r.gpu.device, r.color_texture());
    }

    /// Why the device was lost, once it is.
    pub fn lost(&self) -> Option<String> {
        self.loss.why()
    }

    /// Whether the last frame was copied onto the surface (the fast path) or drawn onto it.
    pub fn frame_copied(&self) -> bool {
        self.blit.copied()
    }

    pub fn size(&self) -> (u32, u32) {
        (self.config.width, self.config.height)
    }

    /// Put the renderer's last frame and egui's `paint` on the window; the time spent
    /// acquiring the surface image and submitting and presenting it.
    pub fn present(
        &mut self,
        renderer: &AnyRenderer,
        paint: &[egui::ClippedPrimitive],
        textures: &egui::TexturesDelta,
        pixels_per_point: f32,
    ) -> Option<(Duration, Duration)> {
        let device = &wgpu_of(renderer).gpu.device;
        let queue = &wgpu_of(renderer).gpu.queue;
        self.panels.update_textures(device, queue, textures);
        let shown = (|| {
            let acquiring = Instant::now();
            let texture = blit::next_image(&self.surface, device, &self.config)?;
            let acquire = acquiring.elapsed();
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("window"),
            });
            let size = (self.config.width, self.config.height);
            self.panels
                .prepare(device, queue, paint, size, pixels_per_point);
            {
                let mut pass = self.blit.pass(&mut encoder, &texture.texture);
                self.panels.render(&mut pass);
            }
            let presenting = Instant::now();
            queue.submit([encoder.finish()]);
            queue.present(texture);
            Some((acquire, presenting.elapsed()))
        })();
        self.panels.free_textures(textures);
        shown
    }
}

/// The wgpu renderer inside the window's `AnyRenderer` (built from a GPU device, it is one).
fn wgpu_of(renderer: &AnyRenderer) -> &Renderer {
    renderer
        .as_gpu()
        .expect("the window's renderer is made from a GPU device")
}
