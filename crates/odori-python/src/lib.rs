//! The Python module `odori` (built with maturin, feature `python`): models, motions and
//! instances of the playback library, and batch evaluation into NumPy arrays with the GIL
//! released.
//!
//! The batch evaluation itself ([`batch`]) has no Python in it, so `cargo test --workspace`
//! builds and tests it without an interpreter; the bindings (`python`) are only compiled
//! when maturin (or `--features python`) asks for them.

pub mod batch;
pub mod error;
#[cfg(feature = "python")]
mod job;
#[cfg(feature = "python")]
mod offline;
#[cfg(feature = "python")]
mod project;
#[cfg(feature = "python")]
mod python;

pub use batch::{Options, Product, check_pair, fill, physics_player};
pub use error::BatchError;
