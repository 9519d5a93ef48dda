#![no_main]
//! Fuzz the soundtrack reader (symphonia behind odori's `Source`: MP3, WAV, OGG Vorbis, FLAC,
//! AAC/M4A), as `odori render --audio` and the window open a song someone gave them: any input
//! must open and decode or fail with an `AudioError`, never panic, and what decodes must be
//! whole frames of the one or two channels the source reports.
//!
//! The reader's source files are compiled in here as they ship (`#[path]`): the decoder, the
//! metadata length checks and the errors, without the AAC and H.264 encoders the rest of
//! odori-video builds from C. The first byte picks the extension the file is named with (the
//! probe takes it as a hint).
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::sync::Once;

#[path = "../../crates/odori-video/src/audio/error.rs"]
#[allow(dead_code)]
mod error;
// `decode` reads these from its parent, as in odori-video's `audio` module.
use error::{AudioError, looks_like};

#[path = "../../crates/odori-video/src/audio/claims.rs"]
mod claims;

#[path = "../../crates/odori-video/src/audio/decode.rs"]
#[allow(dead_code)]
mod decode;

const EXTENSIONS: [&str; 7] = ["mp3", "wav", "ogg", "flac", "m4a", "aac", "bin"];

/// libfuzzer-sys's panic hook aborts on every panic, caught or not. odori catches the panics
/// of symphonia's readers (`decode::guarded`, which turns them into the file's error), so the
/// standard hook is put back: a panic odori catches is then an error like any other, and one
/// that escapes still aborts (libfuzzer-sys catches it around the target and aborts).
static STANDARD_HOOK: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    STANDARD_HOOK.call_once(|| drop(std::panic::take_hook()));
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let name = format!("song.{}", EXTENSIONS[pick as usize % EXTENSIONS.len()]);
    let path = Path::new(&name);
    let Ok(mut source) = decode::Source::open(path, bytes.to_vec()) else {
        return;
    };
    let channels = source.channels().clamp(1, 2);
    // Ten minutes of song at most: a fuzzed header may claim any length.
    let range = decode::Range {
        start_s: 0.0,
        len_s: 600.0,
    };
    match source.decode_range(path, range) {
        Ok(pcm) => {
            assert_eq!(pcm.channels, channels);
            assert_eq!(pcm.samples.len() % channels as usize, 0);
        }
        Err(e) => {
            let _: &AudioError = &e;
            assert!(e.to_string().contains(&name), "{e}");
        }
    }
});
