//! Evaluating a group of instances of one model and motion together, stage by stage.
//!
//! Each instance's results are exactly those of [`Instance::evaluate`]: every instance goes
//! through the same stages in the same order, and only the interleaving between instances
//! changes. The interleaving is for the IK: a leg solve is forty dependent CCD steps, each
//! mostly normalisations, an arc-cosine, a sine and cosine and matrix products, and a crowd's
//! instances all run the same solvers. So the solves of one solver in up to eight instances
//! run as one, a lane of each vector instruction per solve (`ik::path::wide`), with the other
//! leg's lanes (and the next eight instances') in the same loop to fill the processor while
//! one chain of operations waits on the last.

use crate::PoseError;
use crate::instance::Instance;
use crate::model::{Model, Step};
use crate::motion::Motion;
use crate::{ik, morph};

/// The most instances a group evaluates together: two sets of eight lanes per solver, which
/// measured faster than one (four chains of operations in flight with a pair of legs) and
/// keeps the solves' state (7 KB per set of lanes) within the first-level cache.
pub const GROUP: usize = 16;

/// Whether solver `si`'s solves in a group run side by side in vector lanes on this machine
/// (rather than on each instance in turn): a plain-path solver whose links all take step
/// forms done there, such as legs, on a machine with AVX2 (`testing` feature).
#[cfg(feature = "testing")]
pub fn solves_side_by_side(model: &Model, si: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        ik::path::wide::fits(model, si) && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (model, si);
        false
    }
}

/// Evaluate `instances[i]` at frame `frames[i]` (no physics), with the same results to the
/// bit as [`Instance::evaluate`] on each in turn.
///
/// # Errors
/// As [`Instance::evaluate`], when some instance was not sized for `model` and `motion`;
/// then no instance is changed.
///
/// # Panics
/// When `frames` and `instances` differ in length or hold more than [`GROUP`].
pub fn evaluate_group(
    model: &Model,
    motion: &Motion,
    instances: &mut [Instance],
    frames: &[f32],
) -> Result<(), PoseError> {
    before_physics_group(model, motion, instances, frames)?;
    after_physics_group(model, instances);
    Ok(())
}

/// The first half of [`evaluate_group`]: sample, morphs and the before-physics pass of every
/// instance, as [`Instance::before_physics`] gives them. A physics stage steps each instance
/// between this and [`after_physics_group`], so a crowd evaluated in groups has physics too.
///
/// # Errors
/// As [`evaluate_group`].
///
/// # Panics
/// When `frames` and `instances` differ in length or hold more than [`GROUP`].
pub fn before_physics_group(
    model: &Model,
    motion: &Motion,
    instances: &mut [Instance],
    frames: &[f32],
) -> Result<(), PoseError> {
    assert!(instances.len() == frames.len() && instances.len() <= GROUP);
    Instance::check_all(instances, model, motion)?;
    for (inst, &frame) in instances.iter_mut().zip(frames) {
        inst.sample(model, motion, frame);
        morph::apply(model, inst);
        // As `Instance::before_physics_pass` begins.
        inst.ik_solved.fill(false);
    }
    for step in &model.before_physics {
        run_step(model, instances, step);
    }
    Ok(())
}

/// The second half of [`evaluate_group`]: the after-physics pass of every instance, as
/// [`Instance::after_physics`] gives it.
pub fn after_physics_group(model: &Model, instances: &mut [Instance]) {
    for step in &model.after_physics_steps {
        run_step(model, instances, step);
    }
    for inst in instances.iter_mut() {
        inst.record_late_effectors(model);
    }
}

/// One step of the passes for every instance: world pass, solvers, grants given back.
fn run_step(model: &Model, instances: &mut [Instance], step: &Step) {
    for inst in instances.iter_mut() {
        inst.step_bones(model, step);
    }
    for run in &model.ik_runs[step.ik_runs.clone()] {
        if !ik::solve_run_grouped(model, instances, run) {
            for inst in instances.iter_mut().filter(|inst| inst.options.ik) {
                inst.ik_run(model, run);
            }
        }
    }
    for inst in instances.iter_mut() {
        inst.step_post_ik(model, step);
    }
}
