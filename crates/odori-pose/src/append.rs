//! Append (付与) transforms: a bone copies a weighted share of another bone's motion.
//!
//! Rotation source: the source's own append result when it is append-driven, else its
//! animated rotation (with morphs); for an IK link solved this frame, its IK rotation (times
//! its own append result when append-driven); result =
//! slerp(identity, source, ratio). Translation: the source's append or animated translation ×
//! ratio. The local flag copies the source's full local transform instead.

use crate::instance::Instance;
use crate::model::{AppendRule, Model};
use crate::unfused;
use glam::Quat;

/// Compute bone `b`'s append rotation and translation from its source.
#[inline]
pub fn apply(model: &Model, inst: &mut Instance, b: usize, rule: &AppendRule) {
    let s = rule.source as usize;
    let source_rule = model.append[s].as_ref();
    if rule.rotate {
        let src = if rule.local {
            inst.local_rotation[s]
        } else {
            let append_driven = source_rule.is_some_and(|r| r.rotate);
            if model.is_ik_link[s] && inst.ik_solved[s] {
                // The IK result replaces the link's animated rotation.
                if append_driven {
                    unfused::quat_mul(inst.ik_rotation[s], inst.append_rotation[s])
                } else {
                    inst.ik_rotation[s]
                }
            } else if append_driven {
                inst.append_rotation[s]
            } else {
                inst.pose_rotation[s]
            }
        };
        inst.append_rotation[b] = unfused::slerp(Quat::IDENTITY, src, rule.ratio);
    }
    if rule.translate {
        let src = if rule.local {
            inst.local_translation[s]
        } else if source_rule.is_some_and(|r| r.translate) {
            inst.append_translation[s]
        } else {
            inst.pose_translation[s]
        };
        inst.append_translation[b] = src * rule.ratio;
    }
}
