//! A scene: one or more models, each with its motions (MMD scenes often have two dancers),
//! stages and accessories, a camera motion, a light motion and a soundtrack. Immutable once
//! built; a [`crate::Player`] plays it.
//!
//! Placement is MikuMikuDance's: every model stands at the world origin and only its motion
//! (センター, 全ての親) moves it. Standing the dancers side by side is a choice a front end
//! makes ([`Scene::arrange_side_by_side`]). The models are drawn in the order they were added,
//! which the loader makes MMD's ([`crate::load`]).

use crate::accessory::{Accessory, ParentBone};
use crate::asset::ModelAsset;
use crate::load::MotionFile;
use glam::Vec3;
use odori_format::Vmd;
use odori_pose::Motion;
use odori_pose::camera::{self, CameraMotion, CameraPose};
use odori_pose::light::{LightMotion, LightTrack, SelfShadowMotion};
use odori_pose::motion::Source;
use odori_render::demo::Demo;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a model is in its scene.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// Moved by its motion, framed by the default camera, stood apart by
    /// [`Scene::arrange_side_by_side`].
    Dancer,
    /// A stage: at the origin, never arranged, left out of the default camera's framing and
    /// of the box the light's shadow map covers (so the map stays on the dancers); it casts
    /// and receives self-shadow as its materials say. It needs no motion.
    Stage,
    /// An accessory: drawn at its parent bone (or the world origin) with MMD's accessory
    /// transform ([`Accessory`]).
    Accessory(Accessory),
}

/// From `frame` on, bone `bone` of a scene model follows bone `parent.1` of scene model
/// `parent.0` as its outside parent (外部親: the followed bone stands in for the bone's own
/// parent, as [`odori_pose::Instance::set_outside_parent`] says); `None`: its own parent again.
#[derive(Debug, Clone, PartialEq)]
pub struct OutsideParent {
    pub frame: f32,
    pub bone: usize,
    pub parent: Option<(usize, usize)>,
}

/// One model in a scene: its compiled asset, its motions merged into one, what it is and
/// where it stands.
pub struct SceneModel {
    asset: Arc<ModelAsset>,
    motion: Arc<Motion>,
    role: Role,
    placement: Vec3,
    /// Keyed outside parents, in frame order.
    outside_parents: Vec<OutsideParent>,
}

impl SceneModel {
    pub fn asset(&self) -> &Arc<ModelAsset> {
        &self.asset
    }

    /// The model's motions, merged in the order given and bound to it (empty for a stage or
    /// an accessory).
    pub fn motion(&self) -> &Arc<Motion> {
        &self.motion
    }

    /// Dancer, stage or accessory.
    pub fn role(&self) -> &Role {
        &self.role
    }

    /// The accessory's parent and transform, when the model is one.
    pub fn accessory(&self) -> Option<&Accessory> {
        match &self.role {
            Role::Accessory(a) => Some(a),
            _ => None,
        }
    }

    /// Whether the default camera frames this model and the light's shadow map covers it:
    /// every model but a stage.
    pub fn is_framed(&self) -> bool {
        self.role != Role::Stage
    }

    /// Where the model stands in the scene: a translation added to every bone's world
    /// transform after the pose (and physics) is computed, so the dance itself is untouched.
    /// Zero (the origin, as in MMD) unless the dancers were stood side by side.
    pub fn placement(&self) -> Vec3 {
        self.placement
    }

    /// The bones of this model that follow another model's bone, keyed, in frame order.
    pub fn outside_parents(&self) -> &[OutsideParent] {
        &self.outside_parents
    }
}

/// Models with their motions, stages and accessories, a camera, a light and a soundtrack.
#[derive(Default)]
pub struct Scene {
    models: Vec<SceneModel>,
    camera: Option<CameraMotion>,
    light: LightTrack,
    /// A camera (light, self-shadow) motion given on its own: the models' motions' keys no
    /// longer count.
    camera_given: bool,
    light_given: bool,
    shadow_given: bool,
    audio: Option<PathBuf>,
    /// Gravity keys (frame, gravity), frames rising and distinct; empty: MMD's default
    /// ([`odori_physics::PhysicsConfig`]).
    gravity: Vec<(f32, Vec3)>,
    /// The order models are evaluated in, when not their order in `models`.
    evaluation_order: Option<Vec<usize>>,
    /// Bones the camera's target follows, (frame, bone), frames rising: see
    /// [`Scene::set_camera_follow`].
    camera_follow: Vec<(f32, Option<ParentBone>)>,
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

    /// Add a dancer with its motions (merged in order; a VPD is a still pose) and return its
    /// index. Camera, light and self-shadow keys in the motions become the scene's unless a
    /// camera motion was given ([`Scene::set_camera`]) or an earlier motion had them.
    pub fn add_model(&mut self, asset: Arc<ModelAsset>, motions: &[Source<'_>]) -> usize {
        let motion = Arc::new(Motion::bind(asset.pose(), motions));
        self.add_bound(asset, motion);
        for m in motions {
            if let Some(v) = m.vmd() {
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

    /// Add a dancer with a motion already bound to it (shared between scenes).
    pub fn add_bound(&mut self, asset: Arc<ModelAsset>, motion: Arc<Motion>) -> usize {
        self.push(asset, motion, Role::Dancer)
    }

    /// Add a stage (no motion) and return its index.
    pub fn add_stage(&mut self, asset: Arc<ModelAsset>) -> usize {
        let motion = Arc::new(Motion::bind(asset.pose(), &[]));
        self.push(asset, motion, Role::Stage)
    }

    /// Add an accessory (no motion) and return its index. Its parent, when it has one, names
    /// a model by its index in this scene: one already added or one added later (the player
    /// places accessories after every model is posed).
    pub fn add_accessory(&mut self, asset: Arc<ModelAsset>, accessory: Accessory) -> usize {
        let motion = Arc::new(Motion::bind(asset.pose(), &[]));
        self.push(asset, motion, Role::Accessory(accessory))
    }

    fn push(&mut self, asset: Arc<ModelAsset>, motion: Arc<Motion>, role: Role) -> usize {
        self.models.push(SceneModel {
            asset,
            motion,
            role,
            placement: Vec3::ZERO,
            outside_parents: Vec::new(),
        });
        self.models.len() - 1
    }

    fn take_camera_and_light(&mut self, vmd: &Vmd) {
        if !self.camera_given && self.camera.is_none() {
            self.camera = CameraMotion::from_keys(&vmd.cameras);
        }
        if !self.light_given && self.light.light.is_none() {
            self.light.light = LightMotion::from_keys(&vmd.lights);
        }
        if !self.shadow_given && self.light.shadow.is_none() {
            self.light.shadow = SelfShadowMotion::from_keys(&vmd.self_shadows);
        }
    }

    /// Use `vmd`'s camera keys (and its light and self-shadow keys, when it has any) for the
    /// scene, over those of the models' motions.
    pub fn set_camera(&mut self, vmd: &Vmd) {
        self.camera = CameraMotion::from_keys(&vmd.cameras);
        self.camera_given = true;
        if let Some(light) = LightMotion::from_keys(&vmd.lights) {
            self.light.light = Some(light);
            self.light_given = true;
        }
        if let Some(shadow) = SelfShadowMotion::from_keys(&vmd.self_shadows) {
            self.light.shadow = Some(shadow);
            self.shadow_given = true;
        }
    }

    /// Make the camera's target follow a model's bone, as MikuMikuDance's camera keys can
    /// (a project keeps, with each camera key, the model and bone it follows): from each
    /// key's frame until the next key's, the camera's keyed target is an offset from that
    /// bone's world position, after physics (its position only: the camera does not turn
    /// with the bone, nanoem's `PerspectiveCamera::boundLookAt`); `None` is world space.
    /// Before the first key the camera follows nothing. Keys are sorted here; a key naming a
    /// model or bone the scene lacks is refused.
    pub fn set_camera_follow(
        &mut self,
        mut keys: Vec<(f32, Option<ParentBone>)>,
    ) -> Result<(), String> {
        for (frame, bone) in &keys {
            if let Some(p) = bone
                && (self.models.get(p.model)).is_none_or(|m| p.bone >= m.asset.pose().bone_count())
            {
                return Err(format!(
                    "the camera's key at frame {frame} follows model {} bone {}, which is not in \
                     the scene",
                    p.model, p.bone
                ));
            }
        }
        keys.retain(|(f, _)| !f.is_nan());
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.camera_follow = keys;
        Ok(())
    }

    /// The bone the camera's target follows at `frame` (see [`Scene::set_camera_follow`]).
    pub fn camera_follow_at(&self, frame: f32) -> Option<ParentBone> {
        let after = self.camera_follow.partition_point(|(f, _)| *f <= frame);
        self.camera_follow.get(after.checked_sub(1)?)?.1
    }

    /// The soundtrack that plays with the scene from frame 0 (MP3 or WAV).
    pub fn set_audio(&mut self, path: &Path) {
        self.audio = Some(path.to_path_buf());
    }

    pub fn audio(&self) -> Option<&Path> {
        self.audio.as_deref()
    }

    /// Gravity for the scene's physics, MMD units per second² (MMD's panel value × 10 along
    /// its direction).
    pub fn set_gravity(&mut self, gravity: Vec3) {
        self.set_gravity_keys([(0.0, gravity)]);
    }

    /// Gravity that changes during the scene, as a project's gravity keys change it: each
    /// (frame, gravity) holds from its frame until the next key's, and before the first key
    /// the first holds. MikuMikuDance's gravity keys store no interpolation curve, so none
    /// is blended into the next. Of two keys on one frame the later given wins; a key with a
    /// frame or gravity that is no number is dropped.
    pub fn set_gravity_keys(&mut self, keys: impl IntoIterator<Item = (f32, Vec3)>) {
        let mut keys: Vec<(f32, Vec3)> = (keys.into_iter())
            .filter(|(f, g)| f.is_finite() && g.is_finite())
            .collect();
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        self.gravity.clear();
        for (frame, g) in keys {
            match self.gravity.last_mut() {
                Some(last) if last.0 == frame => last.1 = g,
                _ => self.gravity.push((frame, g)),
            }
        }
    }

    /// The gravity at `frame`: the last key at or before it (the first key before any),
    /// else MMD's default (9.8 × 10 down).
    pub fn gravity_at(&self, frame: f32) -> Vec3 {
        let after = self.gravity.partition_point(|(f, _)| *f <= frame);
        match self.gravity.get(after.saturating_sub(1)) {
            Some(&(_, g)) => g,
            None => odori_physics::PhysicsConfig::default().gravity,
        }
    }

    /// The scene's gravity at its start: the first key, else MMD's default.
    pub fn gravity(&self) -> Vec3 {
        self.gravity_at(f32::NEG_INFINITY)
    }

    /// Place model `i` at `offset` in the scene.
    pub fn set_placement(&mut self, i: usize, offset: Vec3) {
        self.models[i].placement = offset;
    }

    /// Stand the dancers side by side along X, centred on the origin, each a little wider
    /// apart than the widest dancer is wide (one dancer stays where it is). Stages and
    /// accessories are never moved. MMD puts every model at the origin; this is for seeing
    /// several dancers at once without their motions' own placement.
    pub fn arrange_side_by_side(&mut self) {
        let dancers = || self.models.iter().filter(|m| m.role == Role::Dancer);
        let n = dancers().count();
        if n < 2 {
            return;
        }
        let width = dancers()
            .map(|m| {
                let (lo, hi) = m.asset.render().bounds;
                hi.x - lo.x
            })
            .fold(0.0f32, f32::max);
        let spacing = (width * 1.1).max(1.0);
        let dancers = self.models.iter_mut().filter(|m| m.role == Role::Dancer);
        for (i, m) in dancers.enumerate() {
            m.placement = Vec3::X * (i as f32 - (n - 1) as f32 / 2.0) * spacing;
        }
    }

    /// Make bones of model `i` follow other models' bones from keyed frames on (sorted by
    /// frame here). A key naming a model or bone the scene lacks is refused.
    pub fn set_outside_parents(
        &mut self,
        i: usize,
        mut keys: Vec<OutsideParent>,
    ) -> Result<(), String> {
        let bones = |m: usize| self.models.get(m).map(|m| m.asset.pose().bone_count());
        for k in &keys {
            let own = bones(i).ok_or_else(|| format!("model {i} is not in the scene"))?;
            if k.bone >= own {
                return Err(format!("model {i} has no bone {}", k.bone));
            }
            if let Some((m, b)) = k.parent
                && bones(m).is_none_or(|n| b >= n)
            {
                return Err(format!(
                    "model {i}'s outside parent, model {m} bone {b}, is not in the scene"
                ));
            }
        }
        keys.sort_by(|a, b| a.frame.total_cmp(&b.frame));
        self.models[i].outside_parents = keys;
        Ok(())
    }

    /// Evaluate the models in this order (every model once), as MikuMikuDance's calculation
    /// order (モデル計算順序) says: a model reads the bones it follows as the models before it
    /// left them this frame, and those after it as they were the frame before.
    pub fn set_evaluation_order(&mut self, order: Vec<usize>) -> Result<(), String> {
        let mut seen = vec![false; self.models.len()];
        for &i in &order {
            match seen.get_mut(i) {
                Some(s) if !*s => *s = true,
                _ => {
                    return Err(format!(
                        "evaluation order {order:?}: model {i} is out of place"
                    ));
                }
            }
        }
        if seen.iter().any(|s| !s) {
            return Err(format!("evaluation order {order:?} leaves models out"));
        }
        self.evaluation_order = Some(order);
        Ok(())
    }

    /// The order models are evaluated in: [`Scene::set_evaluation_order`]'s, else the scene's;
    /// models added after the order was set come last.
    pub fn evaluation_order(&self) -> Vec<usize> {
        let n = self.models.len();
        let mut order: Vec<usize> = (self.evaluation_order.iter().flatten())
            .copied()
            .filter(|&i| i < n)
            .collect();
        let mut listed = vec![false; n];
        order.iter().for_each(|&i| listed[i] = true);
        order.extend((0..n).filter(|&i| !listed[i]));
        order
    }

    pub fn models(&self) -> &[SceneModel] {
        &self.models
    }

    pub fn camera(&self) -> Option<&CameraMotion> {
        self.camera.as_ref()
    }

    /// The light and self-shadow motions (MMD's defaults where absent).
    pub fn light(&self) -> &LightTrack {
        &self.light
    }

    /// The last frame with any key (bones, morphs, accessories, camera, light or
    /// self-shadow) in any motion.
    pub fn end_frame(&self) -> f32 {
        (self.models.iter())
            .map(|m| {
                let keys = m.accessory().map_or(0.0, Accessory::end_frame);
                m.motion.end_frame().max(keys)
            })
            .fold(0.0f32, f32::max)
            .max(self.camera.as_ref().map_or(0.0, |c| c.end_frame()))
            .max(self.light.end_frame())
    }

    /// A box around every dancer at rest, placed (every model's when there is no dancer).
    /// Stages are left out, and accessories, whose rest box is not where their bone holds
    /// them.
    pub fn rest_bounds(&self) -> (Vec3, Vec3) {
        let dancing = self.models.iter().any(|m| m.role == Role::Dancer);
        crate::frame::union_of(
            (self.models.iter())
                .filter(|m| m.role == Role::Dancer || !dancing)
                .map(|m| {
                    let (lo, hi) = m.asset.render().bounds;
                    (lo + m.placement, hi + m.placement)
                }),
        )
    }

    /// A camera that frames the dancers at rest, not the stage (used when no motion has
    /// camera keys).
    pub fn framing_camera(&self, aspect: f32) -> CameraPose {
        let (lo, hi) = self.rest_bounds();
        camera::framing(lo, hi, aspect)
    }
}
