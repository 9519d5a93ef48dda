//! Golden images of the embedded demo (no assets needed): three frames at 256×256, one after
//! the camera cut, made through the player as every front end makes them, on the GPU when
//! there is an adapter and always on the CPU rasteriser. See `common` for the tolerance.

mod common;

use odori_playback::Scene;

#[test]
fn demo_frames() {
    let frames: Vec<(f64, String)> = [0.0, 45.0, 130.0]
        .into_iter()
        .map(|at| (at, format!("demo_{at:03}")))
        .collect();
    common::check_frames(Scene::demo(), &frames, true);
}
