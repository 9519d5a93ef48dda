//! MikuMikuDance projects (`.pmm`) as odori plays them: each model's file (found or missing)
//! with its keys as a VMD motion, the camera, light and self-shadow keys as a camera VMD, the
//! accessories with their keys, the playback range, output size and soundtrack.
//!
//! The project is read once ([`odori_format::pmm`]), its key lists turned into the VMD values
//! the rest of odori already plays ([`odori_format::pmm::model_motion`]), and every stored path
//! resolved ([`paths`]). Nothing is loaded beyond the project file itself: a front end builds
//! its scene from [`Project`] (models via [`crate::ModelAsset`], motions via
//! [`crate::MotionFile::Vmd`]). A missing file, a broken key link or an outside parent that
//! points nowhere is a warning in [`Project::warnings`]; the rest plays.

pub mod paths;
mod scene;

pub use scene::scene;

use odori_format::pmm::{self, Pmm, unpack_opacity_visible};
use odori_format::{FormatError, Vmd};
use paths::{Resolved, Resolver};
use std::path::{Path, PathBuf};

/// A model of the project.
#[derive(Debug, Clone)]
pub struct ProjectModel {
    /// The model's slot (what outside parents and accessories name).
    pub slot: usize,
    pub name: String,
    pub file: Resolved,
    /// Its bone, morph and model (visibility, IK) keys.
    pub motion: Vmd,
    /// Which of the project's bone and morph names each key of `motion` is for: the scene
    /// binds keys by those full names, not by the 15 bytes a VMD key keeps.
    pub tracks: pmm::KeyTracks,
    /// 1-based drawing position among the models.
    pub draw_order: u8,
    /// Position in the evaluation order (models that others follow come first).
    pub evaluation_order: u8,
    pub edge_width: f32,
    pub visible: bool,
    pub add_blend: bool,
    pub self_shadow: bool,
    /// Outside parents as keyed, each in force from its frame until the bone's next key.
    pub outside_parents: Vec<OutsideParentKey>,
}

/// From `frame` on, `bone` of this model follows `parent_bone` of the model in `parent_slot`
/// (`None`: follows nothing from here on).
#[derive(Debug, Clone, PartialEq)]
pub struct OutsideParentKey {
    pub frame: u32,
    pub bone: String,
    pub parent: Option<(usize, String)>,
}

/// One key of an accessory.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessoryKey {
    pub frame: u32,
    /// The model slot and bone the accessory rides on.
    pub parent: Option<(usize, String)>,
    pub translation: [f32; 3],
    /// Euler angles, radians.
    pub rotation: [f32; 3],
    pub scale: f32,
    pub opacity: f32,
    pub visible: bool,
    pub shadow: bool,
}

#[derive(Debug, Clone)]
pub struct ProjectAccessory {
    pub name: String,
    pub file: Resolved,
    pub draw_order: u8,
    pub add_blend: bool,
    /// In frame order.
    pub keys: Vec<AccessoryKey>,
}

/// A project ready to be turned into a scene.
#[derive(Debug, Clone)]
pub struct Project {
    pub file: PathBuf,
    /// The file as read, for whatever else a front end wants from it.
    pub pmm: Pmm,
    pub models: Vec<ProjectModel>,
    /// Camera, light and self-shadow keys.
    pub camera: Vmd,
    pub accessories: Vec<ProjectAccessory>,
    /// The playback range, when the project sets its start or end.
    pub range: (Option<u32>, Option<u32>),
    pub output_size: (u32, u32),
    pub audio: Option<Resolved>,
    /// One line per thing that will not play as MMD would: missing files, broken key links,
    /// outside parents pointing nowhere.
    pub warnings: Vec<String>,
}

impl Project {
    /// Read a version 2 project and resolve its paths (`search`: more folders to look in).
    pub fn load(file: &Path, search: &[PathBuf]) -> Result<Project, FormatError> {
        let pmm = Pmm::read(file)?;
        Ok(Project::from_pmm(file, pmm, search))
    }

    /// A project from a file already read.
    pub fn from_pmm(file: &Path, pmm: Pmm, search: &[PathBuf]) -> Project {
        let resolver = Resolver::new(file, search);
        let mut warnings = Vec::new();
        let mut models = Vec::new();
        for (slot, m) in pmm.models.iter().enumerate() {
            let name = m.name.text();
            let file = resolver.resolve(m.path.bytes());
            if let Resolved::Missing { .. } = file {
                warnings.push(format!("model {name}: {file}"));
            }
            let (motion, tracks, w) = pmm::model_motion_tracks(m);
            warnings.extend(w.iter().map(|w| format!("model {name}: {w}")));
            let outside_parents = outside_parents(&pmm, slot, &mut warnings);
            models.push(ProjectModel {
                slot,
                name,
                file,
                motion,
                tracks,
                draw_order: m.draw_order,
                evaluation_order: m.evaluation_order,
                edge_width: m.edge_width,
                visible: m.visible != 0,
                add_blend: m.add_blend != 0,
                self_shadow: m.self_shadow != 0,
                outside_parents,
            });
        }
        let (camera, w) = pmm::camera_motion(&pmm);
        warnings.extend(w.iter().map(|w| w.to_string()));
        let mut accessories = Vec::new();
        for a in &pmm.accessories {
            let name = a.name.text();
            let file = resolver.resolve(a.path.bytes());
            if let Resolved::Missing { .. } = file {
                warnings.push(format!("accessory {name}: {file}"));
            }
            let mut keys = Vec::new();
            for t in pmm::track(std::slice::from_ref(&a.initial_key), &a.keys) {
                if let Some(p) = t.problem {
                    warnings.push(format!(
                        "accessory {name}: {p}; the keys after it are dropped"
                    ));
                }
                for k in t.keys {
                    let Ok(frame) = u32::try_from(k.link.frame) else {
                        warnings.push(format!("accessory {name}: a key at a negative frame"));
                        continue;
                    };
                    let (opacity, visible) = unpack_opacity_visible(k.opacity_visible);
                    keys.push(AccessoryKey {
                        frame,
                        parent: bone_ref(&pmm, k.parent),
                        translation: k.translation,
                        rotation: k.rotation,
                        scale: k.scale,
                        opacity,
                        visible,
                        shadow: k.shadow != 0,
                    });
                }
            }
            accessories.push(ProjectAccessory {
                name,
                file,
                draw_order: a.draw_order,
                add_blend: a.add_blend != 0,
                keys,
            });
        }
        let p = &pmm.playback;
        let frame = |on: u8, f: i32| (on != 0).then(|| u32::try_from(f).ok()).flatten();
        let range = (
            frame(p.begin_enabled, p.begin_frame),
            frame(p.end_enabled, p.end_frame),
        );
        let size = |v: i32| u32::try_from(v).unwrap_or(0);
        let output_size = (
            size(pmm.header.output_width),
            size(pmm.header.output_height),
        );
        let audio = (pmm.audio.path.bytes() != b"").then(|| {
            let r = resolver.resolve(pmm.audio.path.bytes());
            if let Resolved::Missing { .. } = r {
                warnings.push(format!("audio: {r}"));
            }
            r
        });
        Project {
            file: file.to_path_buf(),
            pmm,
            models,
            camera,
            accessories,
            range,
            output_size,
            audio,
            warnings,
        }
    }
}

impl Project {
    /// The project's gravity keys as odori's physics takes them, (frame, gravity), the
    /// initial key first and then its track as the file links it (version 2; none before).
    /// A key with no direction or acceleration, a broken link, and noise (ノイズ付加, not
    /// played) are warnings.
    pub fn gravity_keys(&self, warnings: &mut Vec<String>) -> Vec<(f32, glam::Vec3)> {
        let Some(v2) = &self.pmm.v2 else {
            return Vec::new();
        };
        let g = &v2.gravity;
        let Some(track) = pmm::track(std::slice::from_ref(&g.initial_key), &g.keys).pop() else {
            return Vec::new();
        };
        if let Some(problem) = &track.problem {
            warnings.push(format!(
                "gravity keys: {problem}; the keys after it are left out"
            ));
        }
        let mut keys = Vec::with_capacity(track.keys.len());
        for k in &track.keys {
            match gravity_of(k) {
                Some(v) => keys.push((k.link.frame as f32, v)),
                None => warnings.push(format!(
                    "gravity key at frame {}: acceleration {} along {:?} is no gravity; left out",
                    k.link.frame, k.acceleration, k.direction
                )),
            }
        }
        if track.keys.iter().any(|k| k.noise_enabled != 0) {
            warnings.push("gravity: noise (ノイズ付加) is not played; gravity holds steady".into());
        }
        keys
    }

    /// Whether the project plays physics: every mode but 演算しない (off).
    pub fn physics(&self) -> bool {
        self.pmm.v2.as_ref().is_none_or(|v2| v2.physics_mode != 0)
    }
}

/// A gravity key as odori's physics takes it (MMD units per second²: MMD's acceleration × 10
/// along its direction); `None` when it has no direction or its acceleration is no number.
fn gravity_of(g: &pmm::GravityKey) -> Option<glam::Vec3> {
    let direction = glam::Vec3::from(g.direction).try_normalize()?;
    (g.acceleration.is_finite()).then(|| direction * g.acceleration * 10.0)
}

/// Whether `path` names a MikuMikuDance project by its extension (`.pmm`, any case).
pub fn is_project_path(path: &Path) -> bool {
    (path.extension().and_then(|e| e.to_str())).is_some_and(|e| e.eq_ignore_ascii_case("pmm"))
}

/// The project in a list of files as a user gives them, when the list is one `.pmm` file.
pub fn single_project(files: &[PathBuf]) -> Option<&Path> {
    match files {
        [one] if is_project_path(one) => Some(one),
        _ => None,
    }
}

/// A model slot and bone name, when the reference names an existing model's existing bone.
fn bone_ref(pmm: &Pmm, r: pmm::ParentRef) -> Option<(usize, String)> {
    let slot = usize::try_from(r.model).ok()?;
    pmm.bone_name(r.model, r.bone).map(|b| (slot, b.text()))
}

/// A model's outside-parent keys, with the ones that point nowhere or at the bone itself
/// dropped and warned about.
fn outside_parents(pmm: &Pmm, slot: usize, warnings: &mut Vec<String>) -> Vec<OutsideParentKey> {
    let m = &pmm.models[slot];
    let name = m.name.text();
    let mut out = Vec::new();
    let mut last: Vec<Option<(usize, String)>> = vec![None; m.outside_parent_bones.len()];
    for t in pmm::track(std::slice::from_ref(&m.initial_model_key), &m.model_keys) {
        for k in t.keys {
            let Ok(frame) = u32::try_from(k.link.frame) else {
                continue;
            };
            for ((p, &bone_index), last) in k
                .outside_parents
                .iter()
                .zip(&m.outside_parent_bones)
                .zip(&mut last)
            {
                let bone = pmm
                    .bone_name(slot as i32, bone_index)
                    .map_or_else(|| format!("#{bone_index}"), |b| b.text());
                let parent = if p.model < 0 {
                    None
                } else if p.model == slot as i32 && p.bone == bone_index {
                    warnings.push(format!(
                        "model {name}: bone {bone} has itself as outside parent at frame \
                         {frame}: ignored"
                    ));
                    None
                } else {
                    let found = bone_ref(pmm, *p);
                    if found.is_none() {
                        warnings.push(format!(
                            "model {name}: bone {bone}'s outside parent at frame {frame} names \
                             model {} bone {}, which does not exist: ignored",
                            p.model, p.bone
                        ));
                    }
                    found
                };
                if parent != *last {
                    out.push(OutsideParentKey {
                        frame,
                        bone,
                        parent: parent.clone(),
                    });
                    *last = parent;
                }
            }
        }
    }
    out
}
