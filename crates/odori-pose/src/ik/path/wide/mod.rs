//! Up to eight plain-path solves of one solver (the same leg of up to eight instances,
//! `crate::group`), advanced together: one solve per lane of 256-bit registers.
//!
//! Each lane sees exactly the scalar loop's operations (glam's and D3DX's, in their order),
//! so each solve's results are bit for bit its own, as in `twin`; what changes is that one
//! instruction now does a step's arithmetic for eight solves instead of two. The solves of
//! one solver visit the same link at the same iteration for as long as they go on, so the
//! lanes stay in step; a lane whose solve has stopped is masked off. The state lives lane by
//! lane in one array of registers for the whole solve (`state::State`), loaded from the solves at
//! the start and stored back at the end (`state`). The step forms done here are those of `twin` (a
//! link on its single axis in either half, an unlimited link in half-angle form); a lane in
//! any other case (a knee's first step, degenerate or opposite directions) takes the scalar
//! step on its own, its state stored to its solve and loaded back.

mod lanes;
mod state;

use super::PathSolve;
use crate::ik::step::half_angle_form;
use crate::ik::{DIRECTION_STOP, TOLERANCE_SQUARED, trig_wide};
use crate::model::{IkSolver, Model};
use lanes::*;
use state::*;
use std::arch::x86_64::*;

/// Lanes of a register: solves run together.
pub(crate) const LANES: usize = 8;

/// Most groups of lanes [`run`] takes at once.
const MAX_GROUPS: usize = 4;

/// Longest chain a solver may have to run here (a leg has three bones: thigh, knee, ankle).
pub(super) const MAX_CHAIN: usize = 4;

/// Most links a solver may have to run here (a leg has two).
pub(super) const MAX_LINKS: usize = 4;

/// Whether solver `si` runs here: a plain path (`plan::is_plain_path`) whose top link has a
/// parent, with a short chain, and whose links take the step forms done here after their
/// first step (limited on one axis alone, or unlimited in half-angle form), such as legs and
/// toes. Any other solver would take most of its steps alone, which costs more than running
/// it on each instance in turn.
pub(crate) fn fits(model: &Model, si: usize) -> bool {
    let s = &model.solvers[si];
    s.plain_path
        && s.chain.len() <= MAX_CHAIN
        && s.plans.len() <= MAX_LINKS
        && model.parent[s.chain[0] as usize] != crate::model::NONE
        && s.plans.iter().all(|p| {
            p.is_effector
                || match (&p.single, &p.limits) {
                    (Some(single), Some(_)) => single.first_applied && p.fixed.is_none(),
                    (_, None) => half_angle_form(p.fixed, p.cap),
                    _ => false,
                }
        })
}

/// The solves of one solver running together: which entries of the caller's list they are,
/// their state, and the lanes that have stopped (as bits).
struct Group<'m> {
    s: &'m IkSolver,
    lanes_of: &'m [usize],
    state: State,
    done: u32,
}

/// Run the solves that `groups` pick out of `solves` to their ends, as `PathSolve::run` would
/// run each: per group, one to eight solves of one solver, all just started; at most
/// [`MAX_GROUPS`] groups, all of solvers of the same shape (`plan::same_shape`). They share the
/// loop, so that the groups' chains of dependent operations overlap.
///
/// # Safety
/// The machine must support AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::ik) unsafe fn run(
    model: &Model,
    solves: &mut [Option<PathSolve>],
    groups: &[(usize, &[usize])],
) {
    debug_assert!(groups.len() <= MAX_GROUPS);
    let mut running: [Option<Group>; MAX_GROUPS] = Default::default();
    let (mut iteration, mut next_link) = (0, 0);
    for (slot, &(si, lanes_of)) in running.iter_mut().zip(groups) {
        let n = lanes_of.len();
        debug_assert!(n <= LANES);
        if n == 0 {
            continue;
        }
        // Each solve's first visit in scalar: for a limited link it is never a form done
        // here (no matrix built yet). Every solve then stands at the same iteration and link.
        for &i in lanes_of {
            let solve = solves[i].as_mut().unwrap();
            if let Some(link) = solve.next() {
                solve.step(link);
            }
        }
        let mut group = Group {
            s: &model.solvers[si],
            lanes_of,
            state: [_mm256_setzero_ps(); STATE_SIZE],
            done: 0xff,
        };
        // Load: lanes past the last solve repeat it, masked off throughout.
        for lane in 0..LANES {
            let solve = solves[lanes_of[lane.min(n - 1)]].as_ref().unwrap();
            pack(solve, &mut group.state, lane);
            if lane < n && !solve.done {
                (iteration, next_link) = (solve.iteration, solve.next_link);
                group.done &= !(1 << lane);
            }
        }
        *slot = Some(group);
    }
    let Some(shape) = running.iter().flatten().next().map(|g| g.s) else {
        return;
    };
    let iterations = shape.iterations as usize;
    // `PathSolve::next`, for every lane at once.
    while running.iter().flatten().any(|g| g.done != 0xff) {
        if next_link == shape.plans.len() {
            next_link = 0;
            iteration += 1;
            for group in running.iter_mut().flatten() {
                if iteration == iterations {
                    group.done = 0xff;
                } else {
                    group.done |= within_tolerance(&group.state);
                }
            }
            continue;
        }
        let link = next_link;
        next_link += 1;
        if shape.plans[link].is_effector {
            continue;
        }
        for group in running.iter_mut().flatten() {
            if group.done == 0xff {
                continue;
            }
            let scalar = visit(
                model,
                group.s,
                &mut group.state,
                link,
                iteration,
                &mut group.done,
            );
            // The lanes whose step is not done here take the scalar step alone.
            for lane in (0..LANES).filter(|&lane| scalar & (1 << lane) != 0) {
                let solve = solves[group.lanes_of[lane]].as_mut().unwrap();
                unpack(solve, &mut group.state, lane);
                solve.iteration = iteration;
                solve.done = false;
                solve.step(link);
                if solve.done {
                    group.done |= 1 << lane;
                }
                pack(solve, &mut group.state, lane);
            }
        }
    }
    for group in running.iter_mut().flatten() {
        for (lane, &i) in group.lanes_of.iter().enumerate() {
            let solve = solves[i].as_mut().unwrap();
            if !solve.done {
                unpack(solve, &mut group.state, lane);
                solve.iteration = iteration;
                solve.done = true;
            }
        }
    }
}

/// `within_tolerance` for every lane: the lanes whose effector is within tolerance of the
/// goal, as bits.
#[target_feature(enable = "avx2")]
#[inline]
fn within_tolerance(state: &State) -> u32 {
    let d = sub3(v3(state, EFFECTOR), v3(state, GOAL));
    bits(_mm256_cmp_ps::<_CMP_LE_OQ>(
        dot(d, d),
        splat(TOLERANCE_SQUARED),
    ))
}

/// Visit `link` in every lane still going: take the step where its form is one done here;
/// returns the lanes left to the scalar step (as bits).
#[target_feature(enable = "avx2")]
fn visit(
    model: &Model,
    s: &IkSolver,
    state: &mut State,
    link: usize,
    iteration: usize,
    done: &mut u32,
) -> u32 {
    let plan = &s.plans[link];
    let k = plan.slot as usize;
    let going = !*done & 0xff;
    let reflect = iteration < s.iterations as usize / 2;
    // `ik::directions`.
    let position = v3(state, slot(k) + POSITION);
    let to_effector = sub3(position, v3(state, EFFECTOR));
    let to_goal = sub3(position, v3(state, GOAL));
    let epsilon = splat(f32::EPSILON);
    let degenerate = bits(_mm256_or_ps(
        _mm256_cmp_ps::<_CMP_LE_OQ>(dot(to_effector, to_effector), epsilon),
        _mm256_cmp_ps::<_CMP_LE_OQ>(dot(to_goal, to_goal), epsilon),
    ));
    let from_effector = normalize(to_effector);
    let from_goal = normalize(to_goal);
    let apart = sub3(from_effector, from_goal);
    let aligned = bits(_mm256_cmp_ps::<_CMP_LT_OQ>(
        dot(apart, apart),
        splat(DIRECTION_STOP),
    )) & !degenerate;
    if model.ik_rules.stop_when_aligned {
        *done |= aligned & going;
    }
    // Degenerate lanes, and aligned ones, make no turn.
    let stepping = going & !degenerate & !aligned;
    if stepping == 0 {
        return 0;
    }
    let cross = cross(from_effector, from_goal);
    let cosine = dot(from_effector, from_goal);
    let parent = match k {
        0 => m3(state, OUTER),
        _ => m3(state, slot(k - 1) + SKIN),
    };
    let l = link_at(link);
    let matrix_set = bits(state[l + MATRIX_SET]);
    // Which lanes take which form (`LinkState::begin_turn`, `twin::form_of`).
    let (vector, turned) = match (&plan.single, &plan.limits) {
        (Some(single), Some(limits)) if reflect || single.first_applied => {
            let on_axis = stepping & matrix_set;
            if on_axis == 0 || (!reflect && plan.fixed.is_some()) {
                return stepping;
            }
            let i = single.axis;
            let (delta, ok) = if reflect {
                // `Step::on_axis`, first half: ± the capped angle by the sign of the cross
                // product's component along the axis, in the parent frame.
                let axis = [parent.x, parent.y, parent.z][i];
                let along = dot(axis, cross);
                let turn = capped(angle_of(cosine), plan.cap);
                let negative = _mm256_cmp_ps::<_CMP_LT_OQ>(along, splat(0.0));
                (_mm256_blendv_ps(turn, neg(turn), negative), on_axis)
            } else {
                // Second half: the turn's own angle about the axis applied first.
                let parent_cross = to_frame(&parent, cross);
                let positive = bits(_mm256_cmp_ps::<_CMP_GT_OQ>(
                    dot(parent_cross, parent_cross),
                    splat(0.0),
                ));
                let unit = normalize(parent_cross);
                let long_enough = bits(_mm256_cmp_ps::<_CMP_GT_OQ>(dot(unit, unit), epsilon));
                // `step::first_applied_turn`: the turn about the unit axis by the capped
                // angle, as glam builds it (`trig::lib_sin_cos` of half the angle), and the
                // angle about the axis the Euler order applies first.
                let half = lanes(mul(capped(angle_of(cosine), plan.cap), splat(0.5)));
                let sc = half.map(crate::ik::trig::lib_sin_cos);
                let (sine, cosine) = (from_lanes(&sc.map(|p| p.0)), from_lanes(&sc.map(|p| p.1)));
                let turn = [
                    mul(unit.x, sine),
                    mul(unit.y, sine),
                    mul(unit.z, sine),
                    cosine,
                ];
                let m = rotation_matrix(turn);
                let (y, x) = match single.order {
                    0 => (m.x.y, m.y.y),
                    1 => (m.y.z, m.z.z),
                    _ => (m.z.x, m.x.x),
                };
                let delta = trig_wide::atan2_8(y, x);
                (delta, on_axis & positive & long_enough)
            };
            let e0 = state[l + ANGLE];
            let angle = settle(limits.min[i], limits.max[i], e0, delta, reflect);
            let m = axis_matrix(i, angle);
            let mask = mask_of(ok);
            put_m3(state, l + MATRIX, m, mask);
            put(state, l + ANGLE, angle, mask);
            put(state, l + PENDING, mask, mask);
            (ok, m)
        }
        (_, None) if half_angle_form(plan.fixed, plan.cap) => {
            let free = stepping & !matrix_set;
            if free == 0 {
                return stepping;
            }
            // `Step::free`, half-angle form; a cross product too short for it goes to the
            // scalar step (`Step::opposite`).
            let parent_cross = to_frame(&parent, cross);
            let long_enough = bits(_mm256_cmp_ps::<_CMP_GE_OQ>(
                dot(parent_cross, parent_cross),
                splat(1e-10),
            ));
            let unit = normalize(parent_cross);
            let d = clamp(cosine, -1.0, 1.0);
            let half = splat(0.5);
            let sine = _mm256_sqrt_ps(mul(sub(splat(1.0), d), half));
            let cosine = _mm256_sqrt_ps(mul(add(splat(1.0), d), half));
            let current = [
                state[l + ROTATION],
                state[l + ROTATION + 1],
                state[l + ROTATION + 2],
                state[l + ROTATION + 3],
            ];
            let q = then(
                current,
                [
                    mul(unit.x, sine),
                    mul(unit.y, sine),
                    mul(unit.z, sine),
                    cosine,
                ],
            );
            let ok = free & long_enough;
            let mask = mask_of(ok);
            for (c, v) in q.into_iter().enumerate() {
                put(state, l + ROTATION + c, v, mask);
            }
            put(state, l + SOLVED, mask, mask);
            (ok, rotation_matrix(q))
        }
        _ => return stepping,
    };
    if vector != 0 {
        refresh(state, k, s.chain.len(), turned, mask_of(vector));
        #[cfg(feature = "counters")]
        crate::counters::add_wide_visit(vector);
    }
    stepping & !vector
}

/// `chain::refresh_path` in the lanes of `mask`: slot `k` turned to `m`, every slot below it
/// from its parent's new skinning matrix.
#[target_feature(enable = "avx2")]
fn refresh(state: &mut State, k: usize, chain: usize, m: M3, mask: F) {
    let o = slot(k);
    let rest = v3(state, o + REST);
    let translation = v3(state, o + TRANSLATION);
    // `fk::relative_to`: (m × −rest + translation) + rest.
    let moved = mat_vec(
        &m,
        V3 {
            x: neg(rest.x),
            y: neg(rest.y),
            z: neg(rest.z),
        },
    );
    let relative = Affine {
        m,
        t: V3 {
            x: add(add(moved.x, translation.x), rest.x),
            y: add(add(moved.y, translation.y), rest.y),
            z: add(add(moved.z, translation.z), rest.z),
        },
    };
    put_affine_lanes(state, o + RELATIVE, relative, mask);
    put(state, o + AT_REST, is_identity(&relative), mask);
    let mut parent = match k {
        0 => affine(state, OUTER),
        _ => affine(state, slot(k - 1) + SKIN),
    };
    let mut position = v3(state, o + POSITION);
    let mut index = k;
    while index < chain {
        let so = slot(index);
        let own = if index == k {
            relative
        } else {
            affine(state, so + RELATIVE)
        };
        let composed = compose(&parent, &own);
        // A bone at rest on its parent takes its parent's matrix (`fk::place_at_rest`).
        let skin = if index == k {
            composed
        } else {
            let at_rest = state[so + AT_REST];
            blend_affine(composed, parent, at_rest)
        };
        let rest = v3(state, so + REST);
        let p = mat_vec(&skin.m, rest);
        position = V3 {
            x: add(p.x, skin.t.x),
            y: add(p.y, skin.t.y),
            z: add(p.z, skin.t.z),
        };
        put_affine_lanes(state, so + SKIN, skin, mask);
        put_v3(state, so + POSITION, position, mask);
        parent = skin;
        index += 1;
    }
    put_v3(state, EFFECTOR, position, mask);
    put(state, MOVED, mask, mask);
}
