//! Motions (VMD dances, VPD poses) read from files in memory and bound to one model.

use super::error;
use super::files::Files;
use super::model::Model;
use crate::files::{Kind, kind_of, parse};
use odori_format::Document;
use odori_playback::{ModelAsset, MotionFile};
use odori_pose::motion::Source;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// The motion files of a set, merged in the order they were added, bound to one model.
#[wasm_bindgen(js_name = RawMotion)]
pub struct Motion {
    pub(crate) motion: Arc<odori_pose::Motion>,
    /// The model it was bound for (an instance of another model refuses it).
    pub(crate) model: Arc<ModelAsset>,
    warnings: Vec<String>,
}

#[wasm_bindgen(js_class = RawMotion)]
impl Motion {
    /// Read every VMD and VPD in `files` (in order; later keys of the same bone and frame
    /// win, as MMD merges motions) and bind them to `model`. A VMD with camera keys only is
    /// left out with a warning (it is a camera: `Camera`). The error names the file, the
    /// section and the byte offset.
    pub fn load(model: &Model, files: &Files) -> Result<Motion, JsError> {
        let mut warnings = Vec::new();
        let mut motions = Vec::new();
        for (path, bytes) in files.files.iter().filter(|f| kind_of(&f.0) == Kind::Motion) {
            let (doc, diagnostics) = parse(path, bytes).map_err(error)?;
            warnings.extend(diagnostics.iter().map(|d| format!("{path}: {d}")));
            let motion = match doc {
                Document::Vmd(v) => MotionFile::Vmd(v),
                Document::Vpd(v) => MotionFile::Vpd(v),
                _ => return Err(error(format!("{path}: not a motion (VMD or VPD)"))),
            };
            if motion.is_camera_only() {
                warnings.push(format!(
                    "{path}: camera keys only, so not a dance: read it as a camera"
                ));
                continue;
            }
            motions.push(motion);
        }
        if motions.is_empty() {
            let paths = files.paths();
            return Err(error(format!(
                "no dance among the files given ({}): give VMD or VPD files",
                paths.join(", ")
            )));
        }
        let sources: Vec<Source<'_>> = motions.iter().map(MotionFile::source).collect();
        let motion = odori_pose::Motion::bind(model.asset.pose(), &sources);
        warnings.extend(odori_playback::load::unmatched_summary(
            model.asset.label(),
            motion.unbound(),
        ));
        Ok(Motion {
            motion: Arc::new(motion),
            model: model.asset.clone(),
            warnings,
        })
    }

    /// The embedded demo's dance, bound to `model` (made for [`Model::demo`]).
    pub fn demo(model: &Model) -> Motion {
        let demo = odori_render::demo::Demo::new();
        let motion = odori_pose::Motion::bind(model.asset.pose(), &[Source::Vmd(&demo.vmd)]);
        Motion {
            motion: Arc::new(motion),
            model: model.asset.clone(),
            warnings: Vec::new(),
        }
    }

    /// The last keyed frame (MMD frames, 30 a second).
    #[wasm_bindgen(getter, js_name = endFrame)]
    pub fn end_frame(&self) -> f64 {
        f64::from(self.motion.end_frame())
    }

    /// The motion's bone and morph names the model has no bone or morph for.
    #[wasm_bindgen(getter)]
    pub fn unmatched(&self) -> Vec<String> {
        self.motion.unbound().to_vec()
    }

    /// What was repaired or left out while reading (each line names the file).
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
}
