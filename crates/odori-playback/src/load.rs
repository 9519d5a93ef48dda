//! Reading motion, pose and camera files from paths, with errors that name the file.

use crate::error::{PlaybackError, kind_of};
use odori_format::{Document, Vmd, Vpd};
use odori_pose::motion::Source;
use std::path::{Path, PathBuf};

/// A motion file read: a VMD dance or a VPD still pose.
#[derive(Clone)]
pub enum MotionFile {
    Vmd(Box<Vmd>),
    Vpd(Box<Vpd>),
}

impl MotionFile {
    /// Read a VMD or VPD; the format's own warnings come back with the file's name on each.
    pub fn read(path: &Path) -> Result<(MotionFile, Vec<String>), PlaybackError> {
        let (doc, diagnostics) = odori_format::read_path(path)?;
        let warnings = diagnostics
            .iter()
            .map(|d| format!("{}: {d}", path.display()))
            .collect();
        let file = match doc {
            Document::Vmd(v) => MotionFile::Vmd(v),
            Document::Vpd(v) => MotionFile::Vpd(v),
            other => {
                return Err(PlaybackError::NotAMotion {
                    path: path.to_path_buf(),
                    found: kind_of(&other),
                });
            }
        };
        Ok((file, warnings))
    }

    /// The pose runtime's view of this file.
    pub fn source(&self) -> Source<'_> {
        match self {
            MotionFile::Vmd(v) => Source::Vmd(v),
            MotionFile::Vpd(v) => Source::Vpd(v),
        }
    }

    /// The VMD, when this is one (camera and light keys live only there).
    pub fn vmd(&self) -> Option<&Vmd> {
        match self {
            MotionFile::Vmd(v) => Some(v),
            MotionFile::Vpd(_) => None,
        }
    }

    /// A camera motion: a VMD with camera keys and no bone or morph keys. Dropped on a
    /// player, it becomes the scene's camera rather than a dance for a model.
    pub fn is_camera_only(&self) -> bool {
        self.vmd()
            .is_some_and(|v| v.bones.is_empty() && v.morphs.is_empty() && !v.cameras.is_empty())
    }
}

/// Read a camera (and light) motion: a VMD.
pub fn camera_file(path: &Path) -> Result<Vmd, PlaybackError> {
    match MotionFile::read(path)?.0 {
        MotionFile::Vmd(v) => Ok(*v),
        MotionFile::Vpd(_) => Err(PlaybackError::NotACamera {
            path: path.to_path_buf(),
            found: "VPD pose",
        }),
    }
}

/// Whether `path` names a model file by its extension (`.pmx`, `.pmd`, any case): how a list
/// of files given on the command line is split into models and the motions that follow
/// each.
pub fn is_model_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("pmx") || e.eq_ignore_ascii_case("pmd"))
}

/// A model to put in a scene: a file to read, or one already read and compiled (shared).
#[derive(Clone)]
pub enum ModelInput {
    Path(PathBuf),
    Loaded(std::sync::Arc<crate::ModelAsset>),
}

/// A scene from a list of files as a user gives them: each model (PMX/PMD) followed by its
/// motions (VMD dances, VPD poses; merged in order), then the next model with its own. No
/// files: the embedded demo. `camera` (a VMD) overrides the motions' camera and light keys.
/// Several models stand side by side. Returns the scene and every warning met, each naming
/// its file.
pub fn scene_from_files(
    files: &[PathBuf],
    camera: Option<&Path>,
) -> Result<(crate::Scene, Vec<String>), PlaybackError> {
    scene_from_models(&split_files(files)?, camera)
}

/// A list of files as a user gives them (each model followed by its motions) split into the
/// models and their motions.
pub fn split_files(files: &[PathBuf]) -> Result<Vec<(ModelInput, Vec<PathBuf>)>, PlaybackError> {
    if let Some(first) = files.first().filter(|f| !is_model_path(f)) {
        return Err(PlaybackError::MotionBeforeModel {
            path: first.to_path_buf(),
        });
    }
    let mut models = Vec::new();
    let mut rest = files;
    while let Some((model_path, tail)) = rest.split_first() {
        let n = tail.iter().take_while(|f| !is_model_path(f)).count();
        models.push((ModelInput::Path(model_path.clone()), tail[..n].to_vec()));
        rest = &tail[n..];
    }
    Ok(models)
}

/// [`scene_from_files`] with the models already split from their motions, each a path or a
/// model already loaded (no models: the embedded demo).
pub fn scene_from_models(
    models: &[(ModelInput, Vec<PathBuf>)],
    camera: Option<&Path>,
) -> Result<(crate::Scene, Vec<String>), PlaybackError> {
    use crate::{ModelAsset, Scene};
    use std::sync::Arc;
    let mut warnings = Vec::new();
    let mut scene = if models.is_empty() {
        Scene::demo()
    } else {
        let mut scene = Scene::new();
        for (model, motion_paths) in models {
            let asset = match model {
                ModelInput::Path(p) => {
                    let asset = ModelAsset::load(p)?;
                    warnings.extend(asset.warnings().iter().cloned());
                    Arc::new(asset)
                }
                ModelInput::Loaded(a) => a.clone(),
            };
            let mut motions = Vec::with_capacity(motion_paths.len());
            for p in motion_paths {
                let (m, w) = MotionFile::read(p)?;
                warnings.extend(w);
                motions.push(m);
            }
            let label = match model {
                ModelInput::Path(p) => p.display().to_string(),
                ModelInput::Loaded(a) => a.label().to_string(),
            };
            let i = scene.add_model_files(asset, &motions);
            let unbound = scene.models()[i].motion().unbound();
            warnings.extend(unmatched_summary(&label, unbound));
        }
        scene.arrange_side_by_side();
        scene
    };
    if let Some(path) = camera {
        scene.set_camera(&camera_file(path)?);
    }
    Ok((scene, warnings))
}

/// One line for the motion tracks that match nothing in model `label` (their count and the
/// first few names), or `None` when every track matched: what front ends show instead of a
/// line per track, which buries real errors.
pub fn unmatched_summary(label: &str, unbound: &[String]) -> Option<String> {
    const SHOWN: usize = 5;
    if unbound.is_empty() {
        return None;
    }
    let names: Vec<&str> = unbound.iter().take(SHOWN).map(String::as_str).collect();
    Some(format!(
        "{} motion track(s) match nothing in {label} ({}{})",
        unbound.len(),
        names.join(", "),
        if unbound.len() > SHOWN { ", …" } else { "" }
    ))
}
