//! Digests of what the engine hands out: FNV-1a over raw bits in a fixed order, so "not one
//! bit moved" can be a test (odori's fingerprints, held to hashes recorded before a refactor)
//! and so can "the page poses as the command line does" (odori-web's browser test, a digest
//! computed in the page and natively). It does not depend on the platform's hasher.

use crate::{Frame, Player, PlayerOptions, Scene};
use std::sync::Arc;

/// FNV-1a, 64 bit.
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Each float's bits, little-endian.
    pub fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.bytes(&x.to_bits().to_le_bytes());
        }
    }

    /// The hash so far.
    pub fn value(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv::new()
    }
}

/// The digest of frames `0..frames` of `scene`, evaluated in order (as playing does:
/// [`Player::play_on`]) by a fresh player with `options`: each model's skinning matrices,
/// morph weights and visibility, frame by frame.
pub fn frames_digest(scene: Arc<Scene>, frames: u32, options: PlayerOptions) -> u64 {
    let mut player = Player::new(scene, options);
    let mut frame = Frame::default();
    let mut hash = Fnv::new();
    for f in 0..frames {
        player.play_on(f as f64);
        player.evaluate(&mut frame);
        for m in frame.models() {
            for a in m.skinning() {
                hash.f32s(&a.matrix3.to_cols_array());
                hash.f32s(&a.translation.to_array());
            }
            hash.f32s(m.morph_weights());
            hash.bytes(&[m.visible() as u8]);
        }
    }
    hash.value()
}
