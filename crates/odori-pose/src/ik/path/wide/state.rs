//! Where the solves of `wide` keep their state: one array of registers, a register per
//! scalar of a solve (its chain's matrices, its links' rotations, its goal and effector), lane
//! `i` holding solve `i`'s value; and the copy between a solve (`PathSolve`) and its lane.

use super::super::PathSolve;
use super::lanes::{Affine, F, M3, V3};
use super::{LANES, MAX_CHAIN, MAX_LINKS};
use glam::{Quat, Vec3A};
use std::arch::x86_64::*;

// Where each value sits in [`State`] (one register per scalar, eight lanes each).
pub(super) const OUTER: usize = 0; // 12: rotation columns x, y, z, then translation

pub(super) const GOAL: usize = 12; // 3

pub(super) const EFFECTOR: usize = 15; // 3

pub(super) const MOVED: usize = 18; // mask

pub(super) const SLOTS: usize = 19;

pub(super) const SLOT_SIZE: usize = 34;

pub(super) const RELATIVE: usize = 0; // 12

pub(super) const AT_REST: usize = 12; // mask

pub(super) const REST: usize = 13; // 3

pub(super) const TRANSLATION: usize = 16; // 3

pub(super) const SKIN: usize = 19; // 12

pub(super) const POSITION: usize = 31; // 3

pub(super) const LINKS: usize = SLOTS + MAX_CHAIN * SLOT_SIZE;

pub(super) const LINK_SIZE: usize = 17;

pub(super) const ROTATION: usize = 0; // 4: x, y, z, w

pub(super) const MATRIX: usize = 4; // 9: columns

pub(super) const MATRIX_SET: usize = 13; // mask

pub(super) const ANGLE: usize = 14;

pub(super) const PENDING: usize = 15; // mask

pub(super) const SOLVED: usize = 16; // mask

pub(super) const STATE_SIZE: usize = LINKS + MAX_LINKS * LINK_SIZE;

pub(super) const fn slot(k: usize) -> usize {
    SLOTS + k * SLOT_SIZE
}

pub(super) const fn link_at(l: usize) -> usize {
    LINKS + l * LINK_SIZE
}

/// Every value of the solves, lane by lane.
pub(super) type State = [F; STATE_SIZE];

/// A lane mask's value for true (all bits set) and false.
pub(super) const TRUE: f32 = f32::from_bits(u32::MAX);

pub(super) fn flag(b: bool) -> f32 {
    if b { TRUE } else { 0.0 }
}

/// [`State`] seen lane by lane: `rows[i][lane]` is lane `lane` of register `i`.
pub(super) type Rows = [[f32; LANES]; STATE_SIZE];

pub(super) fn rows(state: &mut State) -> &mut Rows {
    // SAFETY: a register of eight f32 lanes and an array of eight f32s have the same size,
    // and the array needs less alignment.
    unsafe { &mut *(state as *mut State as *mut Rows) }
}

/// One lane of [`Rows`], written or read value by value.
pub(super) struct Lane<'r> {
    pub(super) rows: &'r mut Rows,
    pub(super) lane: usize,
}

impl std::ops::Index<usize> for Lane<'_> {
    type Output = f32;
    fn index(&self, i: usize) -> &f32 {
        &self.rows[i][self.lane]
    }
}

impl std::ops::IndexMut<usize> for Lane<'_> {
    fn index_mut(&mut self, i: usize) -> &mut f32 {
        &mut self.rows[i][self.lane]
    }
}

/// One solve's state into lane `lane` of `state`.
pub(super) fn pack(solve: &PathSolve, state: &mut State, lane: usize) {
    let out = &mut Lane {
        rows: rows(state),
        lane,
    };
    let outer = solve.outer.expect("a top link with a parent (`fits`)");
    put_affine(out, OUTER, &outer);
    put_vec(out, GOAL, solve.goal);
    put_vec(out, EFFECTOR, solve.effector);
    out[MOVED] = flag(solve.moved);
    for (k, c) in solve.slots.iter().enumerate() {
        let o = slot(k);
        put_affine(out, o + RELATIVE, &c.relative);
        out[o + AT_REST] = flag(c.at_rest);
        put_vec(out, o + REST, c.rest);
        put_vec(out, o + TRANSLATION, c.translation);
        put_affine(out, o + SKIN, &c.skin);
        put_vec(out, o + POSITION, c.position);
    }
    for (l, link) in solve.links.iter().enumerate() {
        let o = link_at(l);
        for (c, x) in link.rotation.to_array().into_iter().enumerate() {
            out[o + ROTATION + c] = x;
        }
        for (c, x) in link.matrix.to_cols_array().into_iter().enumerate() {
            out[o + MATRIX + c] = x;
        }
        out[o + MATRIX_SET] = flag(link.matrix_set);
        out[o + ANGLE] = link.angle;
        out[o + PENDING] = flag(link.pending);
        out[o + SOLVED] = flag(link.solved);
    }
}

/// [`pack`] undone from lane `lane`: the solve's chain, links, effector and whether it moved.
pub(super) fn unpack(solve: &mut PathSolve, state: &mut State, lane: usize) {
    let from = &Lane {
        rows: rows(state),
        lane,
    };
    let set = |v: f32| v.to_bits() != 0;
    solve.effector = get_vec(from, EFFECTOR);
    solve.moved = set(from[MOVED]);
    for (k, c) in solve.slots.iter_mut().enumerate() {
        let o = slot(k);
        c.relative = get_affine(from, o + RELATIVE);
        c.at_rest = set(from[o + AT_REST]);
        c.skin = get_affine(from, o + SKIN);
        c.position = get_vec(from, o + POSITION);
    }
    for (l, link) in solve.links.iter_mut().enumerate() {
        let o = link_at(l);
        let r = |c: usize| from[o + ROTATION + c];
        link.rotation = Quat::from_xyzw(r(0), r(1), r(2), r(3));
        let m: [f32; 9] = std::array::from_fn(|c| from[o + MATRIX + c]);
        link.matrix = glam::Mat3A::from_cols_array(&m);
        link.matrix_set = set(from[o + MATRIX_SET]);
        link.angle = from[o + ANGLE];
        link.pending = set(from[o + PENDING]);
        link.solved = set(from[o + SOLVED]);
    }
}

pub(super) fn put_vec(out: &mut Lane, o: usize, v: Vec3A) {
    for (c, x) in v.to_array().into_iter().enumerate() {
        out[o + c] = x;
    }
}

pub(super) fn get_vec(from: &Lane, o: usize) -> Vec3A {
    Vec3A::new(from[o], from[o + 1], from[o + 2])
}

pub(super) fn put_affine(out: &mut Lane, o: usize, a: &glam::Affine3A) {
    for (c, x) in a.to_cols_array().into_iter().enumerate() {
        out[o + c] = x;
    }
}

pub(super) fn get_affine(from: &Lane, o: usize) -> glam::Affine3A {
    glam::Affine3A::from_cols_array(&std::array::from_fn(|c| from[o + c]))
}

#[inline(always)]
pub(super) fn v3(state: &State, o: usize) -> V3 {
    V3 {
        x: state[o],
        y: state[o + 1],
        z: state[o + 2],
    }
}

#[inline(always)]
pub(super) fn m3(state: &State, o: usize) -> M3 {
    M3 {
        x: v3(state, o),
        y: v3(state, o + 3),
        z: v3(state, o + 6),
    }
}

#[inline(always)]
pub(super) fn affine(state: &State, o: usize) -> Affine {
    Affine {
        m: m3(state, o),
        t: v3(state, o + 9),
    }
}

/// Lanes of `mask` take `v`, the others keep theirs.
#[inline(always)]
pub(super) fn put_v3(state: &mut State, o: usize, v: V3, mask: F) {
    for (i, x) in [v.x, v.y, v.z].into_iter().enumerate() {
        store(&mut state[o + i], x, mask);
    }
}

#[inline(always)]
pub(super) fn put_m3(state: &mut State, o: usize, m: M3, mask: F) {
    put_v3(state, o, m.x, mask);
    put_v3(state, o + 3, m.y, mask);
    put_v3(state, o + 6, m.z, mask);
}

#[inline(always)]
pub(super) fn put_affine_lanes(state: &mut State, o: usize, a: Affine, mask: F) {
    put_m3(state, o, a.m, mask);
    put_v3(state, o + 9, a.t, mask);
}

/// `v` into the lanes of `mask` of `*at`, as a blend and a plain store. (Left to itself the
/// compiler makes a masked store of it, which AMD's Zen cores run as a slow microcoded
/// sequence: it tripled the time of a step.)
#[inline(always)]
pub(super) fn store(at: &mut F, v: F, mask: F) {
    // SAFETY: only called from `run`'s AVX2 code, into which it is inlined; `at` is a valid,
    // aligned register slot.
    unsafe { std::ptr::write_volatile(at, _mm256_blendv_ps(*at, v, mask)) }
}

#[inline(always)]
pub(super) fn put(state: &mut State, o: usize, v: F, mask: F) {
    store(&mut state[o], v, mask);
}
