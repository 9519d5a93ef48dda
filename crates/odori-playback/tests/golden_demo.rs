//! Golden images of the embedded demo (no assets needed): three frames at 256×256, one after
//! the camera cut, made through the player as every front end makes them. See `common` for
//! the tolerance.

mod common;

use odori_playback::Scene;
use odori_render::gpu;

#[test]
fn demo_frames() {
    let Some(gpu) = gpu::for_tests() else { return };
    eprintln!("adapter: {}", gpu.describe());
    let frames: Vec<(f64, String)> = [0.0, 45.0, 130.0]
        .into_iter()
        .map(|at| (at, format!("demo_{at:03}")))
        .collect();
    common::check_frames(gpu, Scene::demo(), &frames, true);
}
