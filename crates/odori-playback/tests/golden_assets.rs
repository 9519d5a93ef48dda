//! Golden images of real models dancing wavefile_v2 under its own camera (wavefile_camera),
//! 256×256, at fixed frames, physics off, on the GPU when there is an adapter and always on the
//! CPU rasteriser: Gene_light.pmx (PNG textures, PMX materials) and
//! miku_v2.pmd (PMD materials, BMP texture, toon list). Skipped without ../shared (see
//! odori-testkit).

mod common;

use odori_playback::{ModelAsset, MotionFile, Scene};
use std::path::Path;
use std::sync::Arc;

const FRAMES: [f64; 3] = [200.0, 900.0, 1700.0];

fn render(name: &str, model: &Path) {
    let (Some(motion), Some(camera)) = (
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    let mut scene = Scene::new();
    let asset = Arc::new(ModelAsset::load(model).unwrap());
    scene.add_model_files(asset, &[MotionFile::read(&motion).unwrap().0]);
    scene.set_camera(&odori_playback::load::camera_file(&camera).unwrap());
    let frames: Vec<(f64, String)> = FRAMES
        .into_iter()
        .map(|at| (at, format!("{name}_{at:04}")))
        .collect();
    common::check_frames(scene, &frames, false);
}

#[test]
fn gene_light_wavefile() {
    let Some(path) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    render("gene_light", &path);
}

#[test]
fn miku_v2_wavefile() {
    let Some(path) = odori_testkit::shared("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    render("miku_v2", &path);
}
