//! The page's player options, shared by the page and the tests that hold it to native.

use odori_playback::{PlayerOptions, Preroll};

/// Interactive playback: a seek starts physics where it lands (as MikuMikuDance does), so
/// scrubbing back stays instant; playing steps on frame by frame.
pub fn player_options(physics: bool) -> PlayerOptions {
    PlayerOptions {
        physics,
        preroll: Preroll::Off,
        ..PlayerOptions::default()
    }
}
