//! A scene: one or more models, each with its motions (MMD scenes often have two dancers),
//! a camera motion, a light motion and a soundtrack. Immutable once built; a
//! [`crate::Player`] plays it.

use crate::asset::ModelAsset;
use crate::load::MotionFile;
use glam::Vec3;
use odori_format::Vmd;
use odori_pose::Motion;
use odori_pose::motion::Source;
use odori_render::camera::{self, CameraMotion, CameraPose};
use odori_render::{LightMotion, demo::Demo};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One model in a scene: its compiled asset, its motions merged into one, and where it
/// stands.
pub struct SceneModel {
    asset: Arc<ModelAsset>,
    motion: Arc<Motion>,
    placement: Vec3,
}

impl SceneModel {
    pub fn asset(&self) -> &Arc<ModelAsset> {
        &self.asset
    }

    /// The model's motions, merged in the order given and bound to it.
    pub fn motion(&self) -> &Arc<Motion> {
        &self.motion
    }

    /// Where the model stands in the scene: a translation added to every bone's world
    /// transform after the pose (and physics) is computed, so the dance itself is untouched.
    pub fn placement(&self) -> Vec3 {
        self.placement
    }
}

/// Models with their motions, a camera, a light and a soundtrack.
#[derive(Default)]
pub struct Scene {
    models: Vec<SceneModel>,
    camera: Option<CameraMotion>,
    light: Option<LightMotion>,
    /// A camera (light) motion given on its own: the models' motions' keys no longer count.
    camera_given: bool,
    light_given: bool,
    audio: Option<PathBuf>,
}

impl Scene {
    pub fn new() -> Scene {
        Scene::default()
    }

    /// The embedded demo: a character generated in code dancing an eight-second dance with
    /// its own camera.
    pub fn demo() -> Scene {
        let demo = Demo::new();
        let mut scene = Scene::new();
        scene.add_model(Arc::new(ModelAsset::demo(&demo)), &[Source::Vmd(&demo.vmd)]);
        scene.take_camera_and_light(&demo.vmd);
        scene
    }

    /// Add a model with its motions (merged in order; a VPD is a still pose) and return its
    /// index. Camera and light keys in the motions become the scene's camera and light unless
    /// a camera motion was given ([`Scene::set_camera`]) or an earlier motion had them.
    pub fn add_model(&mut self, asset: Arc<ModelAsset>, motions: &[Source<'_>]) -> usize {
        let motion = Arc::new(Motion::bind(asset.pose(), motions));
        self.add_bound(asset, motion);
        for m in motions {
            if let Source::Vmd(v) = m {
                self.take_camera_and_light(v);
            }
        }
        self.models.len() - 1
    }

    /// [`Scene::add_model`] with motion files as read by [`MotionFile::read`].
    pub fn add_model_files(&mut self, asset: Arc<ModelAsset>, motions: &[MotionFile]) -> usize {
        let sources: Vec<Source<'_>> = motions.iter().map(MotionFile::source).collect();
        self.add_model(asset, &sources)
    }

    /// Add a model with a motion already bound to it (shared between scenes).
    pub fn add_bound(&mut self, asset: Arc<ModelAsset>, motion: Arc<Motion>) -> usize {
        self.models.push(SceneModel {
            asset,
            motion,
            placement: Vec3::ZERO,
        });
        self.models.len() - 1
    }

    fn take_camera_and_light(&mut self, vmd: &Vmd) {
        if !self.camera_given && self.camera.is_none() {
            self.camera = CameraMotion::from_keys(&vmd.cameras);
        }
        if !self.light_given && self.light.is_none() {
            self.light = LightMotion::from_keys(&vmd.lights);
        }
    }

    /// Use `vmd`'s camera keys (and its light keys, when it has any) for the scene, over
    /// those of the models' motions.
    pub fn set_camera(&mut self, vmd: &Vmd) {
        self.camera = CameraMotion::from_keys(&vmd.cameras);
        self.camera_given = true;
        if let Some(light) = LightMotion::from_keys(&vmd.lights) {
            self.light = Some(light);
            self.light_given = true;
        }
    }

    /// The soundtrack that plays with the scene from frame 0 (MP3 or WAV).
    pub fn set_audio(&mut self, path: &Path) {
        self.audio = Some(path.to_path_buf());
    }

    pub fn audio(&self) -> Option<&Path> {
        self.audio.as_deref()
    }

    /// Place model `i` at `offset` in the scene.
    pub fn set_placement(&mut self, i: usize, offset: Vec3) {
        self.models[i].placement = offset;
    }

    /// Stand the models side by side along X, centred on the origin, each a little wider
    /// apart than the widest model is wide (one model stays where it is).
    pub fn arrange_side_by_side(&mut self) {
        let n = self.models.len();
        if n < 2 {
            return;
        }
        let width = (self.models.iter())
            .map(|m| {
                let (lo, hi) = m.asset.render().bounds;
                hi.x - lo.x
            })
            .fold(0.0f32, f32::max);
        let spacing = (width * 1.1).max(1.0);
        for (i, m) in self.models.iter_mut().enumerate() {
            m.placement = Vec3::X * (i as f32 - (n - 1) as f32 / 2.0) * spacing;
        }
    }

    pub fn models(&self) -> &[SceneModel] {
        &self.models
    }

    pub fn camera(&self) -> Option<&CameraMotion> {
        self.camera.as_ref()
    }

    pub fn light(&self) -> Option<&LightMotion> {
        self.light.as_ref()
    }

    /// The last frame with any key (bones, morphs or camera) in any motion.
    pub fn end_frame(&self) -> f32 {
        (self.models.iter())
            .map(|m| m.motion.end_frame())
            .fold(0.0f32, f32::max)
            .max(self.camera.as_ref().map_or(0.0, |c| c.end_frame()))
    }

    /// A box around every model at rest, placed.
    pub fn rest_bounds(&self) -> (Vec3, Vec3) {
        crate::frame::union_of(self.models.iter().map(|m| {
            let (lo, hi) = m.asset.render().bounds;
            (lo + m.placement, hi + m.placement)
        }))
    }

    /// A camera that frames every model at rest (used when no motion has camera keys).
    pub fn framing_camera(&self, aspect: f32) -> CameraPose {
        let (lo, hi) = self.rest_bounds();
        camera::framing(lo, hi, aspect)
    }
}
