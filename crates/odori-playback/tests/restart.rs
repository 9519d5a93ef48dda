//! A seek restarts physics settled where it lands (MikuMikuDance's rule, the window's
//! `Preroll::Off`), and that restart must depend on the pose alone, not on how long the
//! player ran before: a window looping for half an hour must show frame 300 after a seek as
//! it did at the start. Evidence: a fresh player's frame 300 (frames 0, 1, 2, then a seek to
//! 300) against the same steps taken after playing frames 0 to 600 in order; every model's
//! skinning matrices bit for bit. Gene_light × wavefile_v2, whose hair and skirt are simulated.

use odori_playback::{Frame, ModelAsset, MotionFile, Player, PlayerOptions, Preroll, Scene};
use std::sync::Arc;

fn restart_at_300(player: &mut Player, out: &mut Frame) -> Vec<glam::Affine3A> {
    // Frames 0, 1 and 2 in turn first: the pose carries a frame's state to the next (bones
    // that read their parent a frame late), so the seek starts from the same pose state.
    for f in [0.0, 1.0, 2.0, 300.0] {
        player.evaluate_at(f, out);
    }
    player.instance(0).skinning().to_vec()
}

#[test]
fn a_restart_after_a_long_run_is_a_restart_at_the_start() {
    let (Some(model), Some(dance)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let mut scene = Scene::new();
    let asset = Arc::new(ModelAsset::load(&model).unwrap());
    scene.add_model_files(asset, &[MotionFile::read(&dance).unwrap().0]);
    let scene = Arc::new(scene);
    let options = PlayerOptions {
        deform: false,
        preroll: Preroll::Off,
        ..PlayerOptions::default()
    };
    let mut out = Frame::default();
    let mut fresh = Player::new(scene.clone(), options);
    assert!(
        fresh.has_physics(),
        "physics is needed for this test (Bullet)"
    );
    let want = restart_at_300(&mut fresh, &mut out);
    let mut long = Player::new(scene, options);
    for f in 0..=600 {
        long.play_on(f as f64);
        long.evaluate(&mut out);
    }
    let got = restart_at_300(&mut long, &mut out);
    let off = (got.iter().zip(&want))
        .map(|(a, b)| (a.translation - b.translation).length())
        .fold(0.0f32, f32::max);
    assert!(
        got == want,
        "frame 300 after 600 frames of play is {off} units from frame 300 at the start"
    );
}
