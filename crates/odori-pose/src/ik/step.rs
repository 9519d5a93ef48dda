//! One CCD link step: the turn that brings the link's effector direction toward the goal's,
//! for unlimited links, limited links and single-axis links already on their axis.

use super::limits::{clamp_euler, first_applied_angle, into_range, unit_axis};
use super::plan::SingleAxis;
use super::trig::{self, acos, atan2};
use crate::math::{dot, normalize, then, to_frame};
use crate::model::LinkLimits;
use crate::unfused;
use glam::{Mat3A, Quat, Vec3A};
use std::f32::consts::PI;

/// What one link step sees.
pub(super) struct Step {
    /// Unit directions effector→link and goal→link, world space.
    pub(super) from_effector: Vec3A,
    pub(super) from_goal: Vec3A,
    /// World rotation of the link's parent.
    pub(super) parent: Mat3A,
    /// Largest turn this step may make.
    pub(super) cap: f32,
    /// PMX fixed axis (parent frame).
    pub(super) fixed: Option<Vec3A>,
}

impl Step {
    /// The cross product of the directions, in the parent frame.
    #[inline]
    pub(super) fn parent_cross(&self) -> Vec3A {
        to_frame(
            &self.parent,
            unfused::cross(self.from_effector, self.from_goal),
        )
    }

    /// `angle` limited to the step cap.
    #[inline]
    pub(super) fn capped(&self, angle: f32) -> f32 {
        capped(angle, self.cap)
    }

    /// The angle between the two directions.
    #[inline]
    pub(super) fn angle(&self) -> f32 {
        angle_of(dot(self.from_effector, self.from_goal))
    }

    /// Unlimited link: turn about the cross product (or the fixed axis, scaled by its
    /// alignment with the cross product).
    /// `current`: the link's rotation before the step, its IK result when a solver turned it
    /// this frame, else its animated rotation (without its grant either way).
    #[inline(always)]
    pub(super) fn free(&self, current: Quat) -> Option<Quat> {
        let cross = self.parent_cross();
        if cross.length_squared() < 1e-10 {
            return self.opposite(current);
        }
        let cross = normalize(cross);
        if half_angle_form(self.fixed, self.cap) {
            // The half-angle sine and cosine straight from the cosine d, without acos, sin
            // and cos.
            return Some(half_angle_turn(
                current,
                cross,
                dot(self.from_effector, self.from_goal),
            ));
        }
        let (axis, align) = match self.fixed {
            Some(f) => (f, (f.y * cross.y + f.x * cross.x) + f.z * cross.z),
            None => (cross, 1.0),
        };
        let mut half = (self.angle() * 0.5) * align;
        if self.cap > 0.0 {
            half = half.clamp(-self.cap * 0.5, self.cap * 0.5);
        }
        let (s, c) = trig::lib_sin_cos(half);
        let turn = Quat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, c);
        Some(then(current, turn))
    }

    /// Unlimited link whose effector lies straight behind the goal: turn about any
    /// perpendicular axis (the fixed axis when there is one), in the link's own frame.
    fn opposite(&self, current: Quat) -> Option<Quat> {
        const TINY: f32 = 1e-3 * PI / 180.0;
        let to_local = current.inverse();
        // Directions from the link, in its frame.
        let e = unfused::rotate(to_local, to_frame(&self.parent, -self.from_effector)).normalize();
        let g = unfused::rotate(to_local, to_frame(&self.parent, -self.from_goal)).normalize();
        let dot = e.dot(g).clamp(-1.0, 1.0);
        let cross = unfused::cross(e, g);
        let (axis, angle) = if let Some(f) = self.fixed {
            let axis = unfused::rotate(to_local, f);
            let angle = if cross.length_squared() == 0.0 && dot < 0.0 {
                signed_angle_about(e, g, axis)
            } else {
                angle_of(dot) * axis.dot(cross.normalize_or_zero())
            };
            (axis, angle)
        } else {
            let angle = angle_of(dot);
            let axis = if cross.length() < 1e-5 {
                if dot > -1.0 + 1e-5 {
                    return None;
                }
                let side = if e.x.abs() < 0.9 { Vec3A::X } else { Vec3A::Y };
                unfused::cross(e, side).normalize()
            } else {
                cross.normalize()
            };
            (axis, angle)
        };
        if angle.abs() < TINY {
            return None;
        }
        let turn = axis_angle_turn(axis, self.capped(angle));
        Some(unfused::quat_mul(current, turn).normalize())
    }

    /// The turn a limited link's step makes (parent frame), before limits. `single`: the
    /// axis of a link limited on one axis alone.
    #[inline]
    fn limited_turn(&self, single: Option<usize>, reflect: bool) -> Option<Quat> {
        let (axis, angle) = self.limited_axis(single, reflect)?;
        Some(axis_angle_turn(axis, angle))
    }

    /// [`Step::limited_turn`] as its unit axis and capped angle.
    #[inline]
    fn limited_axis(&self, single: Option<usize>, reflect: bool) -> Option<(Vec3A, f32)> {
        let cross = self.parent_cross();
        let unit_cross = || {
            if cross.length_squared() > 0.0 {
                normalize(cross)
            } else {
                cross
            }
        };
        let mut angle = self.angle();
        let axis = match (single, self.fixed) {
            (Some(i), _) if reflect => {
                let a = unit_axis(i);
                if cross.dot(a) < 0.0 { -a } else { a }
            }
            (_, Some(f)) => {
                angle *= f.dot(unit_cross());
                f
            }
            _ => unit_cross(),
        };
        if axis.length_squared() <= f32::EPSILON {
            return None;
        }
        Some((axis, self.capped(angle)))
    }

    /// Limited link (see the module doc) turned from `current`: the rotation, its matrix and,
    /// for a link limited on axis `single` alone, its angle about that axis.
    pub(super) fn limited(
        &self,
        current: Quat,
        l: &LinkLimits,
        single: Option<usize>,
        reflect: bool,
    ) -> Option<(Quat, Mat3A, f32)> {
        let turn = self.limited_turn(single, reflect)?;
        let (q, m, e) = clamp_euler(then(current, turn), l, reflect);
        Some((q, m, single.map_or(0.0, |i| e[i])))
    }

    /// A link limited on one axis alone (`single`) that an earlier step of this solve left at
    /// angle `e0` about that axis (its other Euler angles clamped to zero), turned without
    /// composing and decomposing rotations. It applies in the first half, and in the second
    /// half when the axis is the one its Euler order applies first (a knee limited beyond
    /// ±90° on X, decomposed as Z·Y·X: `SingleAxis::first_applied`):
    /// - first half: the turn is about ±axis i, so the decomposition of the product would
    ///   return e0 ± the capped angle;
    /// - second half: axis i is applied first in the Euler order, so turn × R_i(e0) has the
    ///   turn's own Euler angle about i plus e0 (and the turn's other two angles, which the
    ///   limits clamp to zero).
    ///
    /// The sum is wrapped into atan2's range and brought into the limits as
    /// `clamp_euler` does; the caller rebuilds the matrix from it (`limits::axis_matrix`).
    /// Returns `None` when the step makes no turn.
    #[inline(always)]
    pub(super) fn on_axis(
        &self,
        l: &LinkLimits,
        single: &SingleAxis,
        e0: f32,
        reflect: bool,
    ) -> Option<f32> {
        let i = single.axis;
        let delta = if reflect {
            let along = dot(
                self.parent.col(i),
                unfused::cross(self.from_effector, self.from_goal),
            );
            reflected_turn(self.angle(), self.cap, along)
        } else {
            let (axis, angle) = self.limited_axis(Some(i), false)?;
            first_applied_turn(axis, angle, single.order)
        };
        Some(settle(l, i, e0, delta, reflect))
    }
}

/// The first-half turn of a link on its single axis (`Step::on_axis`): the capped `angle`,
/// signed by `along`, the cross product's component along the axis in the parent frame.
#[inline]
pub(super) fn reflected_turn(angle: f32, cap: f32, along: f32) -> f32 {
    let turn = capped(angle, cap);
    if along < 0.0 { -turn } else { turn }
}

/// The angle about the axis Euler order `order` applies first of the turn about unit `axis`
/// by `angle` (the second-half form of [`Step::on_axis`]).
#[inline]
pub(super) fn first_applied_turn(axis: Vec3A, angle: f32, order: usize) -> f32 {
    first_applied_of(axis_angle_turn(axis, angle), order)
}

/// The turn about unit `axis` by `angle`, as glam's `Quat::from_axis_angle` (and MMD) build
/// it, with [`trig::lib_sin_cos`] of the half angle.
#[inline]
pub(super) fn axis_angle_turn(axis: Vec3A, angle: f32) -> Quat {
    let (s, c) = trig::lib_sin_cos(angle * 0.5);
    Quat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, c)
}

/// The angle about the axis Euler order `order` applies first of rotation `turn`.
#[inline]
pub(super) fn first_applied_of(turn: Quat, order: usize) -> f32 {
    let (y, x) = first_applied_angle(&crate::math::rotation_matrix(turn), order);
    atan2(y, x)
}

/// Whether an unlimited link turns by [`half_angle_turn`]: no fixed axis, and no cap that can
/// bind (half the angle is at most π/2).
#[inline]
pub(super) fn half_angle_form(fixed: Option<Vec3A>, cap: f32) -> bool {
    fixed.is_none() && (cap <= 0.0 || cap >= PI)
}

/// `current` turned about unit `axis` by the angle whose cosine is `d`, from the half-angle
/// sine and cosine taken straight from `d` (no cap can bind: see [`Step::free`]).
#[inline]
pub(super) fn half_angle_turn(current: Quat, axis: Vec3A, d: f32) -> Quat {
    let d = d.clamp(-1.0, 1.0);
    let (s, c) = (((1.0 - d) * 0.5).sqrt(), ((1.0 + d) * 0.5).sqrt());
    then(
        current,
        Quat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, c),
    )
}

/// `angle` limited to the step cap `cap` (a unit angle of 0 means no cap).
#[inline]
pub(super) fn capped(angle: f32, cap: f32) -> f32 {
    if cap > 0.0 {
        angle.clamp(-cap, cap)
    } else {
        angle
    }
}

/// The angle whose cosine is `d` (the dot product of two unit directions).
#[inline]
pub(super) fn angle_of(d: f32) -> f32 {
    acos(d.clamp(-1.0, 1.0))
}

/// The angle a link on its single axis `i` turns to from `e0` by `delta`: wrapped into
/// atan2's range and brought into the limits as `clamp_euler` does.
#[inline]
pub(super) fn settle(l: &LinkLimits, i: usize, e0: f32, delta: f32, reflect: bool) -> f32 {
    let mut e = e0 + delta;
    if e > PI {
        e -= 2.0 * PI;
    } else if e < -PI {
        e += 2.0 * PI;
    }
    into_range(e, l.min[i], l.max[i], reflect)
}

/// Signed angle from `e` to `g` about unit `axis`, both projected on the plane normal to it
/// (0 when either projection vanishes).
pub(super) fn signed_angle_about(e: Vec3A, g: Vec3A, axis: Vec3A) -> f32 {
    let pe = e - axis * e.dot(axis);
    let pg = g - axis * g.dot(axis);
    if pe.length_squared() <= f32::EPSILON || pg.length_squared() <= f32::EPSILON {
        return 0.0;
    }
    let (pe, pg) = (pe.normalize(), pg.normalize());
    let angle = angle_of(pe.dot(pg));
    if axis.dot(unfused::cross(pe, pg)) < 0.0 {
        -angle
    } else {
        angle
    }
}
