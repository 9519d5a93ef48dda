//! The portable kernel: one vertex at a time with glam's SIMD types (SSE2 `Vec3A`/`Affine3A`
//! on x86-64, NEON on aarch64). It skins every vertex where AVX2 is missing, and SDEF and
//! QDEF vertices everywhere.

use super::Ctx;
use crate::math::{rotation as quat, slerp};
use crate::mesh::{Kind, SdefTerms, Skin};
use glam::{Affine3A, Mat3A, Quat, Vec3A, Vec4};

/// Skin one range. `IN_PLACE`: the (morphed) input positions are already in `pos`;
/// otherwise they are read from `rest`.
#[inline(always)]
pub(super) fn skin<const IN_PLACE: bool>(
    ctx: &Ctx,
    rest: &[[f32; 3]],
    pos: &mut [[f32; 3]],
    nrm: &mut [[f32; 3]],
) {
    let len = pos.len();
    let rest = if IN_PLACE { rest } else { &rest[..len] };
    let nrm = &mut nrm[..len];
    for i in 0..len {
        let p = Vec3A::from_array(if IN_PLACE { pos[i] } else { rest[i] });
        let (p, n) = vertex(ctx, i, p);
        pos[i] = p.to_array();
        nrm[i] = n.to_array();
    }
}

/// Skin vertex `i` of the range (its morphed position `p`): position and unit normal.
#[inline(always)]
pub(super) fn vertex(ctx: &Ctx, i: usize, p: Vec3A) -> (Vec3A, Vec3A) {
    let n = Vec3A::from_array(ctx.normals[i]);
    let s = &ctx.skin[i];
    let (p, n) = match ctx.kinds[i] {
        Kind::Linear1 => {
            let m = &ctx.bones[s.bones[0] as usize];
            (m.transform_point3a(p), m.matrix3 * n)
        }
        Kind::Linear2 => {
            let m = blend2(ctx.bones, s);
            (m.transform_point3a(p), m.matrix3 * n)
        }
        Kind::Linear4 => {
            let m = blend4(ctx.bones, s);
            (m.transform_point3a(p), m.matrix3 * n)
        }
        Kind::Sdef => sdef(ctx.bones, s, &ctx.sdef[s.bones[2] as usize], p, n),
        Kind::Qdef => qdef(ctx.bones, s, p, n),
    };
    (p, n.normalize_or_zero())
}

#[inline(always)]
fn blend2(bones: &[Affine3A], s: &Skin) -> Affine3A {
    let (a, b) = (&bones[s.bones[0] as usize], &bones[s.bones[1] as usize]);
    let (wa, wb) = (s.weights[0], s.weights[1]);
    Affine3A {
        matrix3: Mat3A::from_cols(
            a.matrix3.x_axis * wa + b.matrix3.x_axis * wb,
            a.matrix3.y_axis * wa + b.matrix3.y_axis * wb,
            a.matrix3.z_axis * wa + b.matrix3.z_axis * wb,
        ),
        translation: a.translation * wa + b.translation * wb,
    }
}

#[inline(always)]
fn blend4(bones: &[Affine3A], s: &Skin) -> Affine3A {
    let m = [
        &bones[s.bones[0] as usize],
        &bones[s.bones[1] as usize],
        &bones[s.bones[2] as usize],
        &bones[s.bones[3] as usize],
    ];
    let w = Vec4::from_array(s.weights);
    let col =
        |f: fn(&Affine3A) -> Vec3A| f(m[0]) * w.x + f(m[1]) * w.y + f(m[2]) * w.z + f(m[3]) * w.w;
    Affine3A {
        matrix3: Mat3A::from_cols(
            col(|a| a.matrix3.x_axis),
            col(|a| a.matrix3.y_axis),
            col(|a| a.matrix3.z_axis),
        ),
        translation: col(|a| a.translation),
    }
}

/// SDEF with the precomputed midpoints (`mesh::skin::sdef_terms`), written as a displacement
/// of P: `P + (q·(P − C) − (P − C)) + Σ wᵢ·(Mᵢ·crᵢ − crᵢ)`. That equals the usual
/// `q·(P − C) + Σ wᵢ·Mᵢ·crᵢ` because `Σ wᵢ·crᵢ = C`, and both brackets are exactly zero at
/// rest, so an unposed SDEF vertex stays exactly where it is.
#[inline(never)]
fn sdef(bones: &[Affine3A], s: &Skin, t: &SdefTerms, p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
    let (m0, m1) = (&bones[s.bones[0] as usize], &bones[s.bones[1] as usize]);
    let (w0, w1) = (s.weights[0], s.weights[1]);
    let q = slerp(quat(m0), quat(m1), w1);
    let pc = p - Vec3A::from_array(t.c);
    let (cr0, cr1) = (Vec3A::from_array(t.cr0), Vec3A::from_array(t.cr1));
    let moved = (m0.transform_point3a(cr0) - cr0) * w0 + (m1.transform_point3a(cr1) - cr1) * w1;
    (p + (q * pc - pc) + moved, q * n)
}

/// QDEF: dual-quaternion linear blending (see the reference for the derivation).
#[inline(never)]
fn qdef(bones: &[Affine3A], s: &Skin, p: Vec3A, n: Vec3A) -> (Vec3A, Vec3A) {
    let mut real = Vec4::ZERO;
    let mut dual = Vec4::ZERO;
    let mut pivot = Vec4::ZERO;
    for i in 0..4 {
        let w = s.weights[i];
        if w == 0.0 {
            continue;
        }
        let m = &bones[s.bones[i] as usize];
        let mut q = quat(m);
        if pivot == Vec4::ZERO {
            pivot = Vec4::from(q);
        } else if Vec4::from(q).dot(pivot) < 0.0 {
            q = -q;
        }
        let t = m.translation;
        let d = Quat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
        real += Vec4::from(q) * w;
        dual += Vec4::from(d) * w;
    }
    // Divide (rather than multiply by the reciprocal) so that a lone identity stays exact.
    let len = real.length();
    let (real, dual) = (real / len, dual / len);
    let q = Quat::from_vec4(real);
    let r = Vec3A::from_vec4(real);
    let d = Vec3A::from_vec4(dual);
    let t = (d * real.w - r * dual.w + r.cross(d)) * 2.0;
    (q * p + t, q * n)
}
