//! A bake as a front end asks for it (`odori bake`, Python's `odori.bake`): a model and a
//! VMD, physics simulated over the whole motion, and the motion written back with a key per
//! frame for every bone a simulated body drives (physics off on them), then thinned to the
//! keys a replay needs within `tolerance`. MikuMikuDance and any other runtime then play the
//! physics without simulating. One function, so the two front ends write the same bytes.

use crate::ModelAsset;
use crate::error::PlaybackError;
use crate::load::{ModelInput, MotionFile, unmatched_summary};
use crate::render_job::{Note, OptionNames};
use odori_physics::{PhysicsConfig, PhysicsWorld};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `odori bake`'s default tolerance, model units.
pub const DEFAULT_TOLERANCE: f32 = 0.001;

/// What a finished bake wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct BakeReport {
    /// Bones driven by simulated bodies, each given keys.
    pub bones: usize,
    /// Frames simulated: 0 to `last_frame`.
    pub last_frame: u32,
    /// Bytes written.
    pub bytes: usize,
    /// Bone keys before and after thinning (equal with tolerance 0), and the largest
    /// distance (model units) between the thinned replay and the simulation.
    pub keys_before: usize,
    pub keys_after: usize,
    pub max_error: f32,
}

/// Bake `motion` (a VMD) on `model` into `output` (a VMD). `tolerance`: keys are dropped where
/// the replay stays this close (model units, 0 to 1) to the simulation on every bone and
/// frame; 0 keeps a key on every frame. The output path is checked before anything loads;
/// `names` is how messages name the options.
pub fn bake(
    model: &ModelInput,
    motion: &Path,
    output: &Path,
    tolerance: f32,
    verbose: bool,
    names: OptionNames,
    notes: &mut dyn FnMut(Note),
) -> Result<BakeReport, PlaybackError> {
    if !(tolerance.is_finite() && (0.0..=1.0).contains(&tolerance)) {
        return Err(PlaybackError::Option(format!(
            "{}: give model units from 0 to 1 (default {DEFAULT_TOLERANCE})",
            names.show("tolerance", tolerance)
        )));
    }
    crate::output::check_file(output)?;
    let (asset, model_path) = match model {
        ModelInput::Path(p) => {
            let asset = ModelAsset::load(p)?;
            for w in asset.warnings() {
                notes(Note::Warning(w.clone()));
            }
            (Arc::new(asset), p.clone())
        }
        ModelInput::Loaded(a) => (a.clone(), PathBuf::from(a.label())),
    };
    if asset.physics().dynamic_body_count() == 0 {
        return Err(nothing(
            &model_path,
            format!(
                "the model has no rigid bodies that physics moves ({} in all, none simulated); \
                 its motion plays the same without physics",
                asset.physics().bodies.len()
            ),
        ));
    }
    let (file, warnings) = MotionFile::read(motion)?;
    for w in warnings {
        notes(Note::Warning(w));
    }
    let MotionFile::Vmd(vmd) = &file else {
        return Err(PlaybackError::Option(format!(
            "{}: bake needs a VMD motion, not a VPD pose",
            motion.display()
        )));
    };
    let pose_model = asset.pose();
    let mut world = PhysicsWorld::new(asset.physics(), pose_model, PhysicsConfig::default())
        .map_err(|source| PlaybackError::Physics {
            context: "baking needs physics".into(),
            source,
        })?;
    for w in &world.diagnostics()[asset.physics().diagnostics.len()..] {
        notes(Note::Warning(format!("{}: physics: {w}", asset.label())));
    }
    if world.driven_bones().is_empty() {
        return Err(nothing(
            &model_path,
            "no bone is moved by a simulated rigid body".into(),
        ));
    }
    let bound = odori_pose::Motion::bind(pose_model, &[file.source()]);
    let unbound = bound.unbound();
    if verbose {
        for name in unbound {
            notes(Note::Note(format!(
                "motion track `{name}` matches nothing in {}",
                asset.label()
            )));
        }
    } else if let Some(line) = unmatched_summary(asset.label(), unbound) {
        notes(Note::Note(line));
    }
    let mut baked = odori_physics::bake(pose_model, &bound, &mut world, vmd)?;
    let keys_every_frame = baked.bones.len() * (baked.last_frame as usize + 1);
    let reduction = (tolerance > 0.0)
        .then(|| odori_physics::reduce(pose_model, &mut baked, tolerance))
        .transpose()?;
    let bytes = odori_format::vmd::write(&baked.vmd)?;
    std::fs::write(output, &bytes).map_err(|source| PlaybackError::Write {
        path: output.to_path_buf(),
        source,
    })?;
    Ok(BakeReport {
        bones: baked.bones.len(),
        last_frame: baked.last_frame,
        bytes: bytes.len(),
        keys_before: reduction
            .as_ref()
            .map_or(keys_every_frame, |r| r.keys_before),
        keys_after: reduction
            .as_ref()
            .map_or(keys_every_frame, |r| r.keys_after),
        max_error: reduction.as_ref().map_or(0.0, |r| r.max_error),
    })
}

fn nothing(model: &Path, why: String) -> PlaybackError {
    PlaybackError::Option(format!("{}: nothing to bake: {why}", model.display()))
}
