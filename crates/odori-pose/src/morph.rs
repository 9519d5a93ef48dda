//! Morph weights: group and flip expansion, bone morphs into the local pose, material morphs.
//!
//! Vertex and UV morphs are left to deformation, which reads `effective_morph_weights`.

use crate::instance::Instance;
use crate::material::MaterialState;
use crate::model::{Model, MorphKind};
use crate::unfused;
use glam::Quat;

/// Expand groups, then apply bone and material morphs to `inst`.
pub fn apply(model: &Model, inst: &mut Instance) {
    inst.effective_morph_weights
        .copy_from_slice(&inst.morph_weights);
    for &m in &model.expanding_morphs {
        let w = inst.morph_weights[m as usize];
        if w == 0.0 {
            continue;
        }
        match &model.morphs[m as usize].kind {
            MorphKind::Group(children) => {
                for &(c, ratio) in children {
                    inst.effective_morph_weights[c as usize] += w * ratio;
                }
            }
            MorphKind::Flip(children) => {
                // nanoem's rule: weight w selects child ⌊(n + 1) w⌋ − 1, at full weight.
                let i = ((children.len() + 1) as f32 * w) as isize - 1;
                if let Some(&(c, ratio)) = usize::try_from(i).ok().and_then(|i| children.get(i)) {
                    inst.effective_morph_weights[c as usize] += ratio;
                }
            }
            _ => {}
        }
    }
    if inst.materials_touched {
        inst.materials.fill(MaterialState::NEUTRAL);
        inst.materials_touched = false;
    }
    for &m in &model.posing_morphs {
        let w = inst.effective_morph_weights[m as usize];
        if w == 0.0 {
            continue;
        }
        match &model.morphs[m as usize].kind {
            MorphKind::Bone(offsets) => {
                for &(b, t, q) in offsets {
                    let b = b as usize;
                    let translation = inst.pose_translation[b] + t * w;
                    let rotation = unfused::quat_mul(
                        unfused::slerp(Quat::IDENTITY, q, w),
                        inst.pose_rotation[b],
                    );
                    inst.set_pose(b, translation, rotation);
                }
            }
            MorphKind::Material(offsets) => {
                inst.materials_touched = true;
                for o in offsets {
                    match o.material {
                        Some(i) => inst.materials[i as usize].apply(o, w),
                        None => inst.materials.iter_mut().for_each(|s| s.apply(o, w)),
                    }
                }
            }
            _ => {}
        }
    }
}
