//! The order a step's IK solvers run in, with independent plain-path solvers paired so that
//! they are solved side by side (`ik::solve_pair`), such as the two legs.
//!
//! Pairing may move a solver ahead of others in its step; that is only done when it changes
//! nothing: the two commute (`footprint`).

use super::footprint::Footprint;
use super::{IkRun, Model, NONE};
use std::ops::Range;

/// The runs of the solvers in `solvers` (one step's, in their order): each solver in turn,
/// paired with the first later plain-path solver that commutes with it and with every solver
/// between them.
pub(super) fn schedule(model: &Model, solvers: Range<usize>) -> Vec<IkRun> {
    let prints: Vec<Footprint> = solvers
        .clone()
        .map(|si| Footprint::of_solver(model, si))
        .collect();
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
                        && print(first).commutes(print(t))
                        && pending[..j].iter().all(|&m| print(m).commutes(print(t)))
                })
            })
            .flatten();
        let second = partner.map(|j| pending.remove(j));
        runs.push(IkRun {
            first: first as u32,
            second: second.map_or(NONE, |t| t as u32),
            lockstep: second.is_some_and(|t| crate::ik::plan::same_shape(model, first, t)),
        });
    }
    runs
}
