//! Runtime behaviour on the rig built in code: rest pose, allocation-free evaluation, append,
//! morphs, knee limits. These run without `../shared`.

mod common;

use glam::Quat;
use odori_pose::model::IkRules;
use odori_pose::{Instance, Model, Motion, Stage};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts allocations per thread, so tests running beside each other do not add to each
/// other's counts.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the thread-local may already be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations this thread makes while running `f`.
fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Quaternions equal up to sign within 1e-5 (acos-based angles are too coarse near 0 in f32).
fn close(a: Quat, b: Quat) -> bool {
    (a - b).length().min((a + b).length()) < 1e-5
}

#[test]
fn evaluation_allocates_nothing() {
    let model = Model::from_pmx(&common::rig()).unwrap();
    let motion = Motion::from_vmd(&model, &common::dance());
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 0.0).unwrap();
    let n = allocations_during(|| {
        for f in 0..240 {
            inst.evaluate(&model, &motion, f as f32 * 0.25).unwrap();
        }
        inst.evaluate(&model, &motion, 3.0).unwrap(); // a seek backwards
    });
    assert_eq!(n, 0, "{n} allocations while evaluating frames");
}

#[test]
fn real_model_evaluation_allocates_nothing() {
    let (Some(p), Some(v)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let model = Model::from_pmx(&odori_format::Pmx::read(p).unwrap()).unwrap();
    let motion = Motion::from_vmd(&model, &odori_format::Vmd::read(v).unwrap());
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 0.0).unwrap();
    let n = allocations_during(|| {
        for f in 0..2810 {
            inst.evaluate(&model, &motion, f as f32).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations over 2,810 frames");
}

#[test]
fn group_evaluation_allocates_nothing() {
    let model = Model::from_pmx(&common::two_legged_rig()).unwrap();
    let motion = Motion::from_vmd(&model, &common::two_legged_dance());
    let mut group: Vec<Instance> = (0..odori_pose::GROUP)
        .map(|_| Instance::new(&model, &motion))
        .collect();
    let frames: Vec<f32> = (0..group.len()).map(|i| i as f32 * 3.5).collect();
    odori_pose::evaluate_group(&model, &motion, &mut group, &frames).unwrap();
    let n = allocations_during(|| {
        for tick in 0..60 {
            let at: [f32; odori_pose::GROUP] =
                std::array::from_fn(|i| (i as f32 * 3.5 + tick as f32 * 0.5) % 60.0);
            odori_pose::evaluate_group(&model, &motion, &mut group, &at).unwrap();
        }
    });
    assert_eq!(n, 0, "{n} allocations while evaluating groups");
}

/// Every world and skinning matrix of `inst`, as bits.
fn pose_bits(inst: &Instance) -> Vec<u32> {
    inst.world_transforms()
        .chain(inst.skinning().iter().copied())
        .flat_map(|a| a.to_cols_array())
        .map(f32::to_bits)
        .collect()
}

/// An instance plays the motion it was sized for and no other: another motion of its model,
/// a motion of another model, or another model are refused with an error (and the instance
/// is left as it was) until it is re-sized for them.
#[test]
fn instance_refuses_a_motion_or_model_it_was_not_sized_for() {
    use odori_pose::PoseError;
    let pmx = common::rig();
    let model = Model::from_pmx(&pmx).unwrap();
    let motion = Motion::from_vmd(&model, &common::dance());
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 30.0).unwrap();
    let before = pose_bits(&inst);

    // Another motion of the same model (here with fewer tracks than the instance's cursors).
    let other = Motion::empty(&model);
    let err = inst.evaluate(&model, &other, 30.0).unwrap_err();
    assert!(matches!(err, PoseError::WrongMotion { .. }), "{err}");
    assert!(err.to_string().contains("Instance::rebind"), "{err}");
    assert!(matches!(
        inst.before_physics(&model, &other, 30.0),
        Err(PoseError::WrongMotion { .. })
    ));
    assert!(matches!(
        inst.run_stage(&model, &other, 30.0, Stage::Sample),
        Err(PoseError::WrongMotion { .. })
    ));
    assert!(matches!(
        odori_pose::evaluate_group(&model, &other, std::slice::from_mut(&mut inst), &[30.0]),
        Err(PoseError::WrongMotion { .. })
    ));

    // The same file compiled again is another model; its motions are another model's.
    let twin = Model::from_pmx(&pmx).unwrap();
    let twin_motion = Motion::from_vmd(&twin, &common::dance());
    assert!(matches!(
        inst.evaluate(&twin, &twin_motion, 30.0),
        Err(PoseError::WrongModel { .. })
    ));
    assert!(matches!(
        inst.evaluate(&twin, &motion, 30.0),
        Err(PoseError::WrongModel { .. })
    ));
    assert!(matches!(
        inst.evaluate(&model, &twin_motion, 30.0),
        Err(PoseError::WrongMotion { .. })
    ));
    // An instance made from a model and a motion bound to another model plays neither.
    let mut mixed = Instance::new(&model, &twin_motion);
    assert!(matches!(
        mixed.evaluate(&model, &twin_motion, 30.0),
        Err(PoseError::WrongMotion { .. })
    ));
    assert_eq!(
        pose_bits(&inst),
        before,
        "a refused evaluation changed the pose"
    );

    // Clones are the same model and motion.
    inst.evaluate(&model.clone(), &motion.clone(), 30.0)
        .unwrap();
    assert_eq!(pose_bits(&inst), before);

    // Re-sized for the other motion, it plays that one (as a new instance would) and refuses
    // the first.
    inst.rebind(&model, &other);
    inst.evaluate(&model, &other, 30.0).unwrap();
    let mut fresh = Instance::new(&model, &other);
    fresh.evaluate(&model, &other, 30.0).unwrap();
    assert_eq!(pose_bits(&inst), pose_bits(&fresh));
    assert!(matches!(
        inst.evaluate(&model, &motion, 30.0),
        Err(PoseError::WrongMotion { .. })
    ));
    // And for another model, options kept.
    inst.options_mut().ik = false;
    inst.rebind(&twin, &twin_motion);
    assert!(!inst.options().ik);
    inst.evaluate(&twin, &twin_motion, 30.0).unwrap();
    assert!(matches!(
        inst.evaluate(&model, &other, 30.0),
        Err(PoseError::WrongModel { .. })
    ));
}

#[test]
fn rest_pose_without_motion_keeps_bones_at_rest() {
    let model = Model::from_pmx(&common::rig()).unwrap();
    let motion = Motion::empty(&model);
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 0.0).unwrap();
    for b in 0..model.bone_count() {
        let w = inst.world(b);
        assert!(
            (w.translation - model.rest_positions()[b])
                .abs()
                .max_element()
                < 1e-5,
            "bone {b}"
        );
        assert!(
            close(Quat::from_mat3a(&w.matrix3), Quat::IDENTITY),
            "bone {b}"
        );
    }
}

#[test]
fn append_twist_takes_half_the_arm_rotation() {
    let model = Model::from_pmx(&common::rig()).unwrap();
    let motion = Motion::from_vmd(&model, &common::dance());
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 40.0).unwrap();
    let arm = inst.pose_rotations()[10];
    let twist_local = inst.local_rotations()[common::TWIST];
    let half = Quat::IDENTITY.slerp(arm, 0.5);
    assert!(close(twist_local, half), "{twist_local:?} vs {half:?}");
}

#[test]
fn group_morph_drives_bone_morph_at_its_ratio() {
    let model = Model::from_pmx(&common::rig()).unwrap();
    let motion = Motion::from_vmd(&model, &common::dance());
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 20.0).unwrap();
    assert!((inst.morph_weights()[1] - 1.0).abs() < 1e-6);
    assert!((inst.effective_morph_weights()[0] - 0.5).abs() < 1e-6);
}

/// A bone that no track moves but a bone morph does (the arm, with the dance's bone keys
/// removed) is posed while the morph's weight lasts and back at rest, local transform
/// included, in a frame without it, whatever order frames come in.
#[test]
fn bone_morph_pose_lasts_only_while_its_weight_does() {
    let model = Model::from_pmx(&common::rig()).unwrap();
    let mut vmd = common::dance();
    vmd.bones.clear();
    let motion = Motion::from_vmd(&model, &vmd);
    let mut inst = Instance::new(&model, &motion);
    let arm = 10;
    let turned = |inst: &Instance| {
        let local = Quat::from_mat3a(&inst.world(arm).matrix3)
            * Quat::from_mat3a(&inst.world(9).matrix3).inverse();
        local.angle_between(Quat::IDENTITY)
    };
    for frame in [20.0, 60.0, 20.0, 0.0, 35.0, 60.0] {
        inst.evaluate(&model, &motion, frame).unwrap();
        // The group's weight rises to 1 at frame 20 and falls to 0 at frame 50, and passes
        // half of it to the bone morph, which turns the arm by 30° at full weight.
        let weight = inst.effective_morph_weights()[0];
        let expected = weight * 30f32.to_radians();
        assert!(
            (turned(&inst) - expected).abs() < 1e-5,
            "frame {frame}: arm turned {} for bone-morph weight {weight}",
            turned(&inst)
        );
        if weight == 0.0 {
            assert_eq!(inst.pose_rotations()[arm], Quat::IDENTITY, "frame {frame}");
            assert_eq!(inst.local_rotations()[arm], Quat::IDENTITY, "frame {frame}");
        }
    }
}

/// A pose set from outside (`Instance::set_pose`) on a bone no track moves is what the next
/// world pass places it by.
#[test]
fn set_pose_moves_an_untracked_bone() {
    let model = Model::from_pmx(&common::rig()).unwrap();
    let motion = Motion::empty(&model);
    let mut inst = Instance::new(&model, &motion);
    let arm = 10;
    let q = Quat::from_rotation_z(0.4);
    inst.run_stage(&model, &motion, 0.0, Stage::Sample).unwrap();
    inst.run_stage(&model, &motion, 0.0, Stage::Morphs).unwrap();
    inst.set_pose(arm, glam::Vec3A::ZERO, q);
    inst.run_stage(&model, &motion, 0.0, Stage::BeforePhysics)
        .unwrap();
    inst.run_stage(&model, &motion, 0.0, Stage::AfterPhysics)
        .unwrap();
    assert!(close(Quat::from_mat3a(&inst.world(arm).matrix3), q));
    inst.evaluate(&model, &motion, 0.0).unwrap();
    assert!(close(
        Quat::from_mat3a(&inst.world(arm).matrix3),
        Quat::IDENTITY
    ));
}

/// A material morph's result lasts only while its weight does: a frame without it is back
/// to neutral (the morph pass resets materials only after a material morph touched them).
#[test]
fn material_morph_state_returns_to_neutral() {
    use odori_format::pmx::{Material, MaterialOffset, Morph, MorphOffsets};
    use odori_pose::MaterialState;
    let mut pmx = common::rig();
    pmx.materials.push(Material::new("skin", 0));
    pmx.morphs.push(Morph {
        name: "blush".into(),
        name_en: String::new(),
        panel: 4,
        offsets: MorphOffsets::Material(vec![MaterialOffset {
            diffuse: [1.0, 0.5, 0.5, 1.0],
            ..MaterialOffset::multiply(0)
        }]),
    });
    let model = Model::from_pmx(&pmx).unwrap();
    let motion = Motion::from_vmd(&model, &common::dance());
    let blush = model.find_morph("blush").unwrap();
    let mut inst = Instance::new(&model, &motion);
    let pass = |inst: &mut Instance, weight: f32| {
        inst.run_stage(&model, &motion, 10.0, Stage::Sample)
            .unwrap();
        inst.set_morph_weight(blush, weight);
        inst.run_stage(&model, &motion, 10.0, Stage::Morphs)
            .unwrap();
    };
    pass(&mut inst, 1.0);
    assert!((inst.materials()[0].mul.diffuse.y - 0.5).abs() < 1e-6);
    pass(&mut inst, 0.5);
    assert!((inst.materials()[0].mul.diffuse.y - 0.75).abs() < 1e-6);
    pass(&mut inst, 0.0);
    assert_eq!(inst.materials()[0], MaterialState::NEUTRAL);
}

#[test]
fn knee_stays_inside_its_limit_and_foot_reaches_goal() {
    let model = Model::from_pmx(&common::rig()).unwrap();
    let motion = Motion::from_vmd(&model, &common::dance());
    let mut inst = Instance::new(&model, &motion);
    for f in 0..=60 {
        inst.evaluate(&model, &motion, f as f32).unwrap();
        let q = inst.local_rotations()[common::KNEE];
        let (axis, angle) = if q.w < 0.0 { -q } else { q }.to_axis_angle();
        let x_angle = axis.x * angle;
        assert!(
            (-std::f32::consts::PI - 1e-4..=1e-4).contains(&x_angle),
            "frame {f}: knee {x_angle}"
        );
        assert!(
            axis.y.abs() * angle < 1e-3 && axis.z.abs() * angle < 1e-3,
            "knee off-axis at {f}"
        );
    }
    inst.evaluate(&model, &motion, 30.0).unwrap();
    let goal = inst.world_positions()[common::LEG_IK];
    let ankle = inst.world_positions()[common::ANKLE];
    assert!(goal.distance(ankle) < 0.05, "ankle {ankle} goal {goal}");
}

/// The rig evaluated at frame 0 of a motion of `keys`, under `rules`.
fn rig_at_frame_0(rules: IkRules, keys: Vec<odori_format::vmd::BoneKey>) -> Instance {
    let mut model = Model::from_pmx(&common::rig()).unwrap();
    model.set_ik_rules(rules);
    let motion = Motion::from_vmd(&model, &common::motion_of(keys));
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 0.0).unwrap();
    inst
}

#[test]
fn aligned_link_stops_the_solve_in_mmd_rules_and_is_skipped_in_pmd_rules() {
    // The goal lies on the segment knee → ankle: the knee (link 0) sees effector and goal in
    // one direction, the thigh (link 1) does not.
    let model = Model::from_pmx(&common::rig()).unwrap();
    let rest = model.rest_positions();
    let (knee, ankle) = (rest[common::KNEE], rest[common::ANKLE]);
    let goal = knee + (ankle - knee) * 0.7;
    let moved = (goal - ankle).to_array();
    let keys = || {
        vec![common::key(
            "左足ＩＫ",
            0,
            moved,
            [0.0, 0.0, 0.0, 1.0],
            [20, 20, 107, 107],
        )]
    };

    let mmd = rig_at_frame_0(IkRules::MMD_PMX, keys());
    assert!(mmd.world_positions()[common::LEG_IK].distance(goal) < 1e-5);
    assert!(
        mmd.world_positions()[common::ANKLE].distance(ankle) < 1e-5,
        "MMD rules: no step at all, ankle {}",
        mmd.world_positions()[common::ANKLE]
    );

    let pmd = rig_at_frame_0(IkRules::PMD, keys());
    let reached = pmd.world_positions()[common::ANKLE].distance(goal);
    assert!(
        reached < 0.5 * ankle.distance(goal),
        "PMD rules: the thigh turns, ankle {} goal {goal}",
        pmd.world_positions()[common::ANKLE]
    );
}

#[test]
fn toe_ik_starts_from_the_stale_toe_in_mmd_rules_and_the_moved_toe_in_pmd_rules() {
    // The foot IK moves the ankle forward and up, onto the sphere around the toe's rest
    // position that the foot spans; the toe IK's goal (a child of the foot IK) is moved back
    // to that rest position, where the toe was before the leg IK ran. From the stale toe, the
    // goal is reached already and the toe IK does nothing; from the moved toe, the goal is
    // within the foot's reach and the toe IK turns the ankle onto it.
    let model = Model::from_pmx(&common::rig()).unwrap();
    let rest = model.rest_positions();
    let (toe_rest, foot) = (rest[common::TOE], rest[common::ANKLE] - rest[common::TOE]);
    let turned = Quat::from_rotation_x(-0.6) * foot;
    let shift = (turned - foot).to_array();
    let back = shift.map(|x: f32| -x);
    let keys = || {
        vec![
            common::key(
                "左足ＩＫ",
                0,
                shift,
                [0.0, 0.0, 0.0, 1.0],
                [20, 20, 107, 107],
            ),
            common::key(
                "左つま先ＩＫ",
                0,
                back,
                [0.0, 0.0, 0.0, 1.0],
                [20, 20, 107, 107],
            ),
        ]
    };

    let mmd = rig_at_frame_0(IkRules::MMD_PMX, keys());
    let mmd_gap = mmd.world_positions()[common::TOE].distance(toe_rest);
    let pmd = rig_at_frame_0(IkRules::PMD, keys());
    let pmd_gap = pmd.world_positions()[common::TOE].distance(toe_rest);
    assert!(pmd.world_positions()[common::TOE_IK].distance(toe_rest) < 1e-5);
    assert!(
        mmd_gap > 0.5,
        "MMD rules: toe left where the leg IK put it ({mmd_gap})"
    );
    assert!(
        pmd_gap < 0.01,
        "PMD rules: toe turned toward its goal ({pmd_gap} vs {mmd_gap})"
    );
}
