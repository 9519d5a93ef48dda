//! Either renderer behind one interface: the wgpu [`Renderer`] on an adapter, or the
//! [`CpuRenderer`] when there is none (or when asked for). Front ends (the offline pipeline, a
//! window player, the Python module) hold an [`AnyRenderer`] and never need to know which.

pub use crate::backend::Backend;
use crate::backend::{AdapterSummary, Pick, choose};
use crate::cpu::CpuRenderer;
use crate::gpu::{Gpu, NoAdapter};
use crate::model::RenderModel;
use crate::renderer::{FrameView, RenderOptions, Renderer};
use crate::textures::TextureSource;
use odori_pose::MaterialState;

/// What frames are drawn on. Made once per renderer, so the size of the wgpu variant does
/// not matter.
#[allow(clippy::large_enum_variant)]
pub enum Device {
    Gpu(Gpu),
    /// The CPU rasteriser; `why` says why it was chosen (for the start-up line), `None`
    /// when asked for.
    Cpu {
        why: Option<String>,
    },
}

impl Device {
    /// Open the device `backend` asks for, by [`choose`]'s rule over the adapters wgpu
    /// offers (the CPU rasteriser opens no adapter at all).
    pub fn open(backend: Backend) -> Result<Device, NoAdapter> {
        if backend == Backend::Cpu {
            return Ok(Device::Cpu { why: None });
        }
        let adapters = crate::gpu::adapters();
        let summaries: Vec<AdapterSummary> =
            adapters.iter().map(|a| (&a.get_info()).into()).collect();
        let decision = choose(backend, &summaries).map_err(NoAdapter)?;
        match decision.pick {
            Pick::Cpu => Ok(Device::Cpu {
                why: Some(decision.why),
            }),
            Pick::Adapter(i) => match Gpu::from_adapter(&adapters[i]) {
                Ok(g) => Ok(Device::Gpu(g)),
                // A hardware adapter listed but not opening: still drawing, on the CPU.
                Err(e) if backend == Backend::Auto => Ok(Device::Cpu {
                    why: Some(format!("the GPU adapter did not open ({})", e.0)),
                }),
                Err(e) => Err(e),
            },
        }
    }

    /// True when every pixel costs CPU time (lavapipe, llvmpipe, or odori's rasteriser).
    pub fn is_software(&self) -> bool {
        match self {
            Device::Gpu(g) => g.is_software(),
            Device::Cpu { .. } => true,
        }
    }

    /// The start-up line: which renderer draws, on which adapter, and why it was chosen.
    pub fn describe(&self) -> String {
        match self {
            Device::Gpu(g) if g.is_software() => {
                format!("wgpu on {} (asked for: backend gpu)", g.describe())
            }
            Device::Gpu(g) => format!(
                "wgpu on {}: a hardware adapter is the fastest",
                g.describe()
            ),
            Device::Cpu { why } => {
                let threads = rayon::current_num_threads();
                match why {
                    Some(why) => format!("odori's CPU rasteriser ({threads} threads): {why}"),
                    None => format!("odori's CPU rasteriser ({threads} threads)"),
                }
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

    /// Slot `slot`'s pixels into `out`; false when the GPU device was lost and `out` is not
    /// the frame.
    pub fn read(&self, slot: usize, out: &mut Vec<u8>) -> bool {
        both!(self, r => r.read(slot, out))
    }

    pub fn render_image(&mut self, view: &FrameView) -> image::RgbaImage {
        both!(self, r => r.render_image(view))
    }
}
