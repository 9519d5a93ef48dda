//! Either renderer behind one interface: the wgpu [`Renderer`] on an adapter, or the
//! [`CpuRenderer`] when there is none (or when asked for). Front ends (the offline pipeline, a
//! window player, the Python module) hold an [`AnyRenderer`] and never need to know which.

use crate::cpu::CpuRenderer;
use crate::gpu::{Gpu, NoAdapter};
use crate::model::RenderModel;
use crate::renderer::{FrameView, RenderOptions, Renderer};
use crate::textures::TextureSource;
use odori_pose::MaterialState;

/// Which renderer to use (`--backend`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// wgpu when an adapter opens (a GPU, or Mesa's software rasterisers), else the CPU.
    #[default]
    Auto,
    /// wgpu only: no adapter is an error.
    Gpu,
    /// odori's own CPU rasteriser.
    Cpu,
}

/// What frames are drawn on. Made once per renderer, so the size of the wgpu variant does
/// not matter.
#[allow(clippy::large_enum_variant)]
pub enum Device {
    Gpu(Gpu),
    /// The CPU rasteriser; `why` says why it was chosen (no adapter: the reason), for the
    /// startup line.
    Cpu {
        why: Option<String>,
    },
}

impl Device {
    /// Open the device `backend` asks for. `Auto` falls back to the CPU when no adapter opens.
    pub fn open(backend: Backend) -> Result<Device, NoAdapter> {
        match backend {
            Backend::Cpu => Ok(Device::Cpu { why: None }),
            Backend::Gpu => Gpu::new().map(Device::Gpu),
            Backend::Auto => Ok(match Gpu::new() {
                Ok(g) => Device::Gpu(g),
                Err(e) => Device::Cpu { why: Some(e.0) },
            }),
        }
    }

    /// True when every pixel costs CPU time (lavapipe, llvmpipe, or odori's rasteriser).
    pub fn is_software(&self) -> bool {
        match self {
            Device::Gpu(g) => g.is_software(),
            Device::Cpu { .. } => true,
        }
    }

    /// One line for logs: the renderer and adapter, and on the CPU path what would be faster.
    pub fn describe(&self) -> String {
        match self {
            Device::Gpu(g) => format!("wgpu on {}", g.describe()),
            Device::Cpu { why } => {
                let threads = rayon::current_num_threads();
                let mut s = format!("odori's CPU rasteriser ({threads} threads)");
                if let Some(why) = why {
                    s.push_str(&format!(
                        "; no GPU adapter ({why}). For GPU rendering install a GPU driver, or \
                         Mesa's Vulkan software driver: `apt-get install mesa-vulkan-drivers \
                         libvulkan1`"
                    ));
                }
                s
            }
        }
    }

    /// The wgpu device, when drawing with wgpu.
    pub fn gpu(&self) -> Option<&Gpu> {
        match self {
            Device::Gpu(g) => Some(g),
            Device::Cpu { .. } => None,
        }
    }
}

/// For tests: the GPU when an adapter opens, else the CPU rasteriser (a notice is printed).
/// `ODORI_REQUIRE_GPU=1` makes a missing adapter a failure instead (CI, which installs Mesa).
pub fn device_for_tests() -> Device {
    match Gpu::new() {
        Ok(g) => Device::Gpu(g),
        Err(e) => {
            if std::env::var("ODORI_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{e}");
            }
            eprintln!("no GPU adapter ({}): testing on the CPU rasteriser", e.0);
            Device::Cpu { why: Some(e.0) }
        }
    }
}

/// For tests that hold both renderers to the same expectations: the GPU when an adapter opens
/// (required under `ODORI_REQUIRE_GPU=1`), then always the CPU rasteriser, so every rendering
/// test runs on a machine without any adapter.
pub fn devices_for_tests() -> Vec<Device> {
    let mut devices = Vec::new();
    match Gpu::new() {
        Ok(g) => devices.push(Device::Gpu(g)),
        Err(e) => {
            if std::env::var("ODORI_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{e}");
            }
            eprintln!("no GPU adapter ({}): testing the CPU rasteriser only", e.0);
        }
    }
    devices.push(Device::Cpu { why: None });
    devices
}

/// The wgpu renderer or the CPU one.
pub enum AnyRenderer {
    Gpu(Box<Renderer>),
    Cpu(Box<CpuRenderer>),
}

macro_rules! both {
    ($self:expr, $r:ident => $e:expr) => {
        match $self {
            AnyRenderer::Gpu($r) => $e,
            AnyRenderer::Cpu($r) => $e,
        }
    };
}

impl AnyRenderer {
    /// A renderer on `device` for several models drawn together, in the order given.
    pub fn with_models(
        device: Device,
        models: Vec<(RenderModel, &TextureSource)>,
        options: RenderOptions,
    ) -> AnyRenderer {
        match device {
            Device::Gpu(g) => AnyRenderer::Gpu(Box::new(Renderer::with_models(g, models, options))),
            Device::Cpu { .. } => {
                AnyRenderer::Cpu(Box::new(CpuRenderer::with_models(models, options)))
            }
        }
    }

    pub fn options(&self) -> &RenderOptions {
        both!(self, r => &r.options)
    }

    /// The wgpu renderer, when this is one (GPU skinning records into its frames; a window
    /// presents from its texture).
    pub fn as_gpu(&self) -> Option<&Renderer> {
        match self {
            AnyRenderer::Gpu(r) => Some(r),
            AnyRenderer::Cpu(_) => None,
        }
    }

    pub fn gpu_renderer(&mut self) -> Option<&mut Renderer> {
        match self {
            AnyRenderer::Gpu(r) => Some(r),
            AnyRenderer::Cpu(_) => None,
        }
    }

    pub fn warnings(&self) -> &[String] {
        both!(self, r => r.warnings())
    }

    pub fn model_count(&self) -> usize {
        both!(self, r => r.model_count())
    }

    pub fn model(&self, i: usize) -> &RenderModel {
        both!(self, r => r.model(i))
    }

    /// Samples per pixel actually used.
    pub fn samples(&self) -> u32 {
        both!(self, r => r.samples())
    }

    pub fn slots(&self) -> usize {
        both!(self, r => r.slots())
    }

    pub fn upload_vertices(
        &mut self,
        i: usize,
        positions: &[[f32; 3]],
        normals: &[[f32; 3]],
        uvs: &[[f32; 2]],
    ) {
        both!(self, r => r.upload_vertices(i, positions, normals, uvs))
    }

    pub fn set_model_state(&mut self, i: usize, materials: &[MaterialState], visible: bool) {
        both!(self, r => r.set_model_state(i, materials, visible))
    }

    pub fn render(&mut self, view: &FrameView, slot: usize) {
        both!(self, r => r.render(view, slot))
    }

    pub fn read(&self, slot: usize, out: &mut Vec<u8>) {
        both!(self, r => r.read(slot, out))
    }

    pub fn render_image(&mut self, view: &FrameView) -> image::RgbaImage {
        both!(self, r => r.render_image(view))
    }
}
