//! Golden images of the embedded demo (no assets needed): three frames at 256×256, one after
//! the camera cut, made through the player as every front end makes them. See `common` for
//! the tolerance.

mod common;

use odori_playback::offline::renderer_for;
use odori_playback::{Frame, Player, PlayerOptions, Scene};
use odori_render::{RenderOptions, gpu};
use std::sync::Arc;

#[test]
fn demo_frames() {
    let Some(gpu) = gpu::for_tests() else { return };
    eprintln!("adapter: {}", gpu.describe());
    let scene = Arc::new(Scene::demo());
    let options = RenderOptions {
        width: 256,
        height: 256,
        shadow_map_size: 1024,
        ..Default::default()
    };
    let mut r = renderer_for(&scene, gpu, options);
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let mut player = Player::new(scene.clone(), PlayerOptions::default());
    let mut frame = Frame::default();
    for at in [0.0, 45.0, 130.0] {
        player.evaluate_at(at, &mut frame);
        frame.prepare(&mut r, true);
        let img = r.render_image(&frame.view(scene.framing_camera(1.0)));
        common::check(&format!("demo_{at:03}"), &img);
    }
}
