//! Forward kinematics for one bone: local transform from the sampled pose, IK and append,
//! then world = parent world × local.

use crate::append;
use crate::instance::Instance;
use crate::model::{Model, NONE};
use glam::Affine3A;

/// Recompute bone `b`'s append result, local transform and world matrix.
#[inline]
pub fn update_bone(model: &Model, inst: &mut Instance, b: usize) {
    let mut rotation = inst.pose_rotation[b];
    let mut translation = inst.pose_translation[b];
    if let Some(rule) = &model.append[b] {
        append::apply(model, inst, b, rule);
        if rule.rotate {
            rotation *= inst.append_rotation[b];
        }
        if rule.translate {
            translation += inst.append_translation[b];
        }
    }
    if model.is_ik_link[b] {
        rotation = inst.ik_rotation[b] * rotation;
    }
    inst.local_rotation[b] = rotation;
    inst.local_translation[b] = translation;
    let local =
        Affine3A::from_rotation_translation(rotation, (model.offset[b] + translation).into());
    let p = model.parent[b];
    inst.world[b] = if p == NONE {
        local
    } else {
        inst.world[p as usize] * local
    };
}
