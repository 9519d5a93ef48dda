//! A safe owner of one Bullet world (through the C shim), or, when odori was built without
//! Bullet, a stand-in that cannot be created.

use glam::{Affine3A, Quat, Vec3};

/// Position and rotation of a body, laid out as the shim expects (x, y, z, qx, qy, qz, qw).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Pose(pub [f32; 7]);

impl Pose {
    pub fn from_affine(a: &Affine3A) -> Pose {
        let q = Quat::from_mat3a(&a.matrix3).normalize();
        let t = a.translation;
        Pose([t.x, t.y, t.z, q.x, q.y, q.z, q.w])
    }

    pub fn to_affine(self) -> Affine3A {
        let p = self.0;
        Affine3A::from_rotation_translation(
            Quat::from_xyzw(p[3], p[4], p[5], p[6]).normalize(),
            Vec3::new(p[0], p[1], p[2]),
        )
    }

    pub fn is_finite(&self) -> bool {
        self.0.iter().all(|v| v.is_finite())
    }
}

#[cfg(not(odori_no_bullet))]
pub(crate) use real::World;
#[cfg(odori_no_bullet)]
pub(crate) use stub::World;

pub(crate) use crate::ffi::{OdoriBtBody as BodyDesc, OdoriBtJoint as JointDesc};

#[cfg(not(odori_no_bullet))]
mod real {
    use super::{BodyDesc, JointDesc, Pose};
    use crate::PhysicsError;
    use crate::ffi;
    use crate::world::SolverIterations;
    use glam::Vec3;
    use std::ptr::NonNull;

    /// One `btDiscreteDynamicsWorld` with its bodies and joints; freed on drop.
    pub(crate) struct World {
        ptr: NonNull<ffi::OdoriBtWorld>,
        bodies: usize,
    }

    // SAFETY: the world is owned exclusively by this value and Bullet keeps no per-thread
    // state for it; moving it to another thread is sound (it is never shared).
    unsafe impl Send for World {}

    impl World {
        /// A world for up to `max_bodies` bodies ([`World::add_body`] refuses more: the
        /// broadphase allocates its handles up front).
        pub fn new(gravity: Vec3, max_bodies: usize) -> Result<World, PhysicsError> {
            // More than the shim takes (2^24) fails there, as a null world.
            let max = i32::try_from(max_bodies.max(1)).unwrap_or(i32::MAX);
            // SAFETY: plain constructor; a null result is handled.
            let ptr = unsafe { ffi::odori_bt_world_new(gravity.x, gravity.y, gravity.z, max) };
            NonNull::new(ptr)
                .map(|ptr| World { ptr, bodies: 0 })
                .ok_or(PhysicsError::WorldCreation)
        }

        /// Index of the new body, or `None` when Bullet refused the description.
        pub fn add_body(&mut self, desc: &BodyDesc) -> Option<u32> {
            // SAFETY: `desc` is a valid #[repr(C)] struct for the duration of the call.
            let i = unsafe { ffi::odori_bt_add_body(self.ptr.as_ptr(), desc) };
            let i = u32::try_from(i).ok()?;
            self.bodies = self.bodies.max(i as usize + 1);
            Some(i)
        }

        pub fn add_joint(&mut self, desc: &JointDesc) -> Option<u32> {
            // SAFETY: as above; the shim checks the body indices.
            let i = unsafe { ffi::odori_bt_add_joint(self.ptr.as_ptr(), desc) };
            u32::try_from(i).ok()
        }

        pub fn set_kinematic(&mut self, body: u32, kinematic: bool) {
            // SAFETY: the shim ignores out-of-range indices.
            unsafe { ffi::odori_bt_set_kinematic(self.ptr.as_ptr(), body as i32, kinematic as i32) }
        }

        pub fn set_pose(&mut self, body: u32, pose: &Pose) {
            // SAFETY: `pose` points at 7 floats.
            unsafe { ffi::odori_bt_set_pose(self.ptr.as_ptr(), body as i32, pose.0.as_ptr()) }
        }

        pub fn reset_body(&mut self, body: u32, pose: &Pose) {
            // SAFETY: `pose` points at 7 floats.
            unsafe { ffi::odori_bt_reset_body(self.ptr.as_ptr(), body as i32, pose.0.as_ptr()) }
        }

        pub fn clear_pairs(&mut self) {
            // SAFETY: valid world.
            unsafe { ffi::odori_bt_clear_pairs(self.ptr.as_ptr()) }
        }

        /// Every body's pose, in the order they were added.
        pub fn poses(&self, out: &mut [Pose]) {
            let n = out.len().min(self.bodies);
            // SAFETY: `Pose` is #[repr(C)] [f32; 7], so `out` holds n * 7 contiguous floats.
            unsafe { ffi::odori_bt_get_poses(self.ptr.as_ptr(), out.as_mut_ptr().cast(), n as i32) }
        }

        pub fn set_gravity(&mut self, gravity: Vec3) {
            // SAFETY: valid world; the shim ignores non-finite components.
            unsafe { ffi::odori_bt_set_gravity(self.ptr.as_ptr(), gravity.x, gravity.y, gravity.z) }
        }

        pub fn step(&mut self, substeps: u32, fixed_dt: f32) {
            // SAFETY: valid world; the shim checks the arguments.
            unsafe { ffi::odori_bt_step(self.ptr.as_ptr(), substeps as i32, fixed_dt) }
        }

        pub fn force_bullet_solver_loop(&mut self, on: bool) {
            // SAFETY: valid world.
            unsafe { ffi::odori_bt_force_bullet_solver_loop(self.ptr.as_ptr(), i32::from(on)) }
        }

        /// Solver iterations so far, by the loop that ran them.
        pub fn solver_iterations(&self) -> SolverIterations {
            let (mut fast, mut unit, mut bullet, mut setups) = (0i64, 0i64, 0i64, 0i64);
            // SAFETY: valid world; the pointers are to live locals.
            unsafe {
                ffi::odori_bt_solver_iterations(
                    self.ptr.as_ptr(),
                    &mut fast,
                    &mut unit,
                    &mut bullet,
                    &mut setups,
                )
            };
            SolverIterations {
                odori: fast as u64,
                odori_unit_factors: unit as u64,
                bullet: bullet as u64,
                odori_joint_setups: setups as u64,
            }
        }
    }

    impl Drop for World {
        fn drop(&mut self) {
            // SAFETY: created by odori_bt_world_new, freed once.
            unsafe { ffi::odori_bt_world_free(self.ptr.as_ptr()) }
        }
    }
}

#[cfg(odori_no_bullet)]
mod stub {
    use super::{BodyDesc, JointDesc, Pose};
    use crate::PhysicsError;
    use crate::world::SolverIterations;
    use glam::Vec3;
    use std::convert::Infallible;

    /// Cannot be created: odori was built without Bullet.
    pub(crate) struct World {
        never: Infallible,
    }

    impl World {
        pub fn new(_gravity: Vec3, _max_bodies: usize) -> Result<World, PhysicsError> {
            Err(PhysicsError::Unavailable)
        }
        pub fn add_body(&mut self, _: &BodyDesc) -> Option<u32> {
            match self.never {}
        }
        pub fn add_joint(&mut self, _: &JointDesc) -> Option<u32> {
            match self.never {}
        }
        pub fn set_kinematic(&mut self, _: u32, _: bool) {
            match self.never {}
        }
        pub fn set_pose(&mut self, _: u32, _: &Pose) {
            match self.never {}
        }
        pub fn reset_body(&mut self, _: u32, _: &Pose) {
            match self.never {}
        }
        pub fn clear_pairs(&mut self) {
            match self.never {}
        }
        pub fn poses(&self, _: &mut [Pose]) {
            match self.never {}
        }
        pub fn set_gravity(&mut self, _: Vec3) {
            match self.never {}
        }
        pub fn step(&mut self, _: u32, _: f32) {
            match self.never {}
        }
        pub fn force_bullet_solver_loop(&mut self, _: bool) {
            match self.never {}
        }
        pub fn solver_iterations(&self) -> SolverIterations {
            match self.never {}
        }
    }
}

/// Whether this build of odori has Bullet (false: built with `ODORI_NO_BULLET=1`).
pub const AVAILABLE: bool = cfg!(not(odori_no_bullet));
