//! How much work the IK fast paths did on this thread, for tests that must show a fast path
//! ran rather than its scalar fallback (feature `counters`; without it this module and every
//! count are compiled out).
//!
//! - `twin_rounds`: link steps done for two solvers at once in two-lane AVX rounds
//!   (`ik::path::twin`, reached through [`crate::ik::solve_pair`] in lockstep).
//! - `wide_visits`: link visits in which some lane of eight took its step in the eight-lane
//!   AVX2 solve (`ik::path::wide`, reached through [`crate::evaluate_group`]), and
//!   `wide_lane_steps` the lane steps so done.
//!
//! The counts are per thread, so tests running side by side do not see each other's.

use std::cell::Cell;

thread_local! {
    static COUNTS: Cell<Counts> = const { Cell::new(Counts::ZERO) };
}

/// This thread's counts since the last [`take`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub twin_rounds: u64,
    pub wide_visits: u64,
    pub wide_lane_steps: u64,
}

impl Counts {
    const ZERO: Counts = Counts {
        twin_rounds: 0,
        wide_visits: 0,
        wide_lane_steps: 0,
    };
}

/// This thread's counts, which start again from zero.
pub fn take() -> Counts {
    COUNTS.replace(Counts::ZERO)
}

/// `rounds` two-lane rounds done (counted by the caller over one pair solve).
pub(crate) fn add_twin_rounds(rounds: u64) {
    COUNTS.with(|c| {
        let mut n = c.get();
        n.twin_rounds += rounds;
        c.set(n);
    });
}

/// One eight-lane visit in which the lanes of `lanes` (bits) took their step.
pub(crate) fn add_wide_visit(lanes: u32) {
    COUNTS.with(|c| {
        let mut n = c.get();
        n.wide_visits += 1;
        n.wide_lane_steps += u64::from(lanes.count_ones());
        c.set(n);
    });
}
