//! Evaluating instances in groups (`odori_pose::evaluate_group`), where the solves of one
//! solver in many instances run side by side in vector lanes, must give every instance, bit
//! for bit, what evaluating it alone gives.
//!
//! The eight-lane solves must actually run (`odori_pose::counters`): each comparison counts
//! the lane steps the groups took in eight-lane visits (more than zero wherever the processor
//! has AVX2; without it the check says `SKIPPED`) and those of the instances evaluated alone
//! (none).

mod common;

use odori_pose::counters;
use odori_pose::solves_side_by_side;
use odori_pose::{GROUP, Instance, Model, Motion, evaluate_group};

/// Evaluate `count` instances for `ticks` ticks, instance `i` at `frame(i, tick)`, once in
/// groups and once one by one (instances with `ik_off(i)` have IK off); every world and
/// skinning matrix must match bit for bit.
fn assert_groups_change_nothing(
    model: &Model,
    motion: &Motion,
    count: usize,
    ticks: usize,
    frame: impl Fn(usize, usize) -> f32,
    ik_off: impl Fn(usize) -> bool,
) {
    let fresh = || -> Vec<Instance> {
        (0..count)
            .map(|i| {
                let mut inst = Instance::new(model, motion);
                inst.options_mut().ik = !ik_off(i);
                inst
            })
            .collect()
    };
    let (mut grouped, mut alone) = (fresh(), fresh());
    let (mut visits, mut lane_steps) = (0, 0);
    counters::take();
    for tick in 0..ticks {
        for (c, chunk) in grouped.chunks_mut(GROUP).enumerate() {
            let frames: Vec<f32> = (0..chunk.len())
                .map(|j| frame(c * GROUP + j, tick))
                .collect();
            evaluate_group(model, motion, chunk, &frames).unwrap();
        }
        let grouped_counts = counters::take();
        visits += grouped_counts.wide_visits;
        lane_steps += grouped_counts.wide_lane_steps;
        for (i, inst) in alone.iter_mut().enumerate() {
            inst.evaluate(model, motion, frame(i, tick)).unwrap();
        }
        assert_eq!(
            counters::take().wide_lane_steps,
            0,
            "instances evaluated alone took eight-lane steps (tick {tick})"
        );
        for (i, (g, a)) in grouped.iter().zip(&alone).enumerate() {
            let at = format!("of instance {i} at frame {} (tick {tick})", frame(i, tick));
            common::assert_same_matrices(model, g, a, &at);
        }
    }
    println!(
        "{}: {visits} eight-lane visits, {lane_steps} lane steps ({:.0} % of lanes busy)",
        model.name(),
        100.0 * lane_steps as f64 / (8 * visits).max(1) as f64
    );
    if eight_lane_solves_expected() {
        assert!(
            visits > 0 && lane_steps > 0,
            "{}: no eight-lane step ran",
            model.name()
        );
    } else {
        assert_eq!(
            lane_steps,
            0,
            "{}: eight-lane steps without AVX2",
            model.name()
        );
    }
}

/// Whether this processor runs solves in eight lanes (AVX2); prints the skip notice when not.
fn eight_lane_solves_expected() -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return true;
    }
    eprintln!(
        "SKIPPED: no AVX2 on this processor: eight-lane IK solves do not run, their coverage is not checked"
    );
    false
}

fn solver(model: &Model, ik_bone: &str) -> usize {
    let b = model.find_bone(ik_bone).unwrap() as u32;
    model.solvers().iter().position(|s| s.bone == b).unwrap()
}

#[test]
fn the_rigs_legs_run_side_by_side_where_the_machine_allows() {
    let mut pmx = common::two_legged_rig();
    if eight_lane_solves_expected() {
        let model = Model::from_pmx(&pmx).unwrap();
        for ik in ["左足ＩＫ", "右足ＩＫ", "左つま先ＩＫ", "右つま先ＩＫ"] {
            assert!(solves_side_by_side(&model, solver(&model, ik)), "{ik}");
        }
    }
    // An unlimited link whose step cap can bind (unit angle 1: a cap under π) takes the
    // general step form, so its solver runs on each instance in turn.
    pmx.bones[common::TOE_IK].ik.as_mut().unwrap().limit_angle = 1.0;
    let model = Model::from_pmx(&pmx).unwrap();
    assert!(!solves_side_by_side(&model, solver(&model, "左つま先ＩＫ")));
}

#[test]
fn groups_match_one_at_a_time_on_the_rig() {
    let model = Model::from_pmx(&common::two_legged_rig()).unwrap();
    let mut vmd = common::two_legged_dance();
    common::right_leg_ik_off_from_25_to_34(&mut vmd);
    let motion = Motion::from_vmd(&model, &vmd);
    // 37 instances: two full groups and a part one; every fifth with IK off.
    assert_groups_change_nothing(
        &model,
        &motion,
        2 * GROUP + 5,
        80,
        |i, tick| ((i * 7 + tick) % 130) as f32 * 0.5,
        |i| i % 5 == 3,
    );
}

#[test]
fn groups_match_one_at_a_time_with_knees_that_bend_past_both_limits() {
    // Knees limited to [-1.6, -0.4]: the dance bends them past both bounds, so the steps
    // reflect off each (first half) and clamp to each (second half).
    let mut pmx = common::two_legged_rig();
    for ik in [common::LEG_IK, pmx.bones.len() - 2] {
        let limits = pmx.bones[ik].ik.as_mut().unwrap().links[0]
            .limits
            .as_mut()
            .unwrap();
        limits.min[0] = -1.6;
        limits.max[0] = -0.4;
    }
    let model = Model::from_pmx(&pmx).unwrap();
    let motion = Motion::from_vmd(&model, &common::two_legged_dance());
    assert_groups_change_nothing(
        &model,
        &motion,
        GROUP,
        60,
        |i, tick| ((i * 5 + tick) % 130) as f32 * 0.5,
        |_| false,
    );
}

#[test]
fn a_lane_that_needs_the_scalar_step_mid_solve_takes_it_alone() {
    // At frame 0 the left foot's goal sits on the knee: the knee's first step sees no
    // direction to the goal and builds no matrix, so its next step (after the thigh moved) is
    // the general limited one, which a lane takes on its own in the middle of the solve.
    let model = Model::from_pmx(&common::two_legged_rig()).unwrap();
    let knee = model.find_bone("左ひざ").unwrap();
    let goal = model.find_bone("左足ＩＫ").unwrap();
    let to_knee = model.rest_positions()[knee] - model.rest_positions()[goal];
    let flat = [20, 20, 107, 107];
    let still = [0.0, 0.0, 0.0, 1.0];
    let vmd = common::motion_of(vec![
        common::key("左足ＩＫ", 0, to_knee.into(), still, flat),
        common::key("左足ＩＫ", 10, [0.3, 1.5, -0.5], still, flat),
        common::key("右足ＩＫ", 0, [0.0, 0.5, 0.0], still, flat),
        common::key("右足ＩＫ", 10, [-0.2, 2.0, 0.8], still, flat),
    ]);
    let motion = Motion::from_vmd(&model, &vmd);
    assert_groups_change_nothing(
        &model,
        &motion,
        GROUP,
        12,
        |i, tick| {
            if i % 3 == 0 {
                0.0
            } else {
                (i + tick) as f32 * 0.25
            }
        },
        |_| false,
    );
}

#[test]
fn groups_match_one_at_a_time_on_real_models() {
    let Some(dancers) = common::real_dancers() else {
        return;
    };
    for (_, model, motion) in dancers {
        let end = motion.end_frame() as usize + 1;
        // 20 instances spread over the dance, each advancing 11 frames a tick (and seeking
        // back at the end), so the ticks cover it all.
        assert_groups_change_nothing(
            &model,
            &motion,
            GROUP + 4,
            (end / 11) + 2,
            |i, tick| ((i * 139 + tick * 11) % end) as f32,
            |i| i == 5,
        );
    }
}
