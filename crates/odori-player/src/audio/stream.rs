//! The thread that feeds a sound device: it waits while paused, writes the song a period at a
//! time from the play position, resampled by the playback speed (the pitch follows the speed,
//! as a video player's simple speed change does), reports after each write what is heard at
//! the speaker, and at the song's end lets the device play out what it holds before stopping
//! (dropping it would cut the last tens of milliseconds). Generic over [`PcmDevice`], so a
//! simulated device tests it without a sound card.

use super::{AudioOutput, Timeline};
use odori_video::audio::Pcm;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// Frames written per call (about 23 ms at 44.1 kHz): how often the position is reported.
pub const CHUNK: usize = 1024;
/// How often the position is reported while the device plays out the song's last frames.
const DRAIN_POLL: Duration = Duration::from_millis(5);

/// What the writer needs of a device (ALSA's blocking PCM calls).
pub trait PcmDevice {
    /// Write `frames` interleaved frames, blocking while the device is full; the count
    /// written, or an error the device could not recover from.
    fn write(&mut self, samples: &[i16], frames: usize) -> Result<usize, i32>;
    /// Frames written and not yet heard.
    fn delay(&mut self) -> Option<i64>;
    /// Drop what is buffered and get ready for new writes.
    fn flush(&mut self);
}

#[derive(Default)]
struct State {
    playing: bool,
    /// Next song frame to write (fractional at speeds other than 1).
    cursor: f64,
    /// Song frames per device frame.
    speed: f64,
    /// Bumped by every play and pause: a write under way when it changes is flushed.
    generation: u64,
    /// (song second at the speaker, timeline second of the measurement).
    report: Option<(f64, f64)>,
    /// The device failed a write it could not recover from: why.
    lost: Option<String>,
    quit: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A song playing on a device through a writer thread; an [`AudioOutput`].
pub struct Stream {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    description: String,
    rate: u32,
}

impl Stream {
    /// Start the writer thread for `pcm` on `device` (paused).
    pub fn start<D: PcmDevice + Send + 'static>(
        mut device: D,
        pcm: Arc<Pcm>,
        timeline: Timeline,
        description: String,
    ) -> Result<Stream, String> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                speed: 1.0,
                ..State::default()
            }),
            wake: Condvar::new(),
        });
        let rate = pcm.sample_rate;
        let worker = shared.clone();
        let thread = std::thread::Builder::new()
            .name("odori-audio".into())
            .spawn(move || write_loop(&mut device, &pcm, &worker, timeline))
            .map_err(|e| format!("cannot start the sound thread: {e}"))?;
        Ok(Stream {
            shared,
            thread: Some(thread),
            description,
            rate,
        })
    }
}

/// Song frame `pos` of channel `c`, linearly interpolated.
fn sample_at(samples: &[i16], channels: usize, total: usize, pos: f64, c: usize) -> i16 {
    let i = pos.floor() as usize;
    let f = pos - i as f64;
    let a = samples[i.min(total - 1) * channels + c] as f64;
    let b = samples[(i + 1).min(total - 1) * channels + c] as f64;
    (a + (b - a) * f).round() as i16
}

/// The writer thread: waits while paused, writes a chunk at the cursor, reports the position;
/// at the end plays out what the device holds.
fn write_loop(device: &mut impl PcmDevice, pcm: &Pcm, shared: &Shared, timeline: Timeline) {
    let channels = pcm.channels.max(1) as usize;
    let total = pcm.samples.len() / channels;
    let rate = pcm.sample_rate as f64;
    // Resampled chunks are made here (allocated once).
    let mut resampled = vec![0i16; CHUNK * channels];
    let mut flushed = true;
    loop {
        let (cursor, speed, generation) = {
            let mut s = shared.lock();
            while !(s.quit || s.playing && s.cursor < total as f64) {
                if s.playing && !flushed {
                    // The song ended: let the device play what it holds, then stop.
                    let generation = s.generation;
                    let speed = s.speed;
                    drop(s);
                    drain(
                        device,
                        shared,
                        generation,
                        total as f64,
                        speed,
                        rate,
                        timeline,
                    );
                    device.flush();
                    flushed = true;
                    s = shared.lock();
                    if s.generation == generation {
                        s.report = None;
                    }
                    continue;
                }
                if !flushed {
                    drop(s);
                    device.flush();
                    flushed = true;
                    s = shared.lock();
                    continue;
                }
                if s.playing {
                    // Past the end: nothing more is heard.
                    s.report = None;
                }
                s = shared.wake.wait(s).unwrap_or_else(|p| p.into_inner());
            }
            if s.quit {
                return;
            }
            (s.cursor, s.speed, s.generation)
        };
        // At speed 1 the song's own samples; else resampled (linear) into `resampled`.
        let (chunk, frames, consumed) = if speed == 1.0 && cursor.fract() == 0.0 {
            let at = cursor as usize;
            let frames = CHUNK.min(total - at);
            (
                &pcm.samples[at * channels..(at + frames) * channels],
                frames,
                None,
            )
        } else {
            let left = ((total as f64 - cursor) / speed).ceil().max(1.0) as usize;
            let frames = CHUNK.min(left);
            for k in 0..frames {
                let pos = cursor + k as f64 * speed;
                for c in 0..channels {
                    resampled[k * channels + c] = sample_at(&pcm.samples, channels, total, pos, c);
                }
            }
            (&resampled[..frames * channels], frames, Some(speed))
        };
        flushed = false;
        let written = match device.write(chunk, frames) {
            Ok(n) => n,
            Err(rc) => {
                // The device went away: stop reporting and say why; the clock runs on the
                // timeline.
                let mut s = shared.lock();
                s.report = None;
                s.playing = false;
                s.lost = Some(format!(
                    "the sound device stopped taking sound (error {rc})"
                ));
                continue;
            }
        };
        let pending = device.delay().unwrap_or(0).max(0) as f64;
        let now = timeline.now();
        let mut s = shared.lock();
        if s.generation != generation {
            // Paused or moved while writing: what was written is stale.
            drop(s);
            device.flush();
            flushed = true;
            continue;
        }
        s.cursor = match consumed {
            None => cursor + written as f64,
            Some(speed) => (cursor + written as f64 * speed).min(total as f64),
        };
        s.report = Some(((s.cursor - pending * speed) / rate, now));
    }
}

/// After the song's last write: report the position while the device plays out its `delay`
/// frames, until it has played them all or the song is paused or moved.
fn drain(
    device: &mut impl PcmDevice,
    shared: &Shared,
    generation: u64,
    end: f64,
    speed: f64,
    rate: f64,
    timeline: Timeline,
) {
    loop {
        let pending = device.delay().unwrap_or(0);
        let now = timeline.now();
        let mut s = shared.lock();
        if s.generation != generation || s.quit || pending <= 0 {
            return;
        }
        s.report = Some(((end - pending as f64 * speed) / rate, now));
        drop(s);
        std::thread::sleep(DRAIN_POLL);
    }
}

impl AudioOutput for Stream {
    fn play(&mut self, at: f64, speed: f64) {
        let mut s = self.shared.lock();
        s.cursor = (at.max(0.0) * self.rate as f64).round();
        s.speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        s.playing = true;
        s.generation += 1;
        s.report = None;
        self.shared.wake.notify_all();
    }

    fn pause(&mut self) {
        let mut s = self.shared.lock();
        s.playing = false;
        s.generation += 1;
        s.report = None;
        self.shared.wake.notify_all();
    }

    fn position(&self) -> Option<(f64, f64)> {
        self.shared.lock().report
    }

    fn describe(&self) -> String {
        self.description.clone()
    }

    fn lost(&self) -> Option<String> {
        self.shared.lock().lost.clone()
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.shared.lock().quit = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
