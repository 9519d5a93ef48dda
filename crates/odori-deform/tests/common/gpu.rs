//! A headless wgpu device for GPU tests, or an honest skip.

use odori_deform::gpu::GpuSkinner;
use odori_deform::{Deformed, Mesh};

/// Environment variable that turns a missing adapter into a failure.
pub const REQUIRE_GPU: &str = "ODORI_REQUIRE_GPU";

/// A device on any adapter wgpu finds (on a machine without a GPU, Mesa's lavapipe Vulkan
/// driver), or `None` after printing a skip notice. Panics instead when
/// `ODORI_REQUIRE_GPU=1`.
pub fn device() -> Option<(wgpu::Device, wgpu::Queue)> {
    device_with(|_| {})
}

/// As [`device`], with the adapter's limits adjusted by `limits` (to test a lower one).
pub fn device_with(limits: impl Fn(&mut wgpu::Limits)) -> Option<(wgpu::Device, wgpu::Queue)> {
    // Vulkan/Metal/DX12 first; GL only if none of them has an adapter (probing GL on a
    // headless Linux machine prints EGL noise).
    let found = match wgpu::Backends::from_env() {
        Some(backends) => open(backends, &limits),
        None => {
            open(wgpu::Backends::PRIMARY, &limits).or_else(|| open(wgpu::Backends::GL, &limits))
        }
    };
    if found.is_none() {
        if std::env::var(REQUIRE_GPU).is_ok_and(|v| v == "1") {
            panic!("no wgpu adapter, and {REQUIRE_GPU}=1 forbids skipping");
        }
        eprintln!("SKIPPED: no wgpu adapter");
    }
    found
}

fn open(
    backends: wgpu::Backends,
    limits: &dyn Fn(&mut wgpu::Limits),
) -> Option<(wgpu::Device, wgpu::Queue)> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    // Validation layers are rarely installed where tests run; wgpu's own checks still apply.
    desc.flags = wgpu::InstanceFlags::empty().with_env();
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: None,
        ..Default::default()
    }))
    .ok()?;
    let info = adapter.get_info();
    eprintln!(
        "wgpu adapter: {} ({:?}, {:?})",
        info.name, info.backend, info.device_type
    );
    let mut required = adapter.limits();
    limits(&mut required);
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("odori-deform tests"),
        required_limits: required,
        ..Default::default()
    }))
    .ok()
}

/// Deform once on the GPU and read the result back.
pub fn deform(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    skinner: &GpuSkinner,
    mesh: &Mesh,
    skinning: &[glam::Affine3A],
    weights: &[f32],
) -> Deformed {
    skinner.update(queue, skinning, weights);
    let mut encoder = device.create_command_encoder(&Default::default());
    skinner.encode(&mut encoder);
    queue.submit([encoder.finish()]);
    let mut out = Deformed::new(mesh);
    skinner.read_back(device, queue, &mut out);
    out
}
