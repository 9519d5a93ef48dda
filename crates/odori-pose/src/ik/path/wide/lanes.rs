//! Arithmetic on eight lanes at once for the solves of `wide`: vectors and matrices whose
//! every component is a register of eight f32 lanes (one solve per lane), with each operation
//! in the order the scalar code (glam's and D3DX's) does it, so that every lane rounds as the
//! scalar solve would.

use crate::ik::trig_wide;
use std::arch::x86_64::*;
use std::f32::consts::PI;

use super::LANES;

pub(super) type F = __m256;

#[derive(Clone, Copy)]
pub(super) struct V3 {
    pub(super) x: F,
    pub(super) y: F,
    pub(super) z: F,
}

/// A 3×3 matrix by columns.
#[derive(Clone, Copy)]
pub(super) struct M3 {
    pub(super) x: V3,
    pub(super) y: V3,
    pub(super) z: V3,
}

#[derive(Clone, Copy)]
pub(super) struct Affine {
    pub(super) m: M3,
    pub(super) t: V3,
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn lanes(v: F) -> [f32; LANES] {
    let mut a = [0.0; LANES];
    // SAFETY: `a` has room for eight f32s.
    unsafe { _mm256_storeu_ps(a.as_mut_ptr(), v) };
    a
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn from_lanes(a: &[f32; LANES]) -> F {
    // SAFETY: `a` holds eight f32s.
    unsafe { _mm256_loadu_ps(a.as_ptr()) }
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn add(a: F, b: F) -> F {
    _mm256_add_ps(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sub(a: F, b: F) -> F {
    _mm256_sub_ps(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mul(a: F, b: F) -> F {
    _mm256_mul_ps(a, b)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn splat(x: f32) -> F {
    _mm256_set1_ps(x)
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn neg(a: F) -> F {
    _mm256_xor_ps(a, splat(-0.0))
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn bits(mask: F) -> u32 {
    _mm256_movemask_ps(mask) as u32
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mask_of(bits: u32) -> F {
    // Lane i tests bit i.
    let lane_bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    let set = _mm256_and_si256(_mm256_set1_epi32(bits as i32), lane_bits);
    _mm256_castsi256_ps(_mm256_cmpeq_epi32(set, lane_bits))
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sub3(a: V3, b: V3) -> V3 {
    V3 {
        x: sub(a.x, b.x),
        y: sub(a.y, b.y),
        z: sub(a.z, b.z),
    }
}

/// glam's `length_squared` and `dot`, and D3DX's dot: (x·x' + y·y') + z·z'.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn dot(a: V3, b: V3) -> F {
    add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z))
}

/// `math::normalize`: x / √((y² + x²) + z²), y / √((z² + y²) + x²), z / √((x² + z²) + y²),
/// each as a multiplication by the reciprocal.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn normalize(v: V3) -> V3 {
    let (xx, yy, zz) = (mul(v.x, v.x), mul(v.y, v.y), mul(v.z, v.z));
    let one = splat(1.0);
    let scale = |sum: F| _mm256_div_ps(one, _mm256_sqrt_ps(sum));
    V3 {
        x: mul(v.x, scale(add(add(yy, xx), zz))),
        y: mul(v.y, scale(add(add(zz, yy), xx))),
        z: mul(v.z, scale(add(add(xx, zz), yy))),
    }
}

/// glam's `Vec3A::cross`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn cross(a: V3, b: V3) -> V3 {
    V3 {
        x: sub(mul(a.y, b.z), mul(b.y, a.z)),
        y: sub(mul(a.z, b.x), mul(b.z, a.x)),
        z: sub(mul(a.x, b.y), mul(b.x, a.y)),
    }
}

/// glam's `Mat3A * Vec3A`: (X · v.x + Y · v.y) + Z · v.z.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn mat_vec(m: &M3, v: V3) -> V3 {
    let c = |x: F, y: F, z: F| add(add(mul(x, v.x), mul(y, v.y)), mul(z, v.z));
    V3 {
        x: c(m.x.x, m.y.x, m.z.x),
        y: c(m.x.y, m.y.y, m.z.y),
        z: c(m.x.z, m.y.z, m.z.z),
    }
}

/// `math::to_frame`: (X·v, Y·v, Z·v).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn to_frame(m: &M3, v: V3) -> V3 {
    V3 {
        x: dot(m.x, v),
        y: dot(m.y, v),
        z: dot(m.z, v),
    }
}

/// `fk::compose` with a parent: (P · R, P · t + p).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn compose(p: &Affine, r: &Affine) -> Affine {
    let t = mat_vec(&p.m, r.t);
    Affine {
        m: M3 {
            x: mat_vec(&p.m, r.m.x),
            y: mat_vec(&p.m, r.m.y),
            z: mat_vec(&p.m, r.m.z),
        },
        t: V3 {
            x: add(t.x, p.t.x),
            y: add(t.y, p.t.y),
            z: add(t.z, p.t.z),
        },
    }
}

/// Lanes where `a` equals `b` (IEEE: −0 equals 0).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn equal(a: F, b: F) -> F {
    _mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)
}

/// Lanes where `relative` is the identity (`ChainSlot::set_relative`).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn is_identity(r: &Affine) -> F {
    let (zero, one) = (splat(0.0), splat(1.0));
    let values = [
        (r.m.x.x, one),
        (r.m.x.y, zero),
        (r.m.x.z, zero),
        (r.m.y.x, zero),
        (r.m.y.y, one),
        (r.m.y.z, zero),
        (r.m.z.x, zero),
        (r.m.z.y, zero),
        (r.m.z.z, one),
        (r.t.x, zero),
        (r.t.y, zero),
        (r.t.z, zero),
    ];
    let mut all = equal(one, one);
    for (v, want) in values {
        all = _mm256_and_ps(all, equal(v, want));
    }
    all
}

/// `x.clamp(lo, hi)` lane by lane (NaN stays NaN).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn clamp(x: F, lo: f32, hi: f32) -> F {
    let x = _mm256_blendv_ps(x, splat(lo), _mm256_cmp_ps::<_CMP_LT_OQ>(x, splat(lo)));
    _mm256_blendv_ps(x, splat(hi), _mm256_cmp_ps::<_CMP_GT_OQ>(x, splat(hi)))
}

/// `step::capped`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn capped(angle: F, cap: f32) -> F {
    if cap > 0.0 {
        clamp(angle, -cap, cap)
    } else {
        angle
    }
}

/// `step::angle_of`: the arc-cosine of the clamped cosine.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn angle_of(d: F) -> F {
    trig_wide::acos8(clamp(d, -1.0, 1.0))
}

/// `step::settle`: `e0 + delta` wrapped into atan2's range and brought into [lo, hi]
/// (`limits::into_range`).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn settle(lo: f32, hi: f32, e0: F, delta: F, reflect: bool) -> F {
    let e = add(e0, delta);
    let above = _mm256_cmp_ps::<_CMP_GT_OQ>(e, splat(PI));
    let below = _mm256_cmp_ps::<_CMP_LT_OQ>(e, splat(-PI));
    let e = _mm256_blendv_ps(e, sub(e, splat(2.0 * PI)), above);
    let e = _mm256_blendv_ps(e, add(e, splat(2.0 * PI)), _mm256_andnot_ps(above, below));
    // v < lo: reflected 2·lo − v when that is at most hi (first half), else lo.
    let (lo_v, hi_v) = (splat(lo), splat(hi));
    let r = sub(mul(splat(2.0), lo_v), e);
    let low = if reflect {
        _mm256_blendv_ps(lo_v, r, _mm256_cmp_ps::<_CMP_LE_OQ>(r, hi_v))
    } else {
        lo_v
    };
    let e = _mm256_blendv_ps(e, low, _mm256_cmp_ps::<_CMP_LT_OQ>(e, lo_v));
    let r = sub(mul(splat(2.0), hi_v), e);
    let high = if reflect {
        _mm256_blendv_ps(hi_v, r, _mm256_cmp_ps::<_CMP_GE_OQ>(r, lo_v))
    } else {
        hi_v
    };
    _mm256_blendv_ps(e, high, _mm256_cmp_ps::<_CMP_GT_OQ>(e, hi_v))
}

/// `ik::limits::axis_matrix`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn axis_matrix(i: usize, angle: F) -> M3 {
    let (s, c) = trig_wide::sin_cos8(angle);
    let (zero, one) = (splat(0.0), splat(1.0));
    let v = |x, y, z| V3 { x, y, z };
    match i {
        0 => M3 {
            x: v(one, zero, zero),
            y: v(zero, c, s),
            z: v(zero, neg(s), c),
        },
        1 => M3 {
            x: v(c, zero, neg(s)),
            y: v(zero, one, zero),
            z: v(s, zero, c),
        },
        _ => M3 {
            x: v(c, s, zero),
            y: v(neg(s), c, zero),
            z: v(zero, zero, one),
        },
    }
}

/// `math::rotation_matrix`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn rotation_matrix(q: [F; 4]) -> M3 {
    let [x, y, z, w] = q;
    let (x2, y2, z2) = (add(x, x), add(y, y), add(z, z));
    let (xx, yy, zz) = (mul(x, x2), mul(y, y2), mul(z, z2));
    let (xy, xz, yz) = (mul(x, y2), mul(x, z2), mul(y, z2));
    let (wx, wy, wz) = (mul(w, x2), mul(w, y2), mul(w, z2));
    let one = splat(1.0);
    M3 {
        x: V3 {
            x: sub(sub(one, yy), zz),
            y: add(xy, wz),
            z: sub(xz, wy),
        },
        y: V3 {
            x: sub(xy, wz),
            y: sub(sub(one, xx), zz),
            z: add(yz, wx),
        },
        z: V3 {
            x: add(xz, wy),
            y: sub(yz, wx),
            z: sub(sub(one, xx), yy),
        },
    }
}

/// `math::then`: D3DX's quaternion product.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn then(a: [F; 4], b: [F; 4]) -> [F; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        add(sub(add(mul(by, az), mul(bx, aw)), mul(bz, ay)), mul(bw, ax)),
        add(add(sub(mul(by, aw), mul(bx, az)), mul(bz, ax)), mul(bw, ay)),
        add(
            add(add(mul(neg(by), ax), mul(bx, ay)), mul(bz, aw)),
            mul(bw, az),
        ),
        add(
            sub(sub(mul(neg(by), ay), mul(bx, ax)), mul(bz, az)),
            mul(bw, aw),
        ),
    ]
}

/// Lanes of `mask` from `b`, the others from `a`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn blend_affine(a: Affine, b: Affine, mask: F) -> Affine {
    let v = |a: V3, b: V3| V3 {
        x: _mm256_blendv_ps(a.x, b.x, mask),
        y: _mm256_blendv_ps(a.y, b.y, mask),
        z: _mm256_blendv_ps(a.z, b.z, mask),
    };
    Affine {
        m: M3 {
            x: v(a.m.x, b.m.x),
            y: v(a.m.y, b.m.y),
            z: v(a.m.z, b.m.z),
        },
        t: v(a.t, b.t),
    }
}
