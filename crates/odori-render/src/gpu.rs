//! The wgpu device, found headless: a real GPU when there is one, else Mesa's software
//! rasterisers (lavapipe through Vulkan, llvmpipe through GL/EGL).

use std::fmt;
use std::sync::{Arc, Mutex};

/// A device and queue with what was found. Cloning shares the device (wgpu handles are
/// reference-counted): a new renderer for a changed scene reuses it.
#[derive(Clone)]
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    /// MSAA sample counts usable with both the colour and the depth format.
    pub sample_counts: Vec<u32>,
}

/// Why a device was lost, once it is (a driver reset, a removed GPU, `destroy`): see
/// [`watch_for_loss`]. Cloning shares it.
#[derive(Clone, Default)]
pub struct DeviceLoss(Arc<Mutex<Option<String>>>);

impl DeviceLoss {
    /// The reason, once the device is lost.
    pub fn why(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Watch `device` for its loss: the reason is recorded when wgpu reports it. Errors wgpu
/// raises for work on a lost device are then expected, and dropped; before a loss they
/// panic, as wgpu's own handler does. A front end asks after a frame whether it must go on on
/// the CPU rasteriser.
pub fn watch_for_loss(device: &wgpu::Device) -> DeviceLoss {
    let lost = DeviceLoss::default();
    let on_loss = lost.clone();
    device.set_device_lost_callback(move |reason, message| {
        let why = match message.is_empty() {
            true => format!("{reason:?}"),
            false => format!("{reason:?}: {message}"),
        };
        *on_loss.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
    });
    let seen = lost.clone();
    device.on_uncaptured_error(Arc::new(move |e| {
        if seen.why().is_none() {
            panic!("wgpu: {e}");
        }
    }));
    lost
}

/// No adapter could be opened.
#[derive(Debug)]
pub struct NoAdapter(pub String);

impl fmt::Display for NoAdapter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no GPU adapter found ({}). On a machine without a GPU install Mesa's software \
             renderer: `apt-get install mesa-vulkan-drivers libvulkan1` (Vulkan/lavapipe) or \
             `apt-get install libegl1 libgl1-mesa-dri` (GL/llvmpipe); WGPU_BACKEND=vulkan|gl \
             picks one",
            self.0
        )
    }
}

impl std::error::Error for NoAdapter {}

impl Gpu {
    /// Open the best adapter: `WGPU_BACKEND` (e.g. `vulkan`, `gl`) is honoured; otherwise
    /// Vulkan first, then GL (probing GL/EGL only when Vulkan has nothing spares the noise
    /// Mesa's EGL prints on display-less machines).
    pub fn new() -> Result<Gpu, NoAdapter> {
        let from_env = wgpu::Backends::from_env();
        let tries: Vec<wgpu::Backends> = match from_env {
            Some(b) => vec![b],
            None => vec![wgpu::Backends::VULKAN, wgpu::Backends::GL],
        };
        let mut reasons = Vec::new();
        for backends in tries {
            match Self::open(backends) {
                Ok(g) => return Ok(g),
                Err(e) => reasons.push(format!("{backends:?}: {}", e.0)),
            }
        }
        Err(NoAdapter(reasons.join("; ")))
    }

    fn open(backends: wgpu::Backends) -> Result<Gpu, NoAdapter> {
        let instance = headless_instance(backends);
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| NoAdapter(e.to_string()))?;
        Self::from_adapter(&adapter)
    }

    /// Open a device on `adapter` (one of [`adapters`], or one that can draw in a window).
    pub fn from_adapter(adapter: &wgpu::Adapter) -> Result<Gpu, NoAdapter> {
        let info = adapter.get_info();
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("odori"),
            required_features: wgpu::Features::empty(),
            // Everything the adapter offers: GPU skinning binds more storage buffers than the
            // downlevel defaults allow.
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| NoAdapter(format!("{} ({:?}): {e}", info.name, info.backend)))?;
        Ok(Gpu {
            device,
            queue,
            info,
            sample_counts: Self::sample_counts(adapter),
        })
    }

    /// The MSAA sample counts `adapter` offers for both the colour and the depth format of
    /// odori's render targets; 1 always. Every front end that opens its own adapter (a
    /// window's, a canvas's) fills [`Gpu::sample_counts`] with it.
    pub fn sample_counts(adapter: &wgpu::Adapter) -> Vec<u32> {
        let counts = |f| {
            adapter
                .get_texture_format_features(f)
                .flags
                .supported_sample_counts()
        };
        let depth = counts(crate::target::DEPTH_FORMAT);
        let mut sample_counts: Vec<u32> = counts(crate::target::COLOR_FORMAT)
            .into_iter()
            .filter(|c| depth.contains(c))
            .collect();
        if !sample_counts.contains(&1) {
            sample_counts.push(1);
        }
        sample_counts
    }

    /// True for CPU rasterisers (lavapipe, llvmpipe), where every pixel costs CPU time.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// A one-line description for logs: adapter name and backend.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }
}

/// Every adapter wgpu offers, for [`crate::backend::choose`]: `WGPU_BACKEND`'s when set;
/// otherwise Vulkan's, and GL's only when Vulkan has none (as [`Gpu::new`] probes, sparing
/// the noise Mesa's EGL prints on display-less machines).
pub fn adapters() -> Vec<wgpu::Adapter> {
    let tries: Vec<wgpu::Backends> = match wgpu::Backends::from_env() {
        Some(b) => vec![b],
        None => vec![wgpu::Backends::VULKAN, wgpu::Backends::GL],
    };
    for backends in tries {
        let found = pollster::block_on(headless_instance(backends).enumerate_adapters(backends));
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

/// An instance for drawing off screen, which never makes a surface. Vulkan's is made without
/// the `VK_KHR_wayland_surface` extension: Mesa's device-select layer, which the Vulkan
/// loader puts into every instance, asks the Wayland compositor for the display's GPU when
/// that extension is on, and libwayland prints "error: XDG_RUNTIME_DIR is invalid or not
/// set" (twice, to stderr) on every machine without a session: servers, containers, Ray
/// workers. No error of ours, and no environment variable of the process is touched to
/// avoid it (a library cannot change the environment safely while other threads may read
/// it).
pub fn headless_instance(backends: wgpu::Backends) -> wgpu::Instance {
    let desc = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
    #[cfg(all(unix, not(target_os = "macos"), not(target_os = "android")))]
    if backends == wgpu::Backends::VULKAN
        && let Some(instance) = vulkan_without_wayland(&desc)
    {
        return instance;
    }
    let mut desc = desc;
    desc.backends = backends;
    wgpu::Instance::new(desc)
}

/// Vulkan through wgpu-hal with every extension wgpu asks for but Wayland's surface; `None`
/// when Vulkan cannot be loaded (the caller's plain instance then reports why).
#[cfg(all(unix, not(target_os = "macos"), not(target_os = "android")))]
fn vulkan_without_wayland(desc: &wgpu::InstanceDescriptor) -> Option<wgpu::Instance> {
    use wgpu::hal;
    let hal_desc = hal::InstanceDescriptor {
        name: "odori",
        flags: desc.flags,
        memory_budget_thresholds: desc.memory_budget_thresholds,
        backend_options: desc.backend_options.clone(),
        telemetry: None,
        display: None,
    };
    let drop_wayland: Box<hal::vulkan::CreateInstanceCallback> = Box::new(|args| {
        args.extensions.retain(|e| *e != c"VK_KHR_wayland_surface");
    });
    // SAFETY: wgpu-hal asks callbacks not to remove extensions because it takes an available
    // extension as enabled; the one removed here is used only to make a Wayland surface
    // (`create_surface_from_wayland`, which checks the instance's list first), and this
    // instance never makes a surface: it is handed to no window.
    let hal_instance =
        unsafe { hal::vulkan::Instance::init_with_callback(&hal_desc, Some(drop_wayland)) }.ok()?;
    // SAFETY: a live Vulkan instance just made by wgpu-hal, owned by nothing else.
    Some(unsafe { wgpu::Instance::from_hal::<hal::api::Vulkan>(hal_instance) })
}

/// For tests: the GPU, or `None` after printing a skip notice. `ODORI_REQUIRE_GPU=1` turns the
/// skip into a panic (CI, which installs Mesa).
pub fn for_tests() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) => {
            if std::env::var("ODORI_REQUIRE_GPU").is_ok_and(|v| v == "1") {
                panic!("{e}");
            }
            eprintln!("SKIPPED: {e}");
            None
        }
    }
}
