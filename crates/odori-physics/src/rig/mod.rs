//! The physics description of a model: rigid bodies and joints, validated, in model space.
//!
//! Pure data, independent of Bullet, built once per model ([`PhysicsModel::from_pmx`],
//! [`PhysicsModel::from_pmd`]) and shared by every [`crate::PhysicsWorld`] of that model.
//! Bad entries never panic: they are dropped or repaired with a line in
//! [`PhysicsModel::diagnostics`].

mod compile;
mod source;

use glam::{Affine3A, Quat, Vec3};

/// How a body moves (PMX/PMD "physics mode"), after MMD's mode-2 rule (see
/// [`PhysicsModel::from_pmx`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyMode {
    /// Mode 0: kinematic, follows its bone.
    FollowBone,
    /// Mode 1: simulated; drives its bone's rotation and translation.
    Physics,
    /// Mode 2: simulated; drives its bone's rotation, the bone keeps its animated position.
    PhysicsWithBone,
}

impl BodyMode {
    /// True for modes whose body Bullet simulates.
    pub fn is_dynamic(self) -> bool {
        self != BodyMode::FollowBone
    }
}

/// Collision shape, in Bullet's conventions (half extents for boxes; capsules along Y).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    Sphere { radius: f32 },
    Box { half_extents: Vec3 },
    Capsule { radius: f32, height: f32 },
}

/// One rigid body.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub name: String,
    /// Index of this body in the file (joints and impulse morphs refer to file indices).
    pub file_index: u32,
    /// The bone it follows or drives; `None` for a body attached to no bone.
    pub bone: Option<u32>,
    pub shape: Shape,
    /// Model-space transform at rest (MMD stores bodies in model space at the rest pose).
    pub rest: Affine3A,
    pub mass: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub restitution: f32,
    pub friction: f32,
    /// Collision group 0..=15.
    pub group: u8,
    /// Bit i set: collides with group i.
    pub mask: u16,
    pub mode: BodyMode,
    /// Contacts are detected but push nothing (babylon-mmd's rule for mask 0 and zero volume).
    pub no_contact_response: bool,
}

/// One 6-DOF spring joint (Bullet `btGeneric6DofSpringConstraint`).
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub name: String,
    /// Indices into [`PhysicsModel::bodies`].
    pub body_a: u32,
    pub body_b: u32,
    /// Model-space joint frame at rest.
    pub rest: Affine3A,
    pub linear_lower: Vec3,
    pub linear_upper: Vec3,
    /// Euler angle limits, radians.
    pub angular_lower: Vec3,
    pub angular_upper: Vec3,
    pub spring_translation: Vec3,
    pub spring_rotation: Vec3,
}

/// Rigid bodies and joints of one model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PhysicsModel {
    pub bodies: Vec<Body>,
    pub joints: Vec<Joint>,
    /// Problems found (entries dropped or repaired), one line each.
    pub diagnostics: Vec<String>,
}

impl PhysicsModel {
    /// Bodies Bullet simulates (modes 1 and 2).
    pub fn dynamic_body_count(&self) -> usize {
        self.bodies.iter().filter(|b| b.mode.is_dynamic()).count()
    }
}

/// MMD's Euler angles (radians) as a rotation: Y, then X, then Z applied innermost — the
/// yaw-pitch-roll order of Direct3D that MMD uses, as babylon-mmd and saba's later versions
/// read it (`R = Ry · Rx · Rz`).
///
/// glam's `Quat::from_euler(EulerRot::YXZ, r[1], r[0], r[2])`, term for term, but with the
/// half angles' sines and cosines from the pure-Rust `libm` crate instead of the platform's C
/// library: glibc and the wasm32 runtime differ in the last bit of some, and a body's rest
/// rotation one bit off sets a chaotic system on another course (`tests/wasm.rs`).
pub fn euler_to_quat(r: [f32; 3]) -> Quat {
    let sin_cos = |a: f32| (libm::sinf(a), libm::cosf(a));
    let (si, ci) = sin_cos(r[1] * 0.5);
    let (sj, cj) = sin_cos(r[0] * 0.5);
    let (sh, ch) = sin_cos(r[2] * 0.5);
    let cc = ci * ch;
    let cs = ci * sh;
    let sc = si * ch;
    let ss = si * sh;
    Quat::from_xyzw(
        cj * ss + sj * cc,
        cj * sc - sj * cs,
        cj * cs - sj * sc,
        cj * cc + sj * ss,
    )
}
