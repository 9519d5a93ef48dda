//! Reading the soundtrack into an MP4 audio track that every player plays, in step with the
//! picture.
//!
//! Every format goes through symphonia (MP3, WAV, OGG Vorbis, FLAC, AAC/M4A): an MP3 keeps its
//! frames as they are (no second lossy pass; MP3 in MP4 plays in browsers and players alike),
//! anything else is decoded and encoded to AAC-LC in-process (Fraunhofer FDK AAC, built from
//! source by `fdk-aac-sys`), so a WAV, the soundtrack MikuMikuDance itself loads, becomes sound
//! a browser plays with no system package.
//!
//! Lining sound up with the picture: every MP3 and AAC stream starts with codec delay (an MP3
//! decoder's 529 samples, plus what the encoder put in front, which LAME records in its tag;
//! the AAC encoder's priming samples). Stored naively that delay plays first and the dance
//! looks early by 25–70 ms. The track's edit list (`elst`) skips exactly those samples, and
//! the MP3 cut for a range that starts at frame N > 0 is placed to the sample.

mod aac;
mod claims;
mod decode;
mod error;
mod mp3;

pub use decode::Pcm;
pub(crate) use decode::Range;
pub use error::AudioError;
pub(crate) use error::looks_like;

use crate::mp4::AudioTrack;
use std::path::Path;

/// Read the soundtrack at `path` for the rendered range: `start_s..start_s + len_s` seconds of
/// the song (frame N of the motion is second N / 30 of the song, as in MikuMikuDance).
pub fn read(path: &Path, start_s: f64, len_s: f64) -> Result<AudioTrack, AudioError> {
    let bytes = read_bytes(path)?;
    track(path, bytes, start_s, len_s)
}

/// Check, before any work, that `path` is a soundtrack odori can read (the whole file is read
/// and its container parsed; nothing is decoded).
pub fn check(path: &Path) -> Result<(), AudioError> {
    let bytes = read_bytes(path)?;
    probe(path, bytes)
}

/// [`check`] on bytes already in memory (`path` names them in messages): the container is
/// parsed and a track with a sample rate found; nothing is decoded.
pub fn probe(path: &Path, bytes: Vec<u8>) -> Result<(), AudioError> {
    decode::Source::open(path, bytes).map(|_| ())
}

/// The soundtrack's bytes, within [`odori_format::limits::AUDIO_FILE`].
fn read_bytes(path: &Path) -> Result<Vec<u8>, AudioError> {
    use odori_format::limits::{AUDIO_FILE, ReadError, read_file};
    read_file(path, &AUDIO_FILE).map_err(|e| match e {
        ReadError::Io(source) => AudioError::Read {
            path: path.to_path_buf(),
            source,
        },
        too_large => AudioError::Decode {
            path: path.to_path_buf(),
            message: format!("it is {too_large}"),
        },
    })
}

/// The whole soundtrack at `path` decoded to 16-bit PCM (one or two channels), sample 0 being
/// the song's first: what a real-time player hands to the sound card. The codec delay is
/// skipped as for the MP4 track (an MP3's LAME tag says how much; without one, the decoder's
/// own 529 samples).
pub fn decode_pcm(path: &Path) -> Result<Pcm, AudioError> {
    let bytes = read_bytes(path)?;
    let mut source = decode::Source::open(path, bytes)?;
    // symphonia trims what the LAME tag declares (gapless); an untagged MP3 still starts with
    // the decoder's delay.
    let skip = if source.is_mp3() && source.encoder_delay().is_none() {
        mp3::DECODER_DELAY as f64 / source.sample_rate() as f64
    } else {
        0.0
    };
    source.decode_range(
        path,
        Range {
            start_s: skip,
            // Longer than any song (115 days): to the end.
            len_s: 1e7,
        },
    )
}

/// [`read`] on bytes already in memory (`path` names them in messages).
pub fn track(
    path: &Path,
    bytes: Vec<u8>,
    start_s: f64,
    len_s: f64,
) -> Result<AudioTrack, AudioError> {
    let range = Range {
        start_s: start_s.max(0.0),
        len_s: len_s.max(0.0),
    };
    let mut source = decode::Source::open(path, bytes)?;
    if source.is_mp3() {
        mp3::cut(path, &mut source, range)
    } else {
        let pcm = source.decode_range(path, range)?;
        aac::encode(pcm)
    }
}
