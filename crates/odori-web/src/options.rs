//! The page's player options, shared by the page and the tests that hold it to native.

use odori_playback::{PlayerOptions, Preroll};

/// Interactive playback: a seek starts physics where it lands (as MikuMikuDance does), so
/// scrubbing back stays instant; playing steps on frame by frame. Stage times from one frame
/// in eight: the times line changes a few times a second, and each clock read is a call out
/// of wasm (`PlayerOptions::stage_times_every`).
pub fn player_options(physics: bool) -> PlayerOptions {
    PlayerOptions {
        physics,
        preroll: Preroll::Off,
        stage_times_every: 8,
        ..PlayerOptions::default()
    }
}
