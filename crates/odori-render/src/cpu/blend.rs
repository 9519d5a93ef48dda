//! Colour into an RGBA8 sample: the blend state every pass of the main pass uses.

use glam::Vec4;

/// RGBA8 packed little-endian.
pub(super) fn pack(c: [u8; 4]) -> u32 {
    u32::from_le_bytes(c)
}

pub(super) fn to_u8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0 + 0.5) as u8
}

/// `SrcAlpha, OneMinusSrcAlpha` for colour, `One, OneMinusSrcAlpha` for alpha, in 8 bits.
#[inline(always)]
pub(super) fn blend(dst: u32, src: Vec4) -> u32 {
    let a = src.w.clamp(0.0, 1.0);
    if a >= 1.0 {
        return pack([to_u8(src.x), to_u8(src.y), to_u8(src.z), 255]);
    }
    let d = dst.to_le_bytes();
    let k = 1.0 - a;
    let ch = |s: f32, d: u8| to_u8(s.clamp(0.0, 1.0) * a + d as f32 * (1.0 / 255.0) * k);
    pack([
        ch(src.x, d[0]),
        ch(src.y, d[1]),
        ch(src.z, d[2]),
        to_u8(a + d[3] as f32 * (1.0 / 255.0) * k),
    ])
}

/// 加算合成, an additive material's blend: `SrcAlpha, One` for colour (saturating at white),
/// `One, OneMinusSrcAlpha` for alpha, in 8 bits. Rare (accessories marked additive), so one
/// spelling serves both shading paths.
pub(super) fn blend_add(dst: u32, src: Vec4) -> u32 {
    let a = src.w.clamp(0.0, 1.0);
    let d = dst.to_le_bytes();
    let ch = |s: f32, d: u8| to_u8(s.clamp(0.0, 1.0) * a + d as f32 * (1.0 / 255.0));
    pack([
        ch(src.x, d[0]),
        ch(src.y, d[1]),
        ch(src.z, d[2]),
        to_u8(a + d[3] as f32 * (1.0 / 255.0) * (1.0 - a)),
    ])
}

/// [`blend`] with the four channels in the lanes of one SSE2 register (x86-64's baseline: no
/// detection needed), the same operations in the same order per channel, so the same bytes:
/// the alpha channel's `a + d·k` is `1·a + d·k` with a source lane of 1, and the clamps are
/// ordered so that a NaN stays NaN (and becomes 0, as `as u8` makes it) like `f32::clamp`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn blend_lanes(dst: u32, src: Vec4) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of every x86-64 target; these intrinsics only touch registers.
    unsafe {
        let zero = _mm_setzero_ps();
        let one = _mm_set1_ps(1.0);
        // `maxps`/`minps` return their second operand when either is NaN.
        let clamp = |v: __m128| _mm_min_ps(one, _mm_max_ps(zero, v));
        let bytes = |v: __m128| {
            let i = _mm_cvttps_epi32(_mm_add_ps(
                _mm_mul_ps(clamp(v), _mm_set1_ps(255.0)),
                _mm_set1_ps(0.5),
            ));
            let i = _mm_packs_epi32(i, i);
            _mm_cvtsi128_si32(_mm_packus_epi16(i, i)) as u32
        };
        let s = _mm_set_ps(1.0, src.z, src.y, src.x);
        let a = src.w.clamp(0.0, 1.0);
        if a >= 1.0 {
            return bytes(s);
        }
        let d = _mm_cvtsi32_si128(dst as i32);
        let d = _mm_unpacklo_epi16(
            _mm_unpacklo_epi8(d, _mm_setzero_si128()),
            _mm_setzero_si128(),
        );
        let d = _mm_mul_ps(_mm_cvtepi32_ps(d), _mm_set1_ps(1.0 / 255.0));
        let mixed = _mm_add_ps(
            _mm_mul_ps(clamp(s), _mm_set1_ps(a)),
            _mm_mul_ps(d, _mm_set1_ps(1.0 - a)),
        );
        bytes(mixed)
    }
}

/// Elsewhere the channels are blended one at a time (the interpolation stays in lanes).
#[cfg(not(target_arch = "x86_64"))]
pub(super) use blend as blend_lanes;

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes give the scalar blend's bytes, bit for bit: every destination byte pattern
    /// family against sources inside, at and outside [0, 1], NaN and infinities included.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn lanes_equal_the_scalar_blend() {
        let mut x = 0x2545_f491u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        let specials = [
            0.0,
            -0.0,
            1.0,
            0.5,
            1.0 / 255.0,
            -0.25,
            1.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        let mut checked = 0;
        for round in 0..200_000 {
            let dst = next();
            let mut lane = || {
                let r = next();
                if r % 7 == 0 {
                    specials[(r / 7) as usize % specials.len()]
                } else {
                    (r >> 8) as f32 / (1u32 << 24) as f32 * 1.2 - 0.1
                }
            };
            let mut src = Vec4::new(lane(), lane(), lane(), lane());
            if round % 5 == 0 {
                src.w = 1.0;
            }
            assert_eq!(blend_lanes(dst, src), blend(dst, src), "{dst:08x} {src}");
            checked += 1;
        }
        assert_eq!(checked, 200_000);
    }
}
