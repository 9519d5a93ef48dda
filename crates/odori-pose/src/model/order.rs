//! The evaluation schedule: deform order, per-layer steps, and each IK solver's refresh lists.
//!
//! MMD sorts bones by deform layer (stable, by file index) and runs the bones without the
//! after-physics flag first. Inside each layer it computes world matrices, then runs the
//! layer's IK solvers. Everything here is computed once, so the per-frame loop is flat.

use super::{Model, NONE, PASS_EFFECTOR, PASS_GRANT, Step};

/// Fill `order`, `order_pos`, the two passes' steps, solver order and refresh lists.
/// `solver_list` (IK bones in file list order, PMD) keeps that order for the solvers of one
/// step instead of sorting them by bone.
pub(super) fn schedule(model: &mut Model, solver_list: Option<&[u32]>) {
    let n = model.bone_count();
    // Before solvers are sorted: the roles depend on the authored solver order.
    let post_ik_bones = ik_roles(model);
    model.post_ik.clear();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&b| (model.after_physics[b as usize], model.layer[b as usize], b));
    let mut order_pos = vec![0u32; n];
    for (i, &b) in order.iter().enumerate() {
        order_pos[b as usize] = i as u32;
    }
    model.order_dependent = (0..n)
        .map(|b| {
            let p = model.parent[b];
            p != NONE && order_pos[p as usize] > order_pos[b]
        })
        .collect();

    // Solvers run in the order of their IK bone in the evaluation order.
    match solver_list {
        Some(list) => {
            let rank = |b: u32| list.iter().position(|&x| x == b).unwrap_or(usize::MAX);
            model
                .solvers
                .sort_by_key(|s| (model.layer[s.bone as usize], rank(s.bone)));
        }
        None => model.solvers.sort_by_key(|s| order_pos[s.bone as usize]),
    }
    model.solver_of = vec![None; n];
    for (i, s) in model.solvers.iter().enumerate() {
        model.solver_of[s.bone as usize] = Some(i as u32);
    }

    // Group consecutive bones of one (phase, layer) into steps.
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut start = 0;
    let mut solver_cursor = 0;
    while start < n {
        let key = |i: usize| {
            (
                model.after_physics[order[i] as usize],
                model.layer[order[i] as usize],
            )
        };
        let mut end = start + 1;
        while end < n && key(end) == key(start) {
            end += 1;
        }
        let solver_start = solver_cursor;
        while solver_cursor < model.solvers.len()
            && (order_pos[model.solvers[solver_cursor].bone as usize] as usize) < end
        {
            solver_cursor += 1;
        }
        let post_start = model.post_ik.len();
        model.post_ik.extend(
            order[start..end]
                .iter()
                .copied()
                .filter(|&b| post_ik_bones[b as usize]),
        );
        let step = Step {
            bones: start..end,
            solvers: solver_start..solver_cursor,
            ik_runs: 0..0,
            post_ik: post_start..model.post_ik.len(),
        };
        if key(start).0 {
            after.push(step);
        } else {
            before.push(step);
        }
        start = end;
    }
    model.order = order;
    model.order_pos = order_pos;
    model.before_physics = before;
    model.after_physics_steps = after;

    let steps: Vec<Step> = model
        .before_physics
        .iter()
        .chain(model.after_physics_steps.iter())
        .cloned()
        .collect();
    model.effectors.clear();
    model.effector_slot = vec![NONE; n];
    for s in &model.solvers {
        let t = s.target as usize;
        if model.effector_slot[t] == NONE {
            model.effector_slot[t] = model.effectors.len() as u32;
            model.effectors.push(s.target);
        }
    }
    model.pass_flags = (0..n)
        .map(|b| {
            let grant = if model.append[b].is_some() {
                PASS_GRANT
            } else {
                0
            };
            let effector = if model.effector_slot[b] != NONE {
                PASS_EFFECTOR
            } else {
                0
            };
            grant | effector
        })
        .collect();
    model.late_effectors.clear();
    for step in &steps {
        for si in step.solvers.clone() {
            let (chain, dependents) = refresh_lists(model, si, step.bones.end);
            model.solvers[si].chain_from = model.solvers[si]
                .links
                .iter()
                .map(|l| chain.iter().position(|&b| b == l.bone).unwrap_or(0) as u32)
                .collect();
            model.solvers[si].chain = chain;
            model.solvers[si].dependents = dependents;
            model.solvers[si].plans = crate::ik::plan::link_plans(model, &model.solvers[si]);
            model.solvers[si].plain_path =
                crate::ik::plan::is_plain_path(model, &model.solvers[si]);
            let target = model.solvers[si].target;
            if model.order_pos[target as usize] as usize >= step.bones.end
                && !model.late_effectors.contains(&target)
            {
                model.late_effectors.push(target);
            }
        }
    }

    // Each step's IK runs, once every solver's lists are known.
    model.ik_runs.clear();
    let before = model.before_physics.len();
    for (i, step) in steps.iter().enumerate() {
        let start = model.ik_runs.len();
        let runs = super::ik_runs::schedule(model, step.solvers.clone());
        model.ik_runs.extend(runs);
        let range = start..model.ik_runs.len();
        match i.checked_sub(before) {
            None => model.before_physics[i].ik_runs = range,
            Some(j) => model.after_physics_steps[j].ik_runs = range,
        }
    }
}

/// Mark the IK links that keep their IK rotation between evaluations (`ik_retained`) and
/// return the effectors refreshed after their step's solvers (see `ik`).
///
/// As mmd-anim 0.5.3 reads MMD (capture `append-dependent-retained-200`): a bone is
/// *dependent* when its parent is, or when it has a grant (rotation or translation, any
/// ratio) whose source is an IK link; the scan runs in file order, so a parent listed after
/// its child passes nothing on. A link is counted as a link unless a later solver (in
/// authored order) uses it as its IK bone or effector.
fn ik_roles(model: &mut Model) -> Vec<bool> {
    let n = model.bone_count();
    let mut link = vec![false; n];
    for s in &model.solvers {
        link[s.bone as usize] = false;
        link[s.target as usize] = false;
        for l in &s.links {
            link[l.bone as usize] = true;
        }
    }
    let mut dependent = vec![false; n];
    for b in 0..n {
        let p = model.parent[b];
        dependent[b] = (p != NONE && (p as usize) < b && dependent[p as usize])
            || model.append[b].is_some_and(|a| link[a.source as usize]);
    }
    model.ik_retained = (0..n).map(|b| dependent[b] && link[b]).collect();
    let mut post_ik = vec![false; n];
    for s in &model.solvers {
        let t = s.target as usize;
        post_ik[t] = dependent[t] && !link[t];
    }
    post_ik
}

/// The bones one solver must refresh: while iterating (the links and the path from the
/// root-most link down to the effector) and once done (everything depending on a link,
/// among the bones evaluated before `evaluated_end`).
fn refresh_lists(model: &Model, si: usize, evaluated_end: usize) -> (Vec<u32>, Vec<u32>) {
    let n = model.bone_count();
    let solver = &model.solvers[si];
    let mut is_link = vec![false; n];
    for l in &solver.links {
        is_link[l.bone as usize] = true;
    }
    // Path: ancestors-or-self of the effector that are links or lie below a link.
    let mut in_chain = is_link.clone();
    let mut path = Vec::new();
    let mut b = solver.target;
    let mut guard = 0;
    while b != NONE && guard <= n {
        path.push(b);
        b = model.parent[b as usize];
        guard += 1;
    }
    // Keep the part of the path below the highest link on it.
    if let Some(top) = path.iter().rposition(|&b| is_link[b as usize]) {
        for &b in &path[..=top] {
            in_chain[b as usize] = true;
        }
    }
    let mut chain: Vec<u32> = (0..n as u32).filter(|&b| in_chain[b as usize]).collect();
    chain.sort_by_key(|&b| model.order_pos[b as usize]);

    // Dependents: descendants of links and append followers, to a fixpoint (parents or
    // sources may sort later, so one pass in order is not always enough).
    let mut dep = is_link;
    loop {
        let mut changed = false;
        for &b in &model.order {
            let bi = b as usize;
            if dep[bi] {
                continue;
            }
            let p = model.parent[bi];
            let from_parent = p != NONE && dep[p as usize];
            let from_append = model.append[bi].is_some_and(|a| dep[a.source as usize]);
            if from_parent || from_append {
                dep[bi] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut dependents: Vec<u32> = model.order[..evaluated_end]
        .iter()
        .copied()
        .filter(|&b| dep[b as usize])
        .collect();
    dependents.sort_by_key(|&b| model.order_pos[b as usize]);
    (chain, dependents)
}
