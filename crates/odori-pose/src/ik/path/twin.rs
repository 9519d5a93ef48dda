//! Two plain-path solves of the same shape (a pair of legs) advanced as one: each 128-bit
//! vector operation of a step is done for both solvers by one 256-bit AVX instruction, lanes
//! 0–3 for the first and 4–7 for the second.
//!
//! Each lane sees exactly the operations of the scalar loop (glam's and D3DX's, in their
//! order), so each solver's results are bit for bit its own; the parts that differ per lane
//! (arc-cosines, limits, quaternion products, rebuilt matrices) call the scalar functions
//! once per lane. A round runs here only when both solvers visit the same link with the same
//! step form and both sides pass every check; otherwise, before anything is written, it
//! falls back to the scalar step of each.

use super::PathSolve;
use crate::ik::DIRECTION_STOP;
use crate::ik::step::{
    angle_of, axis_angle_turn, capped, first_applied_of, half_angle_form, half_angle_turn,
    reflected_turn, settle,
};
use glam::{Affine3A, Mat3A, Vec3A};
use std::arch::x86_64::*;

/// Run two lockstep solves to their ends.
///
/// # Safety
/// The machine must support AVX.
#[target_feature(enable = "avx")]
pub(super) unsafe fn run_pair(a: &mut PathSolve, b: &mut PathSolve) {
    #[cfg(feature = "counters")]
    let mut rounds = 0;
    loop {
        match (a.next(), b.next()) {
            (None, None) => {
                #[cfg(feature = "counters")]
                crate::counters::add_twin_rounds(rounds);
                return;
            }
            (Some(la), Some(lb)) if la == lb && round(a, b, la) => {
                #[cfg(feature = "counters")]
                {
                    rounds += 1;
                }
            }
            (la, lb) => {
                if let Some(l) = la {
                    a.step(l);
                }
                if let Some(l) = lb {
                    b.step(l);
                }
            }
        }
    }
}

/// The step forms done in two lanes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// A link on its single axis, first half (`Step::on_axis`, reflecting).
    Reflect,
    /// A link on its single axis, second half, its axis applied first (`Step::on_axis`).
    Late,
    /// An unlimited link turned by `step::half_angle_turn`.
    HalfAngle,
}

/// The form `link`'s step takes in `solve` now, if it is one done here.
#[inline]
fn form_of(solve: &PathSolve, link: usize) -> Option<Form> {
    let plan = &solve.s.plans[link];
    let state = &solve.links[link];
    let reflect = solve.reflect();
    match state.on_its_axis(plan, reflect) {
        Some(_) if reflect => Some(Form::Reflect),
        Some(_) if plan.fixed.is_none() => Some(Form::Late),
        Some(_) => None,
        None if plan.limits.is_none()
            && !state.matrix_set
            && half_angle_form(plan.fixed, plan.cap) =>
        {
            Some(Form::HalfAngle)
        }
        None => None,
    }
}

/// Link `link`'s step in both solves at once; false (nothing written) when it must be done
/// one solver at a time.
#[target_feature(enable = "avx")]
fn round(a: &mut PathSolve, b: &mut PathSolve, link: usize) -> bool {
    let Some(form) = form_of(a, link) else {
        return false;
    };
    if form_of(b, link) != Some(form) {
        return false;
    }
    let k = a.s.plans[link].slot as usize;
    let position = pair(a.slots[k].position, b.slots[k].position);
    let to_effector = _mm256_sub_ps(position, pair(a.effector, b.effector));
    let to_goal = _mm256_sub_ps(position, pair(a.goal, b.goal));
    // `ik::directions`: degenerate or aligned in either lane is left to the scalar step.
    if any_at_most(dot3(to_effector, to_effector), f32::EPSILON)
        || any_at_most(dot3(to_goal, to_goal), f32::EPSILON)
    {
        return false;
    }
    let from_effector = normalize(to_effector);
    let from_goal = normalize(to_goal);
    let apart = _mm256_sub_ps(from_effector, from_goal);
    if any_below(dot3(apart, apart), DIRECTION_STOP) {
        return false;
    }
    let cross = cross(from_effector, from_goal);
    let cosines = firsts(dot3(from_effector, from_goal));
    let plan_a = &a.s.plans[link];
    // The per-lane parts go phase by phase, the first solver's next to the second's, so that
    // the two chains of dependent operations overlap.
    let (plan_b, i) = (&b.s.plans[link], plan_a.single.map_or(0, |s| s.axis));
    let turned = match form {
        Form::Reflect => {
            // `Step::on_axis`, first half: ± the capped angle by the sign of the cross
            // product's component along the axis (in the parent frame).
            let parent_axis = pair(a.parent_rotation(k).col(i), b.parent_rotation(k).col(i));
            let along = firsts(dot3(parent_axis, cross));
            let angles = (angle_of(cosines.0), angle_of(cosines.1));
            let deltas = (
                reflected_turn(angles.0, plan_a.cap, along.0),
                reflected_turn(angles.1, plan_b.cap, along.1),
            );
            turn_on_axis(a, b, link, i, deltas, true)
        }
        Form::Late => {
            // `Step::on_axis`, second half (`limited_axis` without a fixed axis).
            let parent_cross = to_frame(
                &pair_matrix(&a.parent_rotation(k), &b.parent_rotation(k)),
                cross,
            );
            if any_at_most(dot3(parent_cross, parent_cross), 0.0) {
                return false;
            }
            let unit = normalize(parent_cross);
            if any_at_most(dot3(unit, unit), f32::EPSILON) {
                return false;
            }
            let (unit_a, unit_b) = split(unit);
            let angles = (
                capped(angle_of(cosines.0), plan_a.cap),
                capped(angle_of(cosines.1), plan_b.cap),
            );
            let turns = (
                axis_angle_turn(unit_a, angles.0),
                axis_angle_turn(unit_b, angles.1),
            );
            let order = plan_a.single.map_or(0, |s| s.order);
            let deltas = (
                first_applied_of(turns.0, order),
                first_applied_of(turns.1, order),
            );
            turn_on_axis(a, b, link, i, deltas, false)
        }
        Form::HalfAngle => {
            // `Step::free`, half-angle form.
            let parent_cross = to_frame(
                &pair_matrix(&a.parent_rotation(k), &b.parent_rotation(k)),
                cross,
            );
            if any_below(dot3(parent_cross, parent_cross), 1e-10) {
                return false;
            }
            let (unit_a, unit_b) = split(normalize(parent_cross));
            let (state_a, state_b) = (&mut a.links[link], &mut b.links[link]);
            let turns = (
                half_angle_turn(state_a.rotation(), unit_a, cosines.0),
                half_angle_turn(state_b.rotation(), unit_b, cosines.1),
            );
            (state_a.turn_free(turns.0), state_b.turn_free(turns.1))
        }
    };
    refresh(a, b, k, turned);
    true
}

/// Both solves' link `link`, on its single axis `i`, turned by `deltas` from where its last
/// step left it (`step::settle`, `LinkState::turn_on_axis`); returns the two matrices.
#[inline]
fn turn_on_axis(
    a: &mut PathSolve,
    b: &mut PathSolve,
    link: usize,
    i: usize,
    deltas: (f32, f32),
    reflect: bool,
) -> (Mat3A, Mat3A) {
    let settled = |solve: &PathSolve, delta: f32| {
        let limits = solve.s.plans[link].limits.unwrap();
        settle(&limits, i, solve.links[link].angle, delta, reflect)
    };
    let angles = (settled(a, deltas.0), settled(b, deltas.1));
    (
        a.links[link].turn_on_axis(i, angles.0),
        b.links[link].turn_on_axis(i, angles.1),
    )
}

/// `chain::refresh_path` for both solves: slot `k` turned to `turned`, every slot below it
/// from its parent's new skinning matrix.
#[target_feature(enable = "avx")]
fn refresh(a: &mut PathSolve, b: &mut PathSolve, k: usize, turned: (Mat3A, Mat3A)) {
    let rest = pair(a.slots[k].rest, b.slots[k].rest);
    let translation = pair(a.slots[k].translation, b.slots[k].translation);
    // `fk::relative_to`: (m × −rest + translation) + rest.
    let m = pair_matrix(&turned.0, &turned.1);
    let relative = PairAffine {
        matrix: m,
        translation: _mm256_add_ps(_mm256_add_ps(mat_vec(&m, negate(rest)), translation), rest),
    };
    let (relative_a, relative_b) = relative.split();
    a.slots[k].set_relative(relative_a);
    b.slots[k].set_relative(relative_b);
    // The top slot's parent is outside the chain (lockstep solves have one).
    let mut parent = match k {
        0 => PairAffine::new(&a.outer.unwrap(), &b.outer.unwrap()),
        _ => PairAffine::new(&a.slots[k - 1].skin, &b.slots[k - 1].skin),
    };
    let n = a.slots.len();
    for slot in k..n {
        let (at_rest_a, at_rest_b) = (a.slots[slot].at_rest, b.slots[slot].at_rest);
        let skin = if slot == k {
            compose(&parent, &relative)
        } else if at_rest_a && at_rest_b {
            parent
        } else {
            let relative = PairAffine::new(&a.slots[slot].relative, &b.slots[slot].relative);
            let composed = compose(&parent, &relative);
            // A bone at rest on its parent takes its parent's matrix (`fk::place_at_rest`).
            match (at_rest_a, at_rest_b) {
                (true, _) => composed.blend::<0x0F>(&parent),
                (_, true) => composed.blend::<0xF0>(&parent),
                _ => composed,
            }
        };
        let position = _mm256_add_ps(
            mat_vec(&skin.matrix, pair(a.slots[slot].rest, b.slots[slot].rest)),
            skin.translation,
        );
        let (skin_a, skin_b) = skin.split();
        let (position_a, position_b) = split(position);
        a.slots[slot].skin = skin_a;
        a.slots[slot].position = position_a;
        b.slots[slot].skin = skin_b;
        b.slots[slot].position = position_b;
        parent = skin;
    }
    a.effector = a.slots[n - 1].position;
    b.effector = b.slots[n - 1].position;
    a.moved = true;
    b.moved = true;
}

/// `a` in lanes 0–3, `b` in lanes 4–7.
#[target_feature(enable = "avx")]
fn pair(a: Vec3A, b: Vec3A) -> __m256 {
    _mm256_set_m128(b.into(), a.into())
}

#[target_feature(enable = "avx")]
fn split(v: __m256) -> (Vec3A, Vec3A) {
    (
        _mm256_castps256_ps128(v).into(),
        _mm256_extractf128_ps::<1>(v).into(),
    )
}

/// Lanes 0 and 4.
#[target_feature(enable = "avx")]
fn firsts(v: __m256) -> (f32, f32) {
    (
        _mm256_cvtss_f32(v),
        _mm_cvtss_f32(_mm256_extractf128_ps::<1>(v)),
    )
}

/// Lane 0 or lane 4 at most `limit`.
#[target_feature(enable = "avx")]
fn any_at_most(v: __m256, limit: f32) -> bool {
    _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(v, _mm256_set1_ps(limit))) & 0x11 != 0
}

/// Lane 0 or lane 4 below `limit`.
#[target_feature(enable = "avx")]
fn any_below(v: __m256, limit: f32) -> bool {
    _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LT_OQ>(v, _mm256_set1_ps(limit))) & 0x11 != 0
}

#[target_feature(enable = "avx")]
fn negate(v: __m256) -> __m256 {
    _mm256_xor_ps(v, _mm256_set1_ps(-0.0))
}

/// glam's `Vec3A::dot` (and D3DX's): (x·x' + y·y') + z·z', in lanes 0 and 4.
#[target_feature(enable = "avx")]
fn dot3(a: __m256, b: __m256) -> __m256 {
    let m = _mm256_mul_ps(a, b);
    let y = _mm256_permute_ps::<0b00_00_00_01>(m);
    let z = _mm256_permute_ps::<0b00_00_00_10>(m);
    _mm256_add_ps(_mm256_add_ps(m, y), z)
}

/// `math::normalize`: lane x scaled by 1 / √((y² + x²) + z²), and so on.
#[target_feature(enable = "avx")]
fn normalize(v: __m256) -> __m256 {
    let sq = _mm256_mul_ps(v, v);
    let yzx = _mm256_permute_ps::<0b00_00_10_01>(sq);
    let zxy = _mm256_permute_ps::<0b00_01_00_10>(sq);
    let sum = _mm256_add_ps(_mm256_add_ps(yzx, sq), zxy);
    _mm256_mul_ps(v, _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(sum)))
}

/// glam's `Vec3A::cross`: (a.zxy · b − b.zxy · a).zxy.
#[target_feature(enable = "avx")]
fn cross(a: __m256, b: __m256) -> __m256 {
    let a_zxy = _mm256_permute_ps::<0b01_01_00_10>(a);
    let b_zxy = _mm256_permute_ps::<0b01_01_00_10>(b);
    let sub = _mm256_sub_ps(_mm256_mul_ps(a_zxy, b), _mm256_mul_ps(b_zxy, a));
    _mm256_permute_ps::<0b01_01_00_10>(sub)
}

/// Two 3×3 matrices, column by column.
#[derive(Clone, Copy)]
struct PairMatrix {
    x: __m256,
    y: __m256,
    z: __m256,
}

#[target_feature(enable = "avx")]
fn pair_matrix(a: &Mat3A, b: &Mat3A) -> PairMatrix {
    PairMatrix {
        x: pair(a.x_axis, b.x_axis),
        y: pair(a.y_axis, b.y_axis),
        z: pair(a.z_axis, b.z_axis),
    }
}

/// glam's `Mat3A * Vec3A`: (X · v.x + Y · v.y) + Z · v.z.
#[target_feature(enable = "avx")]
fn mat_vec(m: &PairMatrix, v: __m256) -> __m256 {
    let x = _mm256_mul_ps(m.x, _mm256_permute_ps::<0b00_00_00_00>(v));
    let y = _mm256_mul_ps(m.y, _mm256_permute_ps::<0b01_01_01_01>(v));
    let z = _mm256_mul_ps(m.z, _mm256_permute_ps::<0b10_10_10_10>(v));
    _mm256_add_ps(_mm256_add_ps(x, y), z)
}

/// `math::to_frame`: (X·v, Y·v, Z·v), each a D3DX dot product.
#[target_feature(enable = "avx")]
fn to_frame(m: &PairMatrix, v: __m256) -> __m256 {
    let xy = _mm256_unpacklo_ps(dot3(m.x, v), dot3(m.y, v));
    _mm256_shuffle_ps::<0b00_00_01_00>(xy, dot3(m.z, v))
}

/// Two affine transforms (skinning matrices, transforms relative to rest).
#[derive(Clone, Copy)]
struct PairAffine {
    matrix: PairMatrix,
    translation: __m256,
}

impl PairAffine {
    #[target_feature(enable = "avx")]
    fn new(a: &Affine3A, b: &Affine3A) -> PairAffine {
        PairAffine {
            matrix: pair_matrix(&a.matrix3, &b.matrix3),
            translation: pair(a.translation, b.translation),
        }
    }

    #[target_feature(enable = "avx")]
    fn split(&self) -> (Affine3A, Affine3A) {
        let (xa, xb) = split(self.matrix.x);
        let (ya, yb) = split(self.matrix.y);
        let (za, zb) = split(self.matrix.z);
        let (ta, tb) = split(self.translation);
        (
            Affine3A {
                matrix3: Mat3A::from_cols(xa, ya, za),
                translation: ta,
            },
            Affine3A {
                matrix3: Mat3A::from_cols(xb, yb, zb),
                translation: tb,
            },
        )
    }

    /// Lanes whose bit is set in `MASK` (0x0F: the first solver's, 0xF0: the second's) taken
    /// from `other`.
    #[target_feature(enable = "avx")]
    fn blend<const MASK: i32>(&self, other: &PairAffine) -> PairAffine {
        PairAffine {
            matrix: PairMatrix {
                x: _mm256_blend_ps::<MASK>(self.matrix.x, other.matrix.x),
                y: _mm256_blend_ps::<MASK>(self.matrix.y, other.matrix.y),
                z: _mm256_blend_ps::<MASK>(self.matrix.z, other.matrix.z),
            },
            translation: _mm256_blend_ps::<MASK>(self.translation, other.translation),
        }
    }
}

/// `fk::compose` with a parent: (P · R, P · t + p).
#[target_feature(enable = "avx")]
fn compose(parent: &PairAffine, relative: &PairAffine) -> PairAffine {
    let p = &parent.matrix;
    PairAffine {
        matrix: PairMatrix {
            x: mat_vec(p, relative.matrix.x),
            y: mat_vec(p, relative.matrix.y),
            z: mat_vec(p, relative.matrix.z),
        },
        translation: _mm256_add_ps(mat_vec(p, relative.translation), parent.translation),
    }
}
