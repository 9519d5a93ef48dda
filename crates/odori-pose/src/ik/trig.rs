//! Sine, cosine and arc-tangent of f32 arguments, evaluated in f64 and rounded to f32 (as
//! MMD's runtime evaluates them), and the f32 arc-cosine, inline.
//!
//! Any two f64 evaluations accurate to a couple of ulps round to the same f32, except when
//! the exact value lies within those ulps of a point halfway between two f32s, about one
//! argument in 10⁸. These are accurate to about one ulp (polynomials on a reduced argument
//! with the minimax coefficients of Sun's fdlibm kernels), and the tests check that they give
//! the platform's f32 on dense grids. What they save is the call: a leg solve makes about
//! eighty of each, and the library routines handle every range of argument with branches.
//!
//! The constants and the f64 stages (`sin_cos_f64`, `atan2_f64`) are the module's own, and
//! `trig_wide`'s eight-lane forms use them from here.

// The constants are printed to 21 digits, as fdlibm prints them; each parses to the double
// it names.
#![allow(clippy::excessive_precision)]

/// π/2 in two parts: the first has 33 significant bits, so k × it is exact for small k.
pub(super) const PIO2_HI: f64 = 1.570_796_326_734_125_614_17e0;
pub(super) const PIO2_LO: f64 = 6.077_100_506_506_192_249_32e-11;
pub(super) const FRAC_2_PI: f64 = std::f64::consts::FRAC_2_PI;

/// Beyond this the reduction by one multiple of π/2 loses accuracy; the library handles it.
pub(super) const REDUCE_LIMIT: f64 = 1.0e5;

/// 1.5 × 2⁵², for `round_to_even`: added to |y| < 2⁵¹, it leaves no fraction bits.
pub(super) const ROUND_SHIFT: f64 = 6_755_399_441_055_744.0;

/// fdlibm's `__kernel_sin` coefficients S1 to S6.
pub(super) const SIN_COEFFICIENTS: [f64; 6] = [
    -1.666_666_666_666_663_243_48e-01,
    8.333_333_333_322_489_461_24e-03,
    -1.984_126_982_985_794_931_34e-04,
    2.755_731_370_707_006_767_89e-06,
    -2.505_076_025_340_686_341_95e-08,
    1.589_690_995_211_550_102_21e-10,
];

/// fdlibm's `__kernel_cos` coefficients C1 to C6.
pub(super) const COS_COEFFICIENTS: [f64; 6] = [
    4.166_666_666_666_660_190_37e-02,
    -1.388_888_888_887_410_957_49e-03,
    2.480_158_728_947_672_941_78e-05,
    -2.755_731_435_139_066_330_35e-07,
    2.087_572_321_298_174_827_90e-09,
    -1.135_964_755_778_819_482_65e-11,
];

/// `y` rounded to the nearest integer, ties to even, for |y| < 2⁵¹: adding 1.5 × 2⁵² leaves
/// no fraction bits, so the sum rounds (without a library call, which `f64::round` is on the
/// x86-64 baseline).
#[inline(always)]
fn round_to_even(y: f64) -> f64 {
    (y + ROUND_SHIFT) - ROUND_SHIFT
}

/// sin(r) for |r| ≤ π/4 (fdlibm's `__kernel_sin` coefficients).
#[inline(always)]
fn sin_kernel(r: f64) -> f64 {
    let [s1, s2, s3, s4, s5, s6] = SIN_COEFFICIENTS;
    let z = r * r;
    let p = s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)));
    r + r * z * (s1 + z * p)
}

/// cos(r) for |r| ≤ π/4 (fdlibm's `__kernel_cos` coefficients and its rounding care).
#[inline(always)]
fn cos_kernel(r: f64) -> f64 {
    let [c1, c2, c3, c4, c5, c6] = COS_COEFFICIENTS;
    let z = r * r;
    let p = z * z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))));
    let half = 0.5 * z;
    let w = 1.0 - half;
    w + (((1.0 - w) - half) + p)
}

/// The f32 sine and cosine the IK takes from a library (the turn about an axis by an angle,
/// as glam builds it), from the `libm` crate on every target. The platform's own differ by
/// an ulp on some arguments (glibc natively, compiler-builtins' port in wasm32), and that ulp
/// grows through a leg solve to a hundredth of a unit: a web page must pose as the command
/// line does.
#[inline]
pub(crate) fn lib_sin_cos(x: f32) -> (f32, f32) {
    (libm::sinf(x), libm::cosf(x))
}

/// The f32 arc-sine of the Euler limits' middle angle, from `libm` for the same reason.
#[inline]
pub(super) fn lib_asin(x: f32) -> f32 {
    libm::asinf(x)
}

/// (sin x, cos x) in f64, rounded to f32.
#[inline]
pub(super) fn sin_cos(x: f32) -> (f32, f32) {
    if x == 0.0 {
        return (x, 1.0); // exact, sign of zero included
    }
    let x = x as f64;
    if x.is_nan() || x.abs() >= REDUCE_LIMIT {
        let (s, c) = (libm::sin(x), libm::cos(x));
        return (s as f32, c as f32);
    }
    let (s, c) = sin_cos_f64(x);
    (s as f32, c as f32)
}

/// (sin x, cos x) in f64 for finite nonzero |x| < `REDUCE_LIMIT`: `sin_cos` before its
/// rounding to f32 (one reduction by π/2, the kernels, the quadrant).
#[inline(always)]
pub(super) fn sin_cos_f64(x: f64) -> (f64, f64) {
    let k = round_to_even(x * FRAC_2_PI);
    let r = (x - k * PIO2_HI) - k * PIO2_LO;
    let (s, c) = (sin_kernel(r), cos_kernel(r));
    match (k as i64) & 3 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// fdlibm's `atan` coefficients aT[0] to aT[10].
pub(super) const ATAN_COEFFICIENTS: [f64; 11] = [
    3.333_333_333_333_293_180_27e-01,
    -1.999_999_999_987_648_324_76e-01,
    1.428_571_427_250_346_637_11e-01,
    -1.111_111_040_546_235_578_80e-01,
    9.090_887_133_436_506_561_96e-02,
    -7.691_876_205_044_829_994_95e-02,
    6.661_073_137_387_531_206_69e-02,
    -5.833_570_133_790_573_486_45e-02,
    4.976_877_994_615_932_360_17e-02,
    -3.653_157_274_421_691_552_70e-02,
    1.628_582_011_536_578_236_23e-02,
];

/// atan of `atan_unit`'s breakpoints 0.5 and 1, in two parts each: atan(0.5) as (head, tail).
pub(super) const ATAN_HALF: (f64, f64) = (
    4.636_476_090_008_060_935_15e-01,
    2.269_877_745_296_168_709_24e-17,
);
/// atan(1) = π/4 as (head, tail).
pub(super) const ATAN_ONE: (f64, f64) = (
    std::f64::consts::FRAC_PI_4,
    3.061_616_997_868_383_017_93e-17,
);

/// π/2 as (the nearest double, the remainder), for `atan2`.
pub(super) const ATAN2_PIO2: (f64, f64) =
    (std::f64::consts::FRAC_PI_2, 6.123_233_995_736_766_036e-17);
/// π as (the nearest double, the remainder), for `atan2`.
pub(super) const ATAN2_PI: (f64, f64) = (std::f64::consts::PI, 1.224_646_799_147_353_207e-16);

/// atan(t) for 0 ≤ t ≤ 1: fdlibm's breakpoints and polynomial.
#[inline(always)]
fn atan_unit(t: f64) -> f64 {
    let at = ATAN_COEFFICIENTS;
    let (base, t) = if t < 0.4375 {
        (None, t)
    } else if t < 0.6875 {
        (Some(ATAN_HALF), (2.0 * t - 1.0) / (2.0 + t))
    } else {
        (Some(ATAN_ONE), (t - 1.0) / (t + 1.0))
    };
    let z = t * t;
    let w = z * z;
    let s1 = z * (at[0] + w * (at[2] + w * (at[4] + w * (at[6] + w * (at[8] + w * at[10])))));
    let s2 = w * (at[1] + w * (at[3] + w * (at[5] + w * (at[7] + w * at[9]))));
    match base {
        None => t - t * (s1 + s2),
        Some((hi, lo)) => hi - ((t * (s1 + s2) - lo) - t),
    }
}

/// atan2(y, x) in f64, rounded to f32.
#[inline]
pub(super) fn atan2(y: f32, x: f32) -> f32 {
    let (yd, xd) = (y as f64, x as f64);
    let (ay, ax) = (yd.abs(), xd.abs());
    // Zeros, infinities and NaNs: the library's conventions.
    if !(ay > 0.0 && ax > 0.0 && ay.is_finite() && ax.is_finite()) {
        return libm::atan2(yd, xd) as f32;
    }
    atan2_f64(yd, xd) as f32
}

/// atan2(y, x) in f64 for finite nonzero `y` and `x`: `atan2` before its rounding to f32.
#[inline(always)]
pub(super) fn atan2_f64(y: f64, x: f64) -> f64 {
    let (ay, ax) = (y.abs(), x.abs());
    // The angle of (|x|, |y|) in [0, π/2], from the smaller over the larger.
    let first = if ay <= ax {
        atan_unit(ay / ax)
    } else {
        ATAN2_PIO2.0 - (atan_unit(ax / ay) - ATAN2_PIO2.1)
    };
    let angle = if x > 0.0 {
        first
    } else {
        ATAN2_PI.0 - (first - ATAN2_PI.1)
    };
    if y < 0.0 { -angle } else { angle }
}

/// fdlibm's `__ieee754_acosf` constants: π, and π/2 in two parts (π and the head are rounded
/// down, not to nearest, as fdlibm has them).
pub(super) const ACOS_PI: f32 = f32::from_bits(0x4049_0fda);
pub(super) const ACOS_PIO2_HI: f32 = f32::from_bits(0x3fc9_0fda);
pub(super) const ACOS_PIO2_LO: f32 = f32::from_bits(0x33a2_2168);

/// The bits of fdlibm's `acosf` numerator coefficients pS0 to pS5.
pub(super) const ACOS_P_BITS: [u32; 6] = [
    0x3e2a_aaab,
    0xbea6_b090,
    0x3e4e_0aa8,
    0xbd24_1146,
    0x3a4f_7f04,
    0x3811_ef08,
];
/// The bits of fdlibm's `acosf` denominator coefficients qS1 to qS4.
pub(super) const ACOS_Q_BITS: [u32; 4] = [0xc019_d139, 0x4001_572d, 0xbf30_3361, 0x3d9d_c62e];

/// acos(x) for f32 `x`, in f32 arithmetic: Sun's fdlibm `__ieee754_acosf` (its branches,
/// coefficients and operation order), the routine glibc's `acosf` runs, so results are those
/// of the library call on such platforms, and the same on every platform; inline, a step
/// (one arc-cosine each) makes no library call. Error below one ulp; NaN for NaN and |x| > 1.
#[inline]
pub(super) fn acos(x: f32) -> f32 {
    /// fdlibm's rational approximation p(z) / q(z) of asin(√z) / √z − 1.
    #[inline(always)]
    fn ratio(z: f32) -> f32 {
        let [p0, p1, p2, p3, p4, p5] = ACOS_P_BITS.map(f32::from_bits);
        let [q1, q2, q3, q4] = ACOS_Q_BITS.map(f32::from_bits);
        let p = z * (p0 + z * (p1 + z * (p2 + z * (p3 + z * (p4 + z * p5)))));
        let q = 1.0 + z * (q1 + z * (q2 + z * (q3 + z * q4)));
        p / q
    }
    let bits = x.to_bits();
    let magnitude = bits & 0x7fff_ffff;
    if magnitude >= 0x3f80_0000 {
        return if magnitude > 0x3f80_0000 {
            f32::NAN // |x| > 1 or NaN
        } else if bits == 0x3f80_0000 {
            0.0
        } else {
            ACOS_PI + 2.0 * ACOS_PIO2_LO
        };
    }
    if magnitude < 0x3f00_0000 {
        // |x| < 0.5: π/2 − asin(x).
        if magnitude <= 0x3280_0000 {
            // |x| ≤ 2⁻²⁶: π/2 to f32 precision.
            return ACOS_PIO2_HI + ACOS_PIO2_LO;
        }
        let r = ratio(x * x);
        return ACOS_PIO2_HI - (x - (ACOS_PIO2_LO - x * r));
    }
    if x < 0.0 {
        // x ≤ −0.5: π − 2 asin(√((1 + x) / 2)).
        let z = (1.0 + x) * 0.5;
        let s = z.sqrt();
        let w = ratio(z) * s - ACOS_PIO2_LO;
        return ACOS_PI - 2.0 * (s + w);
    }
    // x ≥ 0.5: 2 asin(√((1 − x) / 2)), √ split into a head of 12 bits and a correction.
    let z = (1.0 - x) * 0.5;
    let s = z.sqrt();
    let head = f32::from_bits(s.to_bits() & 0xffff_f000);
    let c = (z - head * head) / (s + head);
    2.0 * (head + (ratio(z) * s + c))
}

/// `count` pairs (y, x) of f32s spread over every ratio and quadrant, as matrix entries give
/// them (from a fixed xorshift sequence): arguments for the tests of `atan2` and its forms.
#[cfg(test)]
pub(super) fn random_pairs(count: usize) -> impl Iterator<Item = (f32, f32)> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count).map(move |_| {
        let r = next();
        let scale = |bits: u64| f32::from_bits(0x3000_0000 + (bits as u32 % 0x1000_0000));
        let (mut y, mut x) = (scale(r), scale(r >> 32));
        if r & 1 != 0 {
            y = -y;
        }
        if r & 2 != 0 {
            x = -x;
        }
        (y, x)
    })
}

/// Zeros, infinities, NaN and ±1: operands the tests of `atan2` and its forms pair with each
/// other.
#[cfg(test)]
pub(super) const ATAN2_SPECIAL_OPERANDS: [f32; 7] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    f32::INFINITY,
    -f32::INFINITY,
    f32::NAN,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every f32 in [lo, hi] with the given stride of bit patterns (both signs).
    fn grid(hi: f32, stride: u32) -> impl Iterator<Item = f32> {
        (0..=hi.to_bits())
            .step_by(stride as usize)
            .map(f32::from_bits)
            .flat_map(|x| [x, -x])
    }

    #[test]
    fn sin_cos_round_like_the_library() {
        let mut n = 0;
        for x in grid(7.0, 97).chain(grid(1.0e4, 9973)) {
            let want = (x as f64).sin_cos();
            assert_eq!(
                sin_cos(x),
                (want.0 as f32, want.1 as f32),
                "sin_cos({x:e}) ({:#x})",
                x.to_bits()
            );
            n += 1;
        }
        assert!(n > 20_000_000, "{n} arguments");
        for x in [f32::INFINITY, f32::NAN, 1.0e6, 0.0, -0.0] {
            let (s, c) = sin_cos(x);
            let want = (x as f64).sin_cos();
            assert_eq!(s.to_bits(), (want.0 as f32).to_bits(), "sin {x}");
            assert_eq!(c.to_bits(), (want.1 as f32).to_bits(), "cos {x}");
        }
    }

    #[test]
    fn acos_is_within_an_ulp_of_the_true_value() {
        // Every 7th f32 in [−1, 1]; compared with the f64 arc-cosine rounded to f32.
        let mut n = 0;
        for x in grid(1.0, 7) {
            let got = acos(x);
            let want = (x as f64).acos() as f32;
            let ulps = (got.to_bits() as i64 - want.to_bits() as i64).abs();
            assert!(ulps <= 1, "acos({x:e}) = {got:e}, want {want:e}");
            n += 1;
        }
        assert!(n > 300_000_000, "{n} arguments");
        assert_eq!(acos(1.0).to_bits(), 0.0f32.to_bits());
        assert_eq!(acos(-1.0), std::f32::consts::PI);
        assert_eq!(acos(0.0), std::f32::consts::FRAC_PI_2);
        for x in [f32::NAN, 1.000_001, -1.5, f32::INFINITY] {
            assert!(acos(x).is_nan(), "acos({x})");
        }
    }

    #[test]
    fn atan2_rounds_like_the_library() {
        for (y, x) in random_pairs(4_000_000) {
            let want = (y as f64).atan2(x as f64) as f32;
            assert_eq!(atan2(y, x).to_bits(), want.to_bits(), "atan2({y:e}, {x:e})");
        }
        let special = ATAN2_SPECIAL_OPERANDS;
        for y in special {
            for x in special {
                let want = (y as f64).atan2(x as f64) as f32;
                assert_eq!(atan2(y, x).to_bits(), want.to_bits(), "atan2({y}, {x})");
            }
        }
    }
}
