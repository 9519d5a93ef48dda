//! Which bones an IK solve reads and writes, so that the schedule can tell when two solves may
//! run in either order (they *commute*: neither writes what the other reads or writes).
//!
//! A solve reads and writes its chain, links, effector and dependents (the refresh that ends
//! it updates them: each update reads the bone's own state, its parent's and its grant
//! source's), reads the parents and grant sources of those, and reads its IK bone (the goal).

use super::{Model, NONE};

/// A set of bones, one bit each.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Bones(Vec<u64>);

impl Bones {
    pub(super) fn new(n: usize) -> Bones {
        Bones(vec![0; n.div_ceil(64)])
    }

    pub(super) fn insert(&mut self, b: u32) {
        self.0[b as usize / 64] |= 1 << (b % 64);
    }

    pub(super) fn meets(&self, other: &Bones) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
}

/// What one solve touches.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Footprint {
    pub(super) writes: Bones,
    /// Includes the writes.
    pub(super) reads: Bones,
}

impl Footprint {
    fn empty(model: &Model) -> Footprint {
        let n = model.bone_count();
        Footprint {
            writes: Bones::new(n),
            reads: Bones::new(n),
        }
    }

    /// Bone `b` written (and read), with what its update reads.
    fn touch(&mut self, model: &Model, b: u32) {
        self.writes.insert(b);
        self.reads.insert(b);
        let bi = b as usize;
        if model.parent[bi] != NONE {
            self.reads.insert(model.parent[bi]);
        }
        if let Some(rule) = &model.append[bi] {
            self.reads.insert(rule.source);
        }
    }

    /// The solve of solver `si` and the refresh that ends it.
    pub(super) fn of_solver(model: &Model, si: usize) -> Footprint {
        let s = &model.solvers[si];
        let mut f = Footprint::empty(model);
        let touched = s
            .chain
            .iter()
            .chain(&s.dependents)
            .copied()
            .chain(s.links.iter().map(|l| l.bone))
            .chain([s.target]);
        for b in touched {
            f.touch(model, b);
        }
        f.reads.insert(s.bone);
        f
    }

    /// Running one before the other or the other before the one gives the same result.
    pub(super) fn commutes(&self, other: &Footprint) -> bool {
        !self.writes.meets(&other.reads) && !other.writes.meets(&self.reads)
    }
}
