//! Reading motion, pose and camera files from paths, with errors that name the file.

use crate::accessory::{Accessory, AccessorySpec, ModelRef, ParentBone};
use crate::error::{PlaybackError, kind_of};
use odori_format::{Document, Vmd, Vpd};
use odori_pose::motion::Source;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    Loaded(Arc<crate::ModelAsset>),
}

/// A scene from a list of files as a user gives them: each model (PMX/PMD) followed by its
/// motions (VMD dances, VPD poses; merged in order), then the next model with its own. No
/// files: the embedded demo. `camera` (a VMD) overrides the motions' camera, light and
/// self-shadow keys. Every model stands at the origin, as in MMD. Returns the scene and every
/// warning met, each naming its file.
pub fn scene_from_files(
    files: &[PathBuf],
    camera: Option<&Path>,
) -> Result<(crate::Scene, Vec<String>), PlaybackError> {
    scene_from_models(&split_files(files)?, camera, &SceneOptions::default())
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

/// What a scene holds besides its dancers, and how the dancers stand: what `--stage`,
/// `--accessory` and `--side-by-side` ask for.
#[derive(Clone, Default)]
pub struct SceneOptions {
    /// Stages, in the order given: at the origin, never moved, no motion.
    pub stages: Vec<ModelInput>,
    /// Accessories, in the order given.
    pub accessories: Vec<AccessorySpec>,
    /// Stand the dancers side by side along X ([`crate::Scene::arrange_side_by_side`])
    /// instead of every one at the origin, where MMD puts them.
    pub side_by_side: bool,
}

/// How many accessories MMD draws before the models: its アクセサリ編集 setting "accessories
/// after number \[1\] are drawn after the models" defaults to 1, so the first accessory (often
/// the stage) is drawn first and the others after every model.
pub const ACCESSORIES_BEFORE_MODELS: usize = 1;

/// Whether `path` is a DirectX `.x` file: MMD's accessory format, drawn in the accessories'
/// order rather than the models'.
fn is_x_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("x"))
}

/// One model of a scene being built, with where it goes.
enum Entry<'a> {
    Stage(&'a ModelInput),
    Dancer(usize),
    Accessory(&'a AccessorySpec),
}

/// [`scene_from_files`] with the models already split from their motions, each a path or a
/// model already loaded (no models: the embedded demo), and the stages, accessories and
/// placement of `options`.
///
/// The draw order is MMD's: models in the order loaded, stages taken as loaded first (MMD
/// users load the stage before the dancers), PMX/PMD accessories after the dancers; `.x`
/// files are MMD accessories, the first [`ACCESSORIES_BEFORE_MODELS`] drawn before every
/// model (a `.x` stage counts first) and the rest after. Nothing is sorted by transparency,
/// as MMD sorts nothing.
pub fn scene_from_models(
    models: &[(ModelInput, Vec<PathBuf>)],
    camera: Option<&Path>,
    options: &SceneOptions,
) -> Result<(crate::Scene, Vec<String>), PlaybackError> {
    assemble(models, camera, options)
}

/// [`scene_from_models`] with each dancer's motions already read: how the window, which
/// keeps what was loaded and dropped, builds its scene with the same stages, accessories,
/// draw order and placement as a render.
pub fn scene_with_motions(
    models: &[(ModelInput, Vec<MotionFile>)],
    camera: Option<&Path>,
    options: &SceneOptions,
) -> Result<(crate::Scene, Vec<String>), PlaybackError> {
    assemble(models, camera, options)
}

/// A dancer's motions as a scene's builder is given them: files to read, or files read.
pub trait DancerMotions {
    /// The motion files, read when need be (their warnings added to `warnings`).
    fn motion_files(&self, warnings: &mut Vec<String>) -> Result<Vec<MotionFile>, PlaybackError>;
}

impl DancerMotions for Vec<PathBuf> {
    fn motion_files(&self, warnings: &mut Vec<String>) -> Result<Vec<MotionFile>, PlaybackError> {
        let mut motions = Vec::with_capacity(self.len());
        for p in self {
            let (m, w) = MotionFile::read(p)?;
            warnings.extend(w);
            motions.push(m);
        }
        Ok(motions)
    }
}

impl DancerMotions for Vec<MotionFile> {
    fn motion_files(&self, _: &mut Vec<String>) -> Result<Vec<MotionFile>, PlaybackError> {
        Ok(self.clone())
    }
}

/// The one home of a scene's assembly from dancers, stages and accessories (see
/// [`scene_from_models`]).
fn assemble<M: DancerMotions>(
    models: &[(ModelInput, M)],
    camera: Option<&Path>,
    options: &SceneOptions,
) -> Result<(crate::Scene, Vec<String>), PlaybackError> {
    use crate::Scene;
    let mut warnings = Vec::new();
    let input_is_x = |m: &ModelInput| matches!(m, ModelInput::Path(p) if is_x_path(p));
    // Every entry in draw order.
    let stages = options.stages.iter();
    let accessories = options.accessories.iter();
    let x_entries: Vec<Entry<'_>> = (stages.clone().filter(|s| input_is_x(s)).map(Entry::Stage))
        .chain(
            accessories
                .clone()
                .filter(|a| is_x_path(&a.path))
                .map(Entry::Accessory),
        )
        .collect();
    let split = x_entries.len().min(ACCESSORIES_BEFORE_MODELS);
    let mut x_entries = x_entries.into_iter();
    let mut order: Vec<Entry<'_>> = x_entries.by_ref().take(split).collect();
    order.extend(stages.filter(|s| !input_is_x(s)).map(Entry::Stage));
    order.extend((0..models.len().max(1)).map(Entry::Dancer));
    order.extend(
        accessories
            .filter(|a| !is_x_path(&a.path))
            .map(Entry::Accessory),
    );
    order.extend(x_entries);
    // Scene index of each dancer, for the accessories' parents.
    let dancer_index: Vec<usize> = (order.iter().enumerate())
        .filter_map(|(i, e)| matches!(e, Entry::Dancer(_)).then_some(i))
        .collect();

    // No models: the embedded demo dances in the dancer's place.
    let demo = models.is_empty().then(odori_render::demo::Demo::new);
    let mut dancers: Vec<Arc<crate::ModelAsset>> = Vec::new();
    let mut loaded = Vec::with_capacity(order.len());
    for e in &order {
        let asset = match e {
            Entry::Stage(m) => load_input(m, &mut warnings)?,
            Entry::Dancer(k) => {
                let asset = match &demo {
                    Some(d) => Arc::new(crate::ModelAsset::demo(d)),
                    None => load_input(&models[*k].0, &mut warnings)?,
                };
                dancers.push(asset.clone());
                asset
            }
            Entry::Accessory(a) => {
                let asset = crate::ModelAsset::load(&a.path)?;
                warnings.extend(asset.warnings().iter().cloned());
                Arc::new(match a.transform.shadow {
                    true => asset,
                    false => asset.without_shadows(),
                })
            }
        };
        loaded.push(asset);
    }
    let mut scene = Scene::new();
    for (e, asset) in order.iter().zip(loaded) {
        match e {
            Entry::Stage(_) => {
                scene.add_stage(asset);
            }
            Entry::Dancer(k) => {
                if let Some(d) = &demo {
                    scene.add_model(asset, &[Source::Vmd(&d.vmd)]);
                    continue;
                }
                let (model, motion_inputs) = &models[*k];
                let motions = motion_inputs.motion_files(&mut warnings)?;
                let label = match model {
                    ModelInput::Path(p) => p.display().to_string(),
                    ModelInput::Loaded(a) => a.label().to_string(),
                };
                let i = scene.add_model_files(asset, &motions);
                let unbound = scene.models()[i].motion().unbound();
                warnings.extend(unmatched_summary(&label, unbound));
            }
            Entry::Accessory(spec) => {
                let parent = match &spec.parent {
                    None => None,
                    Some((which, bone)) => {
                        let k = find_model(which, models, &spec.path)?;
                        let holder = &dancers[k];
                        let bone_index = holder.pose().find_bone(bone).ok_or_else(|| {
                            PlaybackError::Option(format!(
                                "--accessory {}: {} has no bone `{bone}`",
                                spec.path.display(),
                                holder.label()
                            ))
                        })?;
                        Some(ParentBone {
                            model: dancer_index[k],
                            bone: bone_index,
                        })
                    }
                };
                // A model loaded for this accessory alone becomes additive; one shared with
                // another part of the scene cannot change for it.
                let asset = match spec.transform.additive {
                    false => asset,
                    true => match Arc::try_unwrap(asset) {
                        Ok(own) => Arc::new(own.with_additive_blending()),
                        Err(shared) => {
                            warnings.push(format!(
                                "{}: its model is shared with another part of the scene, so it is drawn blended, not added (加算合成)",
                                spec.path.display()
                            ));
                            shared
                        }
                    },
                };
                let accessory = Accessory::fixed(parent, spec.transform);
                scene.add_accessory(asset, accessory);
            }
        }
    }
    if options.side_by_side {
        scene.arrange_side_by_side();
    }
    if let Some(path) = camera {
        scene.set_camera(&camera_file(path)?);
    }
    Ok((scene, warnings))
}

/// Read (or share) one model of a scene.
fn load_input(
    model: &ModelInput,
    warnings: &mut Vec<String>,
) -> Result<Arc<crate::ModelAsset>, PlaybackError> {
    Ok(match model {
        ModelInput::Path(p) => {
            let asset = crate::ModelAsset::load(p)?;
            warnings.extend(asset.warnings().iter().cloned());
            Arc::new(asset)
        }
        ModelInput::Loaded(a) => a.clone(),
    })
}

/// The index among `models` of the model an accessory names (by index, or by file name or
/// path as given).
fn find_model<M>(
    which: &ModelRef,
    models: &[(ModelInput, M)],
    accessory: &Path,
) -> Result<usize, PlaybackError> {
    let count = models.len().max(1);
    let fail =
        |why: String| PlaybackError::Option(format!("--accessory {}: {why}", accessory.display()));
    match which {
        ModelRef::Index(i) if *i < count => Ok(*i),
        ModelRef::Index(i) => Err(fail(format!(
            "model {i} does not exist: the scene has {count} model(s), numbered from 0"
        ))),
        ModelRef::Name(name) => {
            let names = |m: &ModelInput| -> (String, String) {
                let full = match m {
                    ModelInput::Path(p) => p.display().to_string(),
                    ModelInput::Loaded(a) => a.label().to_string(),
                };
                let file = Path::new(&full)
                    .file_name()
                    .map_or(full.clone(), |f| f.to_string_lossy().into_owned());
                (full, file)
            };
            let hits: Vec<usize> = (models.iter().enumerate())
                .filter(|(_, (m, _))| {
                    let (full, file) = names(m);
                    *name == full || *name == file
                })
                .map(|(i, _)| i)
                .collect();
            match hits[..] {
                [one] => Ok(one),
                [] => Err(fail(format!("no model is named `{name}`"))),
                _ => Err(fail(format!(
                    "{} models are named `{name}`: give its index instead",
                    hits.len()
                ))),
            }
        }
    }
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
