//! The most odori lets a file's own words make it allocate, in one place for every reader.
//!
//! MMD files, textures and zips come from strangers: a header may claim anything, and a reader
//! that believes it swaps for minutes before it fails. Counts inside a file are already checked
//! against the bytes left (see the readers); these limits bound what no count check can: how
//! big a file may be before it is read, how big an image may say it is, how far a zip may
//! expand. Each is generous for real models and has an environment variable to raise it for the
//! rare user who needs more (the page has no environment: there the defaults hold).

use std::io::Read;
use std::path::Path;

/// One limit: its default, the environment variable that raises it, and what it bounds (for
/// messages and the docs' table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// What is bounded, as a message says it ("an MMD file's size").
    pub what: &'static str,
    /// The default, in [`Limit::unit`]s.
    pub default: u64,
    /// The unit the default and the environment variable are in ("MiB", "pixels").
    pub unit: &'static str,
    /// The environment variable that replaces the default (`None`: fixed).
    pub env: Option<&'static str>,
}

impl Limit {
    /// The limit in effect: the environment variable's value when it is set to a positive
    /// whole number, else the default.
    pub fn value(&self) -> u64 {
        self.env
            .and_then(|name| std::env::var(name).ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|&v| v > 0)
            .unwrap_or(self.default)
    }

    /// [`Limit::value`] in bytes, for limits whose unit is MiB.
    pub fn bytes(&self) -> u64 {
        debug_assert_eq!(self.unit, "MiB");
        self.value().saturating_mul(1 << 20)
    }

    /// "the 1024 MiB limit on an MMD file's size (set ODORI_MAX_FILE_MIB to raise it)".
    pub fn describe(&self) -> String {
        let raise = match self.env {
            Some(env) => format!(" (set {env} to raise it)"),
            None => String::new(),
        };
        format!(
            "the {} {} limit on {}{raise}",
            self.value(),
            self.unit,
            self.what
        )
    }
}

/// PMX, PMD, VMD and VPD files: the largest real ones (camera motions of a whole song, models
/// with millions of vertices) are a few hundred MiB.
pub const MMD_FILE: Limit = Limit {
    what: "an MMD file's size",
    default: 1024,
    unit: "MiB",
    env: Some("ODORI_MAX_FILE_MIB"),
};

/// Soundtracks: an hour of 96 kHz 24-bit stereo WAV is about 2 GiB.
pub const AUDIO_FILE: Limit = Limit {
    what: "a soundtrack's size",
    default: 2048,
    unit: "MiB",
    env: Some("ODORI_MAX_AUDIO_MIB"),
};

/// A texture's width or height as its header says it (GPUs' own limit is 16384 on most
/// desktop cards).
pub const TEXTURE_SIDE: Limit = Limit {
    what: "a texture's width and height",
    default: 16384,
    unit: "pixels",
    env: Some("ODORI_MAX_TEXTURE_SIDE"),
};

/// What decoding one texture may allocate, and how big its file may be (a 16384² RGBA image
/// is 1 GiB).
pub const TEXTURE_BYTES: Limit = Limit {
    what: "a texture's decoded size",
    default: 1024,
    unit: "MiB",
    env: Some("ODORI_MAX_TEXTURE_MIB"),
};

/// Everything a zip dropped on the page expands to (the page holds every file in memory and
/// wasm32 has 4 GiB).
pub const ZIP_EXPANDED: Limit = Limit {
    what: "what a zip expands to",
    default: 1024,
    unit: "MiB",
    env: None,
};

/// Entries in one zip (a model with every texture has a few hundred).
pub const ZIP_ENTRIES: Limit = Limit {
    what: "the entries in a zip",
    default: 65536,
    unit: "entries",
    env: None,
};

/// How much bigger an entry may say it expands to than its compressed bytes: deflate cannot
/// do better than about 1032 to 1, so a larger claim is a lie (or a method odori does not read).
pub const ZIP_RATIO: Limit = Limit {
    what: "an entry's expansion ratio",
    default: 1100,
    unit: "to 1",
    env: None,
};

/// Every limit, for the docs' table.
pub const ALL: &[Limit] = &[
    MMD_FILE,
    AUDIO_FILE,
    TEXTURE_SIDE,
    TEXTURE_BYTES,
    ZIP_EXPANDED,
    ZIP_ENTRIES,
    ZIP_RATIO,
];

/// Why a file was not read: it could not be, or it is bigger than `limit` allows.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    TooLarge { size: u64, limit: Limit },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::TooLarge { size, limit } => {
                write!(f, "{}, over {}", show_size(*size), limit.describe())
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// "2048.0 MiB" or "more than 1024.0 MiB" (a stream's size is known only up to the limit).
fn show_size(size: u64) -> String {
    format!("{:.1} MiB", size as f64 / (1u64 << 20) as f64)
}

/// Read the file at `path` whole, refusing it before reading when its size is over `limit`
/// (a limit in MiB), and stopping at the limit when the size is not known beforehand (a pipe,
/// a device, a file still growing).
pub fn read_file(path: &Path, limit: &Limit) -> Result<Vec<u8>, ReadError> {
    let max = limit.bytes();
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if meta.is_dir() {
        return Err(ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a folder, not a file",
        )));
    }
    if meta.len() > max {
        return Err(ReadError::TooLarge {
            size: meta.len(),
            limit: *limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge {
            size: bytes.len() as u64,
            limit: *limit,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Evidence: the file system's own size for a sparse file, set with `set_len`; the limit's
    // arithmetic is MiB = 2^20 bytes.
    #[test]
    fn a_file_over_the_limit_is_refused_before_reading() {
        let dir = std::env::temp_dir().join(format!("odori-limits-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("huge.vmd");
        let f = std::fs::File::create(&path).unwrap();
        // Sparse: 2 GiB claimed, nothing written; reading it would take seconds and 2 GiB.
        f.set_len(2 << 30).unwrap();
        let err = read_file(&path, &MMD_FILE).unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(err, ReadError::TooLarge { size, .. } if size == 2 << 30),
            "{text}"
        );
        assert!(
            text.contains("2048.0 MiB") && text.contains("ODORI_MAX_FILE_MIB"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_device_is_read_only_up_to_the_limit() {
        let small = Limit {
            what: "a test",
            default: 1,
            unit: "MiB",
            env: None,
        };
        // /dev/zero says its size is 0 and never ends.
        let err = read_file(Path::new("/dev/zero"), &small).unwrap_err();
        assert!(
            matches!(err, ReadError::TooLarge { size, .. } if size == (1 << 20) + 1),
            "{err}"
        );
    }

    #[test]
    fn a_folder_is_an_error() {
        let err = read_file(&std::env::temp_dir(), &MMD_FILE).unwrap_err();
        assert!(err.to_string().contains("folder"), "{err}");
    }
}
