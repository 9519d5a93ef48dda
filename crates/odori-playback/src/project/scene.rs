//! A project turned into a [`Scene`]: its models with their keys, its accessories with theirs,
//! its camera, light and self-shadow keys, its gravity, in MikuMikuDance's drawing order.
//!
//! MMD draws the models in the project's drawing order (モデル描画順) and the accessories in
//! theirs, the first `accessories_before_models` accessories (the display settings' "accessories
//! after number N are drawn after the models") before every model and the rest after; it
//! evaluates the models in the calculation order (モデル計算順序), which decides whether a
//! model following another's bone (外部親) reads that bone this frame or the last. What the
//! scene cannot show as MMD would (a missing or unreadable file, a bone or model a key names
//! that is not there, gravity noise) is a warning; the rest plays.

use super::{Project, ProjectAccessory, ProjectModel, bone_ref};
use crate::accessory::{Accessory, AccessoryKeyframe, AccessoryTransform, ParentBone};
use crate::asset::ModelAsset;
use crate::scene::{OutsideParent, Scene};
use glam::Vec3;
use odori_format::pmm;
use odori_pose::motion::Source;
use std::sync::Arc;

/// Per key of the model's motion, the bone (and per morph key, the morph) it is for: the
/// model's bone or morph with the project's full name for that track, as MikuMikuDance binds
/// a project's keys (a VMD key keeps 15 bytes of a name, and two long names can share them).
fn key_targets(
    project: &Project,
    m: &ProjectModel,
    model: &odori_pose::Model,
) -> (Vec<Option<u32>>, Vec<Option<u32>>) {
    let pmm = &project.pmm.models[m.slot];
    let bone_of: std::collections::HashMap<&[u8], u32> = (model.bone_sjis().iter())
        .enumerate()
        .rev()
        .map(|(i, n)| (&n[..], i as u32))
        .collect();
    let morph_of: std::collections::HashMap<&[u8], u32> = (model.morphs().iter())
        .enumerate()
        .rev()
        .map(|(i, n)| (&n.sjis[..], i as u32))
        .collect();
    let find = |names: &[odori_format::pmm::VarText],
                of: &std::collections::HashMap<&[u8], u32>,
                tracks: &[u32]| {
        let targets: Vec<Option<u32>> = (names.iter()).map(|n| of.get(&n.0[..]).copied()).collect();
        (tracks.iter())
            .map(|&t| targets.get(t as usize).copied().flatten())
            .collect()
    };
    (
        find(&pmm.bone_names, &bone_of, &m.tracks.bones),
        find(&pmm.morph_names, &morph_of, &m.tracks.morphs),
    )
}

/// The name of a PMD's base morph.
const PMD_BASE_MORPH: &str = "base";

/// The project's scene, and every warning met (the project's own first). A model or
/// accessory whose file is missing or cannot be read is left out with a warning; so is a key
/// naming a model that was left out or a bone its model lacks (the accessory then stands at
/// the origin for that key).
pub fn scene(project: &Project) -> (Scene, Vec<String>) {
    let mut warnings = project.warnings.clone();
    let mut models: Vec<&ProjectModel> = project.models.iter().collect();
    models.sort_by_key(|m| (m.draw_order, m.slot));
    let mut accessories: Vec<&ProjectAccessory> = project.accessories.iter().collect();
    accessories.sort_by_key(|a| a.draw_order);
    let before = usize::try_from(project.pmm.display.accessories_before_models)
        .unwrap_or(0)
        .min(accessories.len());

    let loaded_models: Vec<(&ProjectModel, Arc<ModelAsset>)> = (models.iter())
        .filter_map(|m| {
            let asset = load(&m.name, m.file.path()?, &mut warnings)?;
            let asset = match m.add_blend {
                true => asset.with_additive_blending(),
                false => asset,
            };
            let asset = match m.edge_width {
                w if w.is_finite() && w >= 0.0 => asset.with_edge_width(w),
                w => {
                    warnings.push(format!(
                        "model {}: edge width {w} is not a width; its edges are drawn as the materials say",
                        m.name
                    ));
                    asset
                }
            };
            Some((*m, Arc::new(asset)))
        })
        .collect();
    let loaded_accessories: Vec<(&ProjectAccessory, Arc<ModelAsset>)> = (accessories.iter())
        .filter_map(|a| {
            let asset = load(&a.name, a.file.path()?, &mut warnings)?;
            // The shadow switch is keyed, a model's casting is not: an accessory that never
            // casts is compiled without shadows.
            let asset = match a.keys.iter().any(|k| k.shadow) {
                true => asset,
                false => asset.without_shadows(),
            };
            let asset = match a.add_blend {
                true => asset.with_additive_blending(),
                false => asset,
            };
            Some((*a, Arc::new(asset)))
        })
        .collect();
    let (first, rest) = loaded_accessories.split_at(before.min(loaded_accessories.len()));
    // Scene index of each project slot that was loaded, for the accessories' holders.
    let mut scene_index = vec![None; project.models.len()];
    for (i, (m, _)) in loaded_models.iter().enumerate() {
        scene_index[m.slot] = Some(first.len() + i);
    }

    let mut scene = Scene::new();
    let place = |scene: &mut Scene,
                 (a, asset): &(&ProjectAccessory, Arc<ModelAsset>),
                 warnings: &mut Vec<String>| {
        let keyed = accessory(a, &loaded_models, &scene_index, warnings);
        scene.add_accessory(asset.clone(), keyed);
    };
    for a in first {
        place(&mut scene, a, &mut warnings);
    }
    let mut following = Vec::new();
    for (m, asset) in &loaded_models {
        let (bones, morphs) = key_targets(project, m, asset.pose());
        let keys = Source::Indexed {
            vmd: &m.motion,
            bones: &bones,
            morphs: &morphs,
        };
        let i = scene.add_model(asset.clone(), &[keys]);
        // A PMD's `base` morph (the vertex list its other morphs move) has a track in MMD's
        // project but is no morph odori's model lists: not a track that matches nothing.
        let unbound: Vec<String> = (scene.models()[i].motion().unbound().iter())
            .filter(|n| *n != PMD_BASE_MORPH)
            .cloned()
            .collect();
        warnings.extend(crate::load::unmatched_summary(asset.label(), &unbound));
        following.push((
            i,
            outside_parents(m, &loaded_models, &scene_index, &mut warnings),
        ));
    }
    // Once every model is in: a key may name one drawn later.
    for (i, keys) in following.into_iter().filter(|(_, k)| !k.is_empty()) {
        scene
            .set_outside_parents(i, keys)
            .expect("keys name loaded models' bones");
    }
    // MikuMikuDance's calculation order for the models; accessories, which follow no one's
    // pose, first.
    let mut order: Vec<usize> = (0..first.len()).collect();
    let mut by_calculation: Vec<(u8, usize, usize)> = (loaded_models.iter())
        .map(|(m, _)| (m.evaluation_order, m.slot, scene_index[m.slot].unwrap_or(0)))
        .collect();
    by_calculation.sort();
    order.extend(by_calculation.iter().map(|&(_, _, i)| i));
    scene
        .set_evaluation_order(order)
        .expect("every loaded model once");
    for a in rest {
        place(&mut scene, a, &mut warnings);
    }
    scene.set_camera(&project.camera);
    let follow = camera_follow(project, &loaded_models, &scene_index, &mut warnings);
    scene
        .set_camera_follow(follow)
        .expect("keys name loaded models' bones");
    scene.set_gravity_keys(project.gravity_keys(&mut warnings));
    if let Some(path) = project.audio.as_ref().and_then(|a| a.path()) {
        scene.set_audio(path);
    }
    (scene, warnings)
}

/// Model `m`'s outside-parent keys in the scene's terms: its bone and the followed model's
/// scene index and bone. A bone its model lacks, or a followed model that was left out or
/// lacks the bone, is a warning, and that key makes the bone follow nothing.
fn outside_parents(
    m: &ProjectModel,
    loaded: &[(&ProjectModel, Arc<ModelAsset>)],
    scene_index: &[Option<usize>],
    warnings: &mut Vec<String>,
) -> Vec<OutsideParent> {
    let bone_of = |slot: usize, name: &str| {
        let (_, asset) = loaded.iter().find(|(l, _)| l.slot == slot)?;
        asset.pose().find_bone(name)
    };
    let mut keys = Vec::new();
    for k in &m.outside_parents {
        let Some(bone) = bone_of(m.slot, &k.bone) else {
            warnings.push(format!(
                "model {}: bone {} has an outside parent at frame {}, but the model has no such \
                 bone: ignored",
                m.name, k.bone, k.frame
            ));
            continue;
        };
        let parent = k.parent.as_ref().and_then(|(slot, name)| {
            let found = scene_index
                .get(*slot)
                .copied()
                .flatten()
                .zip(bone_of(*slot, name));
            if found.is_none() {
                warnings.push(format!(
                    "model {}: bone {}'s outside parent at frame {} is bone {name} of a model \
                     that was left out or lacks it: the bone follows its own parent",
                    m.name, k.bone, k.frame
                ));
            }
            found
        });
        keys.push(OutsideParent {
            frame: k.frame as f32,
            bone,
            parent,
        });
    }
    keys
}

/// Read and compile one of the project's files, or say why not.
fn load(name: &str, path: &std::path::Path, warnings: &mut Vec<String>) -> Option<ModelAsset> {
    match ModelAsset::load(path) {
        Ok(asset) => {
            warnings.extend(asset.warnings().iter().cloned());
            Some(asset)
        }
        Err(e) => {
            warnings.push(format!("{name}: {e}; left out"));
            None
        }
    }
}

/// The scene's model and bone for a project's model slot and bone name; `None` when that
/// model was left out or lacks the bone.
fn scene_bone(
    (slot, bone): &(usize, String),
    models: &[(&ProjectModel, Arc<ModelAsset>)],
    scene_index: &[Option<usize>],
) -> Option<ParentBone> {
    let model = scene_index.get(*slot).copied().flatten()?;
    let (_, asset) = models.iter().find(|(m, _)| m.slot == *slot)?;
    let bone = asset.pose().find_bone(bone)?;
    Some(ParentBone { model, bone })
}

/// The camera keys' followed bones in the scene's terms, (frame, bone), in the track's
/// order. A followed bone the scene lacks is a warning, and that key's target is in world
/// space.
fn camera_follow(
    project: &Project,
    models: &[(&ProjectModel, Arc<ModelAsset>)],
    scene_index: &[Option<usize>],
    warnings: &mut Vec<String>,
) -> Vec<(f32, Option<ParentBone>)> {
    let camera = &project.pmm.camera;
    let Some(track) = pmm::track(std::slice::from_ref(&camera.initial_key), &camera.keys).pop()
    else {
        return Vec::new();
    };
    let mut missing = Vec::new();
    // The camera VMD drops keys at negative frames (`pmm::camera_motion`): so does this.
    let keys: Vec<(f32, Option<ParentBone>)> = (track.keys.iter())
        .filter(|k| k.link.frame >= 0)
        .map(|k| {
            let named = bone_ref(&project.pmm, k.parent);
            let found = named
                .as_ref()
                .and_then(|r| scene_bone(r, models, scene_index));
            if found.is_none() && k.parent.model >= 0 && !missing.contains(&named) {
                missing.push(named);
            }
            (k.link.frame as f32, found)
        })
        .collect();
    for named in missing {
        let what = match named {
            Some((slot, bone)) => {
                let model = (models.iter()).find(|(m, _)| m.slot == slot).map_or_else(
                    || format!("model slot {slot} (not loaded)"),
                    |(m, _)| m.name.clone(),
                );
                format!("{model}'s bone {bone}, which is not in the scene")
            }
            None => "a model or bone the project does not have".to_string(),
        };
        warnings.push(format!(
            "camera: keys follow {what}; their target is in world space"
        ));
    }
    keys
}

/// An accessory's keys with their holders found in the scene (`scene_index`: each project
/// slot's index in the scene, when loaded).
fn accessory(
    a: &ProjectAccessory,
    models: &[(&ProjectModel, Arc<ModelAsset>)],
    scene_index: &[Option<usize>],
    warnings: &mut Vec<String>,
) -> Accessory {
    let mut unheld = Vec::new();
    let mut holder = |parent: &Option<(usize, String)>| -> Option<ParentBone> {
        let found = scene_bone(parent.as_ref()?, models, scene_index);
        if found.is_none() && !unheld.contains(parent) {
            unheld.push(parent.clone());
        }
        found
    };
    let keys = (a.keys.iter())
        .map(|k| AccessoryKeyframe {
            frame: k.frame as f32,
            parent: holder(&k.parent),
            transform: AccessoryTransform {
                position: Vec3::from(k.translation),
                rotation: Vec3::from(k.rotation),
                scale: k.scale,
                opacity: k.opacity,
                visible: k.visible,
                additive: a.add_blend,
                shadow: k.shadow,
            },
        })
        .collect();
    for (slot, bone) in unheld.into_iter().flatten() {
        let model = (models.iter()).find(|(m, _)| m.slot == slot).map_or_else(
            || format!("model slot {slot} (not loaded)"),
            |(m, _)| m.name.clone(),
        );
        warnings.push(format!(
            "accessory {}: held by {model}'s bone {bone}, which is not in the scene: it stands \
             at the origin there",
            a.name
        ));
    }
    Accessory {
        parent: None,
        transform: AccessoryTransform::DEFAULT,
        keys,
    }
}
