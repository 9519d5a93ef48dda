//! The two renderers against each other: the frames of the nine goldens (the demo, and
//! Gene_light.pmx and miku_v2.pmd on wavefile_v2 with its camera) drawn on wgpu and on the CPU
//! rasteriser, each pair held to the golden rule (`odori_testkit::golden`, the same limits) with
//! the wgpu render as the reference. The CPU rasteriser's shading (`odori_render::shading`) is
//! a transcription of the WGSL; this is what fails when one side is changed without the other.
//! Needs a GPU adapter (Mesa's lavapipe counts): skipped without one unless
//! `ODORI_REQUIRE_GPU=1`.

mod common;

use odori_playback::{ModelAsset, MotionFile, Scene};
use odori_render::Device;
use odori_testkit::golden::{LIMITS, compare};
use std::sync::Arc;

fn both(tag: &str, scene: Scene, frames: &[f64]) {
    let Some(gpu) = odori_render::gpu::for_tests() else {
        return;
    };
    let scene = Arc::new(scene);
    let frames: Vec<(f64, String)> = (frames.iter())
        .map(|&at| (at, format!("{tag}_{at:04}")))
        .collect();
    let reference = common::render_frames(Device::Gpu(gpu), &scene, &frames, false);
    let cpu = common::render_frames(Device::Cpu { why: None }, &scene, &frames, false);
    assert_eq!(reference.len(), frames.len());
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("backends");
    std::fs::create_dir_all(&out).unwrap();
    for ((name, a), (_, b)) in reference.iter().zip(&cpu) {
        let (f, map) = compare(a, b);
        eprintln!(
            "{name}: wgpu vs CPU rasteriser: {} covered, {} differ ({:.3}%), mean {:.3}, worst {}",
            f.covered,
            f.differing,
            100.0 * f.share(),
            f.mean,
            f.worst
        );
        if !f.pass(LIMITS) {
            a.save(out.join(format!("{name}_wgpu.png"))).unwrap();
            b.save(out.join(format!("{name}_cpu.png"))).unwrap();
            map.save(out.join(format!("{name}_diff.png"))).unwrap();
            panic!(
                "{name}: the renderers disagree ({f:?}); images in {}",
                out.display()
            );
        }
    }
}

#[test]
fn demo_on_both_renderers() {
    both("demo", Scene::demo(), &[0.0, 45.0, 130.0]);
}

fn dancer(model: &str) -> Option<Scene> {
    let (Some(model), Some(motion), Some(camera)) = (
        odori_testkit::shared(model),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return None;
    };
    let mut scene = Scene::new();
    let asset = Arc::new(ModelAsset::load(&model).unwrap());
    scene.add_model_files(asset, &[MotionFile::read(&motion).unwrap().0]);
    scene.set_camera(&odori_playback::load::camera_file(&camera).unwrap());
    Some(scene)
}

#[test]
fn gene_light_on_both_renderers() {
    if let Some(scene) = dancer("assets/gene/Gene_light.pmx") {
        both("gene_light", scene, &[200.0, 900.0, 1700.0]);
    }
}

#[test]
fn miku_v2_on_both_renderers() {
    if let Some(scene) = dancer("assets/miku_v2/miku_v2.pmd") {
        both("miku_v2", scene, &[200.0, 900.0, 1700.0]);
    }
}
