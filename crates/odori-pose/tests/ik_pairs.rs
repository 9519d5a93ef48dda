//! Independent IK solvers (a pair of legs, a pair of toes) are solved side by side
//! (`Model::ik_runs`, `ik::solve_pair`), pairs of the same shape in two-lane rounds where the
//! machine has AVX. That must give, bit for bit, what solving every solver alone in MMD's
//! order gives, and solvers that depend on each other must not pair.
//!
//! The two-lane rounds must actually run (`odori_pose::counters`): each comparison counts
//! the rounds the paired schedule did (more than zero wherever the processor has AVX; without
//! it the check says `SKIPPED`) and those of the reference (none).

mod common;

use odori_pose::counters;
use odori_pose::model::NONE;
use odori_pose::{Instance, Model, Motion};

/// Whether this processor runs pairs of the same shape in two-lane rounds (AVX); prints the
/// skip notice when not.
fn two_lane_rounds_expected() -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        return true;
    }
    eprintln!(
        "SKIPPED: no AVX on this processor: two-lane IK rounds do not run, their coverage is not checked"
    );
    false
}

/// Evaluate `frames` with the paired schedule (in lockstep where the model allows, then
/// without) and the sequential one; every world and skinning matrix must match bit for bit,
/// and the lockstep schedule must have solved in two-lane rounds where the machine has AVX.
/// Returns how many frames some IK link turned in.
fn assert_pairing_changes_nothing(model: &Model, motion: &Motion, frames: &[f32]) -> usize {
    assert!(
        model.ik_runs().any(|(_, second, _)| second != NONE),
        "{}: no solvers paired",
        model.name()
    );
    // Only pairs of the same shape run in lockstep (miku_v2's legs, for one, are not).
    let lockstep = model.ik_runs().any(|(_, _, lockstep)| lockstep);
    let expected = lockstep && two_lane_rounds_expected();
    let (_, rounds) = assert_same_poses(model, &model.without_lockstep(), motion, frames);
    let (solved, rounds_again) =
        assert_same_poses(model, &model.solving_one_at_a_time(), motion, frames);
    assert_eq!(
        rounds,
        rounds_again,
        "{}: rounds differ by run",
        model.name()
    );
    println!(
        "{}: {rounds} two-lane rounds over {} frames",
        model.name(),
        frames.len()
    );
    if expected {
        assert!(rounds > 0, "{}: no two-lane round ran", model.name());
    } else {
        if !lockstep {
            println!("{}: no pair of the same shape", model.name());
        }
        assert_eq!(rounds, 0, "{}: two-lane rounds unexpected", model.name());
    }
    solved
}

/// Every world and skinning matrix of `model` and `alone` over `frames` match bit for bit;
/// returns how many frames some IK link turned in, and how many two-lane rounds `model`'s
/// evaluations did (`alone`'s must do none).
fn assert_same_poses(
    model: &Model,
    alone: &Model,
    motion: &Motion,
    frames: &[f32],
) -> (usize, u64) {
    let (mut paired_inst, mut alone_inst) =
        (Instance::new(model, motion), Instance::new(alone, motion));
    let mut solved_frames = 0;
    let mut rounds = 0;
    counters::take();
    for &f in frames {
        paired_inst.evaluate(model, motion, f).unwrap();
        rounds += counters::take().twin_rounds;
        alone_inst.evaluate(alone, motion, f).unwrap();
        assert_eq!(
            counters::take().twin_rounds,
            0,
            "the reference schedule ran two-lane rounds at frame {f}"
        );
        common::assert_same_matrices(model, &paired_inst, &alone_inst, &format!("at frame {f}"));
        solved_frames += paired_inst.ik_solved().iter().any(|&s| s) as usize;
    }
    (solved_frames, rounds)
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
