//! CCD inverse kinematics as MikuMikuDance 9.32 runs it (`mmd-semantics.md` §4).
//!
//! Every rule below reproduces the MMD captures in `shared/docs/mmd-ik-captures.json` (case
//! names in brackets; all 48 pass); the Rust crate mmd-anim 0.5.3, whose author took those
//! captures, follows the same rules, and its source was read to find them.
//!
//! Solve loop:
//! - the iteration budget is max(authored, min(⌊4π / unit⌋, 360)), at least 1
//!   [`budget-*`, `limited-n1`..`n32`];
//! - link i (0 = next to the effector) turns at most unit × (i + 1) per step [`budget-*`];
//! - stop before and after each iteration when the effector is within 1e-4 of the goal, and
//!   stop the whole solve when, seen from the link about to turn, the effector and the goal lie
//!   in the same direction (a collinear goal in front: no step at all) [`limits-*-aligned`];
//! - no rollback to a best state: the last state stands [`rollback-n*`];
//! - a solver starts from its effector's position as the effector's own world pass left it:
//!   stale when an earlier solver moved the effector's parents, refreshed when the effector's
//!   layer comes after that solver's [`layered-*-layer0`, `-layer1`, `-layer2`]; when the
//!   effector's layer comes after its own solver's, from the end of the previous evaluation
//!   (`Model::late_effectors`; mmd-anim's reading, no capture).
//!
//! One step turns the link by a rotation about an axis in its *parent's* frame (composed on the
//! left of the link's rotation), measured from the world directions link→effector and
//! link→goal:
//! - no limits: about their cross product by their angle, capped; a PMX fixed axis replaces the
//!   axis and scales the angle by cos(fixed axis, cross product), so a link whose fixed axis
//!   is nearly along the chain barely turns [`fixedaxis-unlimited-base-*`, `budget-*-tilted`];
//! - limits: the same candidate, except that during the first ⌊budget / 2⌋ iterations a link
//!   limited on one axis only (the others exactly 0) turns about ±that axis by the full angle,
//!   even when it has a fixed axis; otherwise a fixed axis scales the angle as above. The
//!   candidate is decomposed into Euler angles in the order YXZ, ZYX or XZY (the first whose
//!   middle axis is limited inside ±90°), the middle angle capped at ±88°, and each angle is
//!   brought back into [min, max]: during the first half by reflecting it off the bound it
//!   crossed when that lands inside, otherwise by clamping [`limited-*`, `rollback-*`,
//!   `limits-*`, `parity-fixedlimits-*`, `local-axes-*`]. PMX local axes play no part
//!   [`local-axes-*-rotated`].
//!
//! State around a solve:
//! - while its solver runs, the effector's rotation grant (付与) is dropped (its world matrix,
//!   read by the first step, keeps it). An effector whose grant copies an IK link (or lies
//!   below such a bone) gets it back once the solvers of its own step are done
//!   (`Model::post_ik`): after CCD only when it shares its solver's layer or comes later;
//!   otherwise the grant stays off for the frame [`layered-append-*`];
//! - an IK link that is, or lies below, a bone whose grant copies an IK link keeps its IK
//!   rotation from one evaluation to the next: its first step starts from that rotation
//!   instead of the animated one (measured from the reset pose) [`append-dependent-*`]. The
//!   capture has no animation on the link; we carry IK × animated⁻¹.
//!
//! Numerics: f32 in MMD's (D3DX's) operation order, as mmd-anim reproduces it: per-lane
//! normalisation, dot and cross sums in a fixed order, D3DX's quaternion product and
//! matrix↔quaternion formulas, atan2 and the Euler rebuild's sine and cosine in f64, the rebuilt
//! matrix used for the link's world matrix while its solver runs, and FK through skinning
//! matrices (`fk`). The last steps of a long solve turn by angles near f32 resolution, so this
//! rounding decides results at 1e-4 [`local-axes-multi-*`, `layered-*`].

use crate::fk;
use crate::instance::Instance;
use crate::model::{IkSolver, LinkLimits, Model, NONE};
use glam::{Mat3A, Quat, Vec3A, Vec3Swizzles};
use std::f32::consts::PI;

/// Stop when the effector is this close to the goal.
pub const TOLERANCE: f32 = 1e-4;

/// Stop the solve when |dir(link→effector) − dir(link→goal)|² falls below this.
const DIRECTION_STOP: f32 = 1e-7;

/// MMD's threshold for "limited inside ±90°" (a few ulps under π/2).
const HALF_PI: f32 = f32::from_bits(0x3fc9_0fd8);

/// MMD's cap on the middle Euler angle: 88°, away from gimbal lock [`limits-*-wide895`].
const MIDDLE_CAP: f32 = f32::from_bits(0x3fc4_9803);

/// The iteration count MMD runs for an authored count and unit angle:
/// max(authored, min(⌊4π / unit⌋, 360)), at least 1.
pub fn iteration_budget(authored: u32, unit: f32) -> u32 {
    let raised = if unit.is_finite() && unit > 0.0 {
        (4.0 * PI / unit).min(360.0) as u32
    } else {
        0
    };
    authored.max(raised).max(1)
}

/// The axis a link is limited on when its limits leave the other two at exactly zero.
fn single_axis(l: &LinkLimits) -> Option<usize> {
    let used = |i: usize| l.min[i] != 0.0 || l.max[i] != 0.0;
    match (used(0), used(1), used(2)) {
        (true, false, false) => Some(0),
        (false, true, false) => Some(1),
        (false, false, true) => Some(2),
        _ => None,
    }
}

fn unit_axis(i: usize) -> Vec3A {
    [Vec3A::X, Vec3A::Y, Vec3A::Z][i]
}

/// D3DX's vector normalisation: each lane sums the squares in its own order, lane x as
/// (y² + x²) + z², y as (z² + y²) + x², z as (x² + z²) + y². Done on all three lanes at once
/// (IEEE square root and division round per lane, so this is the scalar result bit for bit).
#[inline]
fn normalize(v: Vec3A) -> Vec3A {
    let sq = v * v;
    let sum = (sq.yzx() + sq) + sq.zxy();
    v * sqrt_lanes(sum).recip()
}

/// Per-lane IEEE square root in one instruction where the target has one.
#[inline]
fn sqrt_lanes(v: Vec3A) -> Vec3A {
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

#[inline]
fn dot(a: Vec3A, b: Vec3A) -> f32 {
    (a.x * b.x + a.y * b.y) + a.z * b.z
}

/// `v` (world) in the frame whose world rotation is `m`: mᵀ v.
#[inline]
fn to_frame(m: &Mat3A, v: Vec3A) -> Vec3A {
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

/// D3DX's quaternion of a rotation matrix.
fn matrix_quat(m: &Mat3A) -> Quat {
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

/// atan2 evaluated in f64 and rounded, as MMD's runtime library rounds it.
#[inline]
fn atan2(y: f32, x: f32) -> f32 {
    (y as f64).atan2(x as f64) as f32
}

/// An outer Euler angle, atan2(`y`, `x`), on axis `i` of limits `l`. On an axis locked at
/// zero the clamp that follows keeps only the angle's sign and whether it is zero, so those
/// are returned without evaluating atan2 (same result, cheaper: knees lock two axes).
#[inline]
fn outer_angle(l: &LinkLimits, i: usize, y: f32, x: f32) -> f32 {
    if l.min[i] != 0.0 || l.max[i] != 0.0 {
        return atan2(y, x);
    }
    // atan2 has the sign of y; it is ±0 when y is ±0 and x is positive or +0, else ±π.
    if y != 0.0 || x > 0.0 || (x == 0.0 && x.is_sign_positive()) {
        y
    } else if y.is_sign_negative() {
        -PI
    } else {
        PI
    }
}

/// Rotation matrix about unit axis `i`, its sine and cosine evaluated in f64 (as D3DX).
fn axis_matrix(i: usize, angle: f32) -> Mat3A {
    let (s, c) = if angle == 0.0 {
        (angle, 1.0) // exact, sign of zero included
    } else {
        let (s, c) = (angle as f64).sin_cos();
        (s as f32, c as f32)
    };
    match i {
        0 => Mat3A::from_cols(Vec3A::X, Vec3A::new(0.0, c, s), Vec3A::new(0.0, -s, c)),
        1 => Mat3A::from_cols(Vec3A::new(c, 0.0, -s), Vec3A::Y, Vec3A::new(s, 0.0, c)),
        _ => Mat3A::from_cols(Vec3A::new(c, s, 0.0), Vec3A::new(-s, c, 0.0), Vec3A::Z),
    }
}

/// Bring `q` into the Euler limits `l` (see the module doc); returns the rotation and its
/// matrix. `reflect`: first half of the iterations, where an angle past a bound is mirrored
/// back off it when that lands inside.
pub fn clamp_to_limits(q: Quat, l: &LinkLimits, reflect: bool) -> (Quat, Mat3A) {
    let (q, m, _) = clamp_euler(q, l, reflect);
    (q, m)
}

/// [`clamp_to_limits`], also returning the clamped Euler angles (x, y, z).
fn clamp_euler(q: Quat, l: &LinkLimits, reflect: bool) -> (Quat, Mat3A, [f32; 3]) {
    let m = fk::rotation_matrix(q);
    let inside = |i: usize| l.min[i] > -HALF_PI && l.max[i] < HALF_PI;
    // Angles by axis (x, y, z); the middle one of the order is taken by asin and capped.
    // asin(∓0) = ∓0 and cos(±0) = 1 exactly: skipped for the common single-axis rotation.
    let middle = |s: f32| {
        if s == 0.0 {
            -s
        } else {
            (-s).asin().clamp(-MIDDLE_CAP, MIDDLE_CAP)
        }
    };
    let cos = |a: f32| if a == 0.0 { 1.0 } else { a.cos() };
    let order = if inside(0) {
        0
    } else if inside(1) {
        1
    } else {
        2
    };
    let side = |i: usize, y: f32, x: f32| outer_angle(l, i, y, x);
    let mut e = match order {
        0 => {
            // R = Ry Rx Rz
            let x = middle(m.z_axis.y);
            let c = cos(x);
            [
                x,
                side(1, m.z_axis.x / c, m.z_axis.z / c),
                side(2, m.x_axis.y / c, m.y_axis.y / c),
            ]
        }
        1 => {
            // R = Rz Ry Rx
            let y = middle(m.x_axis.z);
            let c = cos(y);
            [
                side(0, m.y_axis.z / c, m.z_axis.z / c),
                y,
                side(2, m.x_axis.y / c, m.x_axis.x / c),
            ]
        }
        _ => {
            // R = Rx Rz Ry
            let z = middle(m.y_axis.x);
            let c = cos(z);
            [
                side(0, m.y_axis.z / c, m.y_axis.y / c),
                side(1, m.z_axis.x / c, m.x_axis.x / c),
                z,
            ]
        }
    };
    for (i, v) in e.iter_mut().enumerate() {
        *v = into_range(*v, l.min[i], l.max[i], reflect);
    }
    let (x, y, z) = (
        axis_matrix(0, e[0]),
        axis_matrix(1, e[1]),
        axis_matrix(2, e[2]),
    );
    let m = match order {
        0 => y * (x * z),
        1 => z * (y * x),
        _ => x * (z * y),
    };
    (matrix_quat(&m), m, e)
}

/// An Euler angle brought into [lo, hi]: reflected off the bound it crossed when `reflect`
/// and that lands inside, else clamped.
#[inline]
fn into_range(v: f32, lo: f32, hi: f32, reflect: bool) -> f32 {
    let mut v = v;
    if v < lo {
        let r = 2.0 * lo - v;
        v = if reflect && r <= hi { r } else { lo };
    }
    if v > hi {
        let r = 2.0 * hi - v;
        v = if reflect && r >= lo { r } else { hi };
    }
    v
}

/// What one link step sees.
struct Step {
    /// Unit directions effector→link and goal→link, world space.
    from_effector: Vec3A,
    from_goal: Vec3A,
    /// World rotation of the link's parent.
    parent: Mat3A,
    /// The link's rotation before the step: its IK result when a solver turned it this
    /// frame, else its animated rotation (without its grant either way).
    current: Quat,
    /// Largest turn this step may make.
    cap: f32,
    /// PMX fixed axis (parent frame).
    fixed: Option<Vec3A>,
}

impl Step {
    /// The cross product of the directions, in the parent frame.
    fn parent_cross(&self) -> Vec3A {
        to_frame(&self.parent, self.from_effector.cross(self.from_goal))
    }

    /// `angle` limited to the step cap (a unit angle of 0 means no cap).
    fn capped(&self, angle: f32) -> f32 {
        if self.cap > 0.0 {
            angle.clamp(-self.cap, self.cap)
        } else {
            angle
        }
    }

    fn angle(&self) -> f32 {
        dot(self.from_effector, self.from_goal)
            .clamp(-1.0, 1.0)
            .acos()
    }

    /// Unlimited link: turn about the cross product (or the fixed axis, scaled by its
    /// alignment with the cross product).
    fn free(&self) -> Option<Quat> {
        let cross = self.parent_cross();
        if cross.length_squared() < 1e-10 {
            return self.opposite();
        }
        let cross = normalize(cross);
        if self.fixed.is_none() && (self.cap <= 0.0 || self.cap >= PI) {
            // No cap can bind (half the angle is at most π/2): the half-angle sine and
            // cosine straight from the cosine d, without acos, sin and cos.
            let d = dot(self.from_effector, self.from_goal).clamp(-1.0, 1.0);
            let (s, c) = (((1.0 - d) * 0.5).sqrt(), ((1.0 + d) * 0.5).sqrt());
            let turn = Quat::from_xyzw(cross.x * s, cross.y * s, cross.z * s, c);
            return Some(then(self.current, turn));
        }
        let (axis, align) = match self.fixed {
            Some(f) => (f, (f.y * cross.y + f.x * cross.x) + f.z * cross.z),
            None => (cross, 1.0),
        };
        let mut half = (self.angle() * 0.5) * align;
        if self.cap > 0.0 {
            half = half.clamp(-self.cap * 0.5, self.cap * 0.5);
        }
        let (s, c) = (half.sin(), half.cos());
        let turn = Quat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, c);
        Some(then(self.current, turn))
    }

    /// Unlimited link whose effector lies straight behind the goal: turn about any
    /// perpendicular axis (the fixed axis when there is one), in the link's own frame.
    fn opposite(&self) -> Option<Quat> {
        const TINY: f32 = 1e-3 * PI / 180.0;
        let to_local = self.current.inverse();
        // Directions from the link, in its frame.
        let e = (to_local * to_frame(&self.parent, -self.from_effector)).normalize();
        let g = (to_local * to_frame(&self.parent, -self.from_goal)).normalize();
        let dot = e.dot(g).clamp(-1.0, 1.0);
        let cross = e.cross(g);
        let (axis, angle) = if let Some(f) = self.fixed {
            let axis = to_local * f;
            let angle = if cross.length_squared() == 0.0 && dot < 0.0 {
                signed_angle_about(e, g, axis)
            } else {
                dot.acos() * axis.dot(cross.normalize_or_zero())
            };
            (axis, angle)
        } else {
            let angle = dot.acos();
            let axis = if cross.length() < 1e-5 {
                if dot > -1.0 + 1e-5 {
                    return None;
                }
                let side = if e.x.abs() < 0.9 { Vec3A::X } else { Vec3A::Y };
                e.cross(side).normalize()
            } else {
                cross.normalize()
            };
            (axis, angle)
        };
        if angle.abs() < TINY {
            return None;
        }
        let turn = Quat::from_axis_angle(axis.into(), self.capped(angle));
        Some((self.current * turn).normalize())
    }

    /// Limited link (see the module doc); also returns the rotation's matrix and, for a link
    /// limited on one axis, its angle about that axis.
    fn limited(&self, l: &LinkLimits, reflect: bool) -> Option<(Quat, Mat3A, f32)> {
        let cross = self.parent_cross();
        let unit_cross = || {
            if cross.length_squared() > 0.0 {
                normalize(cross)
            } else {
                cross
            }
        };
        let mut angle = self.angle();
        let axis = match (single_axis(l), self.fixed) {
            (Some(i), _) if reflect => {
                let a = unit_axis(i);
                if cross.dot(a) < 0.0 { -a } else { a }
            }
            (_, Some(f)) => {
                angle *= f.dot(unit_cross());
                f
            }
            _ => unit_cross(),
        };
        if axis.length_squared() <= f32::EPSILON {
            return None;
        }
        let turn = Quat::from_axis_angle(axis.into(), self.capped(angle));
        let (q, m, e) = clamp_euler(then(self.current, turn), l, reflect);
        Some((q, m, single_axis(l).map_or(0.0, |i| e[i])))
    }
}

/// A link limited on axis `i` alone, turned during the first half of the iterations after an
/// earlier step of this solve left it at angle `e0` about that axis (the other Euler angles
/// clamped to zero): the turn is about ±axis i too, so the Euler decomposition of the
/// product would return e0 ± the capped angle (wrapped into atan2's range). The angle is
/// brought into the limits as `clamp_to_limits` does and the matrix rebuilt from it; the
/// decomposition itself (a quaternion product, atan2) is skipped.
fn turn_single_axis(
    from_effector: Vec3A,
    from_goal: Vec3A,
    parent: &Mat3A,
    cap: f32,
    l: &LinkLimits,
    i: usize,
    e0: f32,
) -> (Mat3A, f32) {
    let angle = dot(from_effector, from_goal).clamp(-1.0, 1.0).acos();
    let turn = if cap > 0.0 {
        angle.clamp(-cap, cap)
    } else {
        angle
    };
    // The sign of the cross product's component along the axis, in the parent frame.
    let cross = dot(parent.col(i), from_effector.cross(from_goal));
    let mut e = if cross < 0.0 { e0 - turn } else { e0 + turn };
    if e > PI {
        e -= 2.0 * PI;
    } else if e < -PI {
        e += 2.0 * PI;
    }
    let e = into_range(e, l.min[i], l.max[i], true);
    (axis_matrix(i, e), e)
}

/// Link `b`'s IK rotation; computed here from the matrix its last step built when that step
/// left it pending.
#[inline]
fn ik_rotation(inst: &mut Instance, b: usize) -> Quat {
    if inst.ik_rotation_pending[b] {
        inst.ik_rotation[b] = matrix_quat(&inst.ik_matrix[b]);
        inst.ik_rotation_pending[b] = false;
    }
    inst.ik_rotation[b]
}

/// World rotation of `b`'s parent (identity for a root).
fn parent_rotation(model: &Model, inst: &Instance, b: usize) -> Mat3A {
    match model.parent[b] {
        NONE => Mat3A::IDENTITY,
        p => inst.world[p as usize].matrix3,
    }
}

/// Solve solver `si` on `inst` and refresh every bone that depends on its links.
pub fn solve(model: &Model, inst: &mut Instance, si: usize) {
    let s = &model.solvers[si];
    let goal = inst.world[s.bone as usize].translation;
    let target = s.target as usize;
    // The effector loses its rotation grant while its IK runs (its world matrix, read by the
    // first step, keeps it).
    let drop_grant = model.append[target].is_some_and(|r| r.rotate);
    if drop_grant {
        inst.grant_dropped[target] = true;
        inst.append_rotation[target] = Quat::IDENTITY;
    }
    // Chain bones without a grant: their transform relative to rest (a link's is replaced
    // on its steps, see `relink`); bones with a grant are recomputed in full (`refresh_chain`).
    for (k, &b) in s.chain.iter().enumerate() {
        let b = b as usize;
        if model.append[b].is_none() {
            let rotation = if inst.ik_solved[b] {
                inst.ik_rotation[b]
            } else {
                inst.pose_rotation[b]
            };
            let m = fk::rotation_matrix(rotation);
            inst.chain_relative[k] = fk::relative_to_rest(model, b, m, inst.pose_translation[b]);
        }
    }
    // No grants along the chain: IK rotations may stay pending during the solve.
    let plain = s.chain.iter().all(|&b| model.append[b as usize].is_none());
    let mut effector = inst.pass_position[target];
    let iterations = s.iterations as usize;
    let mut moved = false;
    // The check closing one iteration is the next one's opening check (same effector).
    if within_tolerance(effector, goal) {
        return finish(model, inst, s, false, drop_grant);
    }
    'solve: for iteration in 0..iterations {
        for (i, link) in s.links.iter().enumerate() {
            let lb = link.bone as usize;
            if lb == target {
                continue;
            }
            let position = inst.world[lb].translation;
            let (to_effector, to_goal) = (position - effector, position - goal);
            if to_effector.length_squared() <= f32::EPSILON
                || to_goal.length_squared() <= f32::EPSILON
            {
                continue;
            }
            let (from_effector, from_goal) = (normalize(to_effector), normalize(to_goal));
            if (from_effector - from_goal).length_squared() < DIRECTION_STOP {
                break 'solve;
            }
            let reflect = iteration < iterations / 2;
            let cap = s.unit_angle * (i as f32 + 1.0);
            let single = link.limits.as_ref().and_then(|l| Some((l, single_axis(l)?)));
            match single {
                Some((l, axis)) if reflect && inst.ik_matrix_set[lb] => {
                    let parent = parent_rotation(model, inst, lb);
                    let (m, e) = turn_single_axis(
                        from_effector,
                        from_goal,
                        &parent,
                        cap,
                        l,
                        axis,
                        inst.ik_angle[lb],
                    );
                    inst.ik_matrix[lb] = m;
                    inst.ik_angle[lb] = e;
                    // Only a later step that starts from it, a grant (none in a plain chain),
                    // IK history and the end of the solve read the quaternion.
                    if plain && !model.ik_retained[lb] {
                        inst.ik_rotation_pending[lb] = true;
                    } else {
                        inst.ik_rotation[lb] = matrix_quat(&m);
                        if model.ik_retained[lb] {
                            inst.ik_history[lb] =
                                inst.ik_rotation[lb] * inst.pose_rotation[lb].conjugate();
                        }
                    }
                }
                _ => {
                    let retained = iteration == 0 && model.ik_retained[lb];
                    let pose = inst.pose_rotation[lb];
                    let current = if retained {
                        inst.ik_history[lb] * pose
                    } else if inst.ik_solved[lb] {
                        ik_rotation(inst, lb)
                    } else {
                        pose
                    };
                    let step = Step {
                        from_effector,
                        from_goal,
                        parent: parent_rotation(model, inst, lb),
                        current,
                        cap,
                        fixed: model.fixed_axis[lb],
                    };
                    let next = match &link.limits {
                        Some(l) => step.limited(l, reflect).map(|(q, m, e)| {
                            inst.ik_matrix[lb] = m;
                            inst.ik_matrix_set[lb] = true;
                            inst.ik_angle[lb] = e;
                            q
                        }),
                        None => step.free(),
                    };
                    let q = match next {
                        Some(q) => q,
                        None if retained => current,
                        None => continue,
                    };
                    inst.ik_rotation[lb] = q;
                    inst.ik_solved[lb] = true;
                    if model.ik_retained[lb] {
                        inst.ik_history[lb] = q * pose.conjugate();
                    }
                }
            }
            let from = s.chain_from[i] as usize;
            relink(model, inst, lb, from);
            refresh_chain(model, inst, &s.chain, from);
            effector = inst.world[target].translation;
            moved = true;
        }
        if within_tolerance(effector, goal) {
            break;
        }
    }
    finish(model, inst, s, moved, drop_grant);
}

/// `effector.distance(goal) <= TOLERANCE`, without the square root: correctly rounded
/// square roots are monotonic, so the distance is within tolerance exactly when its square is
/// at most the largest f32 whose root rounds to ≤ TOLERANCE (checked in the tests).
#[inline]
fn within_tolerance(effector: Vec3A, goal: Vec3A) -> bool {
    effector.distance_squared(goal) <= TOLERANCE_SQUARED
}

/// The largest f32 whose square root rounds to at most [`TOLERANCE`].
const TOLERANCE_SQUARED: f32 = f32::from_bits(0x322b_cc77);

/// After a solve: refresh everything depending on the links (their local rotations
/// included) and forget the matrices the steps built.
fn finish(model: &Model, inst: &mut Instance, s: &IkSolver, moved: bool, drop_grant: bool) {
    for link in &s.links {
        ik_rotation(inst, link.bone as usize);
    }
    if moved || drop_grant {
        refresh(model, inst, &s.dependents);
    }
    for link in &s.links {
        inst.ik_matrix_set[link.bone as usize] = false;
    }
}

/// Link `lb` (chain slot `k`) turned: its transform relative to rest, from the matrix its
/// step built (or its rotation's), as `fk::update_bone_with` would compute it.
#[inline]
fn relink(model: &Model, inst: &mut Instance, lb: usize, k: usize) {
    if model.append[lb].is_none() {
        let m = if inst.ik_matrix_set[lb] {
            inst.ik_matrix[lb]
        } else {
            fk::rotation_matrix(inst.ik_rotation[lb])
        };
        inst.chain_relative[k] = fk::relative_to_rest(model, lb, m, inst.pose_translation[lb]);
    }
}

/// Recompute the world matrices of chain slots `from..` while solving: bones without a grant
/// from their cached transform relative to rest (same arithmetic as a full update), others
/// in full. Local rotations are written once the solve ends (`dependents`).
#[inline]
fn refresh_chain(model: &Model, inst: &mut Instance, chain: &[u32], from: usize) {
    for (k, &b) in chain.iter().enumerate().skip(from) {
        let b = b as usize;
        if model.append[b].is_none() {
            fk::place(model, inst, b, inst.chain_relative[k]);
        } else {
            let m = inst.ik_matrix_set[b].then(|| inst.ik_matrix[b]);
            fk::update_bone_with(model, inst, b, m);
        }
    }
}

/// Recompute `bones`, links with the rotation matrix their last IK step built.
fn refresh(model: &Model, inst: &mut Instance, bones: &[u32]) {
    for &b in bones {
        let b = b as usize;
        let m = inst.ik_matrix_set[b].then(|| inst.ik_matrix[b]);
        fk::update_bone_with(model, inst, b, m);
    }
}

/// Signed angle from `e` to `g` about unit `axis`, both projected on the plane normal to it
/// (0 when either projection vanishes).
fn signed_angle_about(e: Vec3A, g: Vec3A, axis: Vec3A) -> f32 {
    let pe = e - axis * e.dot(axis);
    let pg = g - axis * g.dot(axis);
    if pe.length_squared() <= f32::EPSILON || pg.length_squared() <= f32::EPSILON {
        return 0.0;
    }
    let (pe, pg) = (pe.normalize(), pg.normalize());
    let angle = pe.dot(pg).clamp(-1.0, 1.0).acos();
    if axis.dot(pe.cross(pg)) < 0.0 {
        -angle
    } else {
        angle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_squared_is_the_exact_threshold() {
        let t = TOLERANCE_SQUARED;
        assert!(t.sqrt() <= TOLERANCE);
        assert!(f32::from_bits(t.to_bits() + 1).sqrt() > TOLERANCE);
    }

    #[test]
    fn budget_matches_captures() {
        assert_eq!(iteration_budget(1, 1e-5), 360);
        assert_eq!(iteration_budget(359, 1e-5), 360);
        assert_eq!(iteration_budget(361, 1e-5), 361);
        assert_eq!(iteration_budget(1, 0.5), 25);
        assert_eq!(iteration_budget(26, 0.5), 26);
        assert_eq!(iteration_budget(0, 0.0), 1);
    }

    #[test]
    fn clamp_keeps_inside_and_clamps_outside() {
        let l = LinkLimits {
            min: Vec3A::new(-1.0, 0.0, 0.0),
            max: Vec3A::new(-0.1, 0.0, 0.0),
        };
        let q = Quat::from_rotation_x(-0.5);
        assert!(clamp_to_limits(q, &l, false).0.angle_between(q) < 1e-5);
        let r = clamp_to_limits(Quat::from_rotation_x(0.5), &l, false).0;
        assert!(r.angle_between(Quat::from_rotation_x(-0.1)) < 1e-5);
        // Reflected off -0.1: 2 × (-0.1) - 0.5 = -0.7.
        let r = clamp_to_limits(Quat::from_rotation_x(0.5), &l, true).0;
        assert!(r.angle_between(Quat::from_rotation_x(-0.7)) < 1e-5);
    }
}
