//! A Bullet world for one model instance, and its exchange with the pose runtime.
//!
//! Per frame, between `Instance::before_physics` and `Instance::after_physics`:
//! kinematic bodies take their bones' poses (body = bone world × body offset), Bullet steps,
//! and simulated bodies write their bones' world matrices (bone = body × offset⁻¹; mode 2
//! keeps the bone's animated position). Bones below a simulated bone that physics does not
//! drive are then recomputed from their parents, so they hang on the simulated result.

use crate::bullet::{BodyDesc, JointDesc, Pose, World};
use crate::{BodyMode, PhysicsConfig, PhysicsError, PhysicsModel, Shape};
use glam::{Affine3A, Vec3};
use odori_pose::model::NONE;
use odori_pose::{Instance, Model};

/// Runtime state of one body.
#[derive(Debug, Clone)]
struct BodyState {
    bone: Option<u32>,
    mode: BodyMode,
    /// Body transform relative to its bone at rest, and its inverse.
    offset: Affine3A,
    inv_offset: Affine3A,
    rest: Affine3A,
    /// What Bullet currently treats it as.
    kinematic: bool,
}

/// Solver iterations a world has run, by the loop that ran them, and whose setup made the
/// joints' rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SolverIterations {
    /// Iterations of odori's row loop (`shim/odori_solver.cpp`).
    pub odori: u64,
    /// Of those, the iterations whose bodies all had linear and angular factors (1, 1, 1), as
    /// MMD's do: their rows skip multiplying by them (the same bits, two multiplies fewer a
    /// body update).
    pub odori_unit_factors: u64,
    /// Iterations of Bullet's own loop, `btSequentialImpulseConstraintSolver`'s.
    pub bullet: u64,
    /// Solves (one a step and group of bodies) whose joint rows odori's setup made rather
    /// than Bullet's `convertJoints` (the same rows, bit for bit).
    pub odori_joint_setups: u64,
}

/// One model instance's rigid-body world.
pub struct PhysicsWorld {
    world: World,
    config: PhysicsConfig,
    bodies: Vec<BodyState>,
    /// Bones below a simulated body's bone that no body drives, in evaluation order:
    /// recomputed after physics writes their ancestors.
    dependents: Vec<u32>,
    /// Bones simulated bodies drive, each once, in evaluation order.
    driven_order: Vec<u32>,
    poses: Vec<Pose>,
    /// [`PhysicsModel::bodies`] index → Bullet body index (`None`: Bullet refused it).
    pub(crate) bt_index: Vec<Option<u32>>,
    /// Simulated time not yet stepped (less than one fixed step).
    pending: f32,
    /// Frame last evaluated by [`PhysicsWorld::evaluate`].
    pub(crate) last_frame: Option<f32>,
    diagnostics: Vec<String>,
    /// What Bullet was given, in order, to build the world again on a [`Self::reset`].
    body_descs: Vec<BodyDesc>,
    joint_descs: Vec<JointDesc>,
    capacity: usize,
    /// [`Self::force_bullet_solver_loop`]'s switch, kept for a rebuilt world.
    bullet_loop: bool,
    /// Solver iterations of the Bullet worlds a rebuild replaced.
    iterations_before: SolverIterations,
}

impl PhysicsWorld {
    /// Build the Bullet world for `rig` (compiled from the same file as `model`), with every
    /// body at its rest transform. Fails only when Bullet is unavailable.
    pub fn new(
        rig: &PhysicsModel,
        model: &Model,
        config: PhysicsConfig,
    ) -> Result<PhysicsWorld, PhysicsError> {
        let mut world = World::new(config.gravity, rig.bodies.len())?;
        let mut diagnostics = rig.diagnostics.clone();
        let mut body_descs = Vec::with_capacity(rig.bodies.len());
        let mut joint_descs = Vec::with_capacity(rig.joints.len());
        let mut bodies = Vec::with_capacity(rig.bodies.len());
        // rig body index → Bullet body index.
        let mut bt_index = vec![None; rig.bodies.len()];
        for (i, b) in rig.bodies.iter().enumerate() {
            // A description compiled for another model must not index past this one's bones.
            let bone = b.bone.filter(|&bn| (bn as usize) < model.bone_count());
            if bone != b.bone {
                diagnostics.push(format!(
                    "rigid body `{}`: bone {:?} not in this model; attached to no bone",
                    b.name, b.bone
                ));
            }
            let (shape, size) = match b.shape {
                Shape::Sphere { radius } => (0, [radius, 0.0, 0.0]),
                Shape::Box { half_extents } => (1, half_extents.to_array()),
                Shape::Capsule { radius, height } => (2, [radius, height, 0.0]),
            };
            let kinematic = !b.mode.is_dynamic();
            let desc = BodyDesc {
                shape,
                size,
                pose: Pose::from_affine(&b.rest).0,
                mass: if kinematic { 0.0 } else { b.mass },
                linear_damping: b.linear_damping,
                angular_damping: b.angular_damping,
                restitution: b.restitution,
                friction: b.friction,
                group: 1 << b.group,
                mask: i32::from(b.mask),
                kinematic: kinematic as i32,
                no_contact_response: b.no_contact_response as i32,
            };
            let Some(index) = world.add_body(&desc) else {
                diagnostics.push(format!(
                    "rigid body `{}`: Bullet refused it; skipped",
                    b.name
                ));
                continue;
            };
            body_descs.push(desc);
            debug_assert_eq!(index as usize, bodies.len());
            bt_index[i] = Some(index);
            let bone_rest = bone.map_or(Affine3A::IDENTITY, |bn| {
                Affine3A::from_translation(model.rest_positions()[bn as usize].into())
            });
            let offset = bone_rest.inverse() * b.rest;
            bodies.push(BodyState {
                bone,
                mode: b.mode,
                offset,
                inv_offset: offset.inverse(),
                rest: b.rest,
                kinematic,
            });
        }
        for j in &rig.joints {
            let (Some(a), Some(bb)) = (bt_index[j.body_a as usize], bt_index[j.body_b as usize])
            else {
                diagnostics.push(format!(
                    "joint `{}`: a body was skipped; joint skipped",
                    j.name
                ));
                continue;
            };
            let (ra, rb) = (
                &rig.bodies[j.body_a as usize].rest,
                &rig.bodies[j.body_b as usize].rest,
            );
            let springs = [
                j.spring_translation.to_array(),
                j.spring_rotation.to_array(),
            ]
            .concat();
            let mut stiffness = [0.0; 6];
            let mut enabled = [0; 6];
            for (k, &s) in springs.iter().enumerate() {
                stiffness[k] = s;
                // MMD turns rotation springs on always and translation springs when non-zero
                // (babylon-mmd and saba agree).
                enabled[k] = (k >= 3 || s != 0.0) as i32;
            }
            let desc = JointDesc {
                body_a: a as i32,
                body_b: bb as i32,
                frame_a: Pose::from_affine(&(ra.inverse() * j.rest)).0,
                frame_b: Pose::from_affine(&(rb.inverse() * j.rest)).0,
                linear_lower: j.linear_lower.to_array(),
                linear_upper: j.linear_upper.to_array(),
                angular_lower: j.angular_lower.to_array(),
                angular_upper: j.angular_upper.to_array(),
                stiffness,
                spring_enabled: enabled,
                stop_erp: config.joint_stop_erp,
            };
            match world.add_joint(&desc) {
                Some(_) => joint_descs.push(desc),
                None => diagnostics.push(format!("joint `{}`: Bullet refused it; skipped", j.name)),
            }
        }
        let dependents = dependents(model, &bodies);
        let mut driven_order: Vec<u32> = bodies
            .iter()
            .filter(|b| b.mode.is_dynamic())
            .filter_map(|b| b.bone)
            .collect();
        driven_order.sort_by_key(|&b| model.order_positions()[b as usize]);
        driven_order.dedup();
        let n = bodies.len();
        Ok(PhysicsWorld {
            world,
            config,
            bodies,
            dependents,
            driven_order,
            poses: vec![Pose::default(); n],
            bt_index,
            pending: 0.0,
            last_frame: None,
            diagnostics,
            body_descs,
            joint_descs,
            capacity: rig.bodies.len(),
            bullet_loop: false,
            iterations_before: SolverIterations::default(),
        })
    }

    pub fn config(&self) -> &PhysicsConfig {
        &self.config
    }

    /// Gravity from the next step on (MMD units per second²; a project's gravity keys change
    /// it mid-dance). A restart keeps it. Setting the gravity the world has costs nothing.
    pub fn set_gravity(&mut self, gravity: Vec3) {
        if gravity != self.config.gravity && gravity.is_finite() {
            self.config.gravity = gravity;
            self.world.set_gravity(gravity);
        }
    }

    /// The model's diagnostics plus anything Bullet refused.
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// Solver iterations this world has run so far, by the loop that ran them, so a test can
    /// see which path stepped it. odori's loop takes every iteration of MMD's joints and
    /// contacts (shim/odori_solver.cpp).
    pub fn solver_iterations(&self) -> SolverIterations {
        let (now, before) = (self.world.solver_iterations(), self.iterations_before);
        SolverIterations {
            odori: now.odori + before.odori,
            odori_unit_factors: now.odori_unit_factors + before.odori_unit_factors,
            bullet: now.bullet + before.bullet,
            odori_joint_setups: now.odori_joint_setups + before.odori_joint_setups,
        }
    }

    /// Step with Bullet's own solver loop and joint setup instead of odori's (on) or as usual
    /// (off): the reference odori's are held to bit for bit (`tests/solver_loop.rs`). Changes
    /// no result: both give the same bits; Bullet's is slower.
    pub fn force_bullet_solver_loop(&mut self, on: bool) {
        self.bullet_loop = on;
        self.world.force_bullet_solver_loop(on);
    }

    /// Number of bodies in the world.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Bones that simulated bodies drive (mode 1 and 2), each once, in body order.
    pub fn driven_bones(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for b in &self.bodies {
            if let (true, Some(bone)) = (b.mode.is_dynamic(), b.bone)
                && !out.contains(&bone)
            {
                out.push(bone);
            }
        }
        out
    }

    /// Every body's current model-space transform, in [`PhysicsModel::bodies`] order (`None`
    /// for a body Bullet refused).
    pub fn body_transforms(&mut self) -> Vec<Option<Affine3A>> {
        self.world.poses(&mut self.poses);
        self.bt_index
            .iter()
            .map(|i| i.map(|i| self.poses[i as usize].to_affine()))
            .collect()
    }

    /// Body `i`'s transform as its bone would place it (bone world × offset).
    pub fn bone_target(&self, i: usize, inst: &Instance) -> Affine3A {
        let b = &self.bodies[i];
        match b.bone {
            Some(bone) => inst.world(bone as usize) * b.offset,
            None => b.rest,
        }
    }

    /// Put every body at its bone's current pose with no velocity (first frame, or after a
    /// seek) and write the result into `inst`. Call between `before_physics` and
    /// `after_physics`.
    pub fn reset(&mut self, model: &Model, inst: &mut Instance) {
        self.rebuild();
        self.sync_kinematic_flags(inst);
        self.unkey_simulated_bones(model, inst);
        for i in 0..self.bodies.len() {
            let pose = Pose::from_affine(&self.bone_target(i, inst));
            self.world.reset_body(i as u32, &pose);
        }
        self.world.clear_pairs();
        self.pending = 0.0;
        self.pull_bones(model, inst);
    }

    /// Build the Bullet world again from what it was first given, so that a restart depends
    /// on the pose alone: Bullet keeps more than bodies and pairs from the run so far (its
    /// broadphase tree's shape, the order it finds pairs in, the solver's state), and a world
    /// only reset onto the pose settles differently after a long run than after a short one.
    /// Seen in a half-hour window soak: frame 300 after a seek differed from the same seek
    /// at the start, in the hair and skirt.
    fn rebuild(&mut self) {
        let Ok(mut world) = World::new(self.config.gravity, self.capacity) else {
            return;
        };
        for desc in &self.body_descs {
            world.add_body(desc);
        }
        for desc in &self.joint_descs {
            world.add_joint(desc);
        }
        if self.bullet_loop {
            world.force_bullet_solver_loop(true);
        }
        self.iterations_before = self.solver_iterations();
        self.world = world;
        for b in &mut self.bodies {
            b.kinematic = !b.mode.is_dynamic();
        }
    }

    /// Run `steps` fixed steps with the bones held where `inst` has them, so simulated bodies
    /// come to rest (hanging hair, a skirt's drape) instead of starting from the shape they
    /// were modelled in; then write the result into `inst`. Used after a [`Self::reset`] in
    /// the middle of a motion.
    pub fn settle(&mut self, model: &Model, inst: &mut Instance, steps: u32) {
        self.sync_kinematic_flags(inst);
        for _ in 0..steps {
            self.push_kinematic(inst);
            self.world.step(1, self.config.fixed_step);
        }
        self.pending = 0.0;
        self.pull_bones(model, inst);
    }

    /// Pose the bones that simulated bodies drive as if they had no keys (their rest offset
    /// from their parent), and the bones below them to match. MMD ignores a simulated bone's
    /// own keyframes while physics runs for it, so that is where its body starts from:
    /// wavefile_v2 keys miku_v2's twin tails, and babylon-mmd starts them from their modelled
    /// shape (with the keyed shape they start 6 units away from its dump).
    fn unkey_simulated_bones(&mut self, model: &Model, inst: &mut Instance) {
        let mut any = false;
        for &b in &self.driven_order {
            let b = b as usize;
            let simulated = self
                .bodies
                .iter()
                .any(|body| body.bone == Some(b as u32) && !body.kinematic);
            if !simulated {
                continue;
            }
            let world = unkeyed(model, inst, b);
            inst.set_world(model, b, world);
            any = true;
        }
        if any {
            for &b in &self.dependents {
                inst.update_bone(model, b as usize);
            }
        }
    }

    /// Advance by `dt` seconds of animation: kinematic bodies follow `inst`'s bones, Bullet
    /// runs whole fixed steps (the remainder carries to the next call), simulated bodies
    /// write their bones. Call between `before_physics` and `after_physics`.
    pub fn step(&mut self, model: &Model, inst: &mut Instance, dt: f32) {
        self.sync_kinematic_flags(inst);
        self.push_kinematic(inst);
        let fixed = self.config.fixed_step;
        let mut n = 0;
        if dt.is_finite() && dt > 0.0 {
            self.pending += dt;
            // A tolerance of 1e-4 step so 1/30 s is two 1/60 s steps despite rounding.
            let whole = ((self.pending / fixed) + 1e-4).floor().max(0.0);
            self.pending = (self.pending - whole * fixed).max(0.0);
            n = (whole as u32).min(self.config.max_substeps);
        }
        if n > 0 {
            self.world.step(n, fixed);
        }
        self.pull_bones(model, inst);
    }

    /// Make Bullet's kinematic flags match this frame: mode-0 bodies always, simulated
    /// bodies whose bone has physics turned off by the motion (VMD per-bone flag).
    fn sync_kinematic_flags(&mut self, inst: &Instance) {
        for (i, b) in self.bodies.iter_mut().enumerate() {
            let off = b.bone.is_some_and(|bn| {
                inst.physics_off()
                    .get(bn as usize)
                    .copied()
                    .unwrap_or(false)
            });
            let want = !b.mode.is_dynamic() || off;
            if want != b.kinematic {
                self.world.set_kinematic(i as u32, want);
                b.kinematic = want;
            }
        }
    }

    fn push_kinematic(&mut self, inst: &Instance) {
        for i in 0..self.bodies.len() {
            if self.bodies[i].kinematic && self.bodies[i].bone.is_some() {
                let pose = Pose::from_affine(&self.bone_target(i, inst));
                self.world.set_pose(i as u32, &pose);
            }
        }
    }

    /// Simulated bodies → their bones' world matrices, then the bones hanging below them.
    fn pull_bones(&mut self, model: &Model, inst: &mut Instance) {
        self.world.poses(&mut self.poses);
        let mut wrote = false;
        for (i, b) in self.bodies.iter().enumerate() {
            let Some(bone) = b.bone else { continue };
            if b.kinematic {
                continue;
            }
            let pose = self.poses[i];
            if !pose.is_finite() {
                // Never let a numerical blow-up reach the pose: this bone keeps its
                // animation this frame and the body is put back on it.
                let target = Pose::from_affine(&(inst.world(bone as usize) * b.offset));
                self.world.reset_body(i as u32, &target);
                continue;
            }
            let mut world = pose.to_affine() * b.inv_offset;
            if b.mode == BodyMode::PhysicsWithBone {
                // The bone's own keys do not count (see `unkey_simulated_bones`): its
                // position is its rest offset from its parent.
                world.translation = unkeyed(model, inst, bone as usize).translation;
            }
            inst.set_world(model, bone as usize, world);
            wrote = true;
        }
        if wrote {
            for &b in &self.dependents {
                inst.update_bone(model, b as usize);
            }
        }
    }
}

/// Bone `b`'s world matrix with no keys of its own: its parent's world × its rest offset.
fn unkeyed(model: &Model, inst: &Instance, b: usize) -> Affine3A {
    let local = Affine3A::from_translation(model.offsets()[b].into());
    match model.parents()[b] {
        NONE => local,
        p => inst.world(p as usize) * local,
    }
}

/// Bones that hang below a simulated bone without being simulated themselves and are
/// evaluated before physics, in evaluation order.
fn dependents(model: &Model, bodies: &[BodyState]) -> Vec<u32> {
    let n = model.bone_count();
    let mut driven = vec![false; n];
    for b in bodies {
        if let (true, Some(bone)) = (b.mode.is_dynamic(), b.bone) {
            driven[bone as usize] = true;
        }
    }
    // below[b]: some strict ancestor of b is driven. Walk in evaluation order, where parents
    // come first except for order-dependent bones; a parent chain walk handles those.
    let mut out: Vec<u32> = (0..n as u32)
        .filter(|&b| {
            if driven[b as usize] || model.after_physics()[b as usize] {
                return false;
            }
            let mut p = model.parents()[b as usize];
            let mut guard = 0;
            while p != NONE && guard <= n {
                if driven[p as usize] {
                    return true;
                }
                p = model.parents()[p as usize];
                guard += 1;
            }
            false
        })
        .collect();
    out.sort_by_key(|&b| model.order_positions()[b as usize]);
    out
}
