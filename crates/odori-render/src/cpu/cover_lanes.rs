//! The coverage and depth test of one pixel's four MSAA samples in AVX2 lanes (chosen at run
//! time where the CPU has it): the scalar loop of `Ctx::band` one sample a lane, with the same
//! integers, the same roundings to `f32` and the same float operations, so the same mask and
//! depths.

use super::raster::Tri;
use std::arch::x86_64::*;

/// Whether this CPU has AVX2.
pub(super) fn available() -> bool {
    is_x86_feature_detected!("avx2")
}

/// The samples of a pixel whose edge values are `e0[i] + off[i][k]` (edge `i`, sample `k`):
/// bit `k` set where sample `k` is inside all three edges and its depth passes `LessEqual`
/// against `depth[k]`; its depth is then in `zs[k]` (the other lanes hold what they hold).
///
/// # Safety
/// The CPU must have AVX2 ([`available`]); `depth` holds at least four values.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn samples4(
    tri: &Tri,
    e0: [i64; 3],
    off: &[[i64; 4]; 3],
    depth: &[f32],
    zs: &mut [f32; 4],
) -> u8 {
    debug_assert!(depth.len() >= 4);
    // SAFETY: AVX2 is enabled on this function; the loads and the store read and write four
    // lanes of arrays that have four, and of `depth`, which the caller gives four.
    unsafe {
        let e: [__m256i; 3] = std::array::from_fn(|i| {
            let o = _mm256_loadu_si256(off[i].as_ptr() as *const __m256i);
            _mm256_add_epi64(_mm256_set1_epi64x(e0[i]), o)
        });
        // A sample is outside when some edge value is negative: the sign bit of their `or`.
        let any_negative = _mm256_or_si256(_mm256_or_si256(e[0], e[1]), e[2]);
        let inside = !_mm256_movemask_pd(_mm256_castsi256_pd(any_negative)) as u8 & 0xf;
        if inside == 0 {
            return 0;
        }
        // `as f32` of an i64: exact to f64 (2^52 + 2^51 added in the integer bits, then
        // subtracted; exact for |v| < 2^51, and an edge value inside a triangle in the guard
        // band is below 2^45), then one rounding to f32, as the scalar conversion rounds once.
        let to_f32 = |v: __m256i| {
            let magic = _mm256_set1_epi64x(0x4338_0000_0000_0000);
            let exact = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_add_epi64(v, magic)),
                _mm256_set1_pd(6_755_399_441_055_744.0),
            );
            _mm256_cvtpd_ps(exact)
        };
        // `Tri::depth`: z0 + l1·(z1 − z0) + l2·(z2 − z0), in that order.
        let inv_area = _mm_set1_ps(tri.inv_area);
        let l1 = _mm_mul_ps(to_f32(e[1]), inv_area);
        let l2 = _mm_mul_ps(to_f32(e[2]), inv_area);
        let z = _mm_add_ps(
            _mm_add_ps(
                _mm_set1_ps(tri.z[0]),
                _mm_mul_ps(l1, _mm_set1_ps(tri.z[1] - tri.z[0])),
            ),
            _mm_mul_ps(l2, _mm_set1_ps(tri.z[2] - tri.z[0])),
        );
        // `z <= stored`: false where either is NaN, as in the scalar comparison.
        let pass = _mm_movemask_ps(_mm_cmple_ps(z, _mm_loadu_ps(depth.as_ptr()))) as u8;
        _mm_storeu_ps(zs.as_mut_ptr(), z);
        inside & pass
    }
}
