//! Quaternion helpers shared by the CPU paths and mirrored line for line by the WGSL shader,
//! so the three agree to rounding.

use glam::{Affine3A, Quat, Vec4};

/// The rotation part of a skinning matrix as a unit quaternion.
#[inline]
pub(crate) fn rotation(m: &Affine3A) -> Quat {
    Quat::from_mat3a(&m.matrix3).normalize()
}

/// Spherical linear interpolation from `a` (t = 0) to `b` (t = 1) along the shorter arc:
/// `b` is flipped onto `a`'s hemisphere first. Nearly parallel inputs fall back to a
/// normalised lerp, where slerp's 1/sin θ would divide by (almost) zero.
#[inline]
pub(crate) fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    let (a, mut b) = (Vec4::from(a), Vec4::from(b));
    let mut cos = a.dot(b);
    if cos < 0.0 {
        b = -b;
        cos = -cos;
    }
    let v = if cos > 0.9995 {
        (a + (b - a) * t).normalize()
    } else {
        let theta = cos.min(1.0).acos();
        let s = 1.0 / theta.sin();
        a * (((1.0 - t) * theta).sin() * s) + b * ((t * theta).sin() * s)
    };
    Quat::from_vec4(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slerp_halves_an_angle_and_takes_the_short_way() {
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_z(1.2);
        assert!(slerp(a, b, 0.5).angle_between(Quat::from_rotation_z(0.6)) < 1e-5);
        assert!(slerp(a, -b, 0.5).angle_between(Quat::from_rotation_z(0.6)) < 1e-5);
        assert!(slerp(a, b, 0.0).angle_between(a) < 1e-5);
        assert!(slerp(a, b, 1.0).angle_between(b) < 1e-5);
    }
}
