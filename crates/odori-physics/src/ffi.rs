//! Raw bindings to `shim/odori_bullet.h` (see that header for each function's contract).

#![allow(non_camel_case_types)]

use std::ffi::{c_float, c_int};

#[cfg(not(odori_no_bullet))]
#[repr(C)]
pub struct OdoriBtWorld {
    _private: [u8; 0],
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OdoriBtBody {
    pub shape: c_int,
    pub size: [c_float; 3],
    pub pose: [c_float; 7],
    pub mass: c_float,
    pub linear_damping: c_float,
    pub angular_damping: c_float,
    pub restitution: c_float,
    pub friction: c_float,
    pub group: c_int,
    pub mask: c_int,
    pub kinematic: c_int,
    pub no_contact_response: c_int,
}

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct OdoriBtJoint {
    pub body_a: c_int,
    pub body_b: c_int,
    pub frame_a: [c_float; 7],
    pub frame_b: [c_float; 7],
    pub linear_lower: [c_float; 3],
    pub linear_upper: [c_float; 3],
    pub angular_lower: [c_float; 3],
    pub angular_upper: [c_float; 3],
    pub stiffness: [c_float; 6],
    pub spring_enabled: [c_int; 6],
    pub stop_erp: c_float,
}

#[cfg(not(odori_no_bullet))]
unsafe extern "C" {
    pub fn odori_bt_world_new(
        gx: c_float,
        gy: c_float,
        gz: c_float,
        max_bodies: c_int,
    ) -> *mut OdoriBtWorld;
    pub fn odori_bt_world_free(world: *mut OdoriBtWorld);
    pub fn odori_bt_force_bullet_solver_loop(world: *mut OdoriBtWorld, on: c_int);
    pub fn odori_bt_solver_iterations(
        world: *const OdoriBtWorld,
        fast: *mut i64,
        unit: *mut i64,
        bullet: *mut i64,
        setups: *mut i64,
    );
    pub fn odori_bt_add_body(world: *mut OdoriBtWorld, desc: *const OdoriBtBody) -> c_int;
    pub fn odori_bt_add_joint(world: *mut OdoriBtWorld, desc: *const OdoriBtJoint) -> c_int;
    pub fn odori_bt_set_kinematic(world: *mut OdoriBtWorld, body: c_int, kinematic: c_int);
    pub fn odori_bt_set_pose(world: *mut OdoriBtWorld, body: c_int, pose: *const c_float);
    pub fn odori_bt_reset_body(world: *mut OdoriBtWorld, body: c_int, pose: *const c_float);
    pub fn odori_bt_clear_pairs(world: *mut OdoriBtWorld);
    pub fn odori_bt_get_poses(world: *const OdoriBtWorld, out: *mut c_float, count: c_int);
    pub fn odori_bt_set_gravity(world: *mut OdoriBtWorld, gx: c_float, gy: c_float, gz: c_float);
    pub fn odori_bt_step(world: *mut OdoriBtWorld, substeps: c_int, fixed_dt: c_float);
}
