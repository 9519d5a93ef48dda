//! A camera motion (a VMD's camera keys) sampled for another engine's camera.

use super::error;
use super::files::Files;
use crate::files::parse;
use glam::Affine3A;
use odori_format::Document;
use odori_pose::camera::CameraMotion;
use odori_pose::space;
use wasm_bindgen::prelude::*;

/// A VMD's camera keys, sampled with MMD's curves.
#[wasm_bindgen(js_name = RawCamera)]
pub struct Camera {
    motion: CameraMotion,
}

#[wasm_bindgen(js_class = RawCamera)]
impl Camera {
    /// The camera keys of the first VMD in `files` that has some. The error names the file,
    /// the section and the byte offset, or says that no file had camera keys.
    pub fn load(files: &Files) -> Result<Camera, JsError> {
        for (path, bytes) in &files.files {
            if !path.to_ascii_lowercase().ends_with(".vmd") {
                continue;
            }
            let (doc, _) = parse(path, bytes).map_err(error)?;
            if let Document::Vmd(v) = doc
                && let Some(motion) = CameraMotion::from_keys(&v.cameras)
            {
                return Ok(Camera { motion });
            }
        }
        Err(error(format!(
            "no camera keys in the files given ({})",
            files.paths().join(", ")
        )))
    }

    /// The embedded demo's camera keys.
    pub fn demo() -> Result<Camera, JsError> {
        let demo = odori_render::demo::Demo::new();
        CameraMotion::from_keys(&demo.vmd.cameras)
            .map(|motion| Camera { motion })
            .ok_or_else(|| error("the embedded demo has no camera keys"))
    }

    /// The last keyed frame.
    #[wasm_bindgen(getter, js_name = endFrame)]
    pub fn end_frame(&self) -> f64 {
        f64::from(self.motion.end_frame())
    }

    /// Sample frame `frame`: returns the camera-to-world matrix (column-major; mirrored, it
    /// is a right-handed camera looking down −Z, as three.js's cameras do; else MMD's,
    /// looking down +Z), the vertical field of view in radians, the distance, and 1 for an
    /// orthographic key.
    pub fn sample(&self, frame: f64, mirror: bool) -> Vec<f32> {
        let pose = self.motion.sample(frame as f32);
        let world = Affine3A::from_mat4(pose.view().inverse());
        let world = if mirror { space::affine(world) } else { world };
        let mut out = glam::Mat4::from(world).to_cols_array().to_vec();
        out.extend([
            pose.fov,
            pose.distance,
            f32::from(u8::from(pose.orthographic)),
        ]);
        out
    }
}
