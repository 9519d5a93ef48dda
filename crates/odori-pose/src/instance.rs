//! Per-instance state: every buffer one evaluation writes, owned by the caller.
//!
//! An instance is created once per dancer (sized from its model); evaluating a frame writes
//! into these buffers and allocates nothing.

use crate::material::MaterialState;
use crate::model::{Model, NONE};
use crate::motion::Motion;
use crate::{PoseError, fk, ik, morph, sample};
use glam::{Affine3A, Mat3A, Mat4, Quat, Vec3A};

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

/// One stage of an evaluation, run alone by [`Instance::run_stage`]. In this order they make
/// [`Instance::evaluate`] (physics, when it runs, steps between `BeforePhysics` and
/// `AfterPhysics`); `odori bench` times each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Sample every track at the frame: pose, morph weights, visibility, IK on/off.
    Sample,
    /// Expand group and flip morphs; apply bone and material morphs.
    Morphs,
    /// The before-physics pass: FK, append and IK, layer by layer.
    BeforePhysics,
    /// The after-physics pass; skinning matrices are then complete.
    AfterPhysics,
}

/// The pose of one model instance: every buffer an evaluation writes, sized for one model
/// and one motion ([`Instance::new`]), which it refuses to mix with any other.
#[derive(Debug, Clone)]
pub struct Instance {
    pub(crate) options: Options,
    /// Sampled (animated) local translation and rotation, with bone morphs added. Write them
    /// through [`Instance::set_pose`], which keeps `posed` in step.
    pub(crate) pose_translation: Vec<Vec3A>,
    pub(crate) pose_rotation: Vec<Quat>,
    /// Per bone: a track or a bone morph set its pose this frame. A bone without it is at
    /// rest, and neither the next sampling nor the world pass reads its pose: for a thousand
    /// dancers, those are most of the pose bytes they would otherwise bring into the cache.
    pub(crate) posed: Vec<bool>,
    /// IK result per link: its local rotation (before its grant) from its last solve this
    /// frame, used instead of the animated rotation while `ik_solved`.
    pub(crate) ik_rotation: Vec<Quat>,
    /// True for links some solver turned this frame.
    pub(crate) ik_solved: Vec<bool>,
    /// IK rotation (result × animated⁻¹) carried between evaluations, for the links in
    /// [`Model::ik_retained`].
    pub(crate) ik_history: Vec<Quat>,
    /// True while an effector's rotation grant is dropped by its active IK (see `ik`).
    pub(crate) grant_dropped: Vec<bool>,
    /// Rotation matrix a limited IK step built for a link, used by FK while its solver runs
    /// (`ik_matrix_set`).
    pub(crate) ik_matrix: Vec<Mat3A>,
    pub(crate) ik_matrix_set: Vec<bool>,
    /// With `ik_matrix_set`, for a link limited on one axis: its angle about that axis.
    pub(crate) ik_angle: Vec<f32>,
    /// The running solvers' chains (`IkSolver::chain`), one slot per bone
    /// (`ik::ChainSlot`): room for all that run side by side (`Model::side_by_side_sizes`).
    pub(crate) chain_slots: Vec<ik::ChainSlot>,
    /// The running plain-path solvers' links (`ik::LinkState`), likewise.
    pub(crate) link_states: Vec<ik::LinkState>,
    /// Append (付与) results.
    pub(crate) append_translation: Vec<Vec3A>,
    pub(crate) append_rotation: Vec<Quat>,
    /// Full local transform (displacement from rest offset, and rotation) used by FK.
    pub(crate) local_translation: Vec<Vec3A>,
    pub(crate) local_rotation: Vec<Quat>,
    /// Per bone: its local transform is at rest (identity, zero), so a bone at rest again
    /// neither reads nor writes it (`fk`).
    pub(crate) local_at_rest: Vec<bool>,
    /// Each IK effector's position from its own world pass this frame (IK's stale-effector
    /// rule), by [`Model::effector_slot`]; for [`Model::late_effectors`] before their pass,
    /// their position at the end of the previous evaluation.
    pub(crate) effector_pass: Vec<Vec3A>,
    /// World × inverse bind (bind = translation to the rest position), kept by FK.
    pub(crate) skinning: Vec<Affine3A>,
    /// World (model-space) position of each bone, indexed by file bone index. With the
    /// rotation part of `skinning` (a bone's world and skinning matrices share it) it makes
    /// the bone's world transform ([`Instance::world`]); stored once, so a thousand dancers
    /// write 48 bytes less per bone and frame. Write through [`Instance::set_world`]
    /// (physics), which keeps both in step.
    pub(crate) world_position: Vec<Vec3A>,
    /// Sampled morph weights (what the motion says).
    pub(crate) morph_weights: Vec<f32>,
    /// Morph weights after expanding group and flip morphs (what deformation applies).
    pub(crate) effective_morph_weights: Vec<f32>,
    /// Material morph state per material, recomputed by the morph pass.
    pub(crate) materials: Vec<MaterialState>,
    /// Whether a material morph changed `materials` since they were last reset: only then
    /// does the next morph pass reset them (a frame without material morphs writes none of
    /// their bytes, which matters to a thousand dancers).
    pub(crate) materials_touched: bool,
    /// IK on/off per solver from property keys.
    pub(crate) ik_enabled: Vec<bool>,
    /// Model visibility from property keys.
    pub(crate) visible: bool,
    /// Per-bone physics switch from VMD keys (true = this bone's body follows the bone).
    pub(crate) physics_off: Vec<bool>,
    pub(crate) bone_cursors: Vec<u32>,
    pub(crate) morph_cursors: Vec<u32>,
    /// Bones following another model's bone (`outside_parent`), each with the skinning
    /// matrix that stands in for its parent's. Empty for almost every instance.
    pub(crate) outside_parents: Vec<(u32, Affine3A)>,
    /// Identity of the model this instance was sized for.
    model: u64,
    /// Identity of the motion its track cursors were sized for.
    motion: u64,
}

impl Instance {
    /// Buffers for `model`, with `motion`'s track cursors; posed at rest. The instance
    /// evaluates this model and motion (or their clones) only: see [`Instance::evaluate`].
    pub fn new(model: &Model, motion: &Motion) -> Instance {
        let n = model.bone_count();
        let side_by_side = model.side_by_side_sizes();
        Instance {
            options: Options::default(),
            pose_translation: vec![Vec3A::ZERO; n],
            pose_rotation: vec![Quat::IDENTITY; n],
            posed: vec![false; n],
            ik_rotation: vec![Quat::IDENTITY; n],
            ik_solved: vec![false; n],
            ik_history: vec![Quat::IDENTITY; n],
            grant_dropped: vec![false; n],
            ik_matrix: vec![Mat3A::IDENTITY; n],
            ik_matrix_set: vec![false; n],
            ik_angle: vec![0.0; n],
            chain_slots: vec![ik::ChainSlot::EMPTY; side_by_side.0],
            link_states: vec![ik::LinkState::IDLE; side_by_side.1],
            append_translation: vec![Vec3A::ZERO; n],
            append_rotation: vec![Quat::IDENTITY; n],
            local_translation: vec![Vec3A::ZERO; n],
            local_rotation: vec![Quat::IDENTITY; n],
            local_at_rest: vec![true; n],
            effector_pass: model
                .effectors
                .iter()
                .map(|&b| model.rest[b as usize])
                .collect(),
            world_position: model.rest.clone(),
            skinning: vec![Affine3A::IDENTITY; n],
            morph_weights: vec![0.0; model.morph_count()],
            effective_morph_weights: vec![0.0; model.morph_count()],
            materials: vec![MaterialState::NEUTRAL; model.materials.len()],
            materials_touched: false,
            ik_enabled: vec![true; model.solvers.len()],
            visible: true,
            physics_off: vec![false; n],
            outside_parents: Vec::new(),
            bone_cursors: vec![0; motion.bone_tracks.len()],
            morph_cursors: vec![0; motion.morph_tracks.len()],
            model: model.id,
            motion: motion.id,
        }
    }

    /// Size the instance for `motion` (of `model`): the motion plays from here on, from its
    /// first key. With the same model the pose buffers stay (IK rotations carried between
    /// evaluations included) and only the track cursors and the motion's per-bone physics
    /// switches start afresh; with another model it is [`Instance::new`]'s, options kept.
    /// Allocates when the motion has more tracks than the last, or the model is another.
    pub fn rebind(&mut self, model: &Model, motion: &Motion) {
        if model.id != self.model {
            let options = self.options;
            *self = Instance::new(model, motion);
            self.options = options;
            return;
        }
        self.bone_cursors.clear();
        self.bone_cursors.resize(motion.bone_tracks.len(), 0);
        self.morph_cursors.clear();
        self.morph_cursors.resize(motion.morph_tracks.len(), 0);
        self.physics_off.fill(false);
        self.motion = motion.id;
    }

    /// `Ok` when this instance was sized for `model` and `motion`, and `motion` was bound to
    /// `model`.
    #[inline]
    fn check(&self, model: &Model, motion: &Motion) -> Result<(), PoseError> {
        if model.id != self.model {
            return Err(PoseError::WrongModel {
                expected: self.model,
                found: model.id,
            });
        }
        if motion.id != self.motion || motion.model != self.model {
            return Err(PoseError::WrongMotion {
                expected: self.motion,
                model: self.model,
                found: motion.id,
                found_model: motion.model,
            });
        }
        Ok(())
    }

    /// Switches for the next evaluations.
    #[inline]
    pub fn options(&self) -> Options {
        self.options
    }

    /// Change the switches for the next evaluations (`inst.options_mut().ik = false`).
    #[inline]
    pub fn options_mut(&mut self) -> &mut Options {
        &mut self.options
    }

    /// Evaluate frame `frame` fully (no physics): both passes and skinning matrices.
    ///
    /// # Errors
    /// [`PoseError::WrongModel`] or [`PoseError::WrongMotion`] when this instance was not
    /// sized for `model` and `motion` (see [`Instance::rebind`]); the instance is unchanged.
    pub fn evaluate(
        &mut self,
        model: &Model,
        motion: &Motion,
        frame: f32,
    ) -> Result<(), PoseError> {
        self.before_physics(model, motion, frame)?;
        self.after_physics(model);
        Ok(())
    }

    /// Sample, apply morphs, and run the before-physics pass. Physics steps between this and
    /// [`Instance::after_physics`], reading world transforms and writing those of simulated bones
    /// ([`Instance::world`], [`Instance::set_world`]).
    ///
    /// # Errors
    /// As [`Instance::evaluate`].
    pub fn before_physics(
        &mut self,
        model: &Model,
        motion: &Motion,
        frame: f32,
    ) -> Result<(), PoseError> {
        self.check(model, motion)?;
        self.sample(model, motion, frame);
        morph::apply(model, self);
        self.before_physics_pass(model);
        Ok(())
    }

    /// Run one stage of an evaluation alone (`frame` is read by [`Stage::Sample`] only):
    /// [`Instance::evaluate`] is the four in [`Stage`]'s order. For timing each stage, and
    /// for a pose set by hand ([`Instance::set_pose`]) between sampling and the world pass.
    ///
    /// # Errors
    /// As [`Instance::evaluate`].
    pub fn run_stage(
        &mut self,
        model: &Model,
        motion: &Motion,
        frame: f32,
        stage: Stage,
    ) -> Result<(), PoseError> {
        self.check(model, motion)?;
        match stage {
            Stage::Sample => self.sample(model, motion, frame),
            Stage::Morphs => morph::apply(model, self),
            Stage::BeforePhysics => self.before_physics_pass(model),
            Stage::AfterPhysics => self.after_physics(model),
        }
        Ok(())
    }

    /// `Ok` for a group of instances that [`Instance::check`] accepts each.
    #[inline]
    pub(crate) fn check_all(
        instances: &[Instance],
        model: &Model,
        motion: &Motion,
    ) -> Result<(), PoseError> {
        instances.iter().try_for_each(|i| i.check(model, motion))
    }

    /// The before-physics pass alone (FK, append and IK, layer by layer) on the already
    /// sampled and morphed pose.
    pub(crate) fn before_physics_pass(&mut self, model: &Model) {
        self.ik_solved.fill(false);
        for step in &model.before_physics {
            self.run_step(model, step);
        }
    }

    /// Run the after-physics pass (skinning matrices are then complete).
    pub fn after_physics(&mut self, model: &Model) {
        for step in &model.after_physics_steps {
            self.run_step(model, step);
        }
        self.record_late_effectors(model);
    }

    /// At the end of an evaluation: the positions of the effectors whose world pass comes
    /// after their solver's, for the next evaluation's solves (see `ik`).
    #[inline]
    pub(crate) fn record_late_effectors(&mut self, model: &Model) {
        for &b in &model.late_effectors {
            self.record_pass(model, b as usize);
        }
    }

    /// After bone `b`'s world pass: keep its position when it is an IK effector.
    #[inline]
    pub(crate) fn record_pass(&mut self, model: &Model, b: usize) {
        let slot = model.effector_slot[b];
        if slot != crate::model::NONE {
            self.effector_pass[slot as usize] = self.world_position[b];
        }
    }

    /// Recompute bone `b` from its parent's world matrix as forward kinematics does (its
    /// append result, local transform and world matrix): how physics hangs a bone it does not
    /// drive on a simulated parent, after [`Instance::set_world`] moved that parent.
    pub fn update_bone(&mut self, model: &Model, b: usize) {
        crate::fk::update_bone(model, self, b);
    }

    /// Set bone `b`'s world transform (physics) and its skinning matrix with it.
    pub fn set_world(&mut self, model: &Model, b: usize, world: Affine3A) {
        self.world_position[b] = world.translation;
        self.skinning[b] = Affine3A {
            matrix3: world.matrix3,
            translation: world.matrix3 * -model.rest[b] + world.translation,
        };
    }

    fn run_step(&mut self, model: &Model, step: &crate::model::Step) {
        self.step_bones(model, step);
        if self.options.ik {
            for run in &model.ik_runs[step.ik_runs.clone()] {
                self.ik_run(model, run);
            }
        }
        self.step_post_ik(model, step);
    }

    /// The world pass of a step's bones (before its IK solvers).
    #[inline]
    pub(crate) fn step_bones(&mut self, model: &Model, step: &crate::model::Step) {
        for &b in &model.order[step.bones.clone()] {
            self.pass_bone(model, b as usize);
        }
    }

    /// Run the enabled solvers of `run` (a pair side by side).
    #[inline]
    pub(crate) fn ik_run(&mut self, model: &Model, run: &crate::model::IkRun) {
        match self.enabled_solvers(run) {
            (Some(a), Some(b)) => ik::solve_pair(model, self, a, b, run.lockstep),
            (Some(si), None) | (None, Some(si)) => ik::solve(model, self, si),
            (None, None) => {}
        }
    }

    /// The solvers of `run` that its IK on/off keys leave on.
    #[inline]
    pub(crate) fn enabled_solvers(
        &self,
        run: &crate::model::IkRun,
    ) -> (Option<usize>, Option<usize>) {
        let a = run.first as usize;
        let b = (run.second != NONE).then_some(run.second as usize);
        let enabled = |si: Option<usize>| si.filter(|&si| self.ik_enabled[si]);
        (enabled(Some(a)), enabled(b))
    }

    /// After a step's solvers: effectors whose grant follows an IK link get it back once the
    /// step's solvers are done (captures `layered-append-*`; see `ik`).
    #[inline]
    pub(crate) fn step_post_ik(&mut self, model: &Model, step: &crate::model::Step) {
        for &b in &model.post_ik[step.post_ik.clone()] {
            let b = b as usize;
            self.grant_dropped[b] = false;
            fk::update_bone(model, self, b);
            self.record_pass(model, b);
        }
    }

    /// Bone `b`'s update in its world pass: its local and world transforms (its parent's
    /// already this pass's) and, for an IK effector, its pass position.
    #[inline(always)]
    fn pass_bone(&mut self, model: &Model, b: usize) {
        let flags = model.pass_flags[b];
        if flags & crate::model::PASS_GRANT != 0 {
            self.grant_dropped[b] = false;
            fk::update_bone(model, self, b);
        } else if !fk::place_if_at_rest(model, self, b) {
            fk::update_ungranted_bone(model, self, b);
        }
        if flags & crate::model::PASS_EFFECTOR != 0 {
            self.record_pass(model, b);
        }
    }

    /// Sample every track at `frame` into the pose buffers and morph weights (no morphs
    /// applied yet: see [`crate::morph::apply`]).
    pub(crate) fn sample(&mut self, model: &Model, motion: &Motion, frame: f32) {
        // Back to rest: only the bones posed last frame (most bones are at rest already, and
        // a thousand dancers' memory traffic is what their evaluation waits on).
        for (b, posed) in self.posed.iter_mut().enumerate() {
            if std::mem::take(posed) {
                self.pose_translation[b] = Vec3A::ZERO;
                self.pose_rotation[b] = Quat::IDENTITY;
            }
        }
        for (t, track) in motion.bone_tracks.iter().enumerate() {
            let (tr, rot, phys_off) = sample::bone(motion, t, frame, &mut self.bone_cursors[t]);
            let b = track.bone as usize;
            self.set_pose(b, tr, rot);
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

    /// Set bone `b`'s pose (local translation from its rest offset, and rotation) for the
    /// next world pass.
    #[inline]
    pub fn set_pose(&mut self, b: usize, translation: Vec3A, rotation: Quat) {
        self.pose_translation[b] = translation;
        self.pose_rotation[b] = rotation;
        self.posed[b] = true;
    }

    /// World (model-space) transform of bone `b`.
    #[inline]
    pub fn world(&self, b: usize) -> Affine3A {
        Affine3A {
            matrix3: self.skinning[b].matrix3,
            translation: self.world_position[b],
        }
    }

    /// Every bone's world transform, in file bone order.
    pub fn world_transforms(&self) -> impl ExactSizeIterator<Item = Affine3A> + '_ {
        (0..self.world_position.len()).map(|b| self.world(b))
    }

    /// World matrix of bone `b` as a `Mat4` (column-major, translation in `w_axis`).
    pub fn world_matrix(&self, b: usize) -> Mat4 {
        Mat4::from(self.world(b))
    }

    /// Skinning matrices (world × inverse bind), indexed by file bone index: what a skinner
    /// multiplies rest vertices by.
    #[inline]
    pub fn skinning(&self) -> &[Affine3A] {
        &self.skinning
    }

    /// Every bone's world (model-space) position, indexed by file bone index.
    #[inline]
    pub fn world_positions(&self) -> &[Vec3A] {
        &self.world_position
    }

    /// Morph weights as the motion samples them, indexed like the model's morphs.
    #[inline]
    pub fn morph_weights(&self) -> &[f32] {
        &self.morph_weights
    }

    /// Morph weights after group and flip morphs are expanded: what deformation applies.
    #[inline]
    pub fn effective_morph_weights(&self) -> &[f32] {
        &self.effective_morph_weights
    }

    /// Material-morph state per material (what the renderer resolves against each material).
    #[inline]
    pub fn materials(&self) -> &[MaterialState] {
        &self.materials
    }

    /// Whether the model is shown (the motion's visibility keys).
    #[inline]
    pub fn visible(&self) -> bool {
        self.visible
    }

    /// Per bone: the motion switched this bone's rigid body to follow the bone (VMD's
    /// per-bone physics flag).
    #[inline]
    pub fn physics_off(&self) -> &[bool] {
        &self.physics_off
    }

    /// Per bone: some IK solver turned this link in the last evaluation (`testing` feature).
    #[cfg(feature = "testing")]
    pub fn ik_solved(&self) -> &[bool] {
        &self.ik_solved
    }

    /// Each bone's sampled local rotation, bone morphs included (`testing` feature).
    #[cfg(feature = "testing")]
    pub fn pose_rotations(&self) -> &[Quat] {
        &self.pose_rotation
    }

    /// Each bone's full local rotation as FK last used it, IK and append included
    /// (`testing` feature).
    #[cfg(feature = "testing")]
    pub fn local_rotations(&self) -> &[Quat] {
        &self.local_rotation
    }

    /// Set morph `m`'s sampled weight, for the next [`Stage::Morphs`]: what a front end's
    /// slider does between [`Stage::Sample`] and [`Stage::Morphs`] to override the motion.
    pub fn set_morph_weight(&mut self, m: usize, weight: f32) {
        self.morph_weights[m] = weight;
    }
}
