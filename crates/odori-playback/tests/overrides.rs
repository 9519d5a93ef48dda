//! Morph weights held by hand over the motion's (`Player::set_morph_override`, the window's
//! morph sliders) and playing on across long gaps (`Player::play_on`).
//!
//! - A held morph is what the pose stages give when the sampled weight is replaced by hand
//!   between sampling and the morph stage (`Instance::run_stage`, `set_morph_weight`), bit
//!   for bit, and changes the deformed skin; letting it go gives a fresh player's frame again.
//! - Playing on across a 12-frame gap steps physics on from the last frame: the frame differs
//!   from a seek to the same frame (which restarts physics, MMD's rule for a jump) and equals
//!   a world stepped by hand with `PhysicsWorld::simulate_on`.

use odori_physics::{PhysicsConfig, PhysicsWorld};
use odori_playback::{Frame, ModelAsset, MotionFile, Player, PlayerOptions, Preroll, Scene};
use odori_pose::{Instance, Stage};
use std::sync::Arc;

fn gene_scene() -> Option<Arc<Scene>> {
    let model = odori_testkit::shared("assets/gene/Gene_light.pmx")?;
    let motion = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    let mut scene = Scene::new();
    let asset = Arc::new(ModelAsset::load(&model).unwrap());
    scene.add_model_files(asset, &[MotionFile::read(&motion).unwrap().0]);
    Some(Arc::new(scene))
}

fn bits(a: &[[f32; 3]]) -> Vec<u32> {
    a.iter().flatten().map(|v| v.to_bits()).collect()
}

#[test]
fn a_held_morph_is_the_stages_with_the_weight_set_by_hand() {
    let Some(scene) = gene_scene() else { return };
    let m = &scene.models()[0];
    let (model, motion) = (m.asset().pose(), m.motion());
    let a = model.find_morph("あ").expect("Gene has あ");
    let options = PlayerOptions {
        physics: false,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), options);
    player.set_morph_override(0, a, Some(1.0));
    assert_eq!(player.morph_overrides(), &[(0, a, 1.0)]);
    let mut held = Frame::default();
    player.evaluate_at(300.0, &mut held);

    let mut inst = Instance::new(model, motion);
    inst.run_stage(model, motion, 300.0, Stage::Sample).unwrap();
    assert!(
        inst.morph_weights()[a] < 1.0,
        "the motion already opens the mouth fully"
    );
    inst.set_morph_weight(a, 1.0);
    for stage in [Stage::Morphs, Stage::BeforePhysics, Stage::AfterPhysics] {
        inst.run_stage(model, motion, 300.0, stage).unwrap();
    }
    let got = &held.models()[0];
    assert_eq!(got.morph_weights(), inst.effective_morph_weights());
    assert_eq!(got.skinning(), inst.skinning());

    let mut fresh = Frame::default();
    Player::new(scene.clone(), options).evaluate_at(300.0, &mut fresh);
    assert_ne!(
        bits(&got.vertices().positions),
        bits(&fresh.models()[0].vertices().positions),
        "holding あ at 1 moved no vertex"
    );
    // Out of range: ignored. Let go: the fresh player's frame.
    player.set_morph_override(0, usize::MAX, Some(1.0));
    player.set_morph_override(7, a, Some(1.0));
    assert_eq!(player.morph_overrides().len(), 1);
    player.set_morph_override(0, a, None);
    player.evaluate_at(300.0, &mut held);
    assert_eq!(
        bits(&held.models()[0].vertices().positions),
        bits(&fresh.models()[0].vertices().positions)
    );
}

#[test]
fn playing_on_across_a_gap_steps_physics_on() {
    let Some(scene) = gene_scene() else { return };
    let m = &scene.models()[0];
    let (model, motion) = (m.asset().pose(), m.motion());
    let options = PlayerOptions {
        physics: true,
        settle: 0.0,
        preroll: Preroll::Off,
        ..PlayerOptions::default()
    };
    let (mut on, mut jump) = (
        Player::new(scene.clone(), options),
        Player::new(scene.clone(), options),
    );
    let mut world = PhysicsWorld::new(m.asset().physics(), model, PhysicsConfig::default())
        .expect("physics is available");
    let mut inst = Instance::new(model, motion);
    let (mut a, mut b) = (Frame::default(), Frame::default());
    for f in 0..=60 {
        on.evaluate_at(f as f64, &mut a);
        jump.evaluate_at(f as f64, &mut b);
        world.evaluate(model, motion, &mut inst, f as f32).unwrap();
    }
    // 12 frames on: more than `max_frame_gap` (5).
    on.play_on(72.0);
    on.evaluate(&mut a);
    jump.evaluate_at(72.0, &mut b);
    inst.before_physics(model, motion, 72.0).unwrap();
    world.simulate_on(model, &mut inst, 72.0);
    inst.after_physics(model);
    assert_eq!(a.models()[0].skinning(), inst.skinning(), "playing on");
    assert_ne!(
        a.models()[0].skinning(),
        b.models()[0].skinning(),
        "a seek restarts physics: the scenario tells the two apart"
    );
}
