//! glam's quaternion product, quaternion × vector, cross product and slerp, computed with the
//! same operations in the same order whatever the target.
//!
//! glam fuses the multiply-adds inside these when the build targets a processor with FMA (an
//! x86-64 build with `-C target-cpu=native` or `x86-64-v3`), and always on aarch64; on NEON it
//! also sums a four-lane dot product in another order and normalises by a reciprocal. A fused
//! or reordered sum rounds differently, and a leg solve of forty iterations carries the
//! difference to 1e-4: an FMA build failed seven of the MMD captures, and its paired and
//! grouped solves no longer matched its single ones (their lanes do not fuse). These are
//! glam's own SSE2 formulas without FMA (so results on a plain x86-64 build are unchanged),
//! written with lane-wise multiplies, adds and bit operations alone, which no target fuses or
//! reorders. The pose runtime uses them instead of glam's methods and operators.

use glam::{Quat, Vec3A, Vec3Swizzles, Vec4, Vec4Swizzles};
use std::f32::consts::{FRAC_PI_2, PI, TAU};

/// `a × b`, as `(a.zxy · b − b.zxy · a).zxy`.
#[inline]
pub fn cross(a: Vec3A, b: Vec3A) -> Vec3A {
    (a.zxy() * b - b.zxy() * a).zxy()
}

/// The quaternion product `a b` (glam's `a * b`: `b`'s rotation, then `a`'s), each component
/// two sums of two products, then their sum.
#[inline]
pub fn quat_mul(a: Quat, b: Quat) -> Quat {
    const WZYX: Vec4 = Vec4::new(1.0, -1.0, 1.0, -1.0);
    const ZWXY: Vec4 = Vec4::new(1.0, 1.0, -1.0, -1.0);
    const YXWZ: Vec4 = Vec4::new(-1.0, 1.0, 1.0, -1.0);
    let r = Vec4::from(b);
    let first = Vec4::splat(a.x) * r.wzyx() * WZYX + Vec4::splat(a.w) * r;
    let second = Vec4::splat(a.z) * r.yxwz() * YXWZ + Vec4::splat(a.y) * r.zwxy() * ZWXY;
    Quat::from_vec4(first + second)
}

/// `v` rotated by the unit quaternion `q` (glam's `q * v`).
#[inline]
pub fn rotate(q: Quat, v: Vec3A) -> Vec3A {
    let b = Vec3A::new(q.x, q.y, q.z);
    let w = q.w;
    v * (w * w - dot3(b, b)) + b * (dot3(v, b) * 2.0) + cross(b, v) * (w * 2.0)
}

/// Spherical interpolation from `a` to `end` by `s` along the shorter arc (glam's
/// `Quat::slerp`): nearly equal rotations are interpolated linearly and normalised; otherwise
/// the weights are sines of DirectXMath's approximations (`acos_approx`, `sin_lanes`).
#[inline]
pub fn slerp(a: Quat, end: Quat, s: f32) -> Quat {
    let from = Vec4::from(a);
    let mut to = Vec4::from(end);
    let mut d = dot4(from, to);
    if d < 0.0 {
        to = -to;
        d = -d;
    }
    if d > 1.0 - f32::EPSILON {
        let v = from * (1.0 - s) + to * s;
        return Quat::from_vec4(v / dot4(v, v).sqrt());
    }
    let theta = acos_approx(d);
    let sines = sin_lanes(Vec4::splat(theta) * Vec4::new(1.0 - s, s, 1.0, 0.0));
    Quat::from_vec4((to * sines.y + from * sines.x) / sines.z)
}

/// `(x x' + y y') + z z'` (also D3DX's order, `math::dot`).
#[inline(always)]
pub(crate) fn dot3(a: Vec3A, b: Vec3A) -> f32 {
    (a.x * b.x + a.y * b.y) + a.z * b.z
}

/// `(x x' + z z') + (y y' + w w')`, glam's SSE2 grouping.
#[inline(always)]
fn dot4(a: Vec4, b: Vec4) -> f32 {
    let p = a * b;
    (p.x + p.z) + (p.y + p.w)
}

/// Arc-cosine by DirectXMath's `XMScalarAcos` polynomial (glam's `acos_approx`).
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn acos_approx(v: f32) -> f32 {
    // The constant term, 1.5707963 as the polynomial's authors print it: one ulp below the
    // f32 nearest π/2.
    const ACOS_CONSTANT: f32 = f32::from_bits(0x3fc9_0fda);
    let nonnegative = v >= 0.0;
    let x = v.abs();
    let mut one_minus = 1.0 - x;
    if one_minus < 0.0 {
        one_minus = 0.0;
    }
    let root = one_minus.sqrt();
    let result =
        ((((((-0.001_262_491_1 * x + 0.006_670_09) * x - 0.017_088_126) * x + 0.030_891_88) * x
            - 0.050_174_303)
            * x
            + 0.088_978_99)
            * x
            - 0.214_598_8)
            * x
            + ACOS_CONSTANT;
    let result = result * root;
    if nonnegative { result } else { PI - result }
}

/// Sine of each lane by DirectXMath's `XMVectorSin` (glam's `m128_sin`): the angle brought
/// into [−π, π], reflected into [−π/2, π/2], then an odd polynomial of degree 11.
#[inline(always)]
#[allow(clippy::excessive_precision)]
fn sin_lanes(v: Vec4) -> Vec4 {
    const RECIPROCAL_TAU: f32 = 0.159_154_94;
    let x = v - TAU * round_ties_even_lanes(v * RECIPROCAL_TAU);
    let reflected = Vec4::splat(PI).copysign(x) - x;
    let x = Vec4::select(x.abs().cmple(Vec4::splat(FRAC_PI_2)), x, reflected);
    let x2 = x * x;
    let mut r = Vec4::splat(-2.388_985_9e-8) * x2 + Vec4::splat(2.752_556_2e-6);
    r = r * x2 + Vec4::splat(-0.000_198_408_74);
    r = r * x2 + Vec4::splat(0.008_333_331);
    r = r * x2 + Vec4::splat(-0.166_666_67);
    r = r * x2 + Vec4::ONE;
    r * x
}

/// Each lane rounded to the nearest integer, ties to even: adding and subtracting 2²³ with
/// the lane's sign leaves no fraction bits (lanes of magnitude above 2²³ have none already).
#[inline(always)]
fn round_ties_even_lanes(v: Vec4) -> Vec4 {
    const NO_FRACTION: f32 = 8_388_608.0;
    let magic = Vec4::splat(NO_FRACTION).copysign(v);
    let rounded = (v + magic) - magic;
    Vec4::select(v.abs().cmple(Vec4::splat(NO_FRACTION)), rounded, v)
}

/// Without FMA, x86-64 glam runs exactly these formulas: every result must match it bit for
/// bit (the same tests would fail in an FMA build, which is why they are not run there).
#[cfg(all(test, target_arch = "x86_64", not(target_feature = "fma")))]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the tests need no dependency.
    struct Numbers(u64);

    impl Numbers {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        }

        fn quat(&mut self) -> Quat {
            Quat::from_xyzw(self.next(), self.next(), self.next(), self.next()).normalize()
        }

        fn vec(&mut self) -> Vec3A {
            Vec3A::new(self.next(), self.next(), self.next()) * 10.0
        }
    }

    fn same_quat(a: Quat, b: Quat) -> bool {
        a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits)
    }

    fn same_vec(a: Vec3A, b: Vec3A) -> bool {
        a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits)
    }

    #[test]
    fn products_match_glam_bit_for_bit() {
        let mut n = Numbers(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            let (p, q) = (n.quat(), n.quat());
            let (u, v) = (n.vec(), n.vec());
            assert!(same_quat(quat_mul(p, q), p * q), "{p} * {q}");
            assert!(same_vec(cross(u, v), u.cross(v)), "{u} × {v}");
            assert!(same_vec(rotate(p, u), p * u), "{p} * {u}");
        }
    }

    #[test]
    fn slerp_matches_glam_bit_for_bit() {
        let mut n = Numbers(0x2545_f491_4f6c_dd1d);
        // Progress inside [0, 1] (keyframes) and grant or morph ratios beyond it, including
        // ratios whose angles need reducing by several turns.
        let ratios = [0.0, 1.0, -1.0, 0.5, 2.0, 3.5, -7.25, 100.0];
        for i in 0..200_000 {
            let p = n.quat();
            // Every fourth pair nearly equal (the linear branch), some exactly equal.
            let q = match i % 4 {
                0 => p,
                1 => {
                    (p + Quat::from_xyzw(n.next(), n.next(), n.next(), n.next()) * 1e-4).normalize()
                }
                _ => n.quat(),
            };
            let s = if i % 3 == 0 {
                ratios[i % ratios.len()]
            } else {
                (n.next() + 1.0) * 0.5
            };
            assert!(same_quat(slerp(p, q, s), p.slerp(q, s)), "{p} {q} {s}");
            assert!(
                same_quat(slerp(Quat::IDENTITY, q, s), Quat::IDENTITY.slerp(q, s)),
                "identity {q} {s}"
            );
        }
    }
}
