//! Sound through ALSA, with `libasound.so.2` opened at run time (building needs no
//! `libasound2-dev`; a machine without the library or a sound card plays silent). A thread
//! writes the PCM in periods with blocking `snd_pcm_writei`; after each write
//! `snd_pcm_delay` says how many written frames are not heard yet, which gives the song
//! position at the speaker for [`AudioOutput::position`].

use super::{AudioOutput, Timeline};
use libloading::Library;
use odori_video::audio::Pcm;
use std::ffi::{CString, c_char, c_int, c_long, c_uint, c_ulong, c_void};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

const SND_PCM_STREAM_PLAYBACK: c_int = 0;
const SND_PCM_FORMAT_S16_LE: c_int = 2;
const SND_PCM_ACCESS_RW_INTERLEAVED: c_int = 3;
/// Frames written per call (about 23 ms at 44.1 kHz): how often the position is reported.
const CHUNK: usize = 1024;
/// The latency asked of ALSA, microseconds.
const LATENCY_US: c_uint = 60_000;

type Open = unsafe extern "C" fn(*mut *mut c_void, *const c_char, c_int, c_int) -> c_int;
type SetParams =
    unsafe extern "C" fn(*mut c_void, c_int, c_int, c_uint, c_uint, c_int, c_uint) -> c_int;
type WriteI = unsafe extern "C" fn(*mut c_void, *const c_void, c_ulong) -> c_long;
type Delay = unsafe extern "C" fn(*mut c_void, *mut c_long) -> c_int;
type Recover = unsafe extern "C" fn(*mut c_void, c_int, c_int) -> c_int;
type Simple = unsafe extern "C" fn(*mut c_void) -> c_int;

/// The few libasound functions used, looked up once.
struct Api {
    set_params: SetParams,
    writei: WriteI,
    delay: Delay,
    recover: Recover,
    drop: Simple,
    prepare: Simple,
    close: Simple,
    open: Open,
    /// Keeps the functions above loaded.
    _lib: Library,
}

impl Api {
    fn load() -> Result<Api, String> {
        // SAFETY: libasound's initialisers have no preconditions; the symbols are looked up
        // with the C signatures alsa-lib declares in <alsa/pcm.h>.
        unsafe {
            let lib = Library::new("libasound.so.2")
                .map_err(|e| format!("ALSA's libasound.so.2 is not installed ({e})"))?;
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get($name)
                        .map_err(|e| format!("libasound.so.2 lacks a function: {e}"))?
                };
            }
            Ok(Api {
                open: sym!(b"snd_pcm_open\0"),
                set_params: sym!(b"snd_pcm_set_params\0"),
                writei: sym!(b"snd_pcm_writei\0"),
                delay: sym!(b"snd_pcm_delay\0"),
                recover: sym!(b"snd_pcm_recover\0"),
                drop: sym!(b"snd_pcm_drop\0"),
                prepare: sym!(b"snd_pcm_prepare\0"),
                close: sym!(b"snd_pcm_close\0"),
                _lib: lib,
            })
        }
    }
}

/// An open PCM handle; used by one thread at a time.
struct Handle {
    api: Api,
    pcm: *mut c_void,
}

// SAFETY: an ALSA PCM handle may be used from any thread as long as calls are not concurrent;
// after `AlsaOutput::open` only the writer thread touches it.
unsafe impl Send for Handle {}

impl Handle {
    fn open(device: &str, rate: u32, channels: u16) -> Result<Handle, String> {
        let api = Api::load()?;
        let name = CString::new(device).map_err(|_| format!("bad ALSA device name {device:?}"))?;
        let mut pcm = std::ptr::null_mut();
        // SAFETY: `pcm` receives the handle; `name` outlives the call.
        let rc = unsafe { (api.open)(&mut pcm, name.as_ptr(), SND_PCM_STREAM_PLAYBACK, 0) };
        if rc < 0 || pcm.is_null() {
            return Err(format!(
                "no sound device (ALSA \"{device}\" did not open, error {rc})"
            ));
        }
        let handle = Handle { api, pcm };
        // SAFETY: a handle just opened.
        let rc = unsafe {
            (handle.api.set_params)(
                pcm,
                SND_PCM_FORMAT_S16_LE,
                SND_PCM_ACCESS_RW_INTERLEAVED,
                channels as c_uint,
                rate,
                1,
                LATENCY_US,
            )
        };
        if rc < 0 {
            return Err(format!(
                "ALSA \"{device}\" refused {channels} channel(s) of 16-bit sound at {rate} Hz (error {rc})"
            ));
        }
        Ok(handle)
    }

    /// Write `frames` interleaved frames; the count written, or ALSA's error after recovery
    /// failed.
    fn write(&mut self, samples: &[i16], frames: usize) -> Result<usize, c_int> {
        // SAFETY: `samples` holds `frames` interleaved frames of the configured format.
        let n = unsafe { (self.api.writei)(self.pcm, samples.as_ptr().cast(), frames as c_ulong) };
        if n >= 0 {
            return Ok(n as usize);
        }
        // SAFETY: an open handle; `recover` handles underruns and suspends.
        let rc = unsafe { (self.api.recover)(self.pcm, n as c_int, 1) };
        if rc < 0 { Err(rc) } else { Ok(0) }
    }

    /// Frames written but not heard yet.
    fn delay(&mut self) -> Option<i64> {
        let mut d: c_long = 0;
        // SAFETY: an open handle and a place for the answer.
        (unsafe { (self.api.delay)(self.pcm, &mut d) } >= 0).then_some(d as i64)
    }

    /// Drop what is buffered and get ready for new writes.
    fn flush(&mut self) {
        // SAFETY: an open handle.
        unsafe {
            (self.api.drop)(self.pcm);
            (self.api.prepare)(self.pcm);
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: closed once, here.
        unsafe {
            (self.api.close)(self.pcm);
        }
    }
}

#[derive(Default)]
struct State {
    playing: bool,
    /// Next frame of the song to write.
    cursor: usize,
    /// Bumped by every play and pause: a write under way when it changes is flushed.
    generation: u64,
    report: Option<(f64, f64)>,
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

/// The soundtrack on an ALSA device.
pub struct AlsaOutput {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    description: String,
    rate: u32,
}

impl AlsaOutput {
    /// Open ALSA's `device` ("default", or "null" for a device that discards the sound) for
    /// `pcm`; an error says why there is no sound.
    pub fn open(device: &str, pcm: Arc<Pcm>, timeline: Timeline) -> Result<AlsaOutput, String> {
        let mut handle = Handle::open(device, pcm.sample_rate, pcm.channels)?;
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
        });
        let description = format!(
            "ALSA \"{device}\", {} Hz, {} channel(s)",
            pcm.sample_rate, pcm.channels
        );
        let rate = pcm.sample_rate;
        let worker = shared.clone();
        let thread = std::thread::Builder::new()
            .name("odori-audio".into())
            .spawn(move || write_loop(&mut handle, &pcm, &worker, timeline))
            .map_err(|e| format!("cannot start the sound thread: {e}"))?;
        Ok(AlsaOutput {
            shared,
            thread: Some(thread),
            description,
            rate,
        })
    }
}

/// The writer thread: waits while paused, writes a chunk at the cursor, reports the position.
fn write_loop(handle: &mut Handle, pcm: &Pcm, shared: &Shared, timeline: Timeline) {
    let channels = pcm.channels.max(1) as usize;
    let total = pcm.samples.len() / channels;
    let rate = pcm.sample_rate as f64;
    let mut flushed = true;
    loop {
        let (cursor, generation) = {
            let mut s = shared.lock();
            while !(s.quit || s.playing && s.cursor < total) {
                if !flushed {
                    drop(s);
                    handle.flush();
                    flushed = true;
                    s = shared.lock();
                    continue;
                }
                if s.playing && s.cursor >= total {
                    // The song ended: nothing more is heard.
                    s.report = None;
                }
                s = shared.wake.wait(s).unwrap_or_else(|p| p.into_inner());
            }
            if s.quit {
                return;
            }
            (s.cursor, s.generation)
        };
        let frames = CHUNK.min(total - cursor);
        let chunk = &pcm.samples[cursor * channels..(cursor + frames) * channels];
        flushed = false;
        let written = match handle.write(chunk, frames) {
            Ok(n) => n,
            Err(_) => {
                // The device went away: stop reporting, the clock runs on the timeline.
                let mut s = shared.lock();
                s.report = None;
                s.playing = false;
                continue;
            }
        };
        let pending = handle.delay().unwrap_or(0).max(0) as f64;
        let now = timeline.now();
        let mut s = shared.lock();
        if s.generation != generation {
            // Paused or moved while writing: what was written is stale.
            drop(s);
            handle.flush();
            flushed = true;
            continue;
        }
        s.cursor = cursor + written;
        s.report = Some(((s.cursor as f64 - pending) / rate, now));
    }
}

impl AudioOutput for AlsaOutput {
    fn play(&mut self, at: f64) {
        let mut s = self.shared.lock();
        s.cursor = (at.max(0.0) * self.rate as f64).round() as usize;
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
}

impl Drop for AlsaOutput {
    fn drop(&mut self) {
        self.shared.lock().quit = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
