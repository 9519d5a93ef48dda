//! The playback clock: where in the song (and so in the dance) the picture is.
//!
//! With sound, the position is what the output device last reported hearing, carried forward
//! on the timeline at the playback speed to the moment asked (devices report once a period,
//! 10–50 ms apart, which is coarser than a 60 Hz display frame; carried forward, the picture
//! moves every frame and still follows the sound card's own clock, which drifts from the
//! system's). The sound plays at every speed, resampled, so the sound drives the picture at
//! ×0.5 as at ×1. Without sound, or past the song's end, it is the timeline scaled by the
//! speed from the last known position. While playing it never goes backwards (a late device report
//! would otherwise make the picture shudder); [`PlaybackClock::seek`] moves it anywhere.

use super::AudioOutput;

/// The song position (seconds) the picture shows; MMD frame = 30 × this.
pub struct PlaybackClock {
    output: Option<Box<dyn AudioOutput>>,
    playing: bool,
    speed: f64,
    /// Position at timeline second `anchor_t`.
    anchor_pos: f64,
    anchor_t: f64,
    /// The last position handed out (kept monotonic while playing).
    last: f64,
    /// Sound was (re)started and the device has not reported yet: the picture waits for it
    /// (the device's latency, tens of milliseconds) unless that takes longer than
    /// [`FIRST_REPORT_WAIT`].
    awaiting: bool,
}

/// How long the picture waits for a started sound device's first report before running on
/// the system clock without it.
pub const FIRST_REPORT_WAIT: f64 = 0.5;

impl PlaybackClock {
    /// A paused clock at 0, driven by `output` when there is one.
    pub fn new(output: Option<Box<dyn AudioOutput>>) -> PlaybackClock {
        PlaybackClock {
            output,
            playing: false,
            speed: 1.0,
            anchor_pos: 0.0,
            anchor_t: 0.0,
            last: 0.0,
            awaiting: false,
        }
    }

    pub fn has_audio(&self) -> bool {
        self.output.is_some()
    }

    pub fn output(&self) -> Option<&dyn AudioOutput> {
        self.output.as_deref()
    }

    pub fn is_playing(&self) -> bool {
        self.playing
    }

    pub fn speed(&self) -> f64 {
        self.speed
    }

    /// Sound plays whenever the clock does (resampled at speeds other than 1).
    fn audible(&self) -> bool {
        self.playing
    }

    /// The song second shown at timeline second `now`.
    pub fn position(&mut self, now: f64) -> f64 {
        if !self.playing {
            return self.anchor_pos;
        }
        let reported = if self.audible() {
            self.output.as_ref().and_then(|o| o.position())
        } else {
            None
        };
        if reported.is_none() && self.awaiting && now - self.anchor_t < FIRST_REPORT_WAIT {
            return self.anchor_pos;
        }
        let pos = match reported {
            Some((heard, at)) => {
                self.awaiting = false;
                let p = heard + (now - at).max(0.0) * self.speed;
                // What is heard becomes the anchor: if the device stops reporting (the song
                // ended) the picture runs on from there.
                self.anchor_pos = p;
                self.anchor_t = now;
                p
            }
            None => self.anchor_pos + (now - self.anchor_t) * self.speed,
        };
        let pos = pos.max(self.last);
        self.last = pos;
        pos
    }

    /// Play from where the clock is.
    pub fn play(&mut self, now: f64) {
        if self.playing {
            return;
        }
        self.anchor_t = now;
        self.last = self.anchor_pos;
        self.playing = true;
        self.sync_output();
    }

    /// Stop at the position shown now.
    pub fn pause(&mut self, now: f64) {
        if !self.playing {
            return;
        }
        self.anchor_pos = self.position(now);
        self.anchor_t = now;
        self.playing = false;
        if let Some(o) = &mut self.output {
            o.pause();
        }
    }

    pub fn toggle(&mut self, now: f64) {
        if self.playing {
            self.pause(now)
        } else {
            self.play(now)
        }
    }

    /// Jump to song second `pos` (negative: 0); playing or paused stays as it was.
    pub fn seek(&mut self, pos: f64, now: f64) {
        let pos = if pos.is_finite() { pos.max(0.0) } else { 0.0 };
        self.anchor_pos = pos;
        self.anchor_t = now;
        self.last = pos;
        if self.playing {
            self.sync_output();
        }
    }

    /// Playback speed (0.1–4); the sound restarts from the picture's position at the new
    /// speed.
    pub fn set_speed(&mut self, speed: f64, now: f64) {
        let speed = if speed.is_finite() {
            speed.clamp(0.1, 4.0)
        } else {
            1.0
        };
        let pos = self.position(now);
        self.anchor_pos = pos;
        self.anchor_t = now;
        self.speed = speed;
        if self.playing {
            self.sync_output();
        }
    }

    /// When the sound device has been lost since the last call: why. The device is let go
    /// then, and the clock runs on silent from the position it last reported, on the
    /// timeline (a device that is gone would otherwise hold every restart for its first
    /// report).
    pub fn take_lost(&mut self, now: f64) -> Option<String> {
        let why = self.output.as_ref()?.lost()?;
        // Anchored where the picture is, so the dance goes on without a jump.
        let pos = self.position(now);
        self.anchor_pos = pos;
        self.anchor_t = now;
        self.awaiting = false;
        self.output = None;
        Some(why)
    }

    /// Start or stop the device to match the clock.
    fn sync_output(&mut self) {
        let audible = self.audible();
        let at = self.anchor_pos;
        self.awaiting = audible && self.output.is_some();
        if let Some(o) = &mut self.output {
            if audible {
                o.play(at, self.speed);
            } else {
                o.pause();
            }
        }
    }
}
