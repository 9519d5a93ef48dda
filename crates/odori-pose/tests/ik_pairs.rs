//! Independent IK solvers (a pair of legs, a pair of toes) are solved side by side
//! (`Model::ik_runs`, `ik::solve_pair`), pairs of the same shape in two-lane rounds where the
//! machine has AVX. That must give, bit for bit, what solving every solver alone in MMD's
//! order gives, and solvers that depend on each other must not pair.

mod common;

use odori_pose::model::NONE;
use odori_pose::{Instance, Model, Motion};

/// Evaluate `frames` with the paired schedule (in lockstep where the model allows, then
/// without) and the sequential one; every world and skinning matrix must match bit for bit.
/// Returns how many frames some IK link turned in.
fn assert_pairing_changes_nothing(model: &Model, motion: &Motion, frames: &[f32]) -> usize {
    assert!(
        model.ik_runs().any(|(_, second, _)| second != NONE),
        "{}: no solvers paired",
        model.name()
    );
    assert_same_poses(model, &model.without_lockstep(), motion, frames);
    assert_same_poses(model, &model.solving_one_at_a_time(), motion, frames)
}

/// Every world and skinning matrix of `model` and `alone` over `frames` match bit for bit;
/// returns how many frames some IK link turned in.
fn assert_same_poses(model: &Model, alone: &Model, motion: &Motion, frames: &[f32]) -> usize {
    let (mut paired_inst, mut alone_inst) =
        (Instance::new(model, motion), Instance::new(alone, motion));
    let mut solved_frames = 0;
    for &f in frames {
        paired_inst.evaluate(model, motion, f).unwrap();
        alone_inst.evaluate(alone, motion, f).unwrap();
        common::assert_same_matrices(model, &paired_inst, &alone_inst, &format!("at frame {f}"));
        solved_frames += paired_inst.ik_solved().iter().any(|&s| s) as usize;
    }
    solved_frames
}

fn solver(model: &Model, ik_bone: &str) -> u32 {
    let b = model.find_bone(ik_bone).unwrap() as u32;
    model.solvers().iter().position(|s| s.bone == b).unwrap() as u32
}

#[test]
fn legs_pair_with_legs_and_toes_with_toes_never_a_leg_with_its_own_toe() {
    let model = Model::from_pmx(&common::two_legged_rig()).unwrap();
    let legs = (solver(&model, "左足ＩＫ"), solver(&model, "右足ＩＫ"), true);
    let toes = (
        solver(&model, "左つま先ＩＫ"),
        solver(&model, "右つま先ＩＫ"),
        true,
    );
    let runs: Vec<(u32, u32, bool)> = model.ik_runs().collect();
    assert_eq!(runs, vec![legs, toes]);
}

#[test]
fn paired_solves_match_solving_one_after_the_other_on_the_rig() {
    let model = Model::from_pmx(&common::two_legged_rig()).unwrap();
    let mut vmd = common::two_legged_dance();
    common::right_leg_ik_off_from_25_to_34(&mut vmd);
    let motion = Motion::from_vmd(&model, &vmd);
    let frames: Vec<f32> = (0..=120).map(|h| h as f32 * 0.5).collect();
    let solved = assert_pairing_changes_nothing(&model, &motion, &frames);
    assert!(solved > 100, "IK turned links in only {solved} frames");
}

#[test]
fn paired_solves_match_solving_one_after_the_other_on_real_models() {
    let Some(dancers) = common::real_dancers() else {
        return;
    };
    for (path, model, motion) in dancers {
        let frames: Vec<f32> = (0..=2 * motion.end_frame() as usize)
            .map(|h| h as f32 * 0.5)
            .collect();
        let solved = assert_pairing_changes_nothing(&model, &motion, &frames);
        assert!(solved > frames.len() / 2, "{}: IK idle", path.display());
    }
}
