//! The AVX2 + FMA kernel for linear (BDEF) vertices: two neighbouring vertices at a time, one
//! in each 128-bit lane of a 256-bit register, so blending matrices and transforming the
//! position and normal take half the instructions of the one-vertex kernel. A pair blends as
//! many matrices as the larger of its two vertices needs (1, 2 or 4; unused slots have weight
//! 0). SDEF, QDEF, and a linear vertex whose neighbour is not linear go through the portable
//! kernel.

use super::{Ctx, portable};
use crate::mesh::Kind;
use glam::{Affine3A, Vec3A};
use std::arch::x86_64::*;

/// Skin one range (see `portable::skin` for `IN_PLACE`).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[target_feature(enable = "avx2,fma")]
pub(super) unsafe fn skin<const IN_PLACE: bool>(
    ctx: &Ctx,
    rest: &[[f32; 3]],
    pos: &mut [[f32; 3]],
    nrm: &mut [[f32; 3]],
) {
    let len = pos.len();
    assert!(
        ctx.kinds.len() >= len
            && ctx.skin.len() >= len
            && ctx.normals.len() >= len
            && nrm.len() >= len
            && (IN_PLACE || rest.len() >= len)
    );
    let src = if IN_PLACE {
        pos.as_ptr()
    } else {
        rest.as_ptr()
    };
    let mut i = 0;
    while i < len {
        if i + 1 < len
            && let (Some(a), Some(b)) = (slots(ctx.kinds[i]), slots(ctx.kinds[i + 1]))
        {
            // SAFETY: i + 1 < len, and every slice holds at least len vertices (asserted).
            unsafe {
                let (s, p, n) = (src.add(i), pos.as_mut_ptr().add(i), nrm.as_mut_ptr().add(i));
                match a.max(b) {
                    1 => pair::<1>(ctx, i, s, p, n),
                    2 => pair::<2>(ctx, i, s, p, n),
                    _ => pair::<4>(ctx, i, s, p, n),
                }
            }
            i += 2;
            continue;
        }
        let p = Vec3A::from_array(if IN_PLACE { pos[i] } else { rest[i] });
        let (p, n) = portable::vertex(ctx, i, p);
        pos[i] = p.to_array();
        nrm[i] = n.to_array();
        i += 1;
    }
}

/// How many matrices a linear vertex blends; `None` for SDEF and QDEF.
#[inline(always)]
fn slots(k: Kind) -> Option<usize> {
    match k {
        Kind::Linear1 => Some(1),
        Kind::Linear2 => Some(2),
        Kind::Linear4 => Some(4),
        Kind::Sdef | Kind::Qdef => None,
    }
}

/// Two [f32; 3] at `p` as one register: vertex 0 in the low lane, vertex 1 in the high lane
/// (the fourth float of each lane is junk). Reads exactly the 24 bytes of the two vertices.
#[inline(always)]
unsafe fn load_pair(p: *const [f32; 3]) -> __m256 {
    unsafe {
        let f = p as *const f32;
        let lo = _mm_loadu_ps(f); // x0 y0 z0 x1
        let hi = _mm_loadu_ps(f.add(2)); // z0 x1 y1 z1
        let hi = _mm_shuffle_ps::<0b11_11_10_01>(hi, hi); // x1 y1 z1 z1
        _mm256_set_m128(hi, lo)
    }
}

/// Store the xyz of each lane as two consecutive [f32; 3] (24 bytes, nothing past them).
#[inline(always)]
unsafe fn store_pair(p: *mut [f32; 3], v: __m256) {
    unsafe {
        let f = p as *mut f32;
        let lo = _mm256_castps256_ps128(v); // x0 y0 z0 _
        let hi = _mm256_extractf128_ps::<1>(v); // x1 y1 z1 _
        let first = _mm_blend_ps::<0b1000>(lo, _mm_shuffle_ps::<0>(hi, hi)); // x0 y0 z0 x1
        _mm_storeu_ps(f, first);
        let last = _mm_shuffle_ps::<0b11_11_10_01>(hi, hi); // y1 z1 _ _
        _mm_store_sd(f.add(4) as *mut f64, _mm_castps_pd(last));
    }
}

/// Column `c` of two bones' matrices, one per lane.
#[inline(always)]
fn columns(a: &Affine3A, b: &Affine3A) -> [__m256; 4] {
    let col = |x: Vec3A, y: Vec3A| unsafe { _mm256_set_m128(y.into(), x.into()) };
    [
        col(a.matrix3.x_axis, b.matrix3.x_axis),
        col(a.matrix3.y_axis, b.matrix3.y_axis),
        col(a.matrix3.z_axis, b.matrix3.z_axis),
        col(a.translation, b.translation),
    ]
}

/// Weight `k` of each vertex, broadcast across its lane.
#[inline(always)]
unsafe fn weight(w: __m256, k: usize) -> __m256 {
    unsafe {
        match k {
            0 => _mm256_permute_ps::<0x00>(w),
            1 => _mm256_permute_ps::<0x55>(w),
            2 => _mm256_permute_ps::<0xAA>(w),
            _ => _mm256_permute_ps::<0xFF>(w),
        }
    }
}

/// Skin vertices `i` and `i + 1`, both linear, blending `N` matrices each.
#[inline(always)]
unsafe fn pair<const N: usize>(
    ctx: &Ctx,
    i: usize,
    src: *const [f32; 3],
    pos: *mut [f32; 3],
    nrm: *mut [f32; 3],
) {
    unsafe {
        let (sa, sb) = (&ctx.skin[i], &ctx.skin[i + 1]);
        // SAFETY: every bone index of a compiled linear record is < bone_count.max(1), and
        // `crate::bones` checked that `ctx.bones` is at least that long.
        let bone = |b: u32| ctx.bones.get_unchecked(b as usize);
        let mut m = columns(bone(sa.bones[0]), bone(sb.bones[0]));
        if N > 1 {
            let w = _mm256_set_m128(
                _mm_loadu_ps(sb.weights.as_ptr()),
                _mm_loadu_ps(sa.weights.as_ptr()),
            );
            let w0 = weight(w, 0);
            for c in &mut m {
                *c = _mm256_mul_ps(*c, w0);
            }
            for k in 1..N {
                let next = columns(bone(sa.bones[k]), bone(sb.bones[k]));
                let wk = weight(w, k);
                for (c, n) in m.iter_mut().zip(next) {
                    *c = _mm256_fmadd_ps(n, wk, *c);
                }
            }
        }
        let [mx, my, mz, mt] = m;
        let p = load_pair(src);
        let p = _mm256_fmadd_ps(
            mx,
            _mm256_permute_ps::<0x00>(p),
            _mm256_fmadd_ps(
                my,
                _mm256_permute_ps::<0x55>(p),
                _mm256_fmadd_ps(mz, _mm256_permute_ps::<0xAA>(p), mt),
            ),
        );
        let n = load_pair(ctx.normals.as_ptr().add(i));
        let n = _mm256_fmadd_ps(
            mx,
            _mm256_permute_ps::<0x00>(n),
            _mm256_fmadd_ps(
                my,
                _mm256_permute_ps::<0x55>(n),
                _mm256_mul_ps(mz, _mm256_permute_ps::<0xAA>(n)),
            ),
        );
        // Unit normal, or zero where the blend gave a zero vector.
        let len = _mm256_sqrt_ps(_mm256_dp_ps::<0x7F>(n, n));
        let nonzero = _mm256_cmp_ps::<_CMP_GT_OQ>(len, _mm256_setzero_ps());
        let n = _mm256_and_ps(_mm256_div_ps(n, len), nonzero);
        store_pair(pos, p);
        store_pair(nrm, n);
    }
}
