//! The wgpu device, found headless: a real GPU when there is one, else Mesa's software
//! rasterisers (lavapipe through Vulkan, llvmpipe through GL/EGL).

use std::fmt;

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
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
        desc.backends = backends;
        let instance = wgpu::Instance::new(desc);
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
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
        desc.backends = backends;
        let found = pollster::block_on(wgpu::Instance::new(desc).enumerate_adapters(backends));
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
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
