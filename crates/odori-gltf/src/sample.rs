//! Playing the scene frame by frame through the player (IK, append, morphs, physics settled
//! as in render) and keeping what the animation needs: every bone's world transform and its
//! local translation and rotation relative to its parent bone, in glTF's frame; the morph
//! weights of the targets; the camera.

use crate::space;
use glam::{Affine3A, Quat, Vec3};
use odori_playback::{Frame, Player, PlayerOptions, Preroll, Scene};
use odori_pose::model::NONE;
use std::sync::Arc;

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
    /// Per frame, the weight of each morph target (`frame * targets + target`).
    pub weights: Vec<f32>,
    /// Per frame, the camera node's translation, rotation and vertical field of view.
    pub camera: Vec<(Vec3, Quat, f32)>,
}

impl Samples {
    pub fn frames(&self) -> usize {
        self.times.len()
    }
}

/// Play `scene` (one model) over MMD frames `start..=stop` at `fps` frames a second.
pub fn sample(
    scene: Arc<Scene>,
    start: f32,
    stop: f32,
    fps: u32,
    physics: bool,
    settle: f32,
    targets: &[usize],
) -> (Samples, Vec<String>) {
    let step = odori_pose::FPS / fps as f32;
    let count = ((stop - start) / step).floor() as usize + 1;
    let model = scene.models()[0].asset().pose();
    let bones = model.bone_count();
    let parents = model.parents().to_vec();
    let has_camera = scene.camera().is_some();
    let options = PlayerOptions {
        physics,
        deform: false,
        settle,
        preroll: Preroll::FromStart { step },
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene, options);
    let warnings = player.warnings().to_vec();
    let mut s = Samples {
        bones,
        times: Vec::with_capacity(count),
        world: Vec::with_capacity(count * bones),
        translation: Vec::with_capacity(count * bones),
        rotation: Vec::with_capacity(count * bones),
        weights: Vec::with_capacity(count * targets.len()),
        camera: Vec::new(),
    };
    let mut frame = Frame::default();
    for k in 0..count {
        let at = start + k as f32 * step;
        player.seek(at as f64);
        player.evaluate(&mut frame);
        s.times.push(k as f32 / fps as f32);
        let inst = player.instance(0);
        let base = s.world.len();
        s.world.extend(inst.world_transforms().map(space::affine));
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
        let w = frame.models()[0].morph_weights();
        s.weights
            .extend(targets.iter().map(|&m| w.get(m).copied().unwrap_or(0.0)));
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
