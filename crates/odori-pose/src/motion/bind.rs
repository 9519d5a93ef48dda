//! Binding VMD and VPD data to a model's bones, morphs and IK solvers.

use super::{BoneKeys, BoneTrack, MorphKeys, MorphTrack, Motion, PropertyKeys};
use crate::Model;
use crate::bezier::Curve;
use glam::{Quat, Vec3A};
use odori_format::{Vmd, Vpd};
use std::collections::BTreeMap;

/// One input of a motion: VMDs are merged; a VPD is a one-frame motion at frame 0.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Vmd(&'a Vmd),
    Vpd(&'a Vpd),
    /// A VMD whose bone and morph keys already know their model bone and morph: per key of
    /// `vmd.bones` (`bones`) and of `vmd.morphs` (`morphs`), the index, or `None` for a key
    /// that matches nothing. What a MikuMikuDance project's keys are: the project names every
    /// bone in full, where a VMD key keeps 15 bytes and two long names can share them.
    Indexed {
        vmd: &'a Vmd,
        bones: &'a [Option<u32>],
        morphs: &'a [Option<u32>],
    },
}

impl<'a> Source<'a> {
    /// The VMD the source holds, when it is one.
    pub fn vmd(&self) -> Option<&'a Vmd> {
        match *self {
            Source::Vmd(v) | Source::Indexed { vmd: v, .. } => Some(v),
            Source::Vpd(_) => None,
        }
    }
}

/// The bytes of a bone or morph name a VMD key holds.
const VMD_NAME_BYTES: usize = 15;

/// What a VMD key holds of the name `sjis`.
fn vmd_name(sjis: &[u8]) -> &[u8] {
    &sjis[..sjis.len().min(VMD_NAME_BYTES)]
}

struct RawBoneKey {
    frame: u32,
    translation: Vec3A,
    rotation: Quat,
    curves: [Curve; 4],
    physics_off: bool,
}

fn normalized(q: [f32; 4]) -> Quat {
    let q = Quat::from_array(q);
    if q.length_squared() > 1e-12 {
        q.normalize()
    } else {
        Quat::IDENTITY
    }
}

/// MMD keeps only the twist about a fixed axis: project the quaternion's vector part onto
/// the axis and renormalise.
fn project_on_axis(q: Quat, axis: Vec3A) -> Quat {
    let v = Vec3A::new(q.x, q.y, q.z);
    let p = axis * v.dot(axis);
    let r = Quat::from_xyzw(p.x, p.y, p.z, q.w);
    if r.length_squared() > 1e-12 {
        r.normalize()
    } else {
        Quat::IDENTITY
    }
}

impl Motion {
    /// Bind `sources` to `model`. Keys of one bone from several sources are merged by frame;
    /// at the same frame the later source wins.
    pub fn bind(model: &Model, sources: &[Source<'_>]) -> Motion {
        let mut bones: BTreeMap<u32, BTreeMap<u32, RawBoneKey>> = BTreeMap::new();
        let mut morphs: BTreeMap<u32, BTreeMap<u32, f32>> = BTreeMap::new();
        let mut props: BTreeMap<u32, (bool, Vec<(usize, bool)>)> = BTreeMap::new();
        let mut unbound = std::collections::BTreeSet::new();
        // Name lookups by Shift-JIS bytes (VMD) and by text (VPD). A VMD holds the first 15
        // bytes of a bone or morph name (MikuMikuDance cuts it there, mid-character if need
        // be), so the model's names are matched by their first 15 bytes; where two share them,
        // the first in the model takes the track.
        let bone_by_sjis: std::collections::HashMap<&[u8], u32> = model
            .bone_sjis
            .iter()
            .enumerate()
            .rev()
            .map(|(i, n)| (vmd_name(n), i as u32))
            .collect();
        let morph_by_sjis: std::collections::HashMap<&[u8], u32> = model
            .morphs
            .iter()
            .enumerate()
            .rev()
            .map(|(i, m)| (vmd_name(&m.sjis), i as u32))
            .collect();
        for src in sources {
            let (vmd, indexed) = match *src {
                Source::Vmd(vmd) => (vmd, None),
                Source::Indexed { vmd, bones, morphs } => (vmd, Some((bones, morphs))),
                Source::Vpd(vpd) => {
                    for p in &vpd.bones {
                        let Some(b) = model.find_bone(&p.name) else {
                            unbound.insert(p.name.clone());
                            continue;
                        };
                        bones.entry(b as u32).or_default().insert(
                            0,
                            RawBoneKey {
                                frame: 0,
                                translation: Vec3A::from_array(p.translation),
                                rotation: normalized(p.rotation),
                                curves: [Curve::LINEAR; 4],
                                physics_off: false,
                            },
                        );
                    }
                    for p in &vpd.morphs {
                        match model.find_morph(&p.name) {
                            Some(m) => {
                                morphs.entry(m as u32).or_default().insert(0, p.weight);
                            }
                            None => {
                                unbound.insert(p.name.clone());
                            }
                        }
                    }
                    continue;
                }
            };
            for (j, k) in vmd.bones.iter().enumerate() {
                let b = match indexed {
                    Some((bones, _)) => bones.get(j).copied().flatten(),
                    None => bone_by_sjis.get(k.name.bytes()).copied(),
                };
                let Some(b) = b.filter(|&b| (b as usize) < model.bone_count()) else {
                    unbound.insert(k.name.text());
                    continue;
                };
                let c = k.curves();
                bones.entry(b).or_default().insert(
                    k.frame,
                    RawBoneKey {
                        frame: k.frame,
                        translation: Vec3A::from_array(k.translation),
                        rotation: normalized(k.rotation),
                        curves: [
                            Curve::from_bezier(c.x),
                            Curve::from_bezier(c.y),
                            Curve::from_bezier(c.z),
                            Curve::from_bezier(c.rotation),
                        ],
                        physics_off: k.physics_disabled(),
                    },
                );
            }
            for (j, k) in vmd.morphs.iter().enumerate() {
                let m = match indexed {
                    Some((_, morphs)) => morphs.get(j).copied().flatten(),
                    None => morph_by_sjis.get(k.name.bytes()).copied(),
                };
                let Some(m) = m.filter(|&m| (m as usize) < model.morphs.len()) else {
                    unbound.insert(k.name.text());
                    continue;
                };
                morphs.entry(m).or_default().insert(k.frame, k.weight);
            }
            for k in &vmd.properties {
                let entry = props.entry(k.frame).or_insert((true, Vec::new()));
                entry.0 = k.visible != 0;
                for s in &k.ik {
                    match model.find_solver_by_sjis(s.name.bytes()) {
                        Some(si) => entry.1.push((si, s.enabled != 0)),
                        None => {
                            unbound.insert(s.name.text());
                        }
                    }
                }
            }
        }

        let mut end_frame = 0u32;
        let mut bone_keys = BoneKeys::default();
        let mut bone_tracks = Vec::with_capacity(bones.len());
        for (b, keys) in bones {
            let start = bone_keys.frames.len();
            let axis = model.fixed_axis[b as usize];
            for k in keys.into_values() {
                end_frame = end_frame.max(k.frame);
                bone_keys.frames.push(k.frame as f32);
                bone_keys.translations.push(k.translation);
                bone_keys.rotations.push(match axis {
                    Some(a) => project_on_axis(k.rotation, a),
                    None => k.rotation,
                });
                bone_keys.curves.push(k.curves);
                bone_keys.linear.push(k.curves.iter().all(Curve::is_linear));
                bone_keys.physics_off.push(k.physics_off);
            }
            bone_tracks.push(BoneTrack {
                bone: b,
                keys: start..bone_keys.frames.len(),
            });
        }
        let mut morph_keys = MorphKeys::default();
        let mut morph_tracks = Vec::with_capacity(morphs.len());
        for (m, keys) in morphs {
            let start = morph_keys.frames.len();
            for (f, w) in keys {
                end_frame = end_frame.max(f);
                morph_keys.frames.push(f as f32);
                morph_keys.weights.push(w);
            }
            morph_tracks.push(MorphTrack {
                morph: m,
                keys: start..morph_keys.frames.len(),
            });
        }
        let solver_count = model.solvers.len();
        let mut properties = PropertyKeys::default();
        let mut state = vec![true; solver_count];
        for (f, (visible, iks)) in props {
            end_frame = end_frame.max(f);
            for (s, on) in iks {
                state[s] = on;
            }
            properties.frames.push(f as f32);
            properties.visible.push(visible);
            properties.ik_enabled.extend_from_slice(&state);
        }
        Motion {
            id: crate::identity::next(),
            model: model.id,
            bone_tracks,
            bone_keys,
            morph_tracks,
            morph_keys,
            properties,
            solver_count,
            end_frame: end_frame as f32,
            unbound: unbound.into_iter().filter(|n| !n.is_empty()).collect(),
        }
    }

    /// Bind one VMD.
    pub fn from_vmd(model: &Model, vmd: &Vmd) -> Motion {
        Motion::bind(model, &[Source::Vmd(vmd)])
    }

    /// A VPD pose as a one-frame motion.
    pub fn from_vpd(model: &Model, vpd: &Vpd) -> Motion {
        Motion::bind(model, &[Source::Vpd(vpd)])
    }
}
