//! The player hands out exactly what the stages give when called by hand: the pose runtime's
//! `Instance::evaluate` (no physics), `PhysicsWorld::evaluate` (physics), odori-deform's
//! `deform`, bit for bit; and a model placed in the scene is that result moved by its
//! placement. The evidence is the stages themselves, which the fingerprint test holds to
//! hashes recorded before the player existed.

use glam::Affine3A;
use odori_deform::{Deformed, deform};
use odori_physics::{PhysicsConfig, PhysicsWorld};
use odori_playback::{
    Frame, ModelAsset, ModelFrame, MotionFile, Player, PlayerOptions, Preroll, Scene,
};
use odori_pose::Instance;
use std::path::Path;
use std::sync::Arc;

fn same_bits(a: &[Affine3A], b: &[Affine3A]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (x, y) = (x.to_cols_array(), y.to_cols_array());
            x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits())
        })
}

fn same_f32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits())
}

/// Model 0 of `scene` through the player against the stages by hand, at `frames` in order.
fn compare(scene: Scene, physics: bool, frames: &[f64]) -> usize {
    let scene = Arc::new(scene);
    let m = &scene.models()[0];
    let (model, motion, mesh) = (m.asset().pose(), m.motion(), m.asset().mesh());
    // Physics as `PhysicsWorld::simulate` alone does it (its own reset and settle), which
    // is what the stages by hand do; the settled start and the pre-roll are in `settle.rs`.
    let options = PlayerOptions {
        physics,
        deform: true,
        settle: 0.0,
        preroll: Preroll::Off,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), options);
    let mut world = physics.then(|| {
        PhysicsWorld::new(m.asset().physics(), model, PhysicsConfig::default())
            .expect("physics is available")
    });
    assert_eq!(player.has_physics(), world.is_some());
    let mut inst = Instance::new(model, motion);
    let mut frame = Frame::default();
    let mut by_hand = Deformed::new(mesh);
    let mut compared = 0;
    for &f in frames {
        player.evaluate_at(f, &mut frame);
        match &mut world {
            Some(w) => w.evaluate(model, motion, &mut inst, f as f32).unwrap(),
            None => inst.evaluate(model, motion, f as f32).unwrap(),
        }
        let got: &ModelFrame = &frame.models()[0];
        assert!(same_bits(got.skinning(), inst.skinning()), "frame {f}");
        assert!(same_f32(
            got.morph_weights(),
            inst.effective_morph_weights()
        ));
        assert_eq!(got.materials(), inst.materials(), "frame {f}");
        assert_eq!(got.visible(), inst.visible());
        deform(
            mesh,
            inst.skinning(),
            inst.effective_morph_weights(),
            &mut by_hand,
        );
        let flat = |v: &[[f32; 3]]| v.iter().flatten().copied().collect::<Vec<f32>>();
        assert!(same_f32(
            &flat(&got.vertices().positions),
            &flat(&by_hand.positions)
        ));
        assert!(same_f32(
            &flat(&got.vertices().normals),
            &flat(&by_hand.normals)
        ));
        compared += 1;
    }
    compared
}

fn shared_scene(model: &str) -> Option<Scene> {
    let model = odori_testkit::shared(model)?;
    let motion = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    let mut scene = Scene::new();
    let asset = Arc::new(ModelAsset::load(&model).expect("loads"));
    scene.add_model_files(asset, &[MotionFile::read(&motion).expect("reads").0]);
    Some(scene)
}

#[test]
fn demo_through_the_player_equals_the_stages() {
    let frames: Vec<f64> = (0..240).map(|k| k as f64 * 0.5).collect();
    assert_eq!(compare(Scene::demo(), false, &frames), frames.len());
}

#[test]
fn gene_through_the_player_equals_the_stages() {
    let Some(scene) = shared_scene("assets/gene/Gene_light.pmx") else {
        return;
    };
    // In order, then a jump back and a long jump forward (IK history, physics resets).
    let mut frames: Vec<f64> = (0..200).map(f64::from).collect();
    frames.extend([30.0, 31.0, 1500.0, 1501.5]);
    assert_eq!(compare(scene, false, &frames), frames.len());
}

#[test]
fn gene_with_physics_through_the_player_equals_the_stages() {
    if !odori_physics::AVAILABLE {
        if std::env::var("ODORI_REQUIRE_PHYSICS").is_ok_and(|v| v == "1") {
            panic!("odori was built without physics, and ODORI_REQUIRE_PHYSICS=1");
        }
        eprintln!("SKIPPED: odori was built without physics");
        return;
    }
    let Some(scene) = shared_scene("assets/gene/Gene_light.pmx") else {
        return;
    };
    let mut frames: Vec<f64> = (0..150).map(f64::from).collect();
    frames.extend([20.0, 21.0, 22.0, 900.0, 900.5, 901.0]);
    assert_eq!(compare(scene, true, &frames), frames.len());
}

/// Two models side by side: each is its own dance moved by its placement, and the scene's
/// bounds hold both.
#[test]
fn two_models_side_by_side() {
    let mut scene = Scene::demo();
    let asset = scene.models()[0].asset().clone();
    let motion = scene.models()[0].motion().clone();
    scene.add_bound(asset, motion);
    scene.arrange_side_by_side();
    let (a, b) = (scene.models()[0].placement(), scene.models()[1].placement());
    assert!(
        a.x < 0.0 && b.x > 0.0 && (a.x + b.x).abs() < 1e-6,
        "{a} {b}"
    );
    let scene = Arc::new(scene);
    let mut player = Player::new(scene.clone(), PlayerOptions::default());
    let mut frame = Frame::default();
    player.evaluate_at(45.0, &mut frame);
    let [left, right] = frame.models() else {
        panic!("two models")
    };
    for (l, r) in left.skinning().iter().zip(right.skinning()) {
        let shifted = Affine3A::from_translation(b - a) * *l;
        assert!(shifted.abs_diff_eq(*r, 1e-4), "{shifted:?} vs {r:?}");
    }
    let (lo, hi) = frame.bounds();
    assert!(lo.x <= left.bounds().0.x && hi.x >= right.bounds().1.x);
    assert!(lo.x < 0.0 && hi.x > 0.0 && hi.y > lo.y);
}

#[test]
fn files_group_into_models_and_motions() {
    use odori_playback::load::scene_from_files;
    let err = scene_from_files(&["dance.vmd".into(), "model.pmx".into()], None)
        .err()
        .expect("a motion before any model is refused");
    assert!(err.to_string().contains("dance.vmd"), "{err}");
    let (Some(gene), Some(miku), Some(dance)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/miku_v2/miku_v2.pmd"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let files = [gene, dance.clone(), miku, dance];
    let (scene, _warnings) = scene_from_files(&files, None).expect("loads");
    assert_eq!(scene.models().len(), 2);
    for m in scene.models() {
        assert!(m.motion().end_frame() > 2000.0, "each model got its dance");
    }
    let missing = scene_from_files(&[Path::new("no/such.pmx").to_path_buf()], None)
        .err()
        .expect("a missing file fails");
    assert!(missing.to_string().contains("no/such.pmx"), "{missing}");
}

/// `stage_times_every`: only one evaluation in that many reads the clock; the others leave
/// the last timed one's figures exactly as they were (the evidence that they read nothing:
/// any read would have moved a nanosecond count), and the pose they hand out is the same.
#[test]
fn stage_times_are_taken_on_one_evaluation_in_n() {
    let scene = Arc::new(Scene::demo());
    let options = |every| PlayerOptions {
        physics: false,
        deform: false,
        stage_times_every: every,
        ..PlayerOptions::default()
    };
    let mut sampled = Player::new(scene.clone(), options(3));
    let mut every = Player::new(scene, options(1));
    let (mut a, mut b) = (Frame::default(), Frame::default());
    let mut timed = Vec::new();
    for k in 0..9 {
        sampled.evaluate_at(f64::from(k) * 7.0, &mut a);
        every.evaluate_at(f64::from(k) * 7.0, &mut b);
        assert!(same_bits(
            a.models()[0].skinning(),
            b.models()[0].skinning()
        ));
        timed.push(sampled.stage_times());
    }
    for (k, t) in timed.iter().enumerate() {
        if k % 3 == 0 {
            assert!(t.pose > std::time::Duration::ZERO, "evaluation {k} timed");
            if k > 0 {
                assert_ne!(*t, timed[k - 1], "evaluation {k} took new times");
            }
        } else {
            assert_eq!(*t, timed[k - 1], "evaluation {k} kept the last times");
        }
    }
}
