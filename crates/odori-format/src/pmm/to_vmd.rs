//! A project's keys as VMD motions: each model's bone, morph and model (visibility, IK) keys,
//! and the camera, light and self-shadow keys, so the project plays through the VMD path and
//! its dances can be used elsewhere.
//!
//! Each track is walked from its initial key along its links ([`super::track`]); frames are
//! absolute. Keys are copied unchanged: translations, quaternions, camera distance (negative in
//! front, as in VMD), angles, FOV, perspective, light colour and direction, the self-shadow
//! distance as stored. Curves are re-laid from PMM's four bytes per curve into VMD's tables
//! through the VMD module's encoders, which give back the same bytes. What VMD cannot hold
//! (outside parents, accessories, gravity) is left to the project layer; what is damaged
//! (broken links, negative frames, names too long for VMD's fields) is a warning, never a
//! failure.

use super::{Curve, KeyLink, Keyed, Model, Pmm, VarText, track};
use crate::sjis::{SjisName, cut_at_char_boundary};
use crate::vmd::{self, Bezier, BoneCurves, CameraCurves, IkState, PropertyKey, Vmd};
use std::fmt;

/// MMD's model name for camera and light motions ("カメラ・照明").
pub const CAMERA_MODEL_NAME: &[u8] = b"\x83J\x83\x81\x83\x89\x81E\x8f\xc6\x96\xbe";

/// Something a conversion dropped or could not carry, naming the track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// "bone センター", "camera", ...
    pub track: String,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.track, self.message)
    }
}

fn bezier(c: &Curve) -> Bezier {
    Bezier::from_bytes(c[0], c[1], c[2], c[3])
}

/// Raw name bytes cut to a VMD field as MMD cuts them: byte-wise, so a long name keeps the
/// same first bytes MMD's own VMD export writes (bones bind by those bytes).
fn field<const N: usize>(name: &[u8]) -> SjisName<N> {
    let mut out = [0u8; N];
    let n = name.len().min(N);
    out[..n].copy_from_slice(&name[..n]);
    SjisName(out)
}

fn empty_vmd(model_name: SjisName<20>) -> Vmd {
    let mut magic = [0u8; 30];
    magic[..vmd::MAGIC_V2.len()].copy_from_slice(vmd::MAGIC_V2);
    Vmd {
        magic,
        model_name,
        bones: Vec::new(),
        morphs: Vec::new(),
        cameras: Vec::new(),
        lights: Vec::new(),
        self_shadows: Vec::new(),
        properties: Vec::new(),
        sections_present: 6,
    }
}

/// Walks every track of a section, calling `emit(track number, frame, key)` for each key in
/// link order; broken links and negative frames become warnings.
fn each_key<'a, K: Keyed>(
    initial: &'a [K],
    linked: &'a [super::Linked<K>],
    name: &dyn Fn(usize) -> String,
    warnings: &mut Vec<Warning>,
    mut emit: impl FnMut(usize, u32, &'a K),
) {
    for (i, t) in track(initial, linked).into_iter().enumerate() {
        if let Some(p) = &t.problem {
            warnings.push(Warning {
                track: name(i),
                message: format!("{p}; the keys after it are dropped"),
            });
        }
        for k in t.keys {
            let KeyLink { frame, .. } = *k.link();
            match u32::try_from(frame) {
                Ok(f) => emit(i, f, k),
                Err(_) => warnings.push(Warning {
                    track: name(i),
                    message: format!("a key at negative frame {frame} is dropped"),
                }),
            }
        }
    }
}

/// Names that VMD's 15-byte field cuts to the same bytes: their keys land on one track, as in a
/// VMD exported by MMD itself.
fn warn_colliding_names(what: &str, names: &[VarText], warnings: &mut Vec<Warning>) {
    let mut seen: Vec<(&[u8], usize)> = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let cut = &n.0[..n.0.len().min(15)];
        match seen.iter().find(|(b, _)| *b == cut) {
            Some(&(_, first)) if n.0.len() > 15 || names[first].0.len() > 15 => {
                warnings.push(Warning {
                    track: format!("{what} {}", n.text()),
                    message: format!(
                        "VMD keeps 15 bytes of a name, the same as {}'s: a player binds both \
                         to one track",
                        names[first].text()
                    ),
                });
            }
            Some(_) => {}
            None => seen.push((cut, i)),
        }
    }
}

fn text_of(names: &[VarText], i: usize) -> String {
    names.get(i).map_or_else(|| format!("#{i}"), |n| n.text())
}

/// A model's keys as a VMD motion for that model: every bone's and morph's keys (the initial
/// key at its frame included) and one property key per model key (visibility, and IK on/off
/// named by the IK bones' names). Version 1 projects have no name tables: their bone keys
/// cannot be named and are left out, with a warning.
pub fn model_motion(model: &Model) -> (Vmd, Vec<Warning>) {
    let (vmd, _, converted) = convert(model);
    let mut warnings = cut_name_warnings(model);
    warnings.extend(converted);
    (vmd, warnings)
}

/// The model's bone and morph names that a VMD key, which keeps 15 bytes of a name, cannot
/// tell apart: their keys land on one track in [`model_motion`]'s VMD (as in a VMD MMD
/// itself exports), one warning each.
pub fn cut_name_warnings(model: &Model) -> Vec<Warning> {
    let mut warnings = Vec::new();
    if model.bone_names.len() == model.initial_bone_keys.len() {
        for (what, names) in [("bone", &model.bone_names), ("morph", &model.morph_names)] {
            warn_colliding_names(what, names, &mut warnings);
        }
    }
    warnings
}

/// What [`camera_motion`]'s VMD loses: camera keys that follow a model's bone, which VMD
/// cannot hold (their targets are offsets from the bone there), one warning for them all.
pub fn camera_follow_warnings(pmm: &Pmm) -> Vec<Warning> {
    let c = &pmm.camera;
    // The keys [`camera_motion`] writes: those its walk of the track reaches, at frame 0 on.
    let followed = (track(std::slice::from_ref(&c.initial_key), &c.keys).iter())
        .flat_map(|t| &t.keys)
        .filter(|k| k.link.frame >= 0 && k.parent.model >= 0)
        .count();
    match followed {
        0 => Vec::new(),
        n => vec![Warning {
            track: "camera".into(),
            message: format!(
                "{n} keys follow a model's bone, which VMD cannot hold: the camera VMD has \
                 their unfollowed values"
            ),
        }],
    }
}

/// Which of the project's tracks each key of a converted motion comes from: per key of
/// `vmd.bones`, its index in the model's bone name table; per key of `vmd.morphs`, in the
/// morph name table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyTracks {
    pub bones: Vec<u32>,
    pub morphs: Vec<u32>,
}

/// [`model_motion`], with the track each key comes from, for a player that binds the keys
/// by the project's full names rather than by the 15 bytes a VMD key keeps (so names that
/// share those bytes stay apart; no warning about them then).
pub fn model_motion_tracks(model: &Model) -> (Vmd, KeyTracks, Vec<Warning>) {
    convert(model)
}

fn convert(model: &Model) -> (Vmd, KeyTracks, Vec<Warning>) {
    let mut warnings = Vec::new();
    let mut tracks = KeyTracks::default();
    let name = match &model.name {
        super::ModelName::V2 { japanese, .. } => {
            let b = &japanese.0;
            let mut n = [0u8; 20];
            let cut = cut_at_char_boundary(b, 20);
            n[..cut].copy_from_slice(&b[..cut]);
            SjisName(n)
        }
        super::ModelName::V1(n) => *n,
    };
    let mut out = empty_vmd(name);
    if model.bone_names.len() != model.initial_bone_keys.len() {
        warnings.push(Warning {
            track: "bones".into(),
            message: "the project has no bone name table (version 1): keys not converted".into(),
        });
        return (out, tracks, warnings);
    }
    let bone_name = |i: usize| format!("bone {}", text_of(&model.bone_names, i));
    each_key(
        &model.initial_bone_keys,
        &model.bone_keys,
        &bone_name,
        &mut warnings,
        |i, frame, k| {
            let curves = BoneCurves {
                x: bezier(&k.curves[0]),
                y: bezier(&k.curves[1]),
                z: bezier(&k.curves[2]),
                rotation: bezier(&k.curves[3]),
            };
            tracks.bones.push(i as u32);
            out.bones.push(vmd::BoneKey {
                name: field(&model.bone_names[i].0),
                frame,
                translation: k.translation,
                rotation: k.rotation,
                interpolation: vmd::BoneKey::encode_curves(&curves, k.physics_disabled != 0),
            });
        },
    );
    let morph_name = |i: usize| format!("morph {}", text_of(&model.morph_names, i));
    each_key(
        &model.initial_morph_keys,
        &model.morph_keys,
        &morph_name,
        &mut warnings,
        |i, frame, k| {
            tracks.morphs.push(i as u32);
            out.morphs.push(vmd::MorphKey {
                name: field(&model.morph_names[i].0),
                frame,
                weight: k.weight,
            })
        },
    );
    let ik_names: Vec<SjisName<20>> = model
        .ik_bones
        .iter()
        .map(|&b| {
            let bytes = usize::try_from(b)
                .ok()
                .and_then(|b| model.bone_names.get(b))
                .map_or(&[][..], |n| &n.0[..]);
            field(bytes)
        })
        .collect();
    each_key(
        std::slice::from_ref(&model.initial_model_key),
        &model.model_keys,
        &|_| "model keys".into(),
        &mut warnings,
        |_, frame, k| {
            out.properties.push(PropertyKey {
                frame,
                visible: k.visible,
                ik: ik_names
                    .iter()
                    .zip(&k.ik_enabled)
                    .map(|(name, &enabled)| IkState {
                        name: *name,
                        enabled,
                    })
                    .collect(),
            })
        },
    );
    (out, tracks, warnings)
}

/// The camera, light and self-shadow keys as one camera VMD (model name "カメラ・照明"). A
/// camera key's parent model and bone (camera following a bone) has no place in VMD: its
/// keyed target is written as it is, and [`camera_follow_warnings`] says so for a VMD kept
/// on its own (a player that follows the bones itself needs no warning).
pub fn camera_motion(pmm: &Pmm) -> (Vmd, Vec<Warning>) {
    let mut warnings = Vec::new();
    let mut out = empty_vmd(field(CAMERA_MODEL_NAME));
    let c = &pmm.camera;
    each_key(
        std::slice::from_ref(&c.initial_key),
        &c.keys,
        &|_| "camera".into(),
        &mut warnings,
        |_, frame, k| {
            // nanoem's order in PMM: target x, y, z, rotation, fov, distance.
            let curves = CameraCurves {
                x: bezier(&k.curves[0]),
                y: bezier(&k.curves[1]),
                z: bezier(&k.curves[2]),
                rotation: bezier(&k.curves[3]),
                fov: bezier(&k.curves[4]),
                distance: bezier(&k.curves[5]),
            };
            out.cameras.push(vmd::CameraKey {
                frame,
                distance: k.distance,
                target: k.target,
                rotation: k.rotation,
                interpolation: vmd::CameraKey::encode_curves(&curves),
                fov: k.fov.max(0).unsigned_abs(),
                perspective_off: k.perspective_off,
            });
        },
    );
    let l = &pmm.light;
    each_key(
        std::slice::from_ref(&l.initial_key),
        &l.keys,
        &|_| "light".into(),
        &mut warnings,
        |_, frame, k| {
            out.lights.push(vmd::LightKey {
                frame,
                color: k.color,
                direction: k.direction,
            })
        },
    );
    if let Some(t) = &pmm.v2 {
        let s = &t.self_shadow;
        each_key(
            std::slice::from_ref(&s.initial_key),
            &s.keys,
            &|_| "self shadow".into(),
            &mut warnings,
            |_, frame, k| {
                out.self_shadows.push(vmd::SelfShadowKey {
                    frame,
                    mode: k.mode,
                    distance: k.distance,
                })
            },
        );
    }
    (out, warnings)
}
