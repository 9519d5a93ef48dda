//! Per-instance state: every buffer one evaluation writes, owned by the caller.
//!
//! An instance is created once per dancer (sized from its model); evaluating a frame writes
//! into these buffers and allocates nothing.

use crate::material::MaterialState;
use crate::model::Model;
use crate::motion::Motion;
use crate::{fk, ik, morph, sample};
use glam::{Affine3A, Mat4, Quat, Vec3A};

/// Switches for one evaluation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Run IK solvers (MMD's "IK on"); off leaves IK links at their animated rotation.
    pub ik: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { ik: true }
    }
}

/// The pose of one model instance.
#[derive(Debug, Clone)]
pub struct Instance {
    pub options: Options,
    /// Sampled (animated) local translation and rotation, with bone morphs added.
    pub pose_translation: Vec<Vec3A>,
    pub pose_rotation: Vec<Quat>,
    /// Rotation added by IK (identity for bones no solver touched this frame).
    pub ik_rotation: Vec<Quat>,
    /// Append (付与) results.
    pub append_translation: Vec<Vec3A>,
    pub append_rotation: Vec<Quat>,
    /// Full local transform (displacement from rest offset, and rotation) used by FK.
    pub local_translation: Vec<Vec3A>,
    pub local_rotation: Vec<Quat>,
    /// World (model-space) transforms, indexed by file bone index.
    pub world: Vec<Affine3A>,
    /// Each bone's position from its own world pass this frame (IK's stale-effector rule).
    pub pass_position: Vec<Vec3A>,
    /// World × inverse bind (bind = translation to the rest position).
    pub skinning: Vec<Affine3A>,
    /// Sampled morph weights (what the motion says).
    pub morph_weights: Vec<f32>,
    /// Morph weights after expanding group and flip morphs (what deformation applies).
    pub effective_morph_weights: Vec<f32>,
    /// Material morph state per material.
    pub materials: Vec<MaterialState>,
    /// IK on/off per solver from property keys.
    pub ik_enabled: Vec<bool>,
    /// Model visibility from property keys.
    pub visible: bool,
    /// Per-bone physics switch from VMD keys (true = this bone's body follows the bone).
    pub physics_off: Vec<bool>,
    pub(crate) bone_cursors: Vec<u32>,
    pub(crate) morph_cursors: Vec<u32>,
}

impl Instance {
    /// Buffers for `model`, with `motion`'s track cursors; posed at rest.
    pub fn new(model: &Model, motion: &Motion) -> Instance {
        let n = model.bone_count();
        let world: Vec<Affine3A> = model
            .rest
            .iter()
            .map(|&p| Affine3A::from_translation(p.into()))
            .collect();
        Instance {
            options: Options::default(),
            pose_translation: vec![Vec3A::ZERO; n],
            pose_rotation: vec![Quat::IDENTITY; n],
            ik_rotation: vec![Quat::IDENTITY; n],
            append_translation: vec![Vec3A::ZERO; n],
            append_rotation: vec![Quat::IDENTITY; n],
            local_translation: vec![Vec3A::ZERO; n],
            local_rotation: vec![Quat::IDENTITY; n],
            pass_position: model.rest.clone(),
            world,
            skinning: vec![Affine3A::IDENTITY; n],
            morph_weights: vec![0.0; model.morph_count()],
            effective_morph_weights: vec![0.0; model.morph_count()],
            materials: vec![MaterialState::NEUTRAL; model.materials.len()],
            ik_enabled: vec![true; model.solvers.len()],
            visible: true,
            physics_off: vec![false; n],
            bone_cursors: vec![0; motion.bone_tracks.len()],
            morph_cursors: vec![0; motion.morph_tracks.len()],
        }
    }

    /// Evaluate frame `frame` fully (no physics): both passes and skinning matrices.
    pub fn evaluate(&mut self, model: &Model, motion: &Motion, frame: f32) {
        self.before_physics(model, motion, frame);
        self.after_physics(model);
    }

    /// Sample, apply morphs, and run the before-physics pass. Physics steps between this and
    /// [`Instance::after_physics`], reading and writing `world` of simulated bones.
    pub fn before_physics(&mut self, model: &Model, motion: &Motion, frame: f32) {
        self.sample(model, motion, frame);
        morph::apply(model, self);
        self.before_physics_pass(model);
    }

    /// The before-physics pass alone (FK, append and IK, layer by layer) on the already
    /// sampled and morphed pose.
    pub fn before_physics_pass(&mut self, model: &Model) {
        self.ik_rotation.fill(Quat::IDENTITY);
        for step in &model.before_physics {
            self.run_step(model, step);
        }
    }

    /// Run the after-physics pass and compute skinning matrices.
    pub fn after_physics(&mut self, model: &Model) {
        for step in &model.after_physics_steps {
            self.run_step(model, step);
        }
        for ((s, w), rest) in self.skinning.iter_mut().zip(&self.world).zip(&model.rest) {
            *s = Affine3A {
                matrix3: w.matrix3,
                translation: w.translation - w.matrix3 * *rest,
            };
        }
    }

    fn run_step(&mut self, model: &Model, step: &crate::model::Step) {
        for &b in &model.order[step.bones.clone()] {
            fk::update_bone(model, self, b as usize);
            self.pass_position[b as usize] = self.world[b as usize].translation;
        }
        if self.options.ik {
            for si in step.solvers.clone() {
                if self.ik_enabled[si] {
                    ik::solve(model, self, si);
                }
            }
        }
    }

    /// Sample every track at `frame` into the pose buffers and morph weights (no morphs
    /// applied yet: see [`crate::morph::apply`]).
    pub fn sample(&mut self, model: &Model, motion: &Motion, frame: f32) {
        self.pose_translation.fill(Vec3A::ZERO);
        self.pose_rotation.fill(Quat::IDENTITY);
        for (t, track) in motion.bone_tracks.iter().enumerate() {
            let (tr, rot, phys_off) = sample::bone(motion, t, frame, &mut self.bone_cursors[t]);
            let b = track.bone as usize;
            self.pose_translation[b] = tr;
            self.pose_rotation[b] = rot;
            self.physics_off[b] = phys_off;
        }
        self.morph_weights.fill(0.0);
        for (t, track) in motion.morph_tracks.iter().enumerate() {
            self.morph_weights[track.morph as usize] =
                sample::morph(motion, t, frame, &mut self.morph_cursors[t]);
        }
        match sample::property(motion, frame) {
            Some(k) => {
                let s = motion.solver_count;
                self.ik_enabled
                    .copy_from_slice(&motion.properties.ik_enabled[k * s..(k + 1) * s]);
                self.visible = motion.properties.visible[k];
            }
            None => {
                self.ik_enabled.fill(true);
                self.visible = true;
            }
        }
        debug_assert_eq!(self.ik_enabled.len(), model.solvers.len());
    }

    /// World matrix of bone `b` as a `Mat4` (column-major, translation in `w_axis`).
    pub fn world_matrix(&self, b: usize) -> Mat4 {
        Mat4::from(self.world[b])
    }
}
