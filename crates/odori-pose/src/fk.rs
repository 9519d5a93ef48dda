//! Forward kinematics for one bone: local rotation = (IK result of a solved link, else the
//! animated rotation) × append, then world = parent world × local.
//!
//! The arithmetic follows MMD's (D3DX's) operation order, as mmd-anim 0.5.3 reproduces it:
//! the rotation matrix comes from the quaternion by D3DX's formula, and each bone keeps its
//! skinning matrix (world × T(−rest)) as the primary transform: skin = parent skin ×
//! T(rest) T(translation) R T(−rest), world = skin × T(rest). Mathematically this is parent
//! world × local; the rounding matters to long CCD solves, whose last steps turn by angles
//! near f32 resolution (captures `local-axes-multi-*`, `layered-*`).

use crate::append;
use crate::instance::Instance;
use crate::math::rotation_matrix;
use crate::model::{Model, NONE};
use glam::{Affine3A, Mat3A, Quat, Vec3A};

/// Recompute bone `b`'s append result, local transform and world matrix.
#[inline]
pub fn update_bone(model: &Model, inst: &mut Instance, b: usize) {
    update_bone_with(model, inst, b, None);
}

/// [`update_bone`]; `ik_matrix` is the rotation matrix an IK step built for this link
/// (used instead of the quaternion's, unless a rotation grant applies).
#[inline]
pub(crate) fn update_bone_with(
    model: &Model,
    inst: &mut Instance,
    b: usize,
    ik_matrix: Option<Mat3A>,
) {
    let mut rotation = own_rotation(inst, b);
    let mut translation = inst.pose_translation[b];
    let mut ik_matrix = ik_matrix;
    if let Some(rule) = &model.append[b] {
        if inst.grant_dropped[b] {
            // An effector under its active IK: no rotation grant (see `ik`).
            inst.append_rotation[b] = Quat::IDENTITY;
        } else {
            append::apply(model, inst, b, rule);
        }
        if rule.rotate {
            rotation = crate::math::then(inst.append_rotation[b], rotation);
            ik_matrix = None;
        }
        if rule.translate {
            translation += inst.append_translation[b];
        }
    }
    set_local(model, inst, b, rotation, translation, ik_matrix);
}

/// [`update_bone`] for a bone without a grant (`model.append[b]` is `None`), inlined into the
/// world pass, which calls it for every animated bone (as a call the page's pose evaluation
/// took 2 % longer, A/B in headless Chromium).
#[inline(always)]
pub(crate) fn update_ungranted_bone(model: &Model, inst: &mut Instance, b: usize) {
    debug_assert!(model.append[b].is_none());
    let (rotation, translation) = (own_rotation(inst, b), inst.pose_translation[b]);
    set_local(model, inst, b, rotation, translation, None);
}

/// Bone `b`'s local transform (`rotation`, or the IK step's `ik_matrix`, and `translation`),
/// and its place from its parent's.
#[inline(always)]
fn set_local(
    model: &Model,
    inst: &mut Instance,
    b: usize,
    rotation: Quat,
    translation: Vec3A,
    ik_matrix: Option<Mat3A>,
) {
    if ik_matrix.is_none() && rotation == Quat::IDENTITY && translation == Vec3A::ZERO {
        rest_on_parent(model, inst, b, rotation, translation);
        return;
    }
    inst.local_rotation[b] = rotation;
    inst.local_translation[b] = translation;
    inst.local_at_rest[b] = false;
    let m = ik_matrix.unwrap_or_else(|| rotation_matrix(rotation));
    place(model, inst, b, relative_to_rest(model, b, m, translation));
}

/// The common case of [`update_bone`], inlined into the world pass: bone `b`, which has no
/// grant, is at rest relative to its parent when neither animated nor turned by IK. Returns
/// false, doing nothing, for any other bone.
#[inline(always)]
pub(crate) fn place_if_at_rest(model: &Model, inst: &mut Instance, b: usize) -> bool {
    debug_assert!(model.append[b].is_none());
    if inst.ik_solved[b]
        || (inst.posed[b]
            && (inst.pose_rotation[b] != Quat::IDENTITY || inst.pose_translation[b] != Vec3A::ZERO))
    {
        return false;
    }
    rest_on_parent(model, inst, b, Quat::IDENTITY, Vec3A::ZERO);
    true
}

/// A bone at rest relative to its parent: its local transform (`rotation` and `translation`
/// compare equal to identity and zero), written only when it was not at rest already
/// (`Instance::local_at_rest`, for the memory traffic of many dancers), and its place
/// ([`place_at_rest`]).
#[inline(always)]
fn rest_on_parent(
    model: &Model,
    inst: &mut Instance,
    b: usize,
    rotation: Quat,
    translation: Vec3A,
) {
    if !inst.local_at_rest[b] {
        inst.local_rotation[b] = rotation;
        inst.local_translation[b] = translation;
        inst.local_at_rest[b] = true;
    }
    place_at_rest(model, inst, b);
}

/// [`place`] for a bone at rest relative to its parent (most bones of a model in most
/// frames): the skinning matrix is the parent's, as the full product gives it up to the sign
/// of zeros.
#[inline]
pub(crate) fn place_at_rest(model: &Model, inst: &mut Instance, b: usize) {
    let skin = parent_skin(model, inst, b).unwrap_or(Affine3A::IDENTITY);
    inst.skinning[b] = skin;
    inst.world_position[b] = position_of(skin, model.rest[b]);
}

/// The skinning matrix of `b`'s parent (`None` for a root), or of the bone it follows as its
/// outside parent.
#[inline]
pub(crate) fn parent_skin(model: &Model, inst: &Instance, b: usize) -> Option<Affine3A> {
    if let Some(skin) = crate::outside_parent::stand_in(inst, b) {
        return Some(skin);
    }
    let p = model.parent[b];
    (p != NONE).then(|| inst.skinning[p as usize])
}

/// Bone `b`'s local rotation before its grant: its IK result when a solver turned it this
/// frame, else its animated rotation.
#[inline]
pub(crate) fn own_rotation(inst: &Instance, b: usize) -> Quat {
    if inst.ik_solved[b] {
        inst.ik_rotation[b]
    } else {
        inst.pose_rotation[b]
    }
}

/// World rotation of `b`'s parent (identity for a root).
#[inline]
pub(crate) fn parent_rotation(model: &Model, inst: &Instance, b: usize) -> Mat3A {
    parent_skin(model, inst, b).map_or(Mat3A::IDENTITY, |skin| skin.matrix3)
}

/// The rotation matrix an IK step built for link `b` while its solver runs, if any.
#[inline]
pub(crate) fn ik_matrix(inst: &Instance, b: usize) -> Option<Mat3A> {
    inst.ik_matrix_set[b].then(|| inst.ik_matrix[b])
}

/// Bone `b`'s transform relative to its rest pose, T(rest) T(translation) R T(−rest), for
/// rotation matrix `m`.
#[inline]
pub(crate) fn relative_to_rest(model: &Model, b: usize, m: Mat3A, translation: Vec3A) -> Affine3A {
    relative_to(model.rest[b], m, translation)
}

/// [`relative_to_rest`] for a bone resting at `rest`.
#[inline]
pub(crate) fn relative_to(rest: Vec3A, m: Mat3A, translation: Vec3A) -> Affine3A {
    Affine3A {
        matrix3: m,
        translation: (m * -rest + translation) + rest,
    }
}

/// Set bone `b`'s skinning and world matrices from its parent's skinning matrix and its
/// transform relative to rest ([`relative_to_rest`]).
#[inline]
pub(crate) fn place(model: &Model, inst: &mut Instance, b: usize, relative: Affine3A) {
    let skin = compose(parent_skin(model, inst, b), relative);
    inst.skinning[b] = skin;
    inst.world_position[b] = position_of(skin, model.rest[b]);
}

/// A bone's skinning matrix from its parent's (`None` for a root) and its transform relative
/// to rest.
#[inline]
pub(crate) fn compose(parent_skin: Option<Affine3A>, relative: Affine3A) -> Affine3A {
    match parent_skin {
        None => relative,
        Some(ps) => Affine3A {
            matrix3: ps.matrix3 * relative.matrix3,
            translation: ps.matrix3 * relative.translation + ps.translation,
        },
    }
}

/// World position of a bone resting at `rest` with skinning matrix `skin`.
#[inline]
pub(crate) fn position_of(skin: Affine3A, rest: Vec3A) -> Vec3A {
    skin.matrix3 * rest + skin.translation
}
