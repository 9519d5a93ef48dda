//! The GPU device lost in the middle of a render (destroyed from the progress callback after
//! three frames are written, as a driver reset or a removed eGPU ends it): the frame whose
//! pixels did not come back and every frame after it are drawn on the CPU rasteriser, and the
//! report says from which frame and why. Evidence: the same range rendered on a fresh GPU
//! device and on the CPU rasteriser alone. Every frame of the run is one of those two, byte for
//! byte: the GPU's before the frame the report names, the CPU's from it on; none is blank.
//! Both ways of skinning: on the CPU, and on the GPU (whose frames carry no vertices, so the
//! fallback deforms them itself).

use odori_playback::offline::{FrameRange, Skinning, render, renderer_for};
use odori_playback::sink::FrameSink;
use odori_playback::{PlaybackError, Player, PlayerOptions, Scene};
use odori_render::{Device, RenderOptions};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Keeps every frame pushed.
struct Keep(Arc<Mutex<Vec<Vec<u8>>>>);

impl FrameSink for Keep {
    fn push(&mut self, rgba: &[u8]) -> Result<(), PlaybackError> {
        self.0.lock().unwrap().push(rgba.to_vec());
        Ok(())
    }
    fn finish(self: Box<Self>) -> Result<(), PlaybackError> {
        Ok(())
    }
}

const FRAMES: usize = 12;

fn options() -> RenderOptions {
    RenderOptions {
        width: 160,
        height: 90,
        msaa: 1,
        ..Default::default()
    }
}

/// The frames of a run on `device`; the device is destroyed after three frames are written
/// when `destroy` holds it.
fn run(
    scene: &Arc<Scene>,
    device: Device,
    skinning: Skinning,
    destroy: Option<odori_render::Gpu>,
) -> (Vec<Vec<u8>>, Option<(usize, String)>) {
    let mut renderer = renderer_for(scene, device, options());
    let player = Player::new(
        scene.clone(),
        PlayerOptions {
            physics: false,
            deform: skinning == Skinning::Cpu,
            ..PlayerOptions::default()
        },
    );
    let kept = Arc::new(Mutex::new(Vec::new()));
    let written = AtomicUsize::new(0);
    let progress = move || {
        if written.fetch_add(1, Ordering::SeqCst) + 1 == 3
            && let Some(g) = &destroy
        {
            g.device.destroy();
        }
    };
    let report = render(
        player,
        &mut renderer,
        skinning,
        FrameRange {
            start: 0.0,
            step: 8.0,
            count: FRAMES,
        },
        Box::new(Keep(kept.clone())),
        &progress,
        &AtomicBool::new(false),
    )
    .unwrap();
    let frames = std::mem::take(&mut *kept.lock().unwrap());
    (frames, report.fell_back)
}

#[test]
fn a_lost_gpu_device_is_replaced_by_the_cpu_rasteriser_mid_render() {
    let Some(probe) = odori_render::gpu::for_tests() else {
        return;
    };
    drop(probe);
    let scene = Arc::new(Scene::demo());
    for skinning in [Skinning::Cpu, Skinning::Gpu] {
        let gpu = odori_render::gpu::for_tests().unwrap();
        let (frames, fell_back) = run(&scene, Device::Gpu(gpu.clone()), skinning, Some(gpu));
        let (on_gpu, _) = run(
            &scene,
            Device::Gpu(odori_render::gpu::for_tests().unwrap()),
            skinning,
            None,
        );
        let (on_cpu, _) = run(&scene, Device::Cpu { why: None }, Skinning::Cpu, None);
        let (from, why) = fell_back.expect("the loss is reported");
        eprintln!("{skinning:?} skinning: drawn on the CPU from frame {from} ({why})");
        assert!(why.contains("Destroyed"), "{why}");
        assert!(
            (2..FRAMES).contains(&from),
            "lost after three frames were written: {from}"
        );
        assert_eq!(frames.len(), FRAMES, "every frame written");
        assert_ne!(
            on_gpu[0], on_cpu[0],
            "the two renderers' frames tell them apart"
        );
        for (k, f) in frames.iter().enumerate() {
            assert!(f.iter().any(|&b| b != 0), "frame {k} is blank");
            let want = if k < from { &on_gpu[k] } else { &on_cpu[k] };
            assert!(
                f == want,
                "frame {k} ({skinning:?} skinning) is not the frame it should be"
            );
        }
    }
}
