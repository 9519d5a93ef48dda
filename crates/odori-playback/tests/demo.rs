//! The embedded demo plays as designed through the player: its keys drive what they were
//! written to drive (the evidence is the demo's own dance script in
//! `odori_render::demo::dance`).

use odori_playback::{Frame, Player, PlayerOptions, Scene};
use std::sync::Arc;

#[test]
fn demo_rig_moves_and_morphs() {
    let scene = Arc::new(Scene::demo());
    let m = &scene.models()[0];
    let model = m.asset().pose();
    assert!(
        m.asset().warnings().is_empty(),
        "{:?}",
        m.asset().warnings()
    );
    assert!(
        m.motion().unbound().is_empty(),
        "{:?}",
        m.motion().unbound()
    );
    assert_eq!(model.solvers().len(), 2, "two leg IK solvers");
    assert!(scene.camera().is_some(), "the demo dance has camera keys");
    let mut player = Player::new(scene.clone(), PlayerOptions::default());
    let mut frame = Frame::default();
    // Frame 150: blush fully on (skin diffuse green multiplied by 0.72).
    player.evaluate_at(150.0, &mut frame);
    let skin = odori_render::materials::base_values(&m.asset().render().materials[0]);
    let mats = frame.models()[0].materials();
    let blushed = mats[0].resolve(&skin);
    assert!((blushed.diffuse.y - skin.diffuse.y * 0.72).abs() < 1e-5);
    assert!((mats[6].add.edge_size - 1.5).abs() < 1e-5);
    // Frame 201: eyes closed by the blink (vertex morph) — its weight is 1.
    player.evaluate_at(201.0, &mut frame);
    let blink = model.find_morph("まばたき").unwrap();
    assert_eq!(frame.models()[0].morph_weights()[blink], 1.0);
    // The IK feet keep the soles near the floor while the centre dips.
    let ankle = model.find_bone("左足首").expect("the demo has an ankle");
    let y = player.instance(0).world_positions()[ankle].y;
    assert!(y < 2.0, "{y}");
}
