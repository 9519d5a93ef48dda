//! Rigid-body physics for MMD models on Bullet (`mmd-semantics.md` §6): hair, skirts and
//! accessories move as in MikuMikuDance.
//!
//! - [`PhysicsModel`]: a model's rigid bodies and joints, validated (pure data, built once
//!   from a PMX or PMD file; bad entries are dropped with a diagnostic, never a panic).
//! - [`PhysicsWorld`]: a Bullet world for one model instance. Between the pose runtime's two
//!   passes it moves kinematic bodies with their bones, steps at a fixed 1/60 s, and writes
//!   simulated bodies back into the bones ([`PhysicsWorld::evaluate`] does a whole frame).
//! - [`bake`]: a motion's physics result as VMD keys (`odori bake`), which play back in
//!   MikuMikuDance with physics off.
//!
//! Bullet 3.07 is compiled from source by `build.rs` (from the crates.io package
//! `rubullet-sys`, downloaded or found, never copied here) together with a small C++ shim of
//! ours (`shim/`), natively and for `wasm32-unknown-unknown`. Built with
//! `ODORI_NO_BULLET=1`, the crate has no physics and [`PhysicsWorld::new`] returns
//! [`PhysicsError::Unavailable`], whose message says how to get it; [`AVAILABLE`] tells which
//! build this is.
//!
//! ```no_run
//! # fn demo(pmx: &odori_format::Pmx, vmd: &odori_format::Vmd) -> Result<(), Box<dyn std::error::Error>> {
//! use odori_physics::{PhysicsConfig, PhysicsModel, PhysicsWorld};
//! use odori_pose::{Instance, Model, Motion, motion::Source};
//! let model = Model::from_pmx(pmx)?;
//! let motion = Motion::bind(&model, &[Source::Vmd(vmd)]);
//! let rig = PhysicsModel::from_pmx(pmx, &model);
//! let mut world = PhysicsWorld::new(&rig, &model, PhysicsConfig::default())?;
//! let mut inst = Instance::new(&model, &motion);
//! for frame in 0..300 {
//!     world.evaluate(&model, &motion, &mut inst, frame as f32)?;
//!     // inst.world(b) / inst.skinning() now include physics
//! }
//! # Ok(()) }
//! ```

mod bake;
mod bake_reduce;
mod bullet;
#[cfg(not(odori_no_bullet))]
mod bullet_math;
mod config;
mod error;
mod ffi;
mod frame;
mod metrics;
mod rig;
#[cfg(all(target_arch = "wasm32", not(odori_no_bullet)))]
mod wasm_libc;
mod world;

pub use bake::{Baked, bake};
pub use bake_reduce::{Reduction, reduce};
pub use bullet::AVAILABLE;
pub use config::PhysicsConfig;
pub use error::PhysicsError;
pub use rig::{Body, BodyMode, Joint, PhysicsModel, Shape, euler_to_quat};
pub use world::{PhysicsWorld, SolverIterations};

/// What the table that remembers Bullet's `powf` results did on this thread so far: (calls it
/// answered from the table, calls it computed). Bullet's `powf` damps each moving body's
/// velocities every step; tests read this to see that the table answered those.
pub fn powf_memo_counts() -> (u64, u64) {
    #[cfg(not(odori_no_bullet))]
    return bullet_math::powf_memo_counts();
    #[cfg(odori_no_bullet)]
    return (0, 0);
}
