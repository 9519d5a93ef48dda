//! The page's GPU side: a wgpu device on the page's canvas (WebGPU when the browser offers an
//! adapter, else WebGL2), odori's renderer drawing the scene offscreen with the same WGSL as
//! natively, and the blit that puts its frame on the canvas.

use odori_playback::render::renderer_for;
use odori_playback::{Frame, Scene};
use odori_render::blit::{self, Blit};
use odori_render::camera::CameraPose;
use odori_render::{AnyRenderer, Device, Gpu, RenderOptions, Renderer};
use std::sync::{Arc, Mutex};
use web_sys::HtmlCanvasElement;

pub struct Canvas {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    renderer: AnyRenderer,
    blit: Blit,
    /// Adapter name and backend, for the page.
    pub adapter: String,
    /// Why the device was lost, once it is (the browser's words): the page then draws on a
    /// new canvas (`App::reopen`). Headless Chromium on SwiftShader, for one, loses a WebGPU
    /// device as soon as it presents to a canvas, and drawing on would leave it blank.
    lost: Arc<Mutex<Option<String>>>,
    /// Whether this canvas draws with WebGPU (else WebGL2).
    webgpu: bool,
}

/// Open the GPU on `canvas`. `webgl` skips WebGPU even where the browser has it; `msaa`:
/// samples per pixel (4, or 1 for none).
pub async fn open(
    canvas: HtmlCanvasElement,
    scene: &Scene,
    webgl: bool,
    msaa: u32,
) -> Result<Canvas, String> {
    let (width, height) = (canvas.width().max(1), canvas.height().max(1));
    let instance = if webgl {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::GL;
        wgpu::Instance::new(desc)
    } else {
        // WebGPU when navigator.gpu gives an adapter, else WebGL2.
        wgpu::util::new_instance_with_webgpu_detection(
            wgpu::InstanceDescriptor::new_without_display_handle(),
        )
        .await
    };
    let surface = instance
        .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
        .map_err(|e| format!("cannot draw on the canvas: {e}"))?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            apply_limit_buckets: false,
        })
        .await
        .map_err(|e| format!("no WebGPU or WebGL2 adapter in this browser: {e}"))?;
    let info = adapter.get_info();
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("odori web"),
            required_features: wgpu::Features::empty(),
            required_limits: adapter.limits(),
            ..Default::default()
        })
        .await
        .map_err(|e| format!("{}: cannot open the device: {e}", info.name))?;
    let lost = Arc::new(Mutex::new(None));
    let lost_in = lost.clone();
    device.set_device_lost_callback(move |reason, message| {
        if let Ok(mut l) = lost_in.lock() {
            *l = Some(format!("{reason:?}: {message}"));
        }
    });
    let webgpu = info.backend == wgpu::Backend::BrowserWebGpu;
    let sample_counts = Gpu::sample_counts(&adapter);
    let config = blit::surface_config(
        &surface.get_capabilities(&adapter),
        (width, height),
        wgpu::PresentMode::AutoVsync,
    )
    .ok_or("the canvas offers no format")?;
    let format = config.format;
    surface.configure(&device, &config);
    let adapter_name = format!(
        "{} ({:?}, samples {:?})",
        info.name, info.backend, sample_counts
    );
    let gpu = Gpu {
        device,
        queue,
        info,
        sample_counts,
    };
    let renderer = renderer_for(
        scene,
        Device::Gpu(gpu),
        RenderOptions {
            width,
            height,
            msaa,
            // The surface's byte order where the frame can be copied onto it.
            color_order: blit::frame_order(&config),
            slots: 1,
            ..RenderOptions::default()
        },
    );
    let r = wgpu_of(&renderer);
    let mut blit = Blit::new(&r.gpu.device, format);
    blit.set_source(&r.gpu.device, r.color_texture());
    Ok(Canvas {
        surface,
        config,
        renderer,
        blit,
        adapter: adapter_name,
        lost,
        webgpu,
    })
}

impl Canvas {
    /// A renderer for a new scene (files dropped), on the same device with the same options.
    pub fn replace_scene(&mut self, scene: &Scene) {
        let gpu = wgpu_of(&self.renderer).gpu.clone();
        let options = self.renderer.options().clone();
        self.renderer = renderer_for(scene, Device::Gpu(gpu), options);
        let r = wgpu_of(&self.renderer);
        self.blit.set_source(&r.gpu.device, r.color_texture());
    }

    /// Why the GPU device was lost, when it was.
    pub fn lost(&self) -> Option<String> {
        self.lost.lock().ok().and_then(|l| l.clone())
    }

    /// Whether this canvas draws with WebGPU (else WebGL2).
    pub fn is_webgpu(&self) -> bool {
        self.webgpu
    }

    /// The renderer's samples per pixel.
    pub fn msaa(&self) -> u32 {
        self.renderer.options().msaa
    }

    /// Destroy the device, as a browser losing it would (for tests of the page's recovery).
    pub fn lose(&self) {
        wgpu_of(&self.renderer).gpu.device.destroy();
    }

    /// Warnings from building the renderer (textures that could not be decoded).
    pub fn warnings(&self) -> &[String] {
        self.renderer.warnings()
    }

    /// Draw `frame` from `camera` and put it on the canvas.
    pub fn draw(&mut self, frame: &Frame, camera: CameraPose) {
        frame.prepare(&mut self.renderer, true);
        let view = odori_render::FrameView {
            camera,
            light: frame.light(),
            bounds: frame.bounds(),
        };
        let Some(r) = self.renderer.gpu_renderer() else {
            return;
        };
        r.draw(&view);
        let device = &r.gpu.device;
        let Some(texture) = blit::next_image(&self.surface, device, &self.config) else {
            return;
        };
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("canvas"),
        });
        drop(self.blit.pass(&mut encoder, &texture.texture));
        r.gpu.queue.submit([encoder.finish()]);
        r.gpu.queue.present(texture);
    }
}

/// The wgpu renderer inside the page's `AnyRenderer` (made from a GPU device, it is one).
fn wgpu_of(renderer: &AnyRenderer) -> &Renderer {
    renderer
        .as_gpu()
        .expect("the page's renderer is made from a GPU device")
}
