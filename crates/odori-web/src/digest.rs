//! A digest of every bit the page's player hands out for a run of frames (skinning matrices,
//! morph weights, visibility), so a test can hold the page's pose and physics to the native
//! build's bit for bit: the same Rust compiled for wasm32 must not move one bit (the IK takes
//! its trigonometry from `libm` on every target, and Bullet in wasm32 is checked against
//! native in odori-physics' tests).

use crate::options::player_options;
use odori_playback::{Frame, Player, Scene};
use std::sync::Arc;

/// FNV-1a (64 bit) over the bits of frames `0..frames` of `scene`, evaluated in order by a
/// fresh player with the page's options (`physics` on or off): each model's skinning
/// matrices, morph weights and visibility, in order.
pub fn pose_digest(scene: Arc<Scene>, frames: u32, physics: bool) -> u64 {
    let mut player = Player::new(scene, player_options(physics));
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
    hash.0
}

/// FNV-1a, 64 bit.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.bytes(&x.to_bits().to_le_bytes());
        }
    }
}
