//! Golden-image comparison shared by the render tests: `odori_testkit::golden` (the rule and
//! its limits are documented there) over the goldens in `tests/golden/`.

#![allow(dead_code)]

use image::RgbaImage;
use odori_playback::offline::renderer_for;
use odori_playback::{Frame, Player, PlayerOptions, Scene};
use odori_render::{Device, RenderOptions};
use odori_testkit::golden::{LIMITS, Limits};
use std::path::PathBuf;
use std::sync::Arc;

/// Render `scene` at 256×256 (self-shadow map 1024) through the player, physics off, at each
/// `(frame, golden name)` in turn, on every device of `odori_render::devices_for_tests` (the
/// GPU when there is one, and the CPU rasteriser), and check each against its golden with the
/// same limits. Only the wgpu render blesses (`ODORI_BLESS=1`). Texture warnings are printed,
/// or refused when `no_warnings`.
pub fn check_frames(scene: Scene, frames: &[(f64, String)], no_warnings: bool) {
    let scene = Arc::new(scene);
    for device in odori_render::devices_for_tests() {
        eprintln!("renderer: {}", device.describe());
        let cpu = device.gpu().is_none();
        for (name, img) in render_frames(device, &scene, frames, no_warnings) {
            check(&name, &img, cpu);
        }
    }
}

/// The frames `(frame, name)` of `scene` rendered as [`check_frames`] renders them, on `device`.
pub fn render_frames(
    device: Device,
    scene: &Arc<Scene>,
    frames: &[(f64, String)],
    no_warnings: bool,
) -> Vec<(String, RgbaImage)> {
    let scene = scene.clone();
    let options = RenderOptions {
        width: 256,
        height: 256,
        shadow_map_size: 1024,
        ..Default::default()
    };
    let mut r = renderer_for(&scene, device, options);
    assert!(
        !no_warnings || r.warnings().is_empty(),
        "{:?}",
        r.warnings()
    );
    for w in r.warnings() {
        eprintln!("warning: {w}");
    }
    let no_physics = PlayerOptions {
        physics: false,
        deform: true,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), no_physics);
    let mut frame = Frame::default();
    let mut out = Vec::new();
    for (at, name) in frames {
        player.evaluate_at(*at, &mut frame);
        frame.prepare(&mut r, true);
        let img = r.render_image(&frame.view(scene.framing_camera(1.0)));
        out.push((name.clone(), img));
    }
    out
}

/// Goldens today's renders have moved from since they were blessed (at 093434d), held to
/// their measured figures (lavapipe / llvmpipe) with a little room rather than re-blessed.
/// miku_v2_0900: 99 / 102 of 9,746 covered pixels (1.02 % / 1.05 %), mean 0.70 / 0.71, along
/// the twin tails' tips and the legs, both moved by IK solvers (most likely 271448c, PMD models
/// solving IK with babylon-mmd's two rules); dropping the specular term gives 2.21 %, mean 2.13.
const MOVED: &[(&str, Limits)] = &[(
    "miku_v2_0900",
    Limits {
        pixels: 8,
        share: 0.011,
        mean: 0.8,
    },
)];

pub fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compare `img` with golden `name` (or write it under `ODORI_BLESS=1`, wgpu renders only:
/// `cpu` is the CPU rasteriser's); on failure the render and a difference map are written to
/// the test binary's temp dir (under `cpu/` for the CPU rasteriser's).
pub fn check(name: &str, img: &RgbaImage, cpu: bool) {
    let limits = MOVED
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(LIMITS, |(_, l)| *l);
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    if cpu {
        let out = tmp.join("cpu");
        std::fs::create_dir_all(&out).unwrap();
        eprint!("CPU rasteriser: ");
        odori_testkit::golden::verify(&golden_dir(), name, img, &out, limits);
    } else {
        odori_testkit::golden::check(&golden_dir(), name, img, tmp, limits);
    }
}
