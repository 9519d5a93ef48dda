//! CCD inverse kinematics as MikuMikuDance runs it (`mmd-semantics.md` §4).
//!
//! Rules that differ from a textbook CCD, each backed by the MMD captures:
//! - the per-step angle cap grows with the link: unit × (link index + 1);
//! - the iteration budget is raised to min(⌊4π / unit⌋, 360) when the file asks for fewer;
//! - single-axis (knee) links project the rotation axis onto their axis, reflecting an
//!   out-of-range angle, during the first half of the iterations; later iterations use the
//!   full axis and clamp through an Euler decomposition whose order keeps the middle angle on
//!   an axis limited inside ±90° (clamped to ±88° against gimbal lock);
//! - no rollback to a best state; stop when the effector is within 1e-4 of the goal;
//! - a solver starts from its effector's position as its own world pass left it (stale when
//!   an earlier solver of the same layer moved the effector's parents);
//! - fixed-axis links turn only about their axis.
//!
//! f32 throughout, as MMD: the captures are reproduced in f32.

use crate::fk;
use crate::instance::Instance;
use crate::model::{LinkLimits, Model};
use glam::{EulerRot, Quat, Vec3A};
use std::f32::consts::{FRAC_PI_2, PI};

/// Stop when the effector is this close to the goal.
pub const TOLERANCE: f32 = 1e-4;

/// Middle Euler angle bound, away from gimbal lock.
const MIDDLE_LIMIT: f32 = 88.0 * PI / 180.0;

/// The iteration count MMD runs for an authored count and unit angle:
/// max(authored, min(⌊4π / unit⌋, 360)).
pub fn iteration_budget(authored: u32, unit: f32) -> u32 {
    if unit.is_nan() || unit <= 0.0 {
        return authored;
    }
    let raised = (4.0 * PI / unit).floor().min(360.0) as u32;
    authored.max(raised)
}

/// Which single axis a link is limited on, if only one.
fn single_axis(l: &LinkLimits) -> Option<usize> {
    let used = |i: usize| l.min[i] != 0.0 || l.max[i] != 0.0;
    match (used(0), used(1), used(2)) {
        (true, false, false) => Some(0),
        (false, true, false) => Some(1),
        (false, false, true) => Some(2),
        _ => None,
    }
}

fn unit_axis(i: usize) -> Vec3A {
    [Vec3A::X, Vec3A::Y, Vec3A::Z][i]
}

/// Clamp a local rotation to Euler limits, decomposed in the order whose middle axis is
/// limited inside ±90°.
pub fn clamp_to_limits(q: Quat, l: &LinkLimits) -> Quat {
    let inside = |i: usize| l.min[i] > -FRAC_PI_2 && l.max[i] < FRAC_PI_2;
    // (order, axis index of the first, middle and last angle)
    let (order, axes) = if inside(0) {
        (EulerRot::YXZ, [1, 0, 2])
    } else if inside(1) {
        (EulerRot::ZYX, [2, 1, 0])
    } else {
        (EulerRot::XZY, [0, 2, 1])
    };
    let (a, b, c) = q.to_euler(order);
    let mut e = [a, b, c];
    e[1] = e[1].clamp(-MIDDLE_LIMIT, MIDDLE_LIMIT);
    for (k, &axis) in axes.iter().enumerate() {
        e[k] = e[k].clamp(l.min[axis], l.max[axis]);
    }
    Quat::from_euler(order, e[0], e[1], e[2])
}

/// Angle of `q` about unit axis `i` (its twist component).
fn twist_angle(q: Quat, i: usize) -> f32 {
    let v = [q.x, q.y, q.z][i];
    let a = 2.0 * v.atan2(q.w);
    if a > PI {
        a - 2.0 * PI
    } else if a < -PI {
        a + 2.0 * PI
    } else {
        a
    }
}

/// Solve solver `si` on `inst` and refresh every bone that depends on its links.
pub fn solve(model: &Model, inst: &mut Instance, si: usize) {
    let s = &model.solvers[si];
    let goal = inst.world[s.bone as usize].translation;
    let target = s.target as usize;
    // Stale-effector rule: start from the effector's own world pass.
    let mut effector = inst.pass_position[target];
    if effector.distance(goal) < TOLERANCE {
        return;
    }
    let half = s.iterations / 2;
    for iteration in 0..s.iterations {
        for (i, link) in s.links.iter().enumerate() {
            let lb = link.bone as usize;
            if lb == target {
                continue;
            }
            let lw = inst.world[lb];
            let to_local = lw.matrix3.transpose();
            let e = (to_local * (effector - lw.translation)).normalize_or_zero();
            let g = (to_local * (goal - lw.translation)).normalize_or_zero();
            let cap = s.unit_angle * (i as f32 + 1.0);
            let current = inst.local_rotation[lb];
            let base = inst.ik_rotation[lb].inverse() * current; // the non-IK part
            let next = if let Some(axis) = model.fixed_axis[lb] {
                let Some(angle) = signed_angle_about(e, g, axis) else {
                    continue;
                };
                let q = current * Quat::from_axis_angle(axis.into(), angle.clamp(-cap, cap));
                match &link.limits {
                    Some(l) => clamp_to_limits(q, l),
                    None => q,
                }
            } else {
                let cross = e.cross(g);
                if cross.length_squared() < 1e-8 {
                    continue;
                }
                let angle = e.dot(g).clamp(-1.0, 1.0).acos().min(cap);
                let axis = cross.normalize();
                match (&link.limits, link.limits.as_ref().and_then(single_axis)) {
                    (Some(l), Some(ax)) if iteration < half => {
                        // Knee: rotate about ±its axis; reflect an out-of-range angle.
                        let sign = if axis[ax] >= 0.0 { 1.0 } else { -1.0 };
                        let mut theta = twist_angle(current, ax) + sign * angle;
                        if theta < l.min[ax] || theta > l.max[ax] {
                            if -theta >= l.min[ax] && -theta <= l.max[ax] {
                                theta = -theta;
                            } else {
                                theta = theta.clamp(l.min[ax], l.max[ax]);
                            }
                        }
                        Quat::from_axis_angle(unit_axis(ax).into(), theta)
                    }
                    (Some(l), _) => {
                        clamp_to_limits(current * Quat::from_axis_angle(axis.into(), angle), l)
                    }
                    (None, _) => current * Quat::from_axis_angle(axis.into(), angle),
                }
            };
            inst.ik_rotation[lb] = (next * base.inverse()).normalize();
            for &b in &s.chain {
                fk::update_bone(model, inst, b as usize);
            }
            effector = inst.world[target].translation;
        }
        if effector.distance(goal) < TOLERANCE {
            break;
        }
    }
    for &b in &s.dependents {
        fk::update_bone(model, inst, b as usize);
    }
}

/// Signed angle from `e` to `g` about unit `axis`, both projected on the plane normal to it.
fn signed_angle_about(e: Vec3A, g: Vec3A, axis: Vec3A) -> Option<f32> {
    let pe = e - axis * e.dot(axis);
    let pg = g - axis * g.dot(axis);
    if pe.length_squared() < 1e-8 || pg.length_squared() < 1e-8 {
        return None;
    }
    let (pe, pg) = (pe.normalize(), pg.normalize());
    let angle = pe.dot(pg).clamp(-1.0, 1.0).acos();
    Some(if axis.dot(pe.cross(pg)) < 0.0 {
        -angle
    } else {
        angle
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_matches_captures() {
        assert_eq!(iteration_budget(1, 1e-5), 360);
        assert_eq!(iteration_budget(359, 1e-5), 360);
        assert_eq!(iteration_budget(361, 1e-5), 361);
        assert_eq!(iteration_budget(1, 0.5), 25);
        assert_eq!(iteration_budget(26, 0.5), 26);
    }

    #[test]
    fn clamp_keeps_inside_and_clamps_outside() {
        let l = LinkLimits {
            min: Vec3A::new(-1.0, 0.0, 0.0),
            max: Vec3A::new(-0.1, 0.0, 0.0),
        };
        let q = Quat::from_rotation_x(-0.5);
        assert!(clamp_to_limits(q, &l).angle_between(q) < 1e-5);
        let r = clamp_to_limits(Quat::from_rotation_x(0.5), &l);
        assert!(r.angle_between(Quat::from_rotation_x(-0.1)) < 1e-5);
    }
}
