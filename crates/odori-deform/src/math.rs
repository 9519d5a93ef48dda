//! Quaternion helpers shared by the CPU paths and mirrored line for line by the WGSL shader,
//! so the three agree to rounding.

use glam::{Affine3A, Quat, Vec4};

/// The rotation part of a skinning matrix as a unit quaternion.
#[inline]
pub(crate) fn rotation(m: &Affine3A) -> Quat {
    Quat::from_mat3a(&m.matrix3).normalize()
}

/// Spherical linear interpolation from `a` (t = 0) to `b` (t = 1) along the shorter arc:
/// `b` is flipped onto `a`'s hemisphere first. Nearly parallel inputs (half-angle under
/// 0.08°) fall back to a normalised lerp, where slerp's 1/sin θ would lose precision.
///
/// acos and sin are fixed polynomials ([`acos_unit`], [`sin_quadrant`]) rather than the
/// platform's: GPU drivers are free to approximate trigonometry (Mesa's llvmpipe is off by
/// ~1e-4 rad), and evaluating the same polynomials everywhere keeps CPU and GPU together.
#[inline]
pub(crate) fn slerp(a: Quat, b: Quat, t: f32) -> Quat {
    let (a, mut b) = (Vec4::from(a), Vec4::from(b));
    let mut cos = a.dot(b);
    if cos < 0.0 {
        b = -b;
        cos = -cos;
    }
    let v = if cos > 0.999_999 {
        (a + (b - a) * t).normalize()
    } else {
        let theta = acos_unit(cos);
        let s = 1.0 / sin_quadrant(theta);
        a * (sin_quadrant((1.0 - t) * theta) * s) + b * (sin_quadrant(t * theta) * s)
    };
    Quat::from_vec4(v)
}

/// acos(x) for x in [0, 1]: √(1 − x) times a 7th-degree minimax polynomial (DirectXMath's
/// `XMScalarAcos`), accurate to a few 1e-7 rad.
#[inline]
pub(crate) fn acos_unit(x: f32) -> f32 {
    let x = x.clamp(0.0, 1.0);
    let root = (1.0 - x).sqrt();
    let p = ((((((-0.001_262_491_1 * x + 0.006_670_09) * x - 0.017_088_126) * x + 0.030_891_88)
        * x
        - 0.050_174_303)
        * x
        + 0.088_978_99)
        * x
        - 0.214_598_8)
        * x
        + std::f32::consts::FRAC_PI_2;
    p * root
}

/// sin(x) for x in [0, π/2]: an 11th-degree minimax polynomial (DirectXMath's
/// `XMScalarSin`), accurate to about 1e-7 relative.
#[inline]
pub(crate) fn sin_quadrant(x: f32) -> f32 {
    let x2 = x * x;
    (((((-2.388_985_9e-8 * x2 + 2.752_556_2e-6) * x2 - 1.984_087_4e-4) * x2 + 8.333_331e-3) * x2
        - 0.166_666_67)
        * x2
        + 1.0)
        * x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_track_the_library_functions() {
        for i in 0..=1000 {
            let x = i as f32 / 1000.0;
            assert!((acos_unit(x) - x.acos()).abs() < 1e-6, "acos {x}");
            let y = x * std::f32::consts::FRAC_PI_2;
            assert!((sin_quadrant(y) - y.sin()).abs() < 1e-6, "sin {y}");
        }
    }

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
