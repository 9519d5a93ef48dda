//! The page's pose digest: [`odori_playback::digest::frames_digest`] with the page's player
//! options, so a test can hold the page's pose and physics to the native build's bit for bit:
//! the same Rust compiled for wasm32 must not move one bit (the IK takes its trigonometry from
//! `libm` on every target, and Bullet in wasm32 is checked against native in odori-physics'
//! tests).

use crate::options::player_options;
use odori_playback::Scene;
use std::sync::Arc;

/// The digest of frames `0..frames` of `scene` as the page plays them (`physics` on or off).
pub fn pose_digest(scene: Arc<Scene>, frames: u32, physics: bool) -> u64 {
    odori_playback::digest::frames_digest(scene, frames, player_options(physics))
}
