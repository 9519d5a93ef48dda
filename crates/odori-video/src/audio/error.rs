//! What can be wrong with a soundtrack, and how a file that is something else is recognised
//! for the message. Free of the encoders, so the fuzz target compiles it with the decoder alone.

use std::path::PathBuf;

/// A soundtrack that could not be read: every message names the audio file.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("cannot read the soundtrack {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{}: not a soundtrack odori can read{} (give MP3, WAV, OGG Vorbis, FLAC or AAC/M4A)",
        path.display(),
        looks_like.map(|l| format!(" (it looks like {l})")).unwrap_or_default()
    )]
    NotAudio {
        path: PathBuf,
        looks_like: Option<&'static str>,
    },
    #[error("{}: {message}", path.display())]
    Decode { path: PathBuf, message: String },
    #[error(
        "{}: the soundtrack is {length_s:.2} s long and the rendered range starts at \
         {start_s:.2} s",
        path.display()
    )]
    EndsBeforeRange {
        path: PathBuf,
        length_s: f64,
        start_s: f64,
    },
    #[error("AAC encoder: {0}")]
    Encode(String),
}

/// What a file that is no audio looks like, for the message.
pub(crate) fn looks_like(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG", "a PNG image"),
        (b"\xFF\xD8\xFF", "a JPEG image"),
        (b"BM", "a BMP image"),
        (b"GIF8", "a GIF image"),
        (b"PMX ", "a PMX model"),
        (b"Pmd", "a PMD model"),
        (b"Vocaloid Motion Data", "a VMD motion"),
        (b"Vocaloid Pose Data", "a VPD pose"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"%PDF", "a PDF document"),
    ];
    if bytes.is_empty() {
        return Some("an empty file");
    }
    MAGIC
        .iter()
        .find(|(m, _)| bytes.starts_with(m))
        .map(|(_, what)| *what)
}
