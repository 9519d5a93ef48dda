//! Batch evaluation: many frames of one model and motion written into one caller-owned
//! `f32` buffer (the NumPy array the Python module hands out), with no Python involved, so
//! that it runs with the GIL released and is tested by `cargo test` alone.
//!
//! Without physics the frames are split into contiguous runs, one per rayon thread, each run
//! evaluated in order by its own fresh [`Instance`] — but only when the model carries no state
//! from one evaluation to the next ([`Model::carries_state`]); otherwise, and with physics
//! (which steps in order), one instance evaluates every frame in the order given. Either way
//! the values are those of `odori pose` (one fresh instance, frames in order) for the same
//! frame list, bit for bit.

use crate::error::BatchError;
use odori_playback::{Frame, ModelAsset, Player, PlayerOptions, Scene};
use odori_pose::{Instance, Model, Motion};
use rayon::prelude::*;
use std::sync::Arc;

/// What one frame's row of the output holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    /// Every bone's world matrix, 16 floats row by row (`m[r][c]` at `4 r + c`: a C-order
    /// `(4, 4)` NumPy block reads as the matrix itself, translation in column 3). The same
    /// floats as `odori pose`'s `world` (column-major), transposed: moved, never recomputed.
    World,
    /// Every bone's world position (x, y, z).
    Positions,
    /// Every morph's weight after group and flip morphs are expanded (what deformation
    /// applies; `odori pose --morphs`).
    MorphWeights,
}

impl Product {
    /// Floats per frame for `model`.
    pub fn row_len(self, model: &Model) -> usize {
        match self {
            Product::World => model.bone_count() * 16,
            Product::Positions => model.bone_count() * 3,
            Product::MorphWeights => model.morph_count(),
        }
    }

    /// Write `inst`'s evaluated pose into one frame's row.
    fn write(self, inst: &Instance, row: &mut [f32]) {
        match self {
            Product::World => {
                for (b, out) in row.chunks_exact_mut(16).enumerate() {
                    out.copy_from_slice(&inst.world_matrix(b).transpose().to_cols_array());
                }
            }
            Product::Positions => {
                for (p, out) in inst.world_positions().iter().zip(row.chunks_exact_mut(3)) {
                    out.copy_from_slice(&p.to_array());
                }
            }
            Product::MorphWeights => row.copy_from_slice(inst.effective_morph_weights()),
        }
    }
}

/// How a batch is evaluated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Run IK solvers (`odori pose --no-ik` turns them off).
    pub ik: bool,
    /// Rigid-body physics through the playback library's [`Player`]: settled at frame 0 and
    /// stepped one frame at a time from there, so every frame is the one playing the motion
    /// from its start gives ([`odori_playback::Preroll::FromStart`]). Ask for frames in
    /// ascending order: a frame before the previous one restarts physics from frame 0 with
    /// the same pose instance, whose bones that lag a frame (`Model::carries_state`) then
    /// start from the later frame's pose, not from rest as in a fresh playback.
    pub physics: bool,
    /// Spread frames over rayon's threads when that gives the same bits (no physics, a model
    /// that carries no state between evaluations).
    pub parallel: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ik: true,
            physics: false,
            parallel: true,
        }
    }
}

/// Refuse `motion` unless it was bound to `asset`'s model: a trial evaluation by the pose
/// runtime's own check, its message prefixed with both files.
pub fn check_pair(
    asset: &ModelAsset,
    motion: &Motion,
    motion_label: &str,
) -> Result<(), BatchError> {
    let model = asset.pose();
    let mut inst = Instance::new(model, motion);
    inst.evaluate(model, motion, 0.0)
        .map_err(|source| BatchError::WrongMotion {
            motion: motion_label.to_string(),
            model: asset.label().to_string(),
            source,
        })
}

/// Evaluate `frames` and write `product` for each into `out` (`frames.len()` rows of
/// [`Product::row_len`] floats). Allocates per call (instances, a physics world), never
/// per frame.
pub fn fill(
    asset: &Arc<ModelAsset>,
    motion: &Arc<Motion>,
    frames: &[f32],
    product: Product,
    options: Options,
    out: &mut [f32],
) -> Result<(), BatchError> {
    let model = asset.pose();
    let row = product.row_len(model);
    if out.len() != frames.len() * row {
        return Err(BatchError::OutputSize {
            expected: frames.len() * row,
            found: out.len(),
        });
    }
    odori_playback::requested_frames::check(frames, options.physics)
        .map_err(BatchError::BadFrame)?;
    if frames.is_empty() || row == 0 {
        return Ok(());
    }
    if options.physics {
        return fill_physics(asset, motion, frames, product, options, out, row);
    }
    let threads = rayon::current_num_threads().max(1);
    if !options.parallel || threads == 1 || model.carries_state() || frames.len() < 2 {
        return run(model, motion, frames, product, options, out, row);
    }
    let per = frames.len().div_ceil(threads);
    out.par_chunks_mut(per * row)
        .zip(frames.par_chunks(per))
        .try_for_each(|(out, frames)| run(model, motion, frames, product, options, out, row))
}

/// One fresh instance evaluates `frames` in order.
fn run(
    model: &Model,
    motion: &Motion,
    frames: &[f32],
    product: Product,
    options: Options,
    out: &mut [f32],
    row: usize,
) -> Result<(), BatchError> {
    let mut inst = Instance::new(model, motion);
    inst.options_mut().ik = options.ik;
    for (&f, out) in frames.iter().zip(out.chunks_exact_mut(row)) {
        inst.evaluate(model, motion, f)?;
        product.write(&inst, out);
    }
    Ok(())
}

/// Frames in the order given through a one-model player with physics on (nothing deformed).
fn fill_physics(
    asset: &Arc<ModelAsset>,
    motion: &Arc<Motion>,
    frames: &[f32],
    product: Product,
    options: Options,
    out: &mut [f32],
    row: usize,
) -> Result<(), BatchError> {
    let mut player = physics_player(asset, motion)?;
    if !options.ik {
        return Err(BatchError::PhysicsWithoutIk);
    }
    let mut frame = Frame::default();
    for (&f, out) in frames.iter().zip(out.chunks_exact_mut(row)) {
        player.evaluate_at(f64::from(f), &mut frame);
        product.write(player.instance(0), out);
    }
    Ok(())
}

/// A player for `asset` dancing `motion` with physics, or why it cannot simulate (a build
/// without a physics engine, a world that cannot be built).
pub fn physics_player(asset: &Arc<ModelAsset>, motion: &Arc<Motion>) -> Result<Player, BatchError> {
    let mut scene = Scene::new();
    scene.add_bound(asset.clone(), motion.clone());
    let player = Player::new(
        Arc::new(scene),
        PlayerOptions {
            physics: true,
            deform: false,
            ..PlayerOptions::default()
        },
    );
    if !asset.physics().bodies.is_empty() && !player.has_physics() {
        return Err(BatchError::NoPhysics(player.warnings().join("; ")));
    }
    Ok(player)
}
