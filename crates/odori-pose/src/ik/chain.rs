//! The running solver's chain (`IkSolver::chain`): each bone's transform relative to rest,
//! cached so that a refresh after a step only composes matrices, and the refreshes
//! themselves.
//!
//! Both refreshes do FK's arithmetic (`fk::compose`, `fk::position_of`), so a solve gives
//! the bones the matrices a full update would.

use crate::fk;
use crate::instance::Instance;
use crate::model::Model;
use glam::{Affine3A, Vec3A};

/// One chain bone during a solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ChainSlot {
    /// Transform relative to rest ([`fk::relative_to_rest`]): constant for the bones between
    /// links, replaced on a link's step.
    pub(crate) relative: Affine3A,
    /// `relative` is the identity: the bone is at rest on its parent (an unanimated
    /// effector), and takes its parent's skinning matrix.
    pub(crate) at_rest: bool,
    /// The bone's rest position and animated translation (what `relative` is built from).
    pub(crate) rest: Vec3A,
    pub(crate) translation: Vec3A,
    /// Skinning matrix and world position (the register-held loop, `ik::path`, keeps them
    /// here and writes them to the bone when the solve ends).
    pub(crate) skin: Affine3A,
    pub(crate) position: Vec3A,
}

impl ChainSlot {
    pub(crate) const EMPTY: ChainSlot = ChainSlot {
        relative: Affine3A::IDENTITY,
        at_rest: true,
        rest: Vec3A::ZERO,
        translation: Vec3A::ZERO,
        skin: Affine3A::IDENTITY,
        position: Vec3A::ZERO,
    };

    /// Chain bone `b` as a solve starts: its current matrices, and its transform relative to
    /// rest from the matrix an IK step built for it (or its rotation's), as
    /// `fk::update_bone_with` would compute it. Inlined into the loops that fill a solve's
    /// slots, which then build each slot in place (as a call that returned the slot through
    /// memory, the page's pose evaluation took 1.3 % longer, A/B in headless Chromium).
    #[inline(always)]
    pub(crate) fn load(model: &Model, inst: &Instance, b: usize) -> ChainSlot {
        let mut slot = ChainSlot {
            rest: model.rest[b],
            translation: inst.pose_translation[b],
            skin: inst.skinning[b],
            position: inst.world_position[b],
            ..ChainSlot::EMPTY
        };
        let m = fk::ik_matrix(inst, b)
            .unwrap_or_else(|| crate::math::rotation_matrix(fk::own_rotation(inst, b)));
        slot.set_relative(fk::relative_to(slot.rest, m, slot.translation));
        slot
    }

    #[inline]
    pub(crate) fn set_relative(&mut self, relative: Affine3A) {
        self.relative = relative;
        self.at_rest = relative == Affine3A::IDENTITY;
    }
}

/// Recompute the bones of chain slots `from..` in the instance while solving (the general
/// loop): bones without a grant from their cached transform relative to rest, others in
/// full. Local rotations are written once the solve ends (`dependents`).
pub(super) fn refresh_bones(
    model: &Model,
    inst: &mut Instance,
    slots: &[ChainSlot],
    chain: &[u32],
    from: usize,
) {
    for (slot, &b) in slots.iter().zip(chain).skip(from) {
        let b = b as usize;
        if model.append[b].is_none() {
            if slot.at_rest {
                fk::place_at_rest(model, inst, b);
            } else {
                fk::place(model, inst, b, slot.relative);
            }
        } else {
            fk::update_bone_with(model, inst, b, fk::ik_matrix(inst, b));
        }
    }
}

/// The register-held refresh of a plain parent path (`ik::path`): slot `from` turned to
/// rotation matrix `m`, then every slot below it from its parent's new skinning matrix.
/// `outer`: the skinning matrix of the top slot's parent (`None` for a root). Returns the
/// effector's (last slot's) world position.
///
/// The turned slot is composed before the loop and the loop walks the slots below it as a
/// plain sub-slice: written as one `enumerate().skip(from)` loop with a `k != from` test,
/// V8 compiled it to a division of the slice's byte length by the slot size and a test per
/// slot, and the page's whole pose evaluation ran 0.95 × and then 0.985 × the time once each
/// was gone (A/B in headless Chromium, `bench/ab.mjs`). Same operations, same bits.
#[inline(always)]
pub(super) fn refresh_path(
    slots: &mut [ChainSlot],
    from: usize,
    outer: Option<Affine3A>,
    m: glam::Mat3A,
) -> Vec3A {
    let n = slots.len();
    let parent = match from {
        0 => outer,
        _ => Some(slots[from - 1].skin),
    };
    let turned = &mut slots[from];
    turned.set_relative(fk::relative_to(turned.rest, m, turned.translation));
    let mut parent = fk::compose(parent, turned.relative);
    turned.skin = parent;
    turned.position = fk::position_of(parent, turned.rest);
    for slot in &mut slots[from + 1..] {
        let skin = if slot.at_rest {
            parent
        } else {
            fk::compose(Some(parent), slot.relative)
        };
        slot.skin = skin;
        slot.position = fk::position_of(skin, slot.rest);
        parent = skin;
    }
    slots[n - 1].position
}
