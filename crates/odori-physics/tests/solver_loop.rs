//! odori's solver loop and joint setup (`shim/odori_solver.cpp`) against Bullet's own, the
//! reference they replace: the whole of wavefile_v2 stepped on Gene_light.pmx and on
//! miku_v2.pmd twice, once with each, must give every bone's world matrix the same bits in
//! every frame. Bullet's are `btSequentialImpulseConstraintSolver::solveSingleIteration` and
//! `convertJoints` themselves (`PhysicsWorld::force_bullet_solver_loop`), and the counters
//! show which ran each world, so neither run can quietly take the other's path.
//!
//! Also a small rig built in code, which runs without `../shared`.
//!
//! The loop has two spellings of the same arithmetic, four lanes at a time where the C++
//! compiler has vector extensions and scalar where it has not; CI runs this file a second time
//! with `ODORI_SOLVER_SCALAR=1`, which builds the scalar one.

mod common;

use odori_physics::{PhysicsModel, PhysicsWorld, SolverIterations};
use odori_pose::{Instance, Model, Motion};

/// Frames `0..frames` with physics; every bone's world matrix of every frame, and the world's
/// solver iteration counts (odori's loop, Bullet's).
fn run(
    model: &Model,
    motion: &Motion,
    rig: &PhysicsModel,
    frames: u32,
    bullet_loop: bool,
) -> Option<(Vec<u32>, SolverIterations)> {
    let mut world: PhysicsWorld = common::world(rig, model)?;
    world.force_bullet_solver_loop(bullet_loop);
    let mut inst = Instance::new(model, motion);
    let mut bits = Vec::new();
    for f in 0..frames {
        world.evaluate(model, motion, &mut inst, f as f32).unwrap();
        for w in inst.world_transforms() {
            bits.extend(w.to_cols_array().iter().map(|v| v.to_bits()));
        }
    }
    Some((bits, world.solver_iterations()))
}

fn check(name: &str, model: &Model, motion: &Motion, rig: &PhysicsModel, frames: u32) {
    let Some((ours, it)) = run(model, motion, rig, frames, false) else {
        return;
    };
    let (bullets, it_b) = run(model, motion, rig, frames, true).unwrap();
    let (fast, slow, fast_b, slow_b) = (it.odori, it.bullet, it_b.odori, it_b.bullet);
    // Each run took one loop only, both ran as many iterations (a loop stops early, as
    // Bullet's does, once no row moves: their residuals agree too), and at least one for each
    // 1/60 s step. odori's took its rows for unit body factors (MMD's) every time, and set up
    // the joints' rows itself at least once a frame.
    // The scalar spelling (`ODORI_SOLVER_SCALAR=1` at build time, as CI runs this test a second
    // time) leaves the joints' row setup to Bullet: odori's setup then never runs.
    let setups_expected = if option_env!("ODORI_SOLVER_SCALAR") == Some("1") {
        it.odori_joint_setups == 0
    } else {
        it.odori_joint_setups >= u64::from(frames)
    };
    assert!(
        fast >= u64::from(frames) * 2
            && slow == 0
            && it.odori_unit_factors == fast
            && setups_expected,
        "{name}: odori's run took {it:?}"
    );
    assert!(
        fast_b == 0 && slow_b == fast && it_b.odori_joint_setups == 0,
        "{name}: the reference run took {fast_b} iterations in odori's loop and {slow_b} in \
         Bullet's (odori's run {fast})"
    );
    assert_eq!(ours.len(), bullets.len());
    assert!(
        ours.len() >= frames as usize * model.bone_count() * 12,
        "every bone of every frame"
    );
    let per_frame = model.bone_count() * 12;
    if let Some(i) = ours.iter().zip(&bullets).position(|(a, b)| a != b) {
        panic!(
            "{name}: odori's solver loop leaves Bullet's at frame {}, bone {}",
            i / per_frame,
            i % per_frame / 12
        );
    }
    println!(
        "{name}: {frames} frames, {} floats, bit-identical to Bullet's loop ({fast} iterations)",
        ours.len()
    );
}

#[test]
fn gene_light_pmx_whole_dance_equals_bullets_loop() {
    let Some(d) = common::gene_wavefile() else {
        return;
    };
    let frames = d.motion.end_frame() as u32 + 1;
    assert!(frames > 2800, "the whole of wavefile_v2");
    check("Gene_light.pmx", &d.model, &d.motion, &d.rig, frames);
}

#[test]
fn miku_v2_pmd_whole_dance_equals_bullets_loop() {
    let Some(d) = common::miku_wavefile() else {
        return;
    };
    let frames = d.motion.end_frame() as u32 + 1;
    check("miku_v2.pmd", &d.model, &d.motion, &d.rig, frames);
}

#[test]
fn small_rig_equals_bullets_loop() {
    let pmx = common::rig();
    let model = Model::from_pmx(&pmx).unwrap();
    let motion = Motion::from_vmd(&model, &common::sway());
    let rig = PhysicsModel::from_pmx(&pmx, &model);
    check("the small rig", &model, &motion, &rig, 240);
}
