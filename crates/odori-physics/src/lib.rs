//! Rigid-body physics for MMD models (Bullet, `mmd-semantics.md` §6).
//!
//! Not built yet: this crate holds the pipeline's place between the pose runtime's
//! before-physics and after-physics passes (issue "Physics").
