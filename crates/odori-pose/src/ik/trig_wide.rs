//! Eight-lane AVX2 forms of `trig`'s `acos`, `sin_cos` and `atan2`, for IK solves run eight
//! at a time.
//!
//! The engine reproduces MMD's rounding, so a batched solver must give each lane exactly the
//! scalar solver's result: every lane here is bit for bit the scalar function of that lane's
//! input. To get that, each function does the scalar routine's operations in the same order
//! and precision (f32 for the arc-cosine; f64, from and back to f32, for the others), one IEEE
//! instruction per operation: no fused multiply-adds, the same constants, the rounding trick
//! `(y + ROUND_SHIFT) − ROUND_SHIFT` rather than a rounding instruction. Where the scalar code branches,
//! every branch is computed for all lanes and each lane takes the one the scalar comparison
//! picks (the arc-cosine's special arguments included: every lane of `acos8` is vector code).
//! The lanes the scalar code hands to the library (sin_cos of NaN, ±∞ or |x| ≥ 10⁵; atan2
//! with a zero, infinite or NaN operand) are rare: a mask finds them, and only when there is
//! one are those lanes recomputed by the scalar function.
//!
//! The functions are safe `#[target_feature(enable = "avx2")]` functions: code not itself
//! compiled for AVX2 calls them in `unsafe`, after checking the machine has it.
//!
//! The constants are `trig`'s own, used from there, so the two cannot drift apart. The tests
//! compare every lane with the scalar functions, and the f64 stages, before rounding to f32
//! hides nearly every slip of an ulp, with `trig`'s own f64 stages (`trig::sin_cos_f64`,
//! `trig::atan2_f64`).

use super::trig::{
    self, ACOS_P_BITS, ACOS_PI, ACOS_PIO2_HI, ACOS_PIO2_LO, ACOS_Q_BITS, ATAN_COEFFICIENTS,
    ATAN_HALF, ATAN_ONE, ATAN2_PI, ATAN2_PIO2, COS_COEFFICIENTS, FRAC_2_PI, PIO2_HI, PIO2_LO,
    ROUND_SHIFT, SIN_COEFFICIENTS,
};
use std::arch::x86_64::*;

/// acos(x) in each lane, bit for bit `trig::acos` of that lane (fdlibm's `__ieee754_acosf`
/// in f32): NaN for NaN and |x| > 1.
#[target_feature(enable = "avx2")]
pub(super) fn acos8(x: __m256) -> __m256 {
    let bits = _mm256_castps_si256(x);
    let magnitude = _mm256_and_si256(bits, _mm256_set1_epi32(0x7fff_ffff));
    // Magnitudes are below 2³¹, so a signed comparison orders them.
    let above = |limit: u32| {
        _mm256_castsi256_ps(_mm256_cmpgt_epi32(
            magnitude,
            _mm256_set1_epi32(limit as i32),
        ))
    };
    let below = |limit: u32| {
        _mm256_castsi256_ps(_mm256_cmpgt_epi32(
            _mm256_set1_epi32(limit as i32),
            magnitude,
        ))
    };
    let equal = |pattern: u32| {
        _mm256_castsi256_ps(_mm256_cmpeq_epi32(bits, _mm256_set1_epi32(pattern as i32)))
    };
    let one = _mm256_set1_ps(1.0);
    let half = _mm256_set1_ps(0.5);

    // |x| < 0.5: π/2 − asin(x), from ratio(x²).
    let small = below(0x3f00_0000);
    // |x| ≥ 0.5: from z = (1 ∓ x) / 2, by x's sign (x < 0 here exactly when its sign is set).
    let z_negative = _mm256_mul_ps(_mm256_add_ps(one, x), half);
    let z_positive = _mm256_mul_ps(_mm256_sub_ps(one, x), half);
    let z_large = _mm256_blendv_ps(z_positive, z_negative, x);
    let z = _mm256_blendv_ps(z_large, _mm256_mul_ps(x, x), small);
    let r = acos_ratio(z);

    let from_small = _mm256_sub_ps(
        _mm256_set1_ps(ACOS_PIO2_HI),
        _mm256_sub_ps(
            x,
            _mm256_sub_ps(_mm256_set1_ps(ACOS_PIO2_LO), _mm256_mul_ps(x, r)),
        ),
    );
    let s = _mm256_sqrt_ps(z);
    let rs = _mm256_mul_ps(r, s);
    // x ≤ −0.5: π − 2 (s + w), w = r s − ACOS_PIO2_LO.
    let w = _mm256_sub_ps(rs, _mm256_set1_ps(ACOS_PIO2_LO));
    let from_negative = _mm256_sub_ps(
        _mm256_set1_ps(ACOS_PI),
        _mm256_mul_ps(_mm256_set1_ps(2.0), _mm256_add_ps(s, w)),
    );
    // x ≥ 0.5: 2 (head + (r s + c)), s split into a 12-bit head and a correction c.
    let head = _mm256_and_ps(
        s,
        _mm256_castsi256_ps(_mm256_set1_epi32(0xffff_f000_u32 as i32)),
    );
    let c = _mm256_div_ps(
        _mm256_sub_ps(z, _mm256_mul_ps(head, head)),
        _mm256_add_ps(s, head),
    );
    let from_positive = _mm256_mul_ps(
        _mm256_set1_ps(2.0),
        _mm256_add_ps(head, _mm256_add_ps(rs, c)),
    );

    let large = _mm256_blendv_ps(from_positive, from_negative, x);
    let mut result = _mm256_blendv_ps(large, from_small, small);
    // The scalar code's early returns, latest-decided first so the earlier ones win.
    let tiny = below(0x3280_0001); // |x| ≤ 2⁻²⁶
    result = _mm256_blendv_ps(result, _mm256_set1_ps(ACOS_PIO2_HI + ACOS_PIO2_LO), tiny);
    result = _mm256_blendv_ps(
        result,
        _mm256_set1_ps(ACOS_PI + 2.0 * ACOS_PIO2_LO),
        equal(0xbf80_0000),
    );
    result = _mm256_blendv_ps(result, _mm256_setzero_ps(), equal(0x3f80_0000));
    _mm256_blendv_ps(result, _mm256_set1_ps(f32::NAN), above(0x3f80_0000))
}

/// fdlibm's p(z) / q(z) ≈ asin(√z) / √z − 1 (`trig::acos`'s `ratio`), per lane.
#[target_feature(enable = "avx2")]
fn acos_ratio(z: __m256) -> __m256 {
    let (ps, qs) = (ACOS_P_BITS, ACOS_Q_BITS);
    let k = |bits: u32| _mm256_set1_ps(f32::from_bits(bits));
    // c + z × v
    let step = |c: __m256, v: __m256| _mm256_add_ps(c, _mm256_mul_ps(z, v));
    let p = step(k(ps[4]), k(ps[5]));
    let p = step(k(ps[3]), p);
    let p = step(k(ps[2]), p);
    let p = step(k(ps[1]), p);
    let p = _mm256_mul_ps(z, step(k(ps[0]), p));
    let q = step(k(qs[2]), k(qs[3]));
    let q = step(k(qs[1]), q);
    let q = step(k(qs[0]), q);
    let q = step(_mm256_set1_ps(1.0), q);
    _mm256_div_ps(p, q)
}

/// `trig`'s limit of its own reduction: at and beyond it (and for NaN) the library runs
/// (10⁵ is an f32, so the conversion is exact).
const REDUCE_LIMIT: f32 = trig::REDUCE_LIMIT as f32;

/// (sin x, cos x) in each lane, bit for bit `trig::sin_cos` of that lane: evaluated in f64
/// and rounded to f32.
#[target_feature(enable = "avx2")]
pub(super) fn sin_cos8(x: __m256) -> (__m256, __m256) {
    let (low, high) = widen(x);
    let (s_low, c_low) = sin_cos4(low);
    let (s_high, c_high) = sin_cos4(high);
    let (mut s, mut c) = (narrow(s_low, s_high), narrow(c_low, c_high));
    // x = ±0: (x, 1), exactly.
    let zero = _mm256_cmp_ps::<_CMP_EQ_OQ>(x, _mm256_setzero_ps());
    s = _mm256_blendv_ps(s, x, zero);
    c = _mm256_blendv_ps(c, _mm256_set1_ps(1.0), zero);
    // NaN, ±∞ and |x| ≥ 10⁵ (10⁵ is an f32, so the f32 comparison is the scalar f64 one).
    let library = _mm256_cmp_ps::<_CMP_NLT_UQ>(abs(x), _mm256_set1_ps(REDUCE_LIMIT));
    let lanes = _mm256_movemask_ps(library);
    if lanes != 0 {
        (s, c) = sin_cos_by_lane(lanes, x, s, c);
    }
    (s, c)
}

/// `sin_cos8` for the lanes set in `lanes`: the scalar function's result.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2")]
fn sin_cos_by_lane(lanes: i32, x: __m256, s: __m256, c: __m256) -> (__m256, __m256) {
    let x = to_array(x);
    let (mut s, mut c) = (to_array(s), to_array(c));
    for i in (0..8).filter(|i| lanes & (1 << i) != 0) {
        (s[i], c[i]) = trig::sin_cos(x[i]);
    }
    (from_array(s), from_array(c))
}

/// `trig::sin_cos`'s reduction and kernels in four f64 lanes (finite |x| < 10⁵).
#[target_feature(enable = "avx2")]
fn sin_cos4(x: __m256d) -> (__m256d, __m256d) {
    let shift = _mm256_set1_pd(ROUND_SHIFT);
    // k = x × 2/π rounded to an integer (ties to even), r = x − k π/2.
    let k = _mm256_sub_pd(
        _mm256_add_pd(_mm256_mul_pd(x, _mm256_set1_pd(FRAC_2_PI)), shift),
        shift,
    );
    let r = _mm256_sub_pd(
        _mm256_sub_pd(x, _mm256_mul_pd(k, _mm256_set1_pd(PIO2_HI))),
        _mm256_mul_pd(k, _mm256_set1_pd(PIO2_LO)),
    );
    let (s, c) = (sin_kernel(r), cos_kernel(r));
    // The quadrant k mod 4 (k is a small integer, so the conversion is exact): bit 0 swaps
    // sine and cosine; the sine is negated in quadrants 2 and 3, the cosine in 1 and 2.
    let quadrant = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
    let bit0 = _mm256_slli_epi64::<63>(quadrant); // bit 0 in the sign place, nothing else
    let bit1 = _mm256_slli_epi64::<62>(quadrant); // bit 1 in the sign place
    let sign = _mm256_set1_epi64x(i64::MIN);
    let negate_sin = _mm256_castsi256_pd(_mm256_and_si256(bit1, sign));
    let negate_cos = _mm256_castsi256_pd(_mm256_and_si256(_mm256_xor_si256(bit0, bit1), sign));
    let swap = _mm256_castsi256_pd(bit0);
    let sin = _mm256_xor_pd(_mm256_blendv_pd(s, c, swap), negate_sin);
    let cos = _mm256_xor_pd(_mm256_blendv_pd(c, s, swap), negate_cos);
    (sin, cos)
}

/// sin(r) for |r| ≤ π/4, `trig`'s `sin_kernel` per lane.
#[target_feature(enable = "avx2")]
fn sin_kernel(r: __m256d) -> __m256d {
    let [s1, s2, s3, s4, s5, s6] = SIN_COEFFICIENTS;
    let z = _mm256_mul_pd(r, r);
    let p = horner(z, s5, _mm256_set1_pd(s6));
    let p = horner(z, s4, p);
    let p = horner(z, s3, p);
    let p = horner(z, s2, p);
    // r + (r z) (s1 + z p)
    _mm256_add_pd(r, _mm256_mul_pd(_mm256_mul_pd(r, z), horner(z, s1, p)))
}

/// cos(r) for |r| ≤ π/4, `trig`'s `cos_kernel` per lane.
#[target_feature(enable = "avx2")]
fn cos_kernel(r: __m256d) -> __m256d {
    let [c1, c2, c3, c4, c5, c6] = COS_COEFFICIENTS;
    let z = _mm256_mul_pd(r, r);
    let p = horner(z, c5, _mm256_set1_pd(c6));
    let p = horner(z, c4, p);
    let p = horner(z, c3, p);
    let p = horner(z, c2, p);
    let p = _mm256_mul_pd(_mm256_mul_pd(z, z), horner(z, c1, p));
    let one = _mm256_set1_pd(1.0);
    let half = _mm256_mul_pd(_mm256_set1_pd(0.5), z);
    let w = _mm256_sub_pd(one, half);
    // w + (((1 − w) − half) + p)
    _mm256_add_pd(
        w,
        _mm256_add_pd(_mm256_sub_pd(_mm256_sub_pd(one, w), half), p),
    )
}

/// atan2(y, x) in each lane, bit for bit `trig::atan2` of that lane: evaluated in f64 and
/// rounded to f32.
#[target_feature(enable = "avx2")]
pub(super) fn atan2_8(y: __m256, x: __m256) -> __m256 {
    let (y_low, y_high) = widen(y);
    let (x_low, x_high) = widen(x);
    let mut angle = narrow(atan2_4(y_low, x_low), atan2_4(y_high, x_high));
    // Zeros, infinities and NaNs go to the library; both operands must be finite and nonzero
    // (a comparison in f32 is the scalar one in f64: the conversion is exact).
    let nonzero_finite = |v: __m256| {
        let a = abs(v);
        _mm256_and_ps(
            _mm256_cmp_ps::<_CMP_GT_OQ>(a, _mm256_setzero_ps()),
            _mm256_cmp_ps::<_CMP_LT_OQ>(a, _mm256_set1_ps(f32::INFINITY)),
        )
    };
    let ordinary = _mm256_and_ps(nonzero_finite(y), nonzero_finite(x));
    let lanes = !_mm256_movemask_ps(ordinary) & 0xff;
    if lanes != 0 {
        angle = atan2_by_lane(lanes, y, x, angle);
    }
    angle
}

/// `atan2_8` for the lanes set in `lanes`: the scalar function's result.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx2")]
fn atan2_by_lane(lanes: i32, y: __m256, x: __m256, angle: __m256) -> __m256 {
    let (y, x, mut angle) = (to_array(y), to_array(x), to_array(angle));
    for i in (0..8).filter(|i| lanes & (1 << i) != 0) {
        angle[i] = trig::atan2(y[i], x[i]);
    }
    from_array(angle)
}

/// `trig::atan2`'s path for finite nonzero operands, in four f64 lanes.
#[target_feature(enable = "avx2")]
fn atan2_4(y: __m256d, x: __m256d) -> __m256d {
    let sign = _mm256_set1_pd(-0.0);
    let (ay, ax) = (_mm256_andnot_pd(sign, y), _mm256_andnot_pd(sign, x));
    // The angle of (|x|, |y|) in [0, π/2], from the smaller over the larger.
    let direct = _mm256_cmp_pd::<_CMP_LE_OQ>(ay, ax);
    let t = _mm256_div_pd(
        _mm256_blendv_pd(ax, ay, direct),
        _mm256_blendv_pd(ay, ax, direct),
    );
    let unit = atan_unit(t);
    // ATAN2_PIO2.0 − (unit − ATAN2_PIO2.1)
    let complement = _mm256_sub_pd(
        _mm256_set1_pd(ATAN2_PIO2.0),
        _mm256_sub_pd(unit, _mm256_set1_pd(ATAN2_PIO2.1)),
    );
    let first = _mm256_blendv_pd(complement, unit, direct);
    // x ≤ 0: ATAN2_PI.0 − (first − ATAN2_PI.1)
    let reflected = _mm256_sub_pd(
        _mm256_set1_pd(ATAN2_PI.0),
        _mm256_sub_pd(first, _mm256_set1_pd(ATAN2_PI.1)),
    );
    let right = _mm256_cmp_pd::<_CMP_GT_OQ>(x, _mm256_setzero_pd());
    let angle = _mm256_blendv_pd(reflected, first, right);
    let below = _mm256_cmp_pd::<_CMP_LT_OQ>(y, _mm256_setzero_pd());
    _mm256_xor_pd(angle, _mm256_and_pd(below, sign))
}

/// atan(t) for 0 ≤ t ≤ 1, `trig`'s `atan_unit` per lane.
#[target_feature(enable = "avx2")]
fn atan_unit(t: __m256d) -> __m256d {
    let at = ATAN_COEFFICIENTS;
    let one = _mm256_set1_pd(1.0);
    let two = _mm256_set1_pd(2.0);
    // t < 0.4375: t itself; t < 0.6875: (2t − 1) / (2 + t) about ½; else (t − 1) / (t + 1)
    // about 1.
    let plain = _mm256_cmp_pd::<_CMP_LT_OQ>(t, _mm256_set1_pd(0.4375));
    let about_half = _mm256_cmp_pd::<_CMP_LT_OQ>(t, _mm256_set1_pd(0.6875));
    let reduced = _mm256_blendv_pd(
        _mm256_div_pd(_mm256_sub_pd(t, one), _mm256_add_pd(t, one)),
        _mm256_div_pd(
            _mm256_sub_pd(_mm256_mul_pd(two, t), one),
            _mm256_add_pd(two, t),
        ),
        about_half,
    );
    let t = _mm256_blendv_pd(reduced, t, plain);
    let (hi, lo) = (
        _mm256_blendv_pd(
            _mm256_set1_pd(ATAN_ONE.0),
            _mm256_set1_pd(ATAN_HALF.0),
            about_half,
        ),
        _mm256_blendv_pd(
            _mm256_set1_pd(ATAN_ONE.1),
            _mm256_set1_pd(ATAN_HALF.1),
            about_half,
        ),
    );

    let z = _mm256_mul_pd(t, t);
    let w = _mm256_mul_pd(z, z);
    let s1 = horner(w, at[8], _mm256_set1_pd(at[10]));
    let s1 = horner(w, at[6], s1);
    let s1 = horner(w, at[4], s1);
    let s1 = horner(w, at[2], s1);
    let s1 = _mm256_mul_pd(z, horner(w, at[0], s1));
    let s2 = horner(w, at[7], _mm256_set1_pd(at[9]));
    let s2 = horner(w, at[5], s2);
    let s2 = horner(w, at[3], s2);
    let s2 = _mm256_mul_pd(w, horner(w, at[1], s2));
    let ts = _mm256_mul_pd(t, _mm256_add_pd(s1, s2));
    // t − t (s1 + s2), or hi − ((t (s1 + s2) − lo) − t)
    let near_zero = _mm256_sub_pd(t, ts);
    let near_base = _mm256_sub_pd(hi, _mm256_sub_pd(_mm256_sub_pd(ts, lo), t));
    _mm256_blendv_pd(near_base, near_zero, plain)
}

/// c + z × v, one multiply then one add.
#[inline]
#[target_feature(enable = "avx2")]
fn horner(z: __m256d, c: f64, v: __m256d) -> __m256d {
    _mm256_add_pd(_mm256_set1_pd(c), _mm256_mul_pd(z, v))
}

/// |v| per lane (the sign bit cleared).
#[inline]
#[target_feature(enable = "avx2")]
fn abs(v: __m256) -> __m256 {
    _mm256_andnot_ps(_mm256_set1_ps(-0.0), v)
}

/// Lanes 0–3 and 4–7 of `v` as f64 (exact).
#[inline]
#[target_feature(enable = "avx2")]
fn widen(v: __m256) -> (__m256d, __m256d) {
    (
        _mm256_cvtps_pd(_mm256_castps256_ps128(v)),
        _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(v)),
    )
}

/// `low` and `high` rounded to f32 (to nearest, as `as f32` rounds), as lanes 0–3 and 4–7.
#[inline]
#[target_feature(enable = "avx2")]
fn narrow(low: __m256d, high: __m256d) -> __m256 {
    _mm256_set_m128(_mm256_cvtpd_ps(high), _mm256_cvtpd_ps(low))
}

/// The lanes of `v`.
#[inline]
#[target_feature(enable = "avx2")]
fn to_array(v: __m256) -> [f32; 8] {
    let mut a = [0.0; 8];
    // SAFETY: `a` is 8 f32s, the 32 bytes an unaligned store writes.
    unsafe { _mm256_storeu_ps(a.as_mut_ptr(), v) };
    a
}

/// The vector of lanes `a`.
#[inline]
#[target_feature(enable = "avx2")]
fn from_array(a: [f32; 8]) -> __m256 {
    // SAFETY: `a` is 8 f32s, the 32 bytes an unaligned load reads.
    unsafe { _mm256_loadu_ps(a.as_ptr()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the machine can run these; says so when it cannot.
    fn have_avx2() -> bool {
        let have = is_x86_feature_detected!("avx2");
        if !have {
            eprintln!("no AVX2 here: eight-lane trig not tested");
        }
        have
    }

    /// Calls `f` with the items in groups of `N` and how many of each group are items (the
    /// last group is padded by repeating its own); returns the number of items.
    fn in_groups<T: Copy + Default, const N: usize>(
        items: impl IntoIterator<Item = T>,
        mut f: impl FnMut(&[T; N], usize),
    ) -> usize {
        let mut group = [T::default(); N];
        let (mut filled, mut count) = (0, 0);
        for item in items {
            group[filled] = item;
            filled += 1;
            count += 1;
            if filled == N {
                f(&group, N);
                filled = 0;
            }
        }
        if filled > 0 {
            for i in filled..N {
                group[i] = group[i - filled];
            }
            f(&group, filled);
        }
        count
    }

    // The loads and stores below run only after `have_avx2`.
    fn from_lanes(a: [f32; 8]) -> __m256 {
        // SAFETY: the machine has AVX2.
        unsafe { from_array(a) }
    }

    fn to_lanes(v: __m256) -> [f32; 8] {
        // SAFETY: the machine has AVX2.
        unsafe { to_array(v) }
    }

    fn from_f64s(a: [f64; 4]) -> __m256d {
        // SAFETY: `a` is the 32 bytes an unaligned load reads (the machine has AVX2).
        unsafe { _mm256_loadu_pd(a.as_ptr()) }
    }

    fn to_f64s(v: __m256d) -> [f64; 4] {
        let mut a = [0.0; 4];
        // SAFETY: `a` is the 32 bytes an unaligned store writes (the machine has AVX2).
        unsafe { _mm256_storeu_pd(a.as_mut_ptr(), v) };
        a
    }

    /// Runs `wide` on `xs` eight at a time and checks each lane's bits against `scalar`'s;
    /// returns how many values it checked.
    fn check<const N: usize>(
        xs: impl IntoIterator<Item = f32>,
        wide: impl Fn(__m256) -> [__m256; N],
        scalar: impl Fn(f32) -> [f32; N],
        what: &str,
    ) -> usize {
        in_groups(xs, |lanes: &[f32; 8], filled| {
            let outs = wide(from_lanes(*lanes)).map(to_lanes);
            for (i, &x) in lanes.iter().enumerate().take(filled) {
                for (j, (out, want)) in outs.iter().zip(scalar(x)).enumerate() {
                    assert_eq!(
                        out[i].to_bits(),
                        want.to_bits(),
                        "{what}[{j}]({x:e}) ({:#x}) in lane {i}: {:e}, want {want:e}",
                        x.to_bits(),
                        out[i],
                    );
                }
            }
        })
    }

    /// Every `stride`th f32 bit pattern from 0 to `hi`, both signs, taken alternately from
    /// the two ends of that range, so that each group of eight holds values far apart.
    fn grid_from_both_ends(hi: f32, stride: u32) -> impl Iterator<Item = f32> {
        let count = hi.to_bits() / stride + 1;
        let at = move |i: u32| f32::from_bits(i * stride);
        (0..count.div_ceil(2)).flat_map(move |i| {
            let (a, b) = (at(i), at(count - 1 - i));
            [a, -b, -a, b]
        })
    }

    /// `v`'s values in groups of eight: every run of eight cyclically consecutive values, at
    /// several strides, so each value sits beside many others and in every lane.
    fn mixes<T: Copy>(v: &[T]) -> Vec<T> {
        let n = v.len();
        let gcd = |mut a: usize, mut b: usize| {
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a
        };
        let mut out = Vec::new();
        for step in [1, 3, 5, 7, 11].into_iter().filter(|&s| gcd(s, n) == 1) {
            for start in 0..n {
                out.extend((0..8).map(|k| v[(start + k * step) % n]));
            }
        }
        out
    }

    /// `x` and the f32s on either side of it.
    fn around(x: f32) -> [f32; 3] {
        [x.next_down(), x, x.next_up()]
    }

    fn check_acos(xs: impl IntoIterator<Item = f32>) -> usize {
        check(
            xs,
            // SAFETY: the machine has AVX2.
            |v| [unsafe { acos8(v) }],
            |x| [trig::acos(x)],
            "acos",
        )
    }

    #[test]
    fn acos8_matches_the_scalar_acos() {
        if !have_avx2() {
            return;
        }
        // Every 61st pattern in [−1, 1], both signs.
        let n = check_acos(grid_from_both_ends(1.0, 61));
        assert!(n > 34_000_000, "{n} arguments");
        let mut special = vec![f32::NAN, -f32::NAN, f32::INFINITY, -f32::INFINITY];
        special.extend([1.000_000_1, -1.5, 2.0, f32::MAX, f32::MIN_POSITIVE, 1.0e-45]);
        for x in [0.0, 1.0, 0.5, 2.0f32.powi(-26)] {
            special.extend(around(x));
            special.extend(around(-x));
        }
        special.extend([0.0, -0.0, 1.0, -1.0]);
        check_acos(special.iter().copied());
        check_acos(mixes(&special));
    }

    fn check_sin_cos(xs: impl IntoIterator<Item = f32>) -> usize {
        check(
            xs,
            |v| {
                // SAFETY: the machine has AVX2.
                let (s, c) = unsafe { sin_cos8(v) };
                [s, c]
            },
            |x| {
                let (s, c) = trig::sin_cos(x);
                [s, c]
            },
            "sin_cos",
        )
    }

    #[test]
    fn sin_cos8_matches_the_scalar_sin_cos() {
        if !have_avx2() {
            return;
        }
        let n = check_sin_cos(grid_from_both_ends(7.0, 23));
        assert!(n > 90_000_000, "{n} arguments");
        // Beyond 10⁵ too, where the library takes over.
        let n = check_sin_cos(grid_from_both_ends(2.0e6, 4093));
        assert!(n > 600_000, "{n} arguments");
        let mut special = vec![0.0, -0.0, f32::NAN, f32::INFINITY, -f32::INFINITY, 1.0e6];
        special.extend([f32::MAX, 1.0e-45, f32::MIN_POSITIVE, 1.0e-30]);
        special.extend(around(1.0e5));
        special.extend(around(-1.0e5));
        // Multiples of π/4 (the quadrant boundaries, and halfway between them: the ties of
        // the reduction's rounding), rounded both ways, with their neighbours.
        for k in -64..=64 {
            let x = k as f64 * std::f64::consts::FRAC_PI_4;
            special.extend(around(x as f32));
            special.extend(around(k as f32 * std::f32::consts::FRAC_PI_4));
        }
        check_sin_cos(special.iter().copied());
        check_sin_cos(mixes(&special));
    }

    /// Checks `sin_cos4` against `trig::sin_cos_f64` (`trig::sin_cos` before its rounding), bit
    /// for bit.
    #[test]
    fn sin_cos4_matches_trig_before_rounding() {
        if !have_avx2() {
            return;
        }
        let below_limit = 1.0e5f32.next_down();
        let xs = grid_from_both_ends(7.0, 29)
            .chain(grid_from_both_ends(below_limit, 1009))
            .chain(around(below_limit))
            .filter(|&x| x != 0.0 && x.abs() < 1.0e5);
        let n = in_groups(xs, |lanes: &[f32; 4], filled| {
            // SAFETY: the machine has AVX2.
            let (s, c) = unsafe { sin_cos4(from_f64s(lanes.map(f64::from))) };
            let (s, c) = (to_f64s(s), to_f64s(c));
            for (i, &x) in lanes.iter().enumerate().take(filled) {
                let want = trig::sin_cos_f64(x as f64);
                assert_eq!(
                    (s[i].to_bits(), c[i].to_bits()),
                    (want.0.to_bits(), want.1.to_bits()),
                    "sin_cos4({x:e}) in lane {i}: {:?}, want {want:?}",
                    (s[i], c[i])
                );
                // `trig`'s result is the f64 stage rounded.
                assert_eq!((want.0 as f32, want.1 as f32), trig::sin_cos(x));
            }
        });
        assert!(n > 75_000_000, "{n} arguments");
    }

    /// Pairs whose ratio lies on or beside a switch of the scalar code: |y| = |x| (which
    /// operand divides), and atan_unit's breakpoints 0.4375 and 0.6875, in all quadrants,
    /// either way round, at several scales (subnormal included).
    fn switch_pairs() -> Vec<(f32, f32)> {
        let signs = [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)];
        let mut pairs = Vec::new();
        for base in [1.0f32, 3.0, 0.1, 7.0e-20, 5.0e25, 1.0e-40] {
            for ratio in [1.0f32, 0.4375, 0.6875] {
                for (y, x) in around(base * ratio)
                    .map(|y| (y, base))
                    .into_iter()
                    .chain(around(base).map(|x| (base * ratio, x)))
                {
                    for (sy, sx) in signs {
                        pairs.push((sy * y, sx * x));
                        pairs.push((sx * x, sy * y));
                    }
                }
            }
        }
        // Dense sweeps of the ratio across each switch.
        let mut quadrant = 0;
        for ratio in [1.0f32, 0.4375, 0.6875] {
            for x in [1.0f32, 1.1, 1.5, 1.9, 123.4] {
                for d in -2000..=2000 {
                    let y = f32::from_bits((x * ratio).to_bits().wrapping_add_signed(d));
                    let (sy, sx) = signs[quadrant % 4];
                    quadrant += 1;
                    pairs.push((sy * y, sx * x));
                    pairs.push((sx * x, sy * y));
                }
            }
        }
        pairs
    }

    fn check_atan2(pairs: impl IntoIterator<Item = (f32, f32)>) -> usize {
        in_groups(pairs, |lanes: &[(f32, f32); 8], filled| {
            let (ys, xs) = (lanes.map(|p| p.0), lanes.map(|p| p.1));
            // SAFETY: the machine has AVX2.
            let got = to_lanes(unsafe { atan2_8(from_lanes(ys), from_lanes(xs)) });
            for (i, &(y, x)) in lanes.iter().enumerate().take(filled) {
                let want = trig::atan2(y, x);
                assert_eq!(
                    got[i].to_bits(),
                    want.to_bits(),
                    "atan2({y:e}, {x:e}) ({:#x}, {:#x}) in lane {i}: {:e}, want {want:e}",
                    y.to_bits(),
                    x.to_bits(),
                    got[i]
                );
            }
        })
    }

    #[test]
    fn atan2_8_matches_the_scalar_atan2() {
        if !have_avx2() {
            return;
        }
        assert_eq!(check_atan2(trig::random_pairs(4_000_000)), 4_000_000);
        // Every pair of specials, each beside many others.
        let mut special = trig::ATAN2_SPECIAL_OPERANDS.to_vec();
        special.extend([1.0e-45, -1.0e-45, f32::from_bits(0x0000_0123)]);
        special.extend([f32::MIN_POSITIVE, f32::MAX, -f32::MAX, 3.0]);
        let pairs: Vec<_> = special
            .iter()
            .flat_map(|&y| special.iter().map(move |&x| (y, x)))
            .collect();
        check_atan2(mixes(&pairs));
        let switches = switch_pairs();
        check_atan2(switches.iter().copied());
        check_atan2(switches.iter().skip(3).copied()); // in other lanes
    }

    /// Checks `atan2_4` against `trig::atan2_f64` (`trig::atan2` before its rounding), bit for
    /// bit.
    #[test]
    fn atan2_4_matches_trig_before_rounding() {
        if !have_avx2() {
            return;
        }
        let ordinary = |&(y, x): &(f32, f32)| {
            let finite_nonzero = |v: f32| v != 0.0 && v.is_finite();
            finite_nonzero(y) && finite_nonzero(x)
        };
        let pairs = trig::random_pairs(4_000_000)
            .chain(switch_pairs())
            .filter(ordinary);
        let n = in_groups(pairs, |lanes: &[(f32, f32); 4], filled| {
            let (ys, xs) = (lanes.map(|p| p.0 as f64), lanes.map(|p| p.1 as f64));
            // SAFETY: the machine has AVX2.
            let got = to_f64s(unsafe { atan2_4(from_f64s(ys), from_f64s(xs)) });
            for (i, &(y, x)) in lanes.iter().enumerate().take(filled) {
                let want = trig::atan2_f64(y as f64, x as f64);
                assert_eq!(
                    got[i].to_bits(),
                    want.to_bits(),
                    "atan2_4({y:e}, {x:e}) in lane {i}: {:e}, want {want:e}",
                    got[i]
                );
                // `trig`'s result is the f64 stage rounded.
                assert_eq!((want as f32).to_bits(), trig::atan2(y, x).to_bits());
            }
        });
        assert!(n > 4_000_000, "{n} pairs");
    }
}
