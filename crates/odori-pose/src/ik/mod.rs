//! CCD inverse kinematics as MikuMikuDance 9.32 runs it (`mmd-semantics.md` §4).
//!
//! Every rule below reproduces the MMD captures in `shared/docs/mmd-ik-captures.json` (case
//! names in brackets; all 48 pass); the Rust crate mmd-anim 0.5.3, whose author took those
//! captures, follows the same rules, and its source was read to find them.
//!
//! Solve loop:
//! - the iteration budget is max(authored, min(⌊4π / unit⌋, 360)), at least 1
//!   [`budget-*`, `limited-n1`..`n32`];
//! - link i (0 = next to the effector) turns at most unit × (i + 1) per step \[`budget-*`\];
//! - stop before and after each iteration when the effector is within 1e-4 of the goal, and
//!   stop the whole solve when, seen from the link about to turn, the effector and the goal lie
//!   in the same direction (a collinear goal in front: no step at all) \[`limits-*-aligned`\];
//!   PMD models skip only that link's step (`IkRules`);
//! - no rollback to a best state: the last state stands \[`rollback-n*`\];
//! - a solver starts from its effector's position as the effector's own world pass left it:
//!   stale when an earlier solver moved the effector's parents, refreshed when the effector's
//!   layer comes after that solver's \[`layered-*-layer0`, `-layer1`, `-layer2`\]; when the
//!   effector's layer comes after its own solver's, from the end of the previous evaluation
//!   (`Model::late_effectors`; mmd-anim's reading, no capture). PMD models start from the
//!   effector's current position (`IkRules`).
//!
//! One step turns the link by a rotation about an axis in its *parent's* frame (composed on the
//! left of the link's rotation), measured from the world directions link→effector and
//! link→goal:
//! - no limits: about their cross product by their angle, capped; a PMX fixed axis replaces the
//!   axis and scales the angle by cos(fixed axis, cross product), so a link whose fixed axis
//!   is nearly along the chain barely turns \[`fixedaxis-unlimited-base-*`, `budget-*-tilted`\];
//! - limits: the same candidate, except that during the first ⌊budget / 2⌋ iterations a link
//!   limited on one axis only (the others exactly 0) turns about ±that axis by the full angle,
//!   even when it has a fixed axis; otherwise a fixed axis scales the angle as above. The
//!   candidate is decomposed into Euler angles in the order YXZ, ZYX or XZY (the first whose
//!   middle axis is limited inside ±90°), the middle angle capped at ±88°, and each angle is
//!   brought back into [min, max]: during the first half by reflecting it off the bound it
//!   crossed when that lands inside, otherwise by clamping [`limited-*`, `rollback-*`,
//!   `limits-*`, `parity-fixedlimits-*`, `local-axes-*`]. PMX local axes play no part
//!   \[`local-axes-*-rotated`\].
//!
//! State around a solve:
//! - while its solver runs, the effector's rotation grant (付与) is dropped (its world matrix,
//!   read by the first step, keeps it). An effector whose grant copies an IK link (or lies
//!   below such a bone) gets it back once the solvers of its own step are done
//!   (`Model::post_ik`): after CCD only when it shares its solver's layer or comes later;
//!   otherwise the grant stays off for the frame \[`layered-append-*`\];
//! - an IK link that is, or lies below, a bone whose grant copies an IK link keeps its IK
//!   rotation from one evaluation to the next: its first step starts from that rotation
//!   instead of the animated one (measured from the reset pose) \[`append-dependent-*`\]. The
//!   capture has no animation on the link; we carry IK × animated⁻¹.
//!
//! Numerics: f32 in MMD's (D3DX's) operation order, as mmd-anim reproduces it: per-lane
//! normalisation, dot and cross sums in a fixed order, D3DX's quaternion product and
//! matrix↔quaternion formulas, atan2 and the Euler rebuild's sine and cosine in f64, the rebuilt
//! matrix used for the link's world matrix while its solver runs, and FK through skinning
//! matrices (`fk`); the arc-cosine of a step is fdlibm's f32 routine, inline (`trig::acos`,
//! glibc's `acosf` bit for bit). The last steps of a long solve turn by angles near f32
//! resolution, so this rounding decides results at 1e-4 \[`local-axes-multi-*`, `layered-*`\];
//! an f32 sine and cosine in the rebuild already fail `local-axes-multi-*` by 3e-4.
//!
//! Two cheaper forms of the same mathematics replace MMD's operations where no capture
//! depends on their last bit (all 48 still pass with unchanged margins; against mmd-anim the
//! leg chains moved by less than the peers' own spread): an unlimited link without fixed axis
//! whose cap cannot bind (cap ≥ π) turns by the half-angle sine and cosine taken from the
//! directions' cosine, without acos, sin and cos; and a link limited on one axis that an
//! earlier step of the solve left on that axis adds the step's angle to its Euler angle during
//! the first half instead of decomposing the product, and in the second half too when that
//! axis is the one its Euler order applies first (`Step::on_axis`). Knees and thighs of leg
//! IK take these paths on all but their first step of a solve.
//!
//! Module layout (MMD's f32 arithmetic is the crate's `math`): `limits` (Euler limits), `step` (one link
//! step), `plan` (each link's shape, resolved when the model is compiled), `link` (a link's
//! state during a solve and the turn a step gives it), `chain` (the chain's cached transforms
//! and refreshes), `path` (the solve loop for plain parent-path chains, which hold the chain
//! in registers and slots) and this module (the shared start and end of a solve, and the
//! general loop for chains with grants, retained links or bones off the path).

mod chain;
mod limits;
mod link;
pub(crate) mod path;
pub mod plan;
mod step;
mod trig;
#[cfg(target_arch = "x86_64")]
mod trig_wide;

pub(crate) use chain::ChainSlot;
pub(crate) use link::LinkState;
pub use plan::LinkPlan;

use crate::fk;
use crate::instance::Instance;
use crate::math::normalize;
use crate::model::{IkRun, Model};
use crate::unfused;
use glam::{Quat, Vec3A};
use path::PathSolve;
use std::f32::consts::PI;
use step::Step;

/// Stop the solve when |dir(link→effector) − dir(link→goal)|² falls below this.
pub(super) const DIRECTION_STOP: f32 = 1e-7;

/// The iteration count MMD runs for an authored count and unit angle:
/// max(authored, min(⌊4π / unit⌋, 360)), at least 1.
pub fn iteration_budget(authored: u32, unit: f32) -> u32 {
    let raised = if unit.is_finite() && unit > 0.0 {
        (4.0 * PI / unit).min(360.0) as u32
    } else {
        0
    };
    authored.max(raised).max(1)
}

/// What a link at `position` sees of the effector and the goal.
enum Directions {
    /// Unit directions effector→link and goal→link: the link may turn.
    Apart(Vec3A, Vec3A),
    /// The effector or the goal sits on the link: skip it.
    Degenerate,
    /// Effector and goal lie in the same direction (see `IkRules::stop_when_aligned`).
    Aligned,
}

#[inline(always)]
fn directions(position: Vec3A, effector: Vec3A, goal: Vec3A) -> Directions {
    let (to_effector, to_goal) = (position - effector, position - goal);
    if to_effector.length_squared() <= f32::EPSILON || to_goal.length_squared() <= f32::EPSILON {
        return Directions::Degenerate;
    }
    let (from_effector, from_goal) = (normalize(to_effector), normalize(to_goal));
    if (from_effector - from_goal).length_squared() < DIRECTION_STOP {
        return Directions::Aligned;
    }
    Directions::Apart(from_effector, from_goal)
}

/// Solve solver `si` on `inst` and refresh every bone that depends on its links.
pub fn solve(model: &Model, inst: &mut Instance, si: usize) {
    let (goal, effector, drop_grant) = begin(model, inst, si);
    solve_begun(model, inst, si, goal, effector, drop_grant);
}

/// [`solve`] after its [`begin`], which gave `goal`, `effector` and `drop_grant`.
fn solve_begun(
    model: &Model,
    inst: &mut Instance,
    si: usize,
    goal: Vec3A,
    effector: Vec3A,
    drop_grant: bool,
) {
    let moved = if within_tolerance(effector, goal) {
        false
    } else if model.solvers[si].plain_path {
        let (mut slots, mut links) = take_buffers(inst);
        let mut solve = PathSolve::start(model, inst, si, goal, effector, &mut slots, &mut links);
        solve.run();
        let moved = solve.write_back(inst);
        (inst.chain_slots, inst.link_states) = (slots, links);
        moved
    } else {
        solve_general(model, inst, si, goal, effector)
    };
    finish(model, inst, si, moved, drop_grant);
}

/// Solve `a` then `b`, two independent plain-path solvers (a [`crate::model::IkRun`]), with
/// their steps side by side (`path::run_pair`), in lockstep when `lockstep` (the run's
/// solvers have the same shape): the same results as [`solve`] on each in turn.
pub fn solve_pair(model: &Model, inst: &mut Instance, a: usize, b: usize, lockstep: bool) {
    debug_assert!(model.solvers[a].plain_path && model.solvers[b].plain_path);
    // Plain paths carry no grant, so neither effector's grant is dropped.
    let (goal_a, effector_a, _) = begin(model, inst, a);
    let (goal_b, effector_b, _) = begin(model, inst, b);
    if within_tolerance(effector_a, goal_a) {
        finish(model, inst, a, false, false);
        return solve_begun(model, inst, b, goal_b, effector_b, false);
    }
    if within_tolerance(effector_b, goal_b) {
        solve_begun(model, inst, a, goal_a, effector_a, false);
        return finish(model, inst, b, false, false);
    }
    let (mut slots, mut links) = take_buffers(inst);
    let (slots_a, slots_b) = slots.split_at_mut(model.solvers[a].chain.len());
    let (links_a, links_b) = links.split_at_mut(model.solvers[a].links.len());
    let mut solve_a = PathSolve::start(model, inst, a, goal_a, effector_a, slots_a, links_a);
    let mut solve_b = PathSolve::start(model, inst, b, goal_b, effector_b, slots_b, links_b);
    path::run_pair(&mut solve_a, &mut solve_b, lockstep);
    let moved_a = solve_a.write_back(inst);
    finish(model, inst, a, moved_a, false);
    let moved_b = solve_b.write_back(inst);
    finish(model, inst, b, moved_b, false);
    (inst.chain_slots, inst.link_states) = (slots, links);
}

/// Run `run` on every instance of a group whose IK is on (`crate::group`), each solver's
/// solves in all the instances side by side (`path::wide`); false, doing nothing, when the
/// run's solvers or the machine do not allow it. The results are [`solve_pair`]'s (or
/// [`solve`]'s) on each instance.
pub(crate) fn solve_run_grouped(model: &Model, instances: &mut [Instance], run: &IkRun) -> bool {
    // The lanes read a chain's outer parent from the model: an instance that follows an
    // outside parent solves alone, where `fk::parent_skin` gives it.
    if instances.iter().any(|i| !i.outside_parents.is_empty()) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        let solvers = [run.first, run.second];
        let solvers = &solvers[..if run.second == crate::model::NONE {
            1
        } else {
            2
        }];
        if !solvers
            .iter()
            .all(|&si| path::wide::fits(model, si as usize))
            || !std::arch::is_x86_feature_detected!("avx2")
        {
            return false;
        }
        // SAFETY: the machine has AVX2 (checked just above).
        unsafe { solve_grouped(model, instances, run, solvers) };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (model, instances, run);
        false
    }
}

/// [`solve_run_grouped`] once its solvers are known to fit.
///
/// # Safety
/// The machine must support AVX2.
#[cfg(target_arch = "x86_64")]
unsafe fn solve_grouped(model: &Model, instances: &mut [Instance], run: &IkRun, solvers: &[u32]) {
    const N: usize = crate::group::GROUP;
    // Solve `j` of instance `i` sits at 2i + j.
    let mut buffers: [(Vec<ChainSlot>, Vec<LinkState>); N] = Default::default();
    let mut begun = [[None; 2]; N];
    let mut any = false;
    for (i, inst) in instances.iter_mut().enumerate() {
        if !inst.options.ik {
            continue;
        }
        let (a, b) = inst.enabled_solvers(run);
        let enabled = [a.is_some(), b.is_some()];
        for (j, &si) in solvers.iter().enumerate() {
            if !enabled[j] {
                continue;
            }
            let si = si as usize;
            let (goal, effector, drop_grant) = begin(model, inst, si);
            debug_assert!(!drop_grant, "plain paths carry no grant");
            if within_tolerance(effector, goal) {
                finish(model, inst, si, false, false);
            } else {
                begun[i][j] = Some((goal, effector));
                any = true;
            }
        }
        if begun[i].iter().any(Option::is_some) {
            buffers[i] = take_buffers(inst);
        }
    }
    if !any {
        return;
    }
    {
        let mut solves: [Option<PathSolve>; 2 * N] = Default::default();
        let first_chain = model.solvers[solvers[0] as usize].chain.len();
        let first_links = model.solvers[solvers[0] as usize].links.len();
        for (i, (inst, buffer)) in instances.iter().zip(buffers.iter_mut()).enumerate() {
            let (chain_at, links_at) = (
                first_chain.min(buffer.0.len()),
                first_links.min(buffer.1.len()),
            );
            let (slots_a, slots_b) = buffer.0.split_at_mut(chain_at);
            let (links_a, links_b) = buffer.1.split_at_mut(links_at);
            let mut parts = [Some((slots_a, links_a)), Some((slots_b, links_b))].into_iter();
            for (j, &si) in solvers.iter().enumerate() {
                let (slots, links) = parts.next().flatten().unwrap();
                if let Some((goal, effector)) = begun[i][j] {
                    solves[2 * i + j] = Some(PathSolve::start(
                        model,
                        inst,
                        si as usize,
                        goal,
                        effector,
                        slots,
                        links,
                    ));
                }
            }
        }
        let mut lanes = [[0usize; N]; 2];
        let mut counts = [0usize; 2];
        for (i, b) in begun.iter().enumerate() {
            for j in 0..solvers.len() {
                if b[j].is_some() {
                    lanes[j][counts[j]] = 2 * i + j;
                    counts[j] += 1;
                }
            }
        }
        // Each solver's solves in groups of up to eight lanes.
        const MOST: usize = N.div_ceil(path::wide::LANES);
        let chunks = |j: usize| {
            lanes[j][..counts[j]]
                .chunks(path::wide::LANES)
                .map(move |c| (solvers[j] as usize, c))
        };
        // Solvers of the same shape share one loop; others run one after the other.
        let batches: &[&[usize]] = match (solvers.len(), run.lockstep) {
            (2, true) => &[&[0, 1]],
            (2, false) => &[&[0], &[1]],
            _ => &[&[0]],
        };
        for batch in batches {
            let mut groups = [(0, &[][..]); 2 * MOST];
            let mut n = 0;
            for (slot, group) in groups.iter_mut().zip(batch.iter().flat_map(|&j| chunks(j))) {
                *slot = group;
                n += 1;
            }
            // SAFETY: the caller checked for AVX2.
            unsafe { path::wide::run(model, &mut solves, &groups[..n]) };
        }
        for (i, inst) in instances.iter_mut().enumerate() {
            for (j, &si) in solvers.iter().enumerate() {
                if let Some(solve) = solves[2 * i + j].take() {
                    let moved = solve.write_back(inst);
                    finish(model, inst, si as usize, moved, false);
                }
            }
        }
    }
    for (i, inst) in instances.iter_mut().enumerate() {
        if begun[i].iter().any(Option::is_some) {
            (inst.chain_slots, inst.link_states) = std::mem::take(&mut buffers[i]);
        }
    }
}

/// The instance's chain and link buffers, taken out for a solve (they move: no allocation).
fn take_buffers(inst: &mut Instance) -> (Vec<ChainSlot>, Vec<LinkState>) {
    (
        std::mem::take(&mut inst.chain_slots),
        std::mem::take(&mut inst.link_states),
    )
}

/// Start solver `si`: drop its effector's rotation grant (its world matrix, read by the first
/// step, keeps it); returns the goal, the effector's starting position (`IkRules`) and
/// whether the grant was dropped.
fn begin(model: &Model, inst: &mut Instance, si: usize) -> (Vec3A, Vec3A, bool) {
    let s = &model.solvers[si];
    let goal = inst.world_position[s.bone as usize];
    let target = s.target as usize;
    let drop_grant = model.append[target].is_some_and(|r| r.rotate);
    if drop_grant {
        inst.grant_dropped[target] = true;
        inst.append_rotation[target] = Quat::IDENTITY;
    }
    let effector = if model.ik_rules.stale_effector {
        inst.effector_pass[model.effector_slot[target] as usize]
    } else {
        inst.world_position[target]
    };
    (goal, effector, drop_grant)
}

/// End solver `si`: refresh everything depending on its links when they turned (or the
/// effector's grant was dropped), and forget the matrices its steps built (they served FK
/// while it ran).
fn finish(model: &Model, inst: &mut Instance, si: usize, moved: bool, drop_grant: bool) {
    let s = &model.solvers[si];
    if moved || drop_grant {
        refresh(model, inst, &s.dependents);
    }
    for link in &s.links {
        inst.ik_matrix_set[link.bone as usize] = false;
    }
}

/// The solve loop for any chain: link state lives in the instance's per-bone arrays, kept
/// current after every step (grants along the chain read IK rotations), and the chain is
/// refreshed bone by bone in the instance. Returns whether a link turned.
fn solve_general(
    model: &Model,
    inst: &mut Instance,
    si: usize,
    goal: Vec3A,
    mut effector: Vec3A,
) -> bool {
    let s = &model.solvers[si];
    let target = s.target as usize;
    let mut slots = std::mem::take(&mut inst.chain_slots);
    let slots_used = &mut slots[..s.chain.len()];
    for (slot, &b) in slots_used.iter_mut().zip(&s.chain) {
        *slot = ChainSlot::load(model, inst, b as usize);
    }
    let iterations = s.iterations as usize;
    let mut moved = false;
    'solve: for iteration in 0..iterations {
        let reflect = iteration < iterations / 2;
        for plan in &s.plans {
            if plan.is_effector {
                continue;
            }
            let lb = plan.bone as usize;
            let (from_effector, from_goal) =
                match directions(inst.world_position[lb], effector, goal) {
                    Directions::Apart(e, g) => (e, g),
                    Directions::Degenerate => continue,
                    Directions::Aligned if model.ik_rules.stop_when_aligned => break 'solve,
                    Directions::Aligned => continue,
                };
            let step = Step {
                from_effector,
                from_goal,
                parent: fk::parent_rotation(model, inst, lb),
                cap: plan.cap,
                fixed: plan.fixed,
            };
            let mut link = LinkState::load(inst, lb);
            // A retained link starts its first step from its carried IK rotation, and takes
            // it even when the step makes no turn.
            let retained_now = iteration == 0 && plan.retained;
            let pose = inst.pose_rotation[lb];
            if retained_now {
                link.set_rotation(unfused::quat_mul(inst.ik_history[lb], pose));
            }
            if link.turn(plan, &step, reflect).is_none() {
                if !retained_now {
                    continue;
                }
                link.solved = true;
            }
            let q = link.store(inst, lb);
            if plan.retained {
                inst.ik_history[lb] = unfused::quat_mul(q, pose.conjugate());
            }
            let from = plan.slot as usize;
            if model.append[lb].is_none() {
                slots_used[from] = ChainSlot::load(model, inst, lb);
            }
            chain::refresh_bones(model, inst, slots_used, &s.chain, from);
            effector = inst.world_position[target];
            moved = true;
        }
        if within_tolerance(effector, goal) {
            break;
        }
    }
    inst.chain_slots = slots;
    moved
}

/// `effector.distance(goal) <= 1e-4`, without the square root: correctly rounded
/// square roots are monotonic, so the distance is within tolerance exactly when its square is
/// at most the largest f32 whose root rounds to ≤ 1e-4 (checked in the tests).
#[inline]
fn within_tolerance(effector: Vec3A, goal: Vec3A) -> bool {
    effector.distance_squared(goal) <= TOLERANCE_SQUARED
}

/// Stop when the effector is this close to the goal, 1e-4, squared: the largest f32 whose
/// square root rounds to at most 1e-4.
const TOLERANCE_SQUARED: f32 = f32::from_bits(0x322b_cc77);

/// Recompute `bones`, links with the rotation matrix their last IK step built.
fn refresh(model: &Model, inst: &mut Instance, bones: &[u32]) {
    for &b in bones {
        let b = b as usize;
        fk::update_bone_with(model, inst, b, fk::ik_matrix(inst, b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stop when the effector is this close to the goal.
    const TOLERANCE: f32 = 1e-4;

    #[test]
    fn tolerance_squared_is_the_exact_threshold() {
        let t = TOLERANCE_SQUARED;
        assert!(t.sqrt() <= TOLERANCE);
        assert!(f32::from_bits(t.to_bits() + 1).sqrt() > TOLERANCE);
    }

    #[test]
    fn budget_matches_captures() {
        assert_eq!(iteration_budget(1, 1e-5), 360);
        assert_eq!(iteration_budget(359, 1e-5), 360);
        assert_eq!(iteration_budget(361, 1e-5), 361);
        assert_eq!(iteration_budget(1, 0.5), 25);
        assert_eq!(iteration_budget(26, 0.5), 26);
        assert_eq!(iteration_budget(0, 0.0), 1);
    }
}
