//! Sound through ALSA, with `libasound.so.2` opened at run time (building needs no
//! `libasound2-dev`; a machine without the library or a sound card plays silent). The
//! writing thread ([`super::stream`]) writes the PCM in periods with blocking
//! `snd_pcm_writei`; after each write `snd_pcm_delay` says how many written frames are not
//! heard yet, which gives the song position at the speaker for [`AudioOutput::position`].

use super::stream::{PcmDevice, Stream};
use super::{AudioOutput, Timeline};
use libloading::Library;
use odori_video::audio::Pcm;
use std::ffi::{CString, c_char, c_int, c_long, c_uint, c_ulong, c_void};
use std::sync::Arc;

const SND_PCM_STREAM_PLAYBACK: c_int = 0;
const SND_PCM_FORMAT_S16_LE: c_int = 2;
const SND_PCM_ACCESS_RW_INTERLEAVED: c_int = 3;
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

/// The soundtrack on an ALSA device.
pub struct AlsaOutput {
    stream: Stream,
}

impl AlsaOutput {
    /// Open ALSA's `device` ("default", or "null" for a device that discards the sound) for
    /// `pcm`; an error says why there is no sound.
    pub fn open(device: &str, pcm: Arc<Pcm>, timeline: Timeline) -> Result<AlsaOutput, String> {
        let handle = Handle::open(device, pcm.sample_rate, pcm.channels)?;
        let description = format!(
            "ALSA \"{device}\", {} Hz, {} channel(s)",
            pcm.sample_rate, pcm.channels
        );
        Ok(AlsaOutput {
            stream: Stream::start(handle, pcm, timeline, description)?,
        })
    }
}

impl PcmDevice for Handle {
    fn write(&mut self, samples: &[i16], frames: usize) -> Result<usize, i32> {
        Handle::write(self, samples, frames)
    }
    fn delay(&mut self) -> Option<i64> {
        Handle::delay(self)
    }
    fn flush(&mut self) {
        Handle::flush(self)
    }
}

impl AudioOutput for AlsaOutput {
    fn play(&mut self, at: f64, speed: f64) {
        self.stream.play(at, speed)
    }

    fn pause(&mut self) {
        self.stream.pause()
    }

    fn position(&self) -> Option<(f64, f64)> {
        self.stream.position()
    }

    fn describe(&self) -> String {
        self.stream.describe()
    }
}
