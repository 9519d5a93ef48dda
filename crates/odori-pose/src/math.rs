//! MikuMikuDance's f32 arithmetic (Direct3D's D3DX operation order, as mmd-anim 0.5.3
//! reproduces it): vector normalisation, dot products, the quaternion product, the
//! quaternion→matrix and matrix→quaternion formulas, with their rounding. A leaf module:
//! forward kinematics and the IK both build on it, and it depends on neither. Long CCD solves end in steps near f32
//! resolution, so this rounding decides results at 1e-4 (captures `local-axes-multi-*`,
//! `layered-*`); atan2 and the sine and cosine of the Euler rebuild are evaluated in f64 and
//! rounded, which the same captures need.

use glam::{Mat3A, Quat, Vec3A, Vec3Swizzles};

/// D3DX's vector normalisation: each lane sums the squares in its own order, lane x as
/// (y² + x²) + z², y as (z² + y²) + x², z as (x² + z²) + y². Done on all three lanes at once
/// (IEEE square root and division round per lane, so this is the scalar result bit for bit).
#[inline]
pub(crate) fn normalize(v: Vec3A) -> Vec3A {
    let sq = v * v;
    let sum = (sq.yzx() + sq) + sq.zxy();
    v * sqrt_lanes(sum).recip()
}

/// Per-lane IEEE square root in one instruction where the target has one.
#[inline]
pub(crate) fn sqrt_lanes(v: Vec3A) -> Vec3A {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::_mm_sqrt_ps;
        // SAFETY: SSE is part of the x86_64 baseline, so the instruction always exists.
        Vec3A::from(unsafe { _mm_sqrt_ps(v.into()) })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        v.sqrt()
    }
}

/// D3DX's dot product, `(x x' + y y') + z z'`: the sum the quaternion × vector of
/// `unfused` takes too.
pub(crate) use crate::unfused::dot3 as dot;

/// `v` (world) in the frame whose world rotation is `m`: mᵀ v.
#[inline]
pub(crate) fn to_frame(m: &Mat3A, v: Vec3A) -> Vec3A {
    Vec3A::new(dot(m.x_axis, v), dot(m.y_axis, v), dot(m.z_axis, v))
}

/// D3DX's quaternion product: `a` then `b`, i.e. b × a, with its rounding.
#[inline]
pub(crate) fn then(a: Quat, b: Quat) -> Quat {
    Quat::from_xyzw(
        ((b.y * a.z + b.x * a.w) - b.z * a.y) + b.w * a.x,
        ((b.y * a.w - b.x * a.z) + b.z * a.x) + b.w * a.y,
        ((-b.y * a.x + b.x * a.y) + b.z * a.w) + b.w * a.z,
        ((-b.y * a.y - b.x * a.x) - b.z * a.z) + b.w * a.w,
    )
}

/// Rotation matrix of `q` with D3DX's rounding (no normalisation).
#[inline]
pub(crate) fn rotation_matrix(q: Quat) -> Mat3A {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, yy, zz) = (x * x2, y * y2, z * z2);
    let (xy, xz, yz) = (x * y2, x * z2, y * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    Mat3A::from_cols(
        Vec3A::new((1.0 - yy) - zz, xy + wz, xz - wy),
        Vec3A::new(xy - wz, (1.0 - xx) - zz, yz + wx),
        Vec3A::new(xz + wy, yz - wx, (1.0 - xx) - yy),
    )
}

/// D3DX's quaternion of a rotation matrix.
pub(crate) fn matrix_quat(m: &Mat3A) -> Quat {
    let m = m.to_cols_array_2d();
    let trace = m[0][0] + m[1][1] + m[2][2];
    let mut q = [0.0; 4];
    if trace >= 0.0 {
        let s = (trace + 1.0).sqrt();
        q[3] = s * 0.5;
        let scale = 0.5 / s;
        q[0] = (m[1][2] - m[2][1]) * scale;
        q[1] = (m[2][0] - m[0][2]) * scale;
        q[2] = (m[0][1] - m[1][0]) * scale;
    } else {
        let mut i = 0;
        if m[1][1] > m[0][0] {
            i = 1;
        }
        if m[2][2] > m[i][i] {
            i = 2;
        }
        let j = (i + 1) % 3;
        let k = (j + 1) % 3;
        let s = (m[i][i] - m[j][j] - m[k][k] + 1.0).sqrt();
        q[i] = s * 0.5;
        let scale = 0.5 / s;
        q[3] = (m[j][k] - m[k][j]) * scale;
        q[j] = (m[i][j] + m[j][i]) * scale;
        q[k] = (m[i][k] + m[k][i]) * scale;
    }
    Quat::from_array(q)
}
