//! CCD inverse kinematics as MikuMikuDance 9.32 runs it (`mmd-semantics.md` §4).
//!
//! Every rule below reproduces the MMD captures in `shared/docs/mmd-ik-captures.json` (case
//! names in brackets; all 48 pass); the Rust crate mmd-anim 0.5.3, whose author took those
//! captures, follows the same rules, and its source was read to find them.
//!
//! Solve loop:
//! - the iteration budget is max(authored, min(⌊4π / unit⌋, 360)), at least 1
//!   [`budget-*`, `limited-n1`..`n32`];
//! - link i (0 = next to the effector) turns at most unit × (i + 1) per step [`budget-*`];
//! - stop before and after each iteration when the effector is within 1e-4 of the goal, and
//!   stop the whole solve when, seen from the link about to turn, the effector and the goal lie
//!   in the same direction (a collinear goal in front: no step at all) [`limits-*-aligned`];
//!   PMD models skip only that link's step (`IkRules`);
//! - no rollback to a best state: the last state stands [`rollback-n*`];
//! - a solver starts from its effector's position as the effector's own world pass left it:
//!   stale when an earlier solver moved the effector's parents, refreshed when the effector's
//!   layer comes after that solver's [`layered-*-layer0`, `-layer1`, `-layer2`]; when the
//!   effector's layer comes after its own solver's, from the end of the previous evaluation
//!   (`Model::late_effectors`; mmd-anim's reading, no capture). PMD models start from the
//!   effector's current position (`IkRules`).
//!
//! One step turns the link by a rotation about an axis in its *parent's* frame (composed on the
//! left of the link's rotation), measured from the world directions link→effector and
//! link→goal:
//! - no limits: about their cross product by their angle, capped; a PMX fixed axis replaces the
//!   axis and scales the angle by cos(fixed axis, cross product), so a link whose fixed axis
//!   is nearly along the chain barely turns [`fixedaxis-unlimited-base-*`, `budget-*-tilted`];
//! - limits: the same candidate, except that during the first ⌊budget / 2⌋ iterations a link
//!   limited on one axis only (the others exactly 0) turns about ±that axis by the full angle,
//!   even when it has a fixed axis; otherwise a fixed axis scales the angle as above. The
//!   candidate is decomposed into Euler angles in the order YXZ, ZYX or XZY (the first whose
//!   middle axis is limited inside ±90°), the middle angle capped at ±88°, and each angle is
//!   brought back into [min, max]: during the first half by reflecting it off the bound it
//!   crossed when that lands inside, otherwise by clamping [`limited-*`, `rollback-*`,
//!   `limits-*`, `parity-fixedlimits-*`, `local-axes-*`]. PMX local axes play no part
//!   [`local-axes-*-rotated`].
//!
//! State around a solve:
//! - while its solver runs, the effector's rotation grant (付与) is dropped (its world matrix,
//!   read by the first step, keeps it). An effector whose grant copies an IK link (or lies
//!   below such a bone) gets it back once the solvers of its own step are done
//!   (`Model::post_ik`): after CCD only when it shares its solver's layer or comes later;
//!   otherwise the grant stays off for the frame [`layered-append-*`];
//! - an IK link that is, or lies below, a bone whose grant copies an IK link keeps its IK
//!   rotation from one evaluation to the next: its first step starts from that rotation
//!   instead of the animated one (measured from the reset pose) [`append-dependent-*`]. The
//!   capture has no animation on the link; we carry IK × animated⁻¹.
//!
//! Numerics: f32 in MMD's (D3DX's) operation order, as mmd-anim reproduces it: per-lane
//! normalisation, dot and cross sums in a fixed order, D3DX's quaternion product and
//! matrix↔quaternion formulas, atan2 and the Euler rebuild's sine and cosine in f64, the rebuilt
//! matrix used for the link's world matrix while its solver runs, and FK through skinning
//! matrices (`fk`). The last steps of a long solve turn by angles near f32 resolution, so this
//! rounding decides results at 1e-4 [`local-axes-multi-*`, `layered-*`]; an f32 sine and
//! cosine in the rebuild already fail `local-axes-multi-*` by 3e-4.
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
//! Module layout: `d3dx` (MMD's f32 arithmetic), `limits` (Euler limits), `step` (one link
//! step), this module (the solve loop and chain refreshes).

mod d3dx;
mod limits;
mod step;

pub(crate) use d3dx::then;
pub use limits::clamp_to_limits;

use crate::fk;
use crate::instance::Instance;
use crate::model::{IkSolver, Model, NONE};
use d3dx::{matrix_quat, normalize};
use glam::{Affine3A, Mat3A, Quat, Vec3A};
use limits::single_axis;
use std::f32::consts::PI;
use step::Step;

/// Stop when the effector is this close to the goal.
pub const TOLERANCE: f32 = 1e-4;

/// Stop the solve when |dir(link→effector) − dir(link→goal)|² falls below this.
const DIRECTION_STOP: f32 = 1e-7;

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

/// Link `b`'s IK rotation; computed here from the matrix its last step built when that step
/// left it pending.
#[inline]
fn ik_rotation(inst: &mut Instance, b: usize) -> Quat {
    if inst.ik_rotation_pending[b] {
        inst.ik_rotation[b] = matrix_quat(&inst.ik_matrix[b]);
        inst.ik_rotation_pending[b] = false;
    }
    inst.ik_rotation[b]
}

/// World rotation of `b`'s parent (identity for a root).
fn parent_rotation(model: &Model, inst: &Instance, b: usize) -> Mat3A {
    match model.parent[b] {
        NONE => Mat3A::IDENTITY,
        p => inst.skinning[p as usize].matrix3,
    }
}

/// Solve solver `si` on `inst` and refresh every bone that depends on its links.
pub fn solve(model: &Model, inst: &mut Instance, si: usize) {
    let s = &model.solvers[si];
    let goal = inst.world_position[s.bone as usize];
    let target = s.target as usize;
    // The effector loses its rotation grant while its IK runs (its world matrix, read by the
    // first step, keeps it).
    let drop_grant = model.append[target].is_some_and(|r| r.rotate);
    if drop_grant {
        inst.grant_dropped[target] = true;
        inst.append_rotation[target] = Quat::IDENTITY;
    }
    // Chain bones without a grant: their transform relative to rest (a link's is replaced
    // on its steps, see `relink`); bones with a grant are recomputed in full (`refresh_chain`).
    // No grants along the chain (`plain`): IK rotations may stay pending during the solve.
    let mut plain = true;
    for (k, &b) in s.chain.iter().enumerate() {
        if model.append[b as usize].is_none() {
            relink(model, inst, b as usize, k);
        } else {
            plain = false;
        }
    }
    // A plain chain that is a parent path ending at the effector is refreshed with each
    // bone's matrices passed on in registers (`refresh_path`).
    let path = plain
        && s.chain.last() == Some(&s.target)
        && s.chain
            .windows(2)
            .all(|w| model.parent[w[1] as usize] == w[0]);
    let mut effector = if model.ik_rules.stale_effector {
        inst.effector_pass[model.effector_slot[target] as usize]
    } else {
        inst.world_position[target]
    };
    let iterations = s.iterations as usize;
    let mut moved = false;
    // The check closing one iteration is the next one's opening check (same effector).
    if within_tolerance(effector, goal) {
        return finish(model, inst, s, false, drop_grant);
    }
    'solve: for iteration in 0..iterations {
        for (i, link) in s.links.iter().enumerate() {
            let lb = link.bone as usize;
            if lb == target {
                continue;
            }
            // The rotation matrix this step gives the link (what `relink` would read back).
            let mut turned: Option<Mat3A> = None;
            let position = inst.world_position[lb];
            let (to_effector, to_goal) = (position - effector, position - goal);
            if to_effector.length_squared() <= f32::EPSILON
                || to_goal.length_squared() <= f32::EPSILON
            {
                continue;
            }
            let (from_effector, from_goal) = (normalize(to_effector), normalize(to_goal));
            if (from_effector - from_goal).length_squared() < DIRECTION_STOP {
                if model.ik_rules.stop_when_aligned {
                    break 'solve;
                }
                continue;
            }
            let reflect = iteration < iterations / 2;
            let cap = s.unit_angle * (i as f32 + 1.0);
            let step = Step {
                from_effector,
                from_goal,
                parent: parent_rotation(model, inst, lb),
                cap,
                fixed: model.fixed_axis[lb],
            };
            let single = link
                .limits
                .as_ref()
                .and_then(|l| Some((l, single_axis(l)?)));
            match single {
                Some((l, axis))
                    if inst.ik_matrix_set[lb] && Step::on_axis_applies(l, axis, reflect) =>
                {
                    let Some((m, e)) = step.on_axis(l, axis, inst.ik_angle[lb], reflect) else {
                        continue;
                    };
                    inst.ik_matrix[lb] = m;
                    inst.ik_angle[lb] = e;
                    turned = Some(m);
                    // Only a later step that starts from it, a grant (none in a plain chain),
                    // IK history and the end of the solve read the quaternion.
                    if plain && !model.ik_retained[lb] {
                        inst.ik_rotation_pending[lb] = true;
                    } else {
                        inst.ik_rotation[lb] = matrix_quat(&m);
                        if model.ik_retained[lb] {
                            inst.ik_history[lb] =
                                inst.ik_rotation[lb] * inst.pose_rotation[lb].conjugate();
                        }
                    }
                }
                _ => {
                    let retained = iteration == 0 && model.ik_retained[lb];
                    let pose = inst.pose_rotation[lb];
                    let current = if retained {
                        inst.ik_history[lb] * pose
                    } else if inst.ik_solved[lb] {
                        ik_rotation(inst, lb)
                    } else {
                        pose
                    };
                    let next = match &link.limits {
                        Some(l) => step.limited(current, l, reflect).map(|(q, m, e)| {
                            inst.ik_matrix[lb] = m;
                            inst.ik_matrix_set[lb] = true;
                            inst.ik_angle[lb] = e;
                            turned = Some(m);
                            q
                        }),
                        None => step.free(current),
                    };
                    let q = match next {
                        Some(q) => q,
                        None if retained => current,
                        None => continue,
                    };
                    if turned.is_none() && !inst.ik_matrix_set[lb] {
                        turned = Some(fk::rotation_matrix(q));
                    }
                    inst.ik_rotation[lb] = q;
                    inst.ik_solved[lb] = true;
                    if model.ik_retained[lb] {
                        inst.ik_history[lb] = q * pose.conjugate();
                    }
                }
            }
            let from = s.chain_from[i] as usize;
            match turned {
                Some(m) if path => {
                    let relative = fk::relative_to_rest(model, lb, m, inst.pose_translation[lb]);
                    inst.chain_relative[from] = relative;
                    effector = refresh_path(model, inst, &s.chain, from, relative);
                }
                _ => {
                    relink(model, inst, lb, from);
                    refresh_chain(model, inst, &s.chain, from);
                    effector = inst.world_position[target];
                }
            }
            moved = true;
        }
        if within_tolerance(effector, goal) {
            break;
        }
    }
    finish(model, inst, s, moved, drop_grant);
}

/// `effector.distance(goal) <= TOLERANCE`, without the square root: correctly rounded
/// square roots are monotonic, so the distance is within tolerance exactly when its square is
/// at most the largest f32 whose root rounds to ≤ TOLERANCE (checked in the tests).
#[inline]
fn within_tolerance(effector: Vec3A, goal: Vec3A) -> bool {
    effector.distance_squared(goal) <= TOLERANCE_SQUARED
}

/// The largest f32 whose square root rounds to at most [`TOLERANCE`].
const TOLERANCE_SQUARED: f32 = f32::from_bits(0x322b_cc77);

/// After a solve: refresh everything depending on the links (their local rotations
/// included) and forget the matrices the steps built.
fn finish(model: &Model, inst: &mut Instance, s: &IkSolver, moved: bool, drop_grant: bool) {
    for link in &s.links {
        ik_rotation(inst, link.bone as usize);
    }
    if moved || drop_grant {
        refresh(model, inst, &s.dependents);
    }
    for link in &s.links {
        inst.ik_matrix_set[link.bone as usize] = false;
    }
}

/// Chain bone `b` (slot `k`) without a grant: cache its transform relative to rest, from the
/// matrix its last IK step built (or its rotation's), as `fk::update_bone_with` would compute
/// it. Called for the whole chain when a solve starts and for a link after its step.
#[inline]
fn relink(model: &Model, inst: &mut Instance, b: usize, k: usize) {
    if model.append[b].is_none() {
        let m = fk::ik_matrix(inst, b)
            .unwrap_or_else(|| fk::rotation_matrix(fk::own_rotation(inst, b)));
        inst.chain_relative[k] = fk::relative_to_rest(model, b, m, inst.pose_translation[b]);
    }
}

/// Recompute the world matrices of chain slots `from..` while solving: bones without a grant
/// from their cached transform relative to rest (same arithmetic as a full update), others
/// in full. Local rotations are written once the solve ends (`dependents`).
#[inline]
fn refresh_chain(model: &Model, inst: &mut Instance, chain: &[u32], from: usize) {
    for (k, &b) in chain.iter().enumerate().skip(from) {
        let b = b as usize;
        if model.append[b].is_none() {
            let relative = inst.chain_relative[k];
            if relative == Affine3A::IDENTITY {
                // At rest relative to its parent (an unanimated effector).
                fk::place_at_rest(model, inst, b);
            } else {
                fk::place(model, inst, b, relative);
            }
        } else {
            fk::update_bone_with(model, inst, b, fk::ik_matrix(inst, b));
        }
    }
}

/// [`refresh_chain`] for a plain chain that is a parent path ending at the effector: slot
/// `from` (the link just turned) from `turned`, its relative to rest, and every slot from the
/// matrices just computed for its parent (kept in registers rather than read back from the
/// instance). Returns the effector's world position.
#[inline]
fn refresh_path(
    model: &Model,
    inst: &mut Instance,
    chain: &[u32],
    from: usize,
    turned: Affine3A,
) -> Vec3A {
    let p = model.parent[chain[from] as usize];
    let mut parent_skin = (p != NONE).then(|| inst.skinning[p as usize]);
    let mut position = Vec3A::ZERO;
    for (k, &b) in chain.iter().enumerate().skip(from) {
        let b = b as usize;
        let (skin, at) = if k == from {
            fk::place_under(model, inst, b, parent_skin, turned)
        } else {
            let relative = inst.chain_relative[k];
            if relative == Affine3A::IDENTITY {
                // At rest relative to its parent (an unanimated effector).
                fk::place_at_rest_under(model, inst, b, parent_skin)
            } else {
                fk::place_under(model, inst, b, parent_skin, relative)
            }
        };
        parent_skin = Some(skin);
        position = at;
    }
    position
}

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
