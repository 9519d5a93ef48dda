//! Euler limits of an IK link: the candidate rotation decomposed in a limit-chosen order,
//! each angle brought into its range (reflected off the crossed bound during the first half
//! of the iterations), and the rotation rebuilt (see the rules in the `ik` module doc).

use super::trig::atan2;
use crate::math::matrix_quat;
use crate::model::LinkLimits;
use glam::{Mat3A, Quat, Vec3A};
use std::f32::consts::PI;

/// MMD's threshold for "limited inside ±90°" (a few ulps under π/2).
pub(super) const HALF_PI: f32 = f32::from_bits(0x3fc9_0fd8);

/// MMD's cap on the middle Euler angle: 88°, away from gimbal lock [`limits-*-wide895`].
pub(super) const MIDDLE_CAP: f32 = f32::from_bits(0x3fc4_9803);

/// The axis a link is limited on when its limits leave the other two at exactly zero.
pub(super) fn single_axis(l: &LinkLimits) -> Option<usize> {
    let used = |i: usize| l.min[i] != 0.0 || l.max[i] != 0.0;
    match (used(0), used(1), used(2)) {
        (true, false, false) => Some(0),
        (false, true, false) => Some(1),
        (false, false, true) => Some(2),
        _ => None,
    }
}

pub(super) fn unit_axis(i: usize) -> Vec3A {
    [Vec3A::X, Vec3A::Y, Vec3A::Z][i]
}

/// An outer Euler angle, atan2(`y`, `x`), on axis `i` of limits `l`. On an axis locked at
/// zero the clamp that follows keeps only the angle's sign and whether it is zero, so those
/// are returned without evaluating atan2 (same result, cheaper: knees lock two axes).
#[inline]
pub(super) fn outer_angle(l: &LinkLimits, i: usize, y: f32, x: f32) -> f32 {
    if l.min[i] != 0.0 || l.max[i] != 0.0 {
        return atan2(y, x);
    }
    // atan2 has the sign of y; it is ±0 when y is ±0 and x is positive or +0, else ±π.
    if y != 0.0 || x > 0.0 || (x == 0.0 && x.is_sign_positive()) {
        y
    } else if y.is_sign_negative() {
        -PI
    } else {
        PI
    }
}

/// The Euler order a link's limits choose: 0 = Y·X·Z, 1 = Z·Y·X, 2 = X·Z·Y (the first whose
/// middle axis is limited inside ±90°).
pub(super) fn euler_order(l: &LinkLimits) -> usize {
    let inside = |i: usize| l.min[i] > -HALF_PI && l.max[i] < HALF_PI;
    if inside(0) {
        0
    } else if inside(1) {
        1
    } else {
        2
    }
}

/// The axis an Euler order applies first (its rightmost factor): Z, X, Y.
pub(super) fn first_applied_axis(order: usize) -> usize {
    [2, 0, 1][order]
}

/// The atan2 arguments (y, x) of the first-applied Euler angle of `m` in Euler order `order`
/// (`clamp_euler` divides both by the middle angle's cosine, which leaves the angle
/// unchanged).
pub(super) fn first_applied_angle(m: &Mat3A, order: usize) -> (f32, f32) {
    match order {
        0 => (m.x_axis.y, m.y_axis.y),
        1 => (m.y_axis.z, m.z_axis.z),
        _ => (m.z_axis.x, m.x_axis.x),
    }
}

/// Bring `q` into the Euler limits `l` (see the module doc); returns the rotation, its matrix
/// and the clamped Euler angles (x, y, z). `reflect`: first half of the iterations, where an
/// angle past a bound is mirrored back off it when that lands inside.
pub(super) fn clamp_euler(q: Quat, l: &LinkLimits, reflect: bool) -> (Quat, Mat3A, [f32; 3]) {
    let m = crate::math::rotation_matrix(q);
    // Angles by axis (x, y, z); the middle one of the order is taken by asin and capped.
    // asin(∓0) = ∓0 and cos(±0) = 1 exactly: skipped for the common single-axis rotation.
    let middle = |s: f32| {
        if s == 0.0 {
            -s
        } else {
            super::trig::lib_asin(-s).clamp(-MIDDLE_CAP, MIDDLE_CAP)
        }
    };
    let cos = |a: f32| if a == 0.0 { 1.0 } else { libm::cosf(a) };
    let order = euler_order(l);
    let side = |i: usize, y: f32, x: f32| outer_angle(l, i, y, x);
    // The angle about the axis the order applies first, from the entries
    // `first_applied_angle` names, both divided by the middle angle's cosine.
    let first = |c: f32| {
        let (y, x) = first_applied_angle(&m, order);
        side(first_applied_axis(order), y / c, x / c)
    };
    let mut e = match order {
        0 => {
            // R = Ry Rx Rz
            let x = middle(m.z_axis.y);
            let c = cos(x);
            [x, side(1, m.z_axis.x / c, m.z_axis.z / c), first(c)]
        }
        1 => {
            // R = Rz Ry Rx
            let y = middle(m.x_axis.z);
            let c = cos(y);
            [first(c), y, side(2, m.x_axis.y / c, m.x_axis.x / c)]
        }
        _ => {
            // R = Rx Rz Ry
            let z = middle(m.y_axis.x);
            let c = cos(z);
            [side(0, m.y_axis.z / c, m.y_axis.y / c), first(c), z]
        }
    };
    for (i, v) in e.iter_mut().enumerate() {
        *v = into_range(*v, l.min[i], l.max[i], reflect);
    }
    let (x, y, z) = (
        axis_matrix(0, e[0]),
        axis_matrix(1, e[1]),
        axis_matrix(2, e[2]),
    );
    let m = match order {
        0 => y * (x * z),
        1 => z * (y * x),
        _ => x * (z * y),
    };
    (matrix_quat(&m), m, e)
}

/// An Euler angle brought into [lo, hi]: reflected off the bound it crossed when `reflect`
/// and that lands inside, else clamped.
#[inline]
pub(super) fn into_range(v: f32, lo: f32, hi: f32, reflect: bool) -> f32 {
    let mut v = v;
    if v < lo {
        let r = 2.0 * lo - v;
        v = if reflect && r <= hi { r } else { lo };
    }
    if v > hi {
        let r = 2.0 * hi - v;
        v = if reflect && r >= lo { r } else { hi };
    }
    v
}

/// Rotation matrix about unit axis `i`, its sine and cosine evaluated in f64 (as D3DX).
#[inline]
pub(super) fn axis_matrix(i: usize, angle: f32) -> Mat3A {
    let (s, c) = super::trig::sin_cos(angle);
    match i {
        0 => Mat3A::from_cols(Vec3A::X, Vec3A::new(0.0, c, s), Vec3A::new(0.0, -s, c)),
        1 => Mat3A::from_cols(Vec3A::new(c, 0.0, -s), Vec3A::Y, Vec3A::new(s, 0.0, c)),
        _ => Mat3A::from_cols(Vec3A::new(c, s, 0.0), Vec3A::new(-s, c, 0.0), Vec3A::Z),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`clamp_euler`] without the angles.
    fn clamp_to_limits(q: Quat, l: &LinkLimits, reflect: bool) -> (Quat, Mat3A) {
        let (q, m, _) = clamp_euler(q, l, reflect);
        (q, m)
    }

    #[test]
    fn clamp_keeps_inside_and_clamps_outside() {
        let l = LinkLimits {
            min: Vec3A::new(-1.0, 0.0, 0.0),
            max: Vec3A::new(-0.1, 0.0, 0.0),
        };
        let q = Quat::from_rotation_x(-0.5);
        assert!(clamp_to_limits(q, &l, false).0.angle_between(q) < 1e-5);
        let r = clamp_to_limits(Quat::from_rotation_x(0.5), &l, false).0;
        assert!(r.angle_between(Quat::from_rotation_x(-0.1)) < 1e-5);
        // Reflected off -0.1: 2 × (-0.1) - 0.5 = -0.7.
        let r = clamp_to_limits(Quat::from_rotation_x(0.5), &l, true).0;
        assert!(r.angle_between(Quat::from_rotation_x(-0.7)) < 1e-5);
    }
}
