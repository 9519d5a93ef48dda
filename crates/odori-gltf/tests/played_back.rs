//! The written file, read back as a glTF player reads it (this test's own GLB reader and
//! sampler: linear translation, spherical linear rotation, nodes composed down the node tree),
//! against the world pose odori's player computes for the same frames with physics on (what
//! the export claims to reproduce): every bone of Gene_light.pmx × wavefile_v2, frames 0–300,
//! within the stated tolerance (1e-4 units, 1e-4 per rotation element) plus f32 rounding of
//! the composition.

mod common;

use common::{Glb, Played, difference};
use odori_gltf::{Options, space};
use odori_playback::{Frame, load};
use std::sync::Arc;

#[test]
fn the_file_plays_back_as_odori_poses_with_physics() {
    let (Some(model), Some(dance)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let (scene, _) = load::scene_from_files(&[model, dance], None).unwrap();
    let scene = Arc::new(scene);
    let out = std::env::temp_dir().join(format!("odori-gltf-played-{}.glb", std::process::id()));
    let options = Options {
        stop: Some(300.0),
        ..Options::default()
    };
    let summary = odori_gltf::export(scene.clone(), &options, &out).unwrap();
    assert!(
        summary.keys < summary.keys_unreduced / 2,
        "reduction kept {} of {}",
        summary.keys,
        summary.keys_unreduced
    );
    let glb = Glb::read(&std::fs::read(&out).unwrap());
    std::fs::remove_file(&out).unwrap();

    let played = Played::new(glb);
    let bones = scene.models()[0].asset().pose().bone_count();
    assert!(
        (0..bones).all(|b| played.is_animated(b)),
        "every bone has a translation and a rotation channel"
    );

    let mut player = common::player(scene);
    let mut frame = Frame::default();
    let (mut worst_p, mut worst_r, mut compared) = (0.0f32, 0.0f32, 0usize);
    for f in 0..=300 {
        player.seek(f as f64);
        player.evaluate(&mut frame);
        let t = f as f32 / 30.0;
        for b in 0..bones {
            let want = space::affine(player.instance(0).world(b));
            let (dp, dr) = difference(played.world(b, t), want);
            worst_p = worst_p.max(dp);
            worst_r = worst_r.max(dr);
            compared += 1;
        }
    }
    eprintln!(
        "{compared} bone-frames: largest error {worst_p:.2e} units, {worst_r:.2e} rotation; {} of {} keys",
        summary.keys, summary.keys_unreduced
    );
    assert_eq!(compared, 301 * bones);
    // The stated tolerance, plus f32 rounding of a composition down chains of up to ~15
    // bones and 90-unit levers.
    assert!(worst_p <= 1e-4 + 5e-5, "position off by {worst_p}");
    assert!(worst_r <= 1e-4 + 5e-6, "rotation off by {worst_r}");
}
