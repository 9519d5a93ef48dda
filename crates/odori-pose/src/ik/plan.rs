//! What each IK link's steps need, resolved once when the model is compiled: where its bone
//! sits in the solver's chain, its step cap, fixed axis and limits, and which shortcut its
//! limits allow. The solve loop then reads one small record per step instead of working these
//! out again on every one of a leg solve's eighty steps.

use super::limits::{euler_order, first_applied_axis, single_axis};
use crate::model::{IkSolver, LinkLimits, Model, NONE};
use glam::Vec3A;

/// One link of a solver, ready for its steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkPlan {
    pub bone: u32,
    /// Where the bone sits in [`IkSolver::chain`]: a refresh after its step starts there.
    pub slot: u32,
    /// Largest turn of one step: unit angle × (link index + 1).
    pub cap: f32,
    /// PMX fixed axis (parent frame).
    pub fixed: Option<Vec3A>,
    pub limits: Option<LinkLimits>,
    /// For limits on one axis alone: that axis (see [`SingleAxis`]).
    pub single: Option<SingleAxis>,
    /// The link keeps its IK rotation between evaluations ([`Model::ik_retained`]).
    pub retained: bool,
    /// The link is the solver's effector: MMD never turns it.
    pub is_effector: bool,
}

/// A link limited on one axis only (the other two exactly zero), such as a knee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SingleAxis {
    /// 0, 1, 2 for X, Y, Z.
    pub axis: usize,
    /// The Euler order its limits choose (`limits::euler_order`).
    pub order: usize,
    /// The axis is the one that order applies first, so a step that starts on the axis can
    /// add angles in the second half of the iterations too (`Step::on_axis`).
    pub first_applied: bool,
}

impl SingleAxis {
    fn of(l: &LinkLimits) -> Option<SingleAxis> {
        let axis = single_axis(l)?;
        let order = euler_order(l);
        Some(SingleAxis {
            axis,
            order,
            first_applied: axis == first_applied_axis(order),
        })
    }
}

/// The plans of solver `s`'s links, in link order (its `chain` and `chain_from` filled).
pub(crate) fn link_plans(model: &Model, s: &IkSolver) -> Vec<LinkPlan> {
    s.links
        .iter()
        .enumerate()
        .map(|(i, link)| {
            let b = link.bone as usize;
            LinkPlan {
                bone: link.bone,
                slot: s.chain_from[i],
                cap: s.unit_angle * (i as f32 + 1.0),
                fixed: model.fixed_axis[b],
                limits: link.limits,
                single: link.limits.as_ref().and_then(SingleAxis::of),
                retained: model.ik_retained[b],
                is_effector: link.bone == s.target,
            }
        })
        .collect()
}

/// Whether solver `s` takes the register-held solve loop (`ik::path`): its chain is a parent
/// path from the top link down to the effector, no bone on it has a grant (nothing reads an
/// IK rotation mid-solve), no link keeps IK history, and no bone is listed as a link twice
/// (the loop keeps state per link, the instance per bone).
pub(crate) fn is_plain_path(model: &Model, s: &IkSolver) -> bool {
    s.chain.last() == Some(&s.target)
        && s.chain
            .windows(2)
            .all(|w| model.parent[w[1] as usize] == w[0])
        && s.chain.iter().all(|&b| model.append[b as usize].is_none())
        && s.links.iter().all(|l| !model.ik_retained[l.bone as usize])
        && s.links
            .iter()
            .enumerate()
            .all(|(i, l)| s.links[..i].iter().all(|earlier| earlier.bone != l.bone))
}

/// Whether two solvers have the same shape, so that their steps can run in lockstep: the
/// same iterations, chain length, and link by link the same slot, limits shape and role, and
/// both top links with a parent.
pub(crate) fn same_shape(model: &Model, first: usize, second: usize) -> bool {
    let (s, t) = (&model.solvers[first], &model.solvers[second]);
    let has_outer = |chain: &[u32]| model.parent[chain[0] as usize] != NONE;
    s.iterations == t.iterations
        && s.chain.len() == t.chain.len()
        && s.plans.len() == t.plans.len()
        && has_outer(&s.chain)
        && has_outer(&t.chain)
        && s.plans.iter().zip(&t.plans).all(|(p, q)| {
            p.slot == q.slot
                && p.single == q.single
                && p.limits.is_some() == q.limits.is_some()
                && p.fixed.is_some() == q.fixed.is_some()
                && p.is_effector == q.is_effector
        })
}
