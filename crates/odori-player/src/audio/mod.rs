//! Sound: the soundtrack decoded to PCM, played through an output device, and the clock that
//! locks the picture to what is heard.
//!
//! Time everywhere here is seconds on one monotonic timeline ([`Timeline`]), so a simulated
//! device ([`sim`]) can run ten seconds of playback in a test without waiting for them.

pub mod alsa;
pub mod clock;
pub mod sim;
pub mod stream;

pub use clock::PlaybackClock;

use std::time::Instant;

/// A sound output playing one soundtrack.
pub trait AudioOutput: Send {
    /// Start (or resume) playing from song second `at`, `speed` song seconds a second
    /// (resampled: the pitch follows the speed).
    fn play(&mut self, at: f64, speed: f64);
    /// Stop playing; what is buffered is dropped, so sound stops at once.
    fn pause(&mut self);
    /// What is being heard: the song second at the speaker at timeline second `measured_at`,
    /// as the device last reported it. `None` while paused, before the first report after
    /// [`AudioOutput::play`], and past the song's end.
    fn position(&self) -> Option<(f64, f64)>;
    /// A line for the panel: the device and its format.
    fn describe(&self) -> String;
    /// Why the device stopped playing for good (unplugged, its server gone), once it has.
    fn lost(&self) -> Option<String> {
        None
    }
}

/// The monotonic timeline: seconds since the player started.
#[derive(Debug, Clone, Copy)]
pub struct Timeline {
    origin: Instant,
}

impl Timeline {
    pub fn new() -> Timeline {
        Timeline {
            origin: Instant::now(),
        }
    }

    /// Seconds since the timeline began.
    pub fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64()
    }
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new()
    }
}
