//! The solve loop for the common chain: a plain parent path from the top link down to the
//! effector (legs, toes, most hair; `plan::is_plain_path`).
//!
//! Nothing outside the chain reads it while it is solved (no grant on it), so a solve keeps
//! the chain's matrices in its slots and each link's state in a [`LinkState`], and writes
//! them to the bones once, when it ends. The arithmetic is the general loop's, operation for
//! operation; only the bookkeeping differs.
//!
//! A solve is a cursor ([`PathSolve`]) advanced one link visit at a time, so that two
//! independent solvers (a pair of legs: `model::IkRun`) can advance side by side. Each step is
//! one long dependent chain (normalise, arc-cosine, sine and cosine, matrix products) that
//! leaves most of the processor idle; two chains side by side fill it. Each solver's own
//! sequence of operations is unchanged, so its results are too.

#[cfg(target_arch = "x86_64")]
mod twin;
#[cfg(target_arch = "x86_64")]
pub(crate) mod wide;

use super::chain::{ChainSlot, refresh_path};
use super::link::{LinkState, Turn};
use super::step::Step;
use super::{Directions, directions, within_tolerance};
use crate::fk;
use crate::instance::Instance;
use crate::model::{IkSolver, Model};
use glam::{Affine3A, Mat3A, Vec3A};

/// One plain-path solve in progress.
pub(super) struct PathSolve<'a> {
    model: &'a Model,
    s: &'a IkSolver,
    slots: &'a mut [ChainSlot],
    links: &'a mut [LinkState],
    /// Skinning matrix of the top slot's parent (`None` for a root), and its rotation.
    outer: Option<Affine3A>,
    outer_rotation: Mat3A,
    goal: Vec3A,
    effector: Vec3A,
    iteration: usize,
    /// The link the next visit looks at.
    next_link: usize,
    done: bool,
    moved: bool,
}

/// A link about to take a step.
pub(super) struct Visit {
    link: usize,
    step: Step,
    reflect: bool,
}

impl<'a> PathSolve<'a> {
    /// Solver `si` (a plain path) starting from `effector` toward `goal`, its chain and links
    /// loaded from `inst` into `slots` and `links`.
    pub(super) fn start(
        model: &'a Model,
        inst: &Instance,
        si: usize,
        goal: Vec3A,
        effector: Vec3A,
        slots: &'a mut [ChainSlot],
        links: &'a mut [LinkState],
    ) -> PathSolve<'a> {
        let s = &model.solvers[si];
        let outer = fk::parent_skin(model, inst, s.chain[0] as usize);
        let slots = &mut slots[..s.chain.len()];
        for (slot, &b) in slots.iter_mut().zip(&s.chain) {
            *slot = ChainSlot::load(model, inst, b as usize);
        }
        let links = &mut links[..s.plans.len()];
        for (link, plan) in links.iter_mut().zip(&s.plans) {
            let b = plan.bone as usize;
            *link = LinkState::start(fk::own_rotation(inst, b), inst.ik_solved[b]);
        }
        PathSolve {
            model,
            s,
            slots,
            links,
            outer,
            outer_rotation: outer.map_or(Mat3A::IDENTITY, |o| o.matrix3),
            goal,
            effector,
            iteration: 0,
            next_link: 0,
            done: s.iterations == 0,
            moved: false,
        }
    }

    /// Advance to the next link to visit, or `None` once the solve is over: past the last
    /// iteration, or within tolerance at the end of an iteration (or stopped by an aligned
    /// link, see [`PathSolve::step`]).
    #[inline(always)]
    pub(super) fn next(&mut self) -> Option<usize> {
        let iterations = self.s.iterations as usize;
        while !self.done {
            if self.next_link == self.s.plans.len() {
                self.next_link = 0;
                self.iteration += 1;
                self.done =
                    within_tolerance(self.effector, self.goal) || self.iteration == iterations;
                continue;
            }
            let link = self.next_link;
            self.next_link += 1;
            if !self.s.plans[link].is_effector {
                return Some(link);
            }
        }
        None
    }

    /// Whether this iteration is in the first half, where limited links reflect off their
    /// bounds.
    #[inline(always)]
    pub(super) fn reflect(&self) -> bool {
        self.iteration < self.s.iterations as usize / 2
    }

    /// Visit `link`: the step it takes, or `None` when it sees the effector or the goal on
    /// itself, or both in the same direction (which ends the solve under
    /// `IkRules::stop_when_aligned`).
    #[inline(always)]
    pub(super) fn visit(&mut self, link: usize) -> Option<Visit> {
        let plan = &self.s.plans[link];
        let k = plan.slot as usize;
        let (from_effector, from_goal) =
            match directions(self.slots[k].position, self.effector, self.goal) {
                Directions::Apart(e, g) => (e, g),
                Directions::Degenerate => return None,
                Directions::Aligned => {
                    self.done |= self.model.ik_rules.stop_when_aligned;
                    return None;
                }
            };
        Some(Visit {
            link,
            step: Step {
                from_effector,
                from_goal,
                parent: self.parent_rotation(k),
                cap: plan.cap,
                fixed: plan.fixed,
            },
            reflect: self.reflect(),
        })
    }

    /// World rotation of the parent of chain slot `k`.
    #[inline(always)]
    pub(super) fn parent_rotation(&self, k: usize) -> Mat3A {
        match k {
            0 => self.outer_rotation,
            _ => self.slots[k - 1].skin.matrix3,
        }
    }

    /// The visited link's step: the rotation matrix it turned to, or `None` for no turn.
    #[inline]
    pub(super) fn turn(&mut self, v: &Visit) -> Option<Mat3A> {
        self.links[v.link].turn(&self.s.plans[v.link], &v.step, v.reflect)
    }

    /// [`PathSolve::turn`] in two parts (`LinkState::begin_turn`, `end_turn`).
    #[inline(always)]
    fn begin_turn(&mut self, v: &Visit) -> Turn {
        self.links[v.link].begin_turn(&self.s.plans[v.link], &v.step, v.reflect)
    }

    #[inline(always)]
    fn end_turn(&mut self, v: &Visit, turn: Turn) -> Option<Mat3A> {
        self.links[v.link].end_turn(turn)
    }

    /// After the visited link turned to `m`: refresh the chain below it.
    #[inline(always)]
    pub(super) fn refresh(&mut self, v: &Visit, m: Mat3A) {
        let k = self.s.plans[v.link].slot as usize;
        self.effector = refresh_path(self.slots, k, self.outer, m);
        self.moved = true;
    }

    /// Run the solve to its end.
    pub(super) fn run(&mut self) {
        while let Some(link) = self.next() {
            self.step(link);
        }
    }

    /// One whole step of `link` (visit, turn, refresh).
    #[inline]
    pub(super) fn step(&mut self, link: usize) {
        if let Some(v) = self.visit(link)
            && let Some(m) = self.turn(&v)
        {
            self.refresh(&v, m);
        }
    }

    /// Write the chain's matrices and the links' state to the instance; returns whether a
    /// link turned.
    pub(super) fn write_back(self, inst: &mut Instance) -> bool {
        for (slot, &b) in self.slots.iter().zip(&self.s.chain) {
            inst.skinning[b as usize] = slot.skin;
            inst.world_position[b as usize] = slot.position;
        }
        for (link, plan) in self.links.iter_mut().zip(&self.s.plans) {
            let b = plan.bone as usize;
            if link.solved {
                inst.ik_rotation[b] = link.rotation();
                inst.ik_solved[b] = true;
            }
            inst.ik_matrix[b] = link.matrix;
            inst.ik_matrix_set[b] = link.matrix_set;
        }
        self.moved
    }
}

/// Run two independent plain-path solves side by side: when `lockstep` (same shape) and the
/// machine has AVX, as one in two-lane registers (`twin`); otherwise each part of a step of
/// one (link visit, the two parts of its turn, refresh) next to the same part of the other's.
pub(super) fn run_pair(a: &mut PathSolve, b: &mut PathSolve, lockstep: bool) {
    #[cfg(target_arch = "x86_64")]
    if lockstep && std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the machine has AVX (checked just above).
        return unsafe { twin::run_pair(a, b) };
    }
    let _ = lockstep;
    while advance_pair(a, b) {}
}

/// One round of two independent solves (one link visit each); false once both are over.
#[inline(always)]
fn advance_pair(a: &mut PathSolve, b: &mut PathSolve) -> bool {
    let (la, lb) = (a.next(), b.next());
    if la.is_none() && lb.is_none() {
        return false;
    }
    let va = la.and_then(|l| a.visit(l));
    let vb = lb.and_then(|l| b.visit(l));
    let ta = va.as_ref().map(|v| a.begin_turn(v));
    let tb = vb.as_ref().map(|v| b.begin_turn(v));
    let ma = va.as_ref().zip(ta).and_then(|(v, t)| a.end_turn(v, t));
    let mb = vb.as_ref().zip(tb).and_then(|(v, t)| b.end_turn(v, t));
    if let (Some(v), Some(m)) = (&va, ma) {
        a.refresh(v, m);
    }
    if let (Some(v), Some(m)) = (&vb, mb) {
        b.refresh(v, m);
    }
    true
}
