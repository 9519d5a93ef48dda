//! The order a step's IK solvers run in, with independent plain-path solvers paired so that
//! they are solved side by side (`ik::solve_pair`), such as the two legs.
//!
//! Pairing may move a solver ahead of others in its step; that is only done when it changes
//! nothing: a solver's *writes* (the bones a solve or its refresh sets) and *reads* (the bones
//! whose state it uses) are known from its chain, links and dependents, and two solvers
//! commute when neither writes what the other reads or writes.

use super::{IkRun, Model, NONE};
use std::ops::Range;

/// A set of bones, one bit each.
struct Bones(Vec<u64>);

impl Bones {
    fn new(n: usize) -> Bones {
        Bones(vec![0; n.div_ceil(64)])
    }

    fn insert(&mut self, b: u32) {
        self.0[b as usize / 64] |= 1 << (b % 64);
    }

    fn meets(&self, other: &Bones) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }
}

/// What one solver's solve touches.
struct Footprint {
    writes: Bones,
    /// Includes the writes.
    reads: Bones,
}

fn footprint(model: &Model, si: usize) -> Footprint {
    let n = model.bone_count();
    let s = &model.solvers[si];
    let (mut writes, mut reads) = (Bones::new(n), Bones::new(n));
    let touched = s
        .chain
        .iter()
        .chain(&s.dependents)
        .copied()
        .chain(s.links.iter().map(|l| l.bone))
        .chain([s.target]);
    for b in touched {
        writes.insert(b);
        reads.insert(b);
        let bi = b as usize;
        // FK of a touched bone reads its parent and its grant's source.
        if model.parent[bi] != NONE {
            reads.insert(model.parent[bi]);
        }
        if let Some(rule) = &model.append[bi] {
            reads.insert(rule.source);
        }
    }
    reads.insert(s.bone);
    Footprint { writes, reads }
}

/// Solving one before the other or the other before the one gives the same result.
fn commute(a: &Footprint, b: &Footprint) -> bool {
    !a.writes.meets(&b.reads) && !b.writes.meets(&a.reads)
}

/// The runs of the solvers in `solvers` (one step's, in their order): each solver in turn,
/// paired with the first later plain-path solver that commutes with it and with every solver
/// between them.
pub(super) fn schedule(model: &Model, solvers: Range<usize>) -> Vec<IkRun> {
    let prints: Vec<Footprint> = solvers.clone().map(|si| footprint(model, si)).collect();
    let plain = |si: usize| model.solvers[si].plain_path;
    let print = |si: usize| &prints[si - solvers.start];
    let mut pending: Vec<usize> = solvers.clone().collect();
    let mut runs = Vec::new();
    while !pending.is_empty() {
        let first = pending.remove(0);
        let partner = plain(first)
            .then(|| {
                pending.iter().enumerate().position(|(j, &t)| {
                    plain(t)
                        && commute(print(first), print(t))
                        && pending[..j].iter().all(|&m| commute(print(m), print(t)))
                })
            })
            .flatten();
        let second = partner.map_or(NONE, |j| pending.remove(j) as u32);
        runs.push(IkRun {
            first: first as u32,
            second,
        });
    }
    runs
}
