//! A simulated sound card, for testing the clock without one: it consumes the song in
//! periods at its own sample clock (which may run fast or slow against the system's, as real
//! ones do), hears each sample a fixed latency after consuming it, and reports once a period,
//! as ALSA's `snd_pcm_delay` after a write does. Time is the test's: it moves only when
//! [`SimDevice::set_now`] says.

use super::AudioOutput;
use std::sync::{Arc, Mutex};

/// The device's settings.
#[derive(Debug, Clone, Copy)]
pub struct SimSettings {
    /// Device seconds per timeline second (1.005: its crystal runs 0.5 % fast).
    pub rate: f64,
    /// Seconds of sound per period (reports come this often, in device time).
    pub period: f64,
    /// Seconds between a sample being consumed and being heard.
    pub latency: f64,
    /// The song's length in seconds (nothing is heard or reported past it).
    pub length: f64,
}

#[derive(Debug, Default)]
struct State {
    now: f64,
    /// Timeline second, song second and speed where playing last started.
    started: Option<(f64, f64, f64)>,
}

/// The test's handle on the simulated device: moves time, says what is heard.
#[derive(Clone)]
pub struct SimDevice {
    settings: SimSettings,
    state: Arc<Mutex<State>>,
}

/// The output the clock drives.
pub struct SimOutput {
    device: SimDevice,
}

impl SimDevice {
    pub fn new(settings: SimSettings) -> SimDevice {
        SimDevice {
            settings,
            state: Arc::default(),
        }
    }

    /// An output on this device for a [`super::PlaybackClock`].
    pub fn output(&self) -> SimOutput {
        SimOutput {
            device: self.clone(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Move the timeline to second `now`.
    pub fn set_now(&self, now: f64) {
        self.lock().now = now;
    }

    /// Device seconds played since the last start, at timeline second `now`.
    fn device_elapsed(&self, started_at: f64, now: f64) -> f64 {
        (now - started_at).max(0.0) * self.settings.rate
    }

    /// The song second at the speaker now; `None` while silent (paused, the first
    /// `latency` after a start, past the end).
    pub fn heard(&self) -> Option<f64> {
        let s = self.lock();
        let (t0, song0, speed) = s.started?;
        let d = self.device_elapsed(t0, s.now);
        // The device plays `speed` song seconds per second of its own (resampled).
        (d >= self.settings.latency)
            .then_some(song0 + (d - self.settings.latency) * speed)
            .filter(|&p| p <= self.settings.length)
    }
}

impl AudioOutput for SimOutput {
    fn play(&mut self, at: f64, speed: f64) {
        let mut s = self.device.lock();
        s.started = Some((s.now, at, speed));
    }

    fn pause(&mut self) {
        self.device.lock().started = None;
    }

    fn position(&self) -> Option<(f64, f64)> {
        let d = &self.device;
        let cfg = d.settings;
        let s = d.lock();
        let (t0, song0, speed) = s.started?;
        // The last period boundary, in device time, and when it fell on the timeline.
        let periods = (d.device_elapsed(t0, s.now) / cfg.period).floor();
        if periods < 1.0 {
            return None;
        }
        let boundary = periods * cfg.period;
        let heard = song0 + (boundary - cfg.latency) * speed;
        (heard <= cfg.length).then_some((heard, t0 + boundary / cfg.rate))
    }

    fn describe(&self) -> String {
        format!(
            "simulated device ({:.1} ms periods, {:.1} ms latency, rate ×{})",
            self.device.settings.period * 1e3,
            self.device.settings.latency * 1e3,
            self.device.settings.rate
        )
    }
}
