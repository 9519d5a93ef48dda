//! Mesh deformation: BDEF1/2/4, SDEF and QDEF skinning with vertex and UV morphs, on the CPU
//! and on the GPU.
//!
//! A [`Mesh`] is compiled once from a PMX or PMD file (immutable, shared). Each frame, a pose
//! instance's skinning matrices (world × inverse bind, indexed by file bone index) and its
//! effective morph weights go in; deformed positions, normals and morphed UVs come out:
//!
//! - [`deform`]: the fast CPU path (rayon over vertex ranges, SIMD vector math), writing into
//!   a caller-owned [`Deformed`] without allocating;
//! - [`deform_reference`]: the same result one vertex at a time, written for clarity;
//! - `gpu::GpuSkinner` (feature `gpu`, on by default): a wgpu compute shader writing a vertex
//!   buffer the renderer draws from.
//!
//! Semantics (`mmd-semantics.md` §7): vertex morph offsets are added in model space before
//! skinning; UV morphs offset UVs; normals take the rotation part of the blended transform and
//! are renormalised. BDEF4/QDEF weights not summing to 1 are renormalised at load, all-zero
//! weights bind the vertex to its first valid bone, and a weight naming a bone that does not
//! exist uses bone 0 (each repair is listed in [`Mesh::diagnostics`]).

mod cpu;
mod deformed;
#[cfg(feature = "gpu")]
pub mod gpu;
mod math;
mod mesh;
mod reference;

pub use cpu::deform;
pub use cpu::simd::{SIMD_VAR, kernel};
pub use deformed::Deformed;
pub use mesh::Mesh;
pub use reference::deform_reference;

use glam::Affine3A;

/// The matrices the skin records index: the caller's, checked to cover every bone, or one
/// identity matrix for a mesh without bones (whose records all name bone 0).
pub(crate) fn bones<'a>(mesh: &Mesh, skinning: &'a [Affine3A]) -> &'a [Affine3A] {
    static IDENTITY: [Affine3A; 1] = [Affine3A::IDENTITY];
    if mesh.bone_count == 0 {
        return &IDENTITY;
    }
    assert!(
        skinning.len() >= mesh.bone_count,
        "{} skinning matrices for a mesh with {} bones",
        skinning.len(),
        mesh.bone_count
    );
    skinning
}
