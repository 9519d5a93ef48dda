//! Baking: the simulated motion written as keys, read back and played without physics,
//! gives the physics result again (and MMD's physics-off flag keeps physics from redoing it).

mod common;

use odori_format::vmd;
use odori_physics::{PhysicsConfig, PhysicsModel, PhysicsWorld, bake};
use odori_pose::{Instance, Model, Motion};

/// Baked keys replay the simulation to this distance (MMD units): f32 round-off through
/// world → local → world. Bones that follow a baked bone by append would not (they take
/// the animated value, not the simulated one); none of the tested models has one.
const REPLAY_BOUND: f32 = 1e-3;

/// Bake, write and read back the VMD, and compare every bone with and without physics.
fn check(name: &str, model: &Model, rig: &PhysicsModel, original: &vmd::Vmd) {
    let motion = Motion::from_vmd(model, original);
    let Some(mut world) = common::world(rig, model) else {
        return;
    };
    let baked = bake(model, &motion, &mut world, original).unwrap();
    assert!(!baked.bones.is_empty(), "{name}: nothing baked");
    let bytes = vmd::write(&baked.vmd).unwrap();
    let reread = vmd::parse(&bytes).unwrap();
    assert_eq!(reread, baked.vmd);
    let baked_motion = Motion::from_vmd(model, &reread);
    // Every baked key binds (tracks the original already had for other models' bones aside).
    assert_eq!(baked_motion.unbound(), motion.unbound(), "{name}");

    // Fresh worlds: a reset world is not bit-identical to a new one (Bullet's broadphase
    // keeps its history), and the comparison is exact.
    let mut world = PhysicsWorld::new(rig, model, PhysicsConfig::default()).unwrap();
    let mut world2 = PhysicsWorld::new(rig, model, PhysicsConfig::default()).unwrap();
    let mut sim = Instance::new(model, &motion);
    let mut replay = Instance::new(model, &baked_motion);
    let mut replay_phys = Instance::new(model, &baked_motion);
    let mut worst = (0.0f32, 0u32, 0usize);
    for f in 0..=baked.last_frame {
        world.evaluate(model, &motion, &mut sim, f as f32).unwrap();
        replay.evaluate(model, &baked_motion, f as f32).unwrap();
        world2
            .evaluate(model, &baked_motion, &mut replay_phys, f as f32)
            .unwrap();
        for b in 0..model.bone_count() {
            let d = (sim.world_positions()[b] - replay.world_positions()[b]).length();
            let r = (sim.world(b).matrix3 - replay.world(b).matrix3)
                .abs()
                .to_cols_array()
                .into_iter()
                .fold(0.0f32, f32::max);
            if d.max(r) > worst.0 {
                worst = (d.max(r), f, b);
            }
            // Played with physics on, the flags turn the baked bones' bodies kinematic.
            let e = (replay.world_positions()[b] - replay_phys.world_positions()[b]).length();
            assert!(
                e < 1e-4,
                "{name}: frame {f} bone {}: physics redid a baked bone",
                model.bone_names()[b]
            );
        }
    }
    println!(
        "{name}: {} bones × {} frames baked; replay without physics within {:.2e} (bone `{}` @ {})",
        baked.bones.len(),
        baked.last_frame + 1,
        worst.0,
        model.bone_names()[worst.2],
        worst.1
    );
    assert!(
        worst.0 < REPLAY_BOUND,
        "{name}: replay off by {} at frame {} bone {}",
        worst.0,
        worst.1,
        model.bone_names()[worst.2]
    );
}

#[test]
fn rig_bake_replays_the_simulation() {
    let pmx = common::rig();
    let model = Model::from_pmx(&pmx).unwrap();
    let rig = PhysicsModel::from_pmx(&pmx, &model);
    let mut sway = common::sway();
    // A key of a baked bone in the original is replaced, not merged.
    sway.bones
        .push(common::key("髪2", 10, [1.0, 0.0, 0.0], false));
    check("rig", &model, &rig, &sway);
}

#[test]
fn gene_bake_replays_the_simulation() {
    let (Some(pmx), Some(v)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let pmx = odori_format::Pmx::read(pmx).unwrap();
    let model = Model::from_pmx(&pmx).unwrap();
    let rig = PhysicsModel::from_pmx(&pmx, &model);
    check(
        "Gene_light.pmx × wavefile_v2",
        &model,
        &rig,
        &odori_format::Vmd::read(v).unwrap(),
    );
}
