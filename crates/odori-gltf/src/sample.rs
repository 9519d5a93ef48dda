//! Playing the scene frame by frame through the player (IK, append, morphs, physics settled
//! as in render, outside parents) and keeping what the animation needs: every bone's world
//! transform and its local translation and rotation relative to its parent bone, in glTF's
//! frame, for the dancers and stages together as one node tree; the morph weights of the
//! targets; each accessory's panel transform relative to the bone it hangs on; the camera.

use crate::space;
use glam::{Affine3A, Quat, Vec3};
use odori_playback::accessory::{AccessoryState, ParentBone};
use odori_playback::{Frame, Player, PlayerOptions, Preroll, Scene};
use odori_pose::model::NONE;
use std::sync::Arc;

/// Where each scene model's bones go in the exported node tree.
pub struct Layout {
    /// Per scene model: the first of its bones among all exported bones, for a dancer or a
    /// stage; `None` for an accessory (its bones stay at rest under its own node).
    pub base: Vec<Option<usize>>,
    /// All dancers' and stages' bones together.
    pub bones: usize,
    /// Per dancer or stage, in scene order: the model and the morphs its targets come from.
    pub targets: Vec<(usize, Vec<usize>)>,
    /// Per accessory, in scene order: the model and the bone its node hangs under (the
    /// holder at the first exported frame; `None`: the scene's root).
    pub accessories: Vec<(usize, Option<ParentBone>)>,
}

impl Layout {
    /// Every dancer and stage a part of one bone tree, in scene order; accessories under
    /// the bone that holds them at `first_frame`.
    pub fn of(scene: &Scene, first_frame: f32) -> Layout {
        let mut base = Vec::with_capacity(scene.models().len());
        let mut bones = 0;
        let mut accessories = Vec::new();
        for (i, m) in scene.models().iter().enumerate() {
            match m.accessory() {
                Some(a) => {
                    base.push(None);
                    accessories.push((i, a.at(first_frame).parent));
                }
                None => {
                    base.push(Some(bones));
                    bones += m.asset().pose().bone_count();
                }
            }
        }
        // A holder that is itself an accessory has no bone node to hang under.
        for (_, holder) in &mut accessories {
            if holder.is_some_and(|p| base.get(p.model).copied().flatten().is_none()) {
                *holder = None;
            }
        }
        Layout {
            base,
            bones,
            targets: Vec::new(),
            accessories,
        }
    }

    /// The exported bone that is bone `p.bone` of model `p.model`, when that model's bones
    /// are exported.
    pub fn bone(&self, p: ParentBone) -> Option<usize> {
        Some(self.base.get(p.model).copied().flatten()? + p.bone)
    }

    /// The parent of every exported bone, among the exported bones.
    pub fn parents(&self, scene: &Scene) -> Vec<u32> {
        let mut parents = Vec::with_capacity(self.bones);
        for (m, base) in scene.models().iter().zip(&self.base) {
            if let Some(base) = base {
                let own = m.asset().pose().parents();
                parents.extend(own.iter().map(|&p| match p {
                    NONE => NONE,
                    p => p + *base as u32,
                }));
            }
        }
        parents
    }
}

/// An accessory's node at one sampled frame: translation, rotation and uniform scale (0
/// where the accessory is hidden), relative to the bone its node hangs under, glTF space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccessoryPose {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: f32,
}

impl AccessoryPose {
    /// The panel's pose on the bone holding it, in glTF space (hidden: scale 0).
    pub fn of(state: &AccessoryState) -> AccessoryPose {
        let rigid = space::affine(Affine3A::from_rotation_translation(
            state.orientation,
            state.position,
        ));
        AccessoryPose {
            translation: rigid.translation.into(),
            rotation: Quat::from_mat3a(&rigid.matrix3).normalize(),
            scale: if state.visible { state.scale } else { 0.0 },
        }
    }
}

/// Per frame values, frame-major (`frame * bones + bone`).
pub struct Samples {
    pub bones: usize,
    /// Seconds from the first exported frame.
    pub times: Vec<f32>,
    /// World transform of every bone, glTF space.
    pub world: Vec<Affine3A>,
    pub translation: Vec<Vec3>,
    /// Rotations, each in the same hemisphere as the one a frame before (so that
    /// interpolating component by component, as some importers do, takes the short way).
    pub rotation: Vec<Quat>,
    /// Per frame, the weight of each morph target, every model's targets in layout order
    /// (`frame * targets + target`).
    pub weights: Vec<f32>,
    /// Per frame, the camera node's translation, rotation and vertical field of view.
    pub camera: Vec<(Vec3, Quat, f32)>,
    /// Per accessory (layout order), per frame.
    pub accessories: Vec<Vec<AccessoryPose>>,
    /// Per accessory, the opacities met (an opacity that changes cannot be animated in core
    /// glTF).
    pub opacity: Vec<(f32, f32)>,
}

impl Samples {
    pub fn frames(&self) -> usize {
        self.times.len()
    }
}

/// Play `scene` over MMD frames `start..=stop` at `fps` frames a second.
pub fn sample(
    scene: Arc<Scene>,
    layout: &Layout,
    start: f32,
    stop: f32,
    fps: u32,
    physics: bool,
    settle: f32,
) -> (Samples, Vec<String>) {
    let step = odori_pose::FPS / fps as f32;
    let count = ((stop - start) / step).floor() as usize + 1;
    let bones = layout.bones;
    let parents = layout.parents(&scene);
    let target_count: usize = layout.targets.iter().map(|(_, t)| t.len()).sum();
    let has_camera = scene.camera().is_some();
    let options = PlayerOptions {
        physics,
        deform: false,
        settle,
        preroll: Preroll::FromStart { step },
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), options);
    let warnings = player.warnings().to_vec();
    let mut s = Samples {
        bones,
        times: Vec::with_capacity(count),
        world: Vec::with_capacity(count * bones),
        translation: Vec::with_capacity(count * bones),
        rotation: Vec::with_capacity(count * bones),
        weights: Vec::with_capacity(count * target_count),
        camera: Vec::new(),
        accessories: vec![Vec::with_capacity(count); layout.accessories.len()],
        opacity: vec![(f32::INFINITY, f32::NEG_INFINITY); layout.accessories.len()],
    };
    let mut frame = Frame::default();
    for k in 0..count {
        let at = start + k as f32 * step;
        player.seek(at as f64);
        player.evaluate(&mut frame);
        s.times.push(k as f32 / fps as f32);
        let base = s.world.len();
        for (i, m) in scene.models().iter().enumerate() {
            if layout.base[i].is_none() {
                continue;
            }
            let place = Affine3A::from_translation(m.placement());
            (s.world)
                .extend((player.instance(i).world_transforms()).map(|w| space::affine(place * w)));
        }
        for (b, &parent) in parents.iter().enumerate() {
            let world = s.world[base + b];
            let local = match parent {
                NONE => world,
                p => s.world[base + p as usize].inverse() * world,
            };
            let mut q = Quat::from_mat3a(&local.matrix3).normalize();
            if k > 0 && s.rotation[(k - 1) * bones + b].dot(q) < 0.0 {
                q = -q;
            }
            s.translation.push(local.translation.into());
            s.rotation.push(q);
        }
        for (model, targets) in &layout.targets {
            let w = frame.models()[*model].morph_weights();
            s.weights
                .extend(targets.iter().map(|&m| w.get(m).copied().unwrap_or(0.0)));
        }
        let bone_world = |p: Option<ParentBone>| {
            p.and_then(|p| layout.bone(p))
                .map_or(Affine3A::IDENTITY, |b| s.world[base + b])
        };
        for (a, &(model, holder)) in layout.accessories.iter().enumerate() {
            let accessory = scene.models()[model].accessory().expect("laid out as one");
            let state = accessory.at(at);
            let rigid = Affine3A::from_rotation_translation(state.orientation, state.position);
            // The panel's transform on the bone holding it now, carried into the space of
            // the bone the node hangs under.
            let local =
                bone_world(holder).inverse() * bone_world(state.parent) * space::affine(rigid);
            let mut rotation = Quat::from_mat3a(&local.matrix3).normalize();
            if let Some(last) = s.accessories[a].last()
                && last.rotation.dot(rotation) < 0.0
            {
                rotation = -rotation;
            }
            s.accessories[a].push(AccessoryPose {
                translation: local.translation.into(),
                rotation,
                scale: if state.visible { state.scale } else { 0.0 },
            });
            let o = &mut s.opacity[a];
            *o = (o.0.min(state.opacity), o.1.max(state.opacity));
        }
        if has_camera && let Some(c) = frame.camera() {
            let r = c.rotation_matrix();
            let mut q = space::quat(Quat::from_mat3(&r).normalize());
            if let Some(last) = s.camera.last()
                && last.1.dot(q) < 0.0
            {
                q = -q;
            }
            s.camera.push((space::point(c.eye()), q, c.fov));
        }
    }
    (s, warnings)
}
