//! Physics on the rig built in code: the compiled description (mode-2 rule, bad data), and,
//! where Bullet is available, simulation behaviour (hair swings, stays jointed, follows VMD
//! physics flags, deterministic, seeks reset). These run without `../shared`.

mod common;

use common::*;
use glam::Vec3A;
use odori_physics::{BodyMode, PhysicsConfig, PhysicsError, PhysicsModel, PhysicsWorld};
use odori_pose::{Instance, Model, Motion};

fn compiled() -> (odori_format::Pmx, Model, PhysicsModel) {
    let pmx = rig();
    let model = Model::from_pmx(&pmx).unwrap();
    let phys = PhysicsModel::from_pmx(&pmx, &model);
    (pmx, model, phys)
}

#[test]
fn mode2_body_below_a_simulated_parent_becomes_mode1() {
    let (_, _, phys) = compiled();
    assert!(phys.diagnostics.is_empty(), "{:?}", phys.diagnostics);
    let modes: Vec<BodyMode> = phys.bodies.iter().map(|b| b.mode).collect();
    // Hair 1 hangs from the kinematic head: it stays mode 2. Hair 2 hangs from simulated
    // hair 1 on its parent bone: promoted.
    assert_eq!(
        modes,
        [
            BodyMode::FollowBone,
            BodyMode::PhysicsWithBone,
            BodyMode::Physics
        ]
    );
}

#[test]
fn bad_bodies_and_joints_are_dropped_with_diagnostics() {
    let mut pmx = rig();
    pmx.rigid_bodies
        .push(body("nan", 1, 0, [f32::NAN, 0.0, 0.0], [0.0; 3], 1));
    pmx.rigid_bodies
        .push(body("negative", 1, 1, [1.0, -1.0, 1.0], [0.0; 3], 1));
    pmx.rigid_bodies
        .push(body("shape 7", 1, 7, [1.0; 3], [0.0; 3], 1));
    pmx.rigid_bodies
        .push(body("mode 9", 1, 0, [1.0; 3], [0.0; 3], 9));
    let mut massless = body("massless", 99, 0, [0.5, 0.0, 0.0], [0.0, 5.0, 0.0], 1);
    massless.mass = 0.0;
    pmx.rigid_bodies.push(massless);
    pmx.rigid_bodies
        .push(body("flat", 2, 1, [1.0, 0.0, 1.0], [0.0, 5.0, 0.0], 0));
    pmx.joints.push(joint("to nan", 0, 3, [0.0; 3]));
    pmx.joints.push(joint("to nowhere", 0, 200, [0.0; 3]));
    pmx.joints.push(joint("negative", -5, 1, [0.0; 3]));
    pmx.joints.push(joint("self", 1, 1, [0.0; 3]));
    let mut nan_joint = joint("nan limits", 0, 1, [0.0; 3]);
    nan_joint.rotation_min[1] = f32::INFINITY;
    pmx.joints.push(nan_joint);
    let model = Model::from_pmx(&pmx).unwrap();
    let phys = PhysicsModel::from_pmx(&pmx, &model);
    assert_eq!(phys.bodies.len(), 5, "rig's 3 + massless + flat");
    assert_eq!(phys.joints.len(), 2, "only the rig's own joints survive");
    let massless = &phys.bodies[3];
    assert_eq!(
        massless.mode,
        BodyMode::FollowBone,
        "a simulated body without mass follows its bone"
    );
    assert_eq!(massless.bone, None, "bone 99 does not exist");
    assert!(
        phys.bodies[4].no_contact_response,
        "zero volume: no contact response"
    );
    assert_eq!(phys.diagnostics.len(), 11, "{:#?}", phys.diagnostics);

    let Some(mut world) = common::world(&phys, &model) else {
        return; // built without Bullet: the description is all there is to check
    };
    let motion = Motion::from_vmd(&model, &sway());
    let mut inst = Instance::new(&model, &motion);
    for f in 0..60 {
        world
            .evaluate(&model, &motion, &mut inst, f as f32)
            .unwrap();
    }
    assert!(inst.world_transforms().all(|w| w.is_finite()));
}

#[test]
fn without_bullet_the_error_says_how_to_get_it() {
    let (_, model, phys) = compiled();
    let available = odori_physics::AVAILABLE;
    match PhysicsWorld::new(&phys, &model, PhysicsConfig::default()) {
        Ok(_) => assert!(available),
        Err(e) => {
            assert!(!available);
            assert_eq!(e, PhysicsError::Unavailable);
            assert!(
                e.to_string().contains("built with ODORI_NO_BULLET=1"),
                "{e}"
            );
        }
    }
}

/// Frames 0..n with physics: every frame's world matrices.
fn run(
    model: &Model,
    motion: &Motion,
    phys: &PhysicsModel,
    n: u32,
) -> Option<Vec<Vec<glam::Affine3A>>> {
    let mut world = common::world(phys, model)?;
    let mut inst = Instance::new(model, motion);
    Some(
        (0..n)
            .map(|f| {
                world.evaluate(model, motion, &mut inst, f as f32).unwrap();
                inst.world_transforms().collect::<Vec<_>>()
            })
            .collect(),
    )
}

fn pos(a: &glam::Affine3A) -> Vec3A {
    a.translation
}

#[test]
fn hair_swings_stays_jointed_and_carries_its_tip() {
    let (_, model, phys) = compiled();
    let motion = Motion::from_vmd(&model, &sway());
    let Some(mut world) = common::world(&phys, &model) else {
        return;
    };
    let mut inst = Instance::new(&model, &motion);
    let mut animated = Instance::new(&model, &motion);
    let (mut max_swing, mut max_joint): (f32, f32) = (0.0, 0.0);
    for f in 0..120 {
        world
            .evaluate(&model, &motion, &mut inst, f as f32)
            .unwrap();
        animated.evaluate(&model, &motion, f as f32).unwrap();
        assert!(inst.world_transforms().all(|w| w.is_finite()), "frame {f}");
        // Mode 2: hair 1 keeps its animated position (its root on the head).
        let root_gap = (pos(&inst.world(HAIR1)) - pos(&animated.world(HAIR1))).length();
        assert!(
            root_gap < 1e-5,
            "frame {f}: hair root {root_gap} from its animated position"
        );
        // The sway is violent (4 units in 2/3 s); Bullet's joints give a little under it.
        for e in world.joint_errors(&phys) {
            max_joint = max_joint.max(e.unwrap());
        }
        // The tip bone has no body; it hangs on hair 2 (recomputed after physics).
        let tip = inst
            .world(HAIR2)
            .transform_point3a(Vec3A::new(0.0, -2.0, 0.0));
        assert!(
            (pos(&inst.world(TIP)) - tip).length() < 1e-4,
            "frame {f}: tip"
        );
        max_swing = max_swing.max((pos(&inst.world(TIP)) - pos(&animated.world(TIP))).length());
    }
    assert!(max_joint < 0.4, "joint anchors {max_joint} apart");
    assert!(
        max_swing > 0.5,
        "hair tip lags the sway by at most {max_swing}"
    );
    eprintln!("max joint error {max_joint}, max tip swing {max_swing}");
}

#[test]
fn two_runs_are_bit_identical() {
    let (_, model, phys) = compiled();
    let motion = Motion::from_vmd(&model, &sway());
    let (Some(a), Some(b)) = (
        run(&model, &motion, &phys, 90),
        run(&model, &motion, &phys, 90),
    ) else {
        return;
    };
    for (f, (wa, wb)) in a.iter().zip(&b).enumerate() {
        for (x, y) in wa.iter().zip(wb) {
            let (x, y) = (
                glam::Mat4::from(*x).to_cols_array(),
                glam::Mat4::from(*y).to_cols_array(),
            );
            assert!(
                x.iter().zip(&y).all(|(p, q)| p.to_bits() == q.to_bits()),
                "frame {f}"
            );
        }
    }
}

#[test]
fn vmd_physics_off_flag_makes_the_hair_follow_its_bones() {
    let (_, model, phys) = compiled();
    let mut keys = sway().bones;
    keys.push(key("髪1", 0, [0.0; 3], true));
    keys.push(key("髪2", 0, [0.0; 3], true));
    let motion = Motion::from_vmd(&model, &vmd(keys));
    let Some(frames) = run(&model, &motion, &phys, 60) else {
        return;
    };
    let mut animated = Instance::new(&model, &motion);
    for (f, world) in frames.iter().enumerate() {
        animated.evaluate(&model, &motion, f as f32).unwrap();
        for b in [HAIR1, HAIR2, TIP] {
            let d = (pos(&world[b]) - pos(&animated.world(b))).length();
            assert!(d < 1e-5, "frame {f} bone {b}: {d} from its animation");
        }
    }
}

#[test]
fn a_seek_resets_to_what_a_fresh_start_gives() {
    let (_, model, phys) = compiled();
    let motion = Motion::from_vmd(&model, &sway());
    let Some(mut a) = common::world(&phys, &model) else {
        return;
    };
    let mut b = PhysicsWorld::new(&phys, &model, PhysicsConfig::default()).unwrap();
    let (mut ia, mut ib) = (
        Instance::new(&model, &motion),
        Instance::new(&model, &motion),
    );
    for f in 0..40 {
        a.evaluate(&model, &motion, &mut ia, f as f32).unwrap();
    }
    // Backwards to 10: a reset there, then the same frames as a world started at 10.
    for f in 10..30 {
        a.evaluate(&model, &motion, &mut ia, f as f32).unwrap();
        b.evaluate(&model, &motion, &mut ib, f as f32).unwrap();
        for (x, y) in ia.world_positions().iter().zip(ib.world_positions()) {
            assert!((*x - *y).length() < 1e-4, "frame {f}");
        }
    }
}

#[test]
fn a_description_for_another_model_does_not_index_past_its_bones() {
    let (_, _, phys) = compiled();
    let mut small = rig();
    small.bones.truncate(2);
    small.rigid_bodies.clear();
    small.joints.clear();
    let model = Model::from_pmx(&small).unwrap();
    let Some(mut world) = common::world(&phys, &model) else {
        return;
    };
    assert_eq!(world.diagnostics().len(), 2, "{:?}", world.diagnostics());
    let motion = Motion::empty(&model);
    let mut inst = Instance::new(&model, &motion);
    for f in 0..10 {
        world
            .evaluate(&model, &motion, &mut inst, f as f32)
            .unwrap();
    }
    assert!(inst.world_transforms().all(|w| w.is_finite()));
}
