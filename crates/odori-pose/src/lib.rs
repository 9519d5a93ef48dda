//! odori's MMD pose runtime: plays VMD motions on PMX/PMD models the way MikuMikuDance does.
//!
//! The shape follows ozz-animation: a [`Model`] (compiled once from a file, immutable) and a
//! [`Motion`] (VMD/VPD tracks bound to one model, immutable) are shared by any number of
//! [`Instance`]s, which own every per-frame buffer. Evaluating a frame allocates nothing. An
//! instance is sized for one model and motion and refuses any other with
//! [`PoseError::WrongModel`] or [`PoseError::WrongMotion`] ([`Instance::rebind`] re-sizes it).
//! What the model, motion and instance derive is theirs to keep: it is read through
//! accessors, never written from outside.
//!
//! One frame, as `mmd-semantics.md` §3 lays out ([`Stage`]): sample keyframes (`sample`),
//! apply morphs (`morph`), run the before-physics pass (forward kinematics with append
//! transforms, then the layer's CCD IK solvers, layer by layer: `fk`, `append`, `ik`),
//! leave room for physics, then the after-physics pass. Outputs are world and skinning
//! matrices, morph weights and material-morph results. A pose is the same bits on every
//! target: products that glam would fuse on some go through `unfused`.
//!
//! A crowd evaluates its instances in groups ([`evaluate_group`]): the same results to the
//! bit, with the IK solves of up to sixteen instances side by side in vector lanes.
//!
//! The `testing` feature (for odori-pose's own tests) adds hooks that reach inside: IK
//! schedules to compare against, per-link IK state, morph weights set by hand.

mod append;
pub mod bezier;
pub mod camera;
#[cfg(feature = "counters")]
pub mod counters;
mod error;
mod fk;
mod group;
mod identity;
mod ik;
mod instance;
pub mod light;
pub mod material;
mod math;
pub mod model;
mod morph;
pub mod motion;
mod outside_parent;
mod sample;
pub mod space;
mod unfused;

pub use error::PoseError;
#[cfg(feature = "testing")]
pub use group::solves_side_by_side;
pub use group::{GROUP, after_physics_group, before_physics_group, evaluate_group};
pub use instance::{Instance, Options, Stage};
pub use material::MaterialState;
pub use model::Model;
pub use motion::Motion;

/// MikuMikuDance's animation rate: motion frames per second. A key at frame N is second N / FPS
/// of the dance, whatever rate a video, a window or a page shows it at; every front end turns
/// time into frames with this.
pub const FPS: f32 = 30.0;
