//! Errors and diagnostics shared by every reader and writer.
//!
//! A reader fails with a [`FormatError`] that says which file format, which section, which
//! element and field, and at which byte offset the problem sits, so a user with a broken file
//! can find it with a hex editor. Damage that MikuMikuDance itself tolerates (a bone whose
//! parent is itself, say) does not fail the read: it becomes a [`Diagnostic`].

use std::fmt;
use std::path::PathBuf;

/// Which file format a message is about: MMD's four, and the DirectX `.x` accessories and
/// `.vac` accessory settings MMD also loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    Pmx,
    Pmd,
    Vmd,
    Vpd,
    X,
    Vac,
    Pmm,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Pmx => "PMX",
            Format::Pmd => "PMD",
            Format::Vmd => "VMD",
            Format::Vpd => "VPD",
            Format::Pmm => "PMM",
            Format::X => "DirectX .x",
            Format::Vac => "VAC",
        })
    }
}

/// Where in a file something was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub format: Format,
    /// Section name as the format's documentation calls it ("bones", "morphs", ...).
    pub section: &'static str,
    /// Element index inside the section, when the problem is inside one element.
    pub element: Option<usize>,
    /// Field name ("parent", "weight type", ...).
    pub field: &'static str,
    /// Byte offset from the start of the file (for VPD and VAC: byte offset of the line; for
    /// a compressed `.x`: offset in the decompressed data).
    pub offset: u64,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} section `{}`", self.format, self.section)?;
        if let Some(e) = self.element {
            write!(f, " element {e}")?;
        }
        write!(f, " field `{}` at byte offset {}", self.field, self.offset)
    }
}

/// What was wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("file ends early: {needed} bytes needed, {available} left")]
    Truncated { needed: u64, available: u64 },
    #[error("bad magic: expected {expected}, found {}", show_magic(found))]
    BadMagic {
        expected: &'static str,
        found: Vec<u8>,
    },
    /// No MMD format's magic at the start: the file is empty or another kind of file
    /// (see [`crate::sniff`]). `expected` is the format the file's name asks for, if any.
    #[error("{}", not_mmd(*expected, found))]
    NotMmd {
        expected: Option<Format>,
        found: Vec<u8>,
    },
    #[error("unsupported version {0}")]
    UnsupportedVersion(f32),
    #[error("count {count} cannot fit: the {available} bytes left hold at most {max} elements")]
    CountTooLarge {
        count: u64,
        max: u64,
        available: u64,
    },
    #[error("negative count {0}")]
    NegativeCount(i64),
    #[error("index {index} out of range (valid: 0..{len})")]
    IndexOutOfRange { index: i64, len: usize },
    #[error("invalid UTF-16 text")]
    InvalidUtf16,
    #[error("invalid UTF-8 text")]
    InvalidUtf8,
    #[error("odd UTF-16 byte length {0}")]
    OddUtf16Length(u64),
    #[error("not a finite number: {0}")]
    NonFinite(f32),
    #[error("invalid value {value}: {expected}")]
    InvalidValue { value: i64, expected: &'static str },
    #[error("syntax error: {0}")]
    Syntax(String),
    #[error("cannot write: {0}")]
    Unwritable(String),
    #[error("I/O error: {0}")]
    Io(String),
    /// A well-formed file this reader cannot read alone (a version 1 PMM without its models).
    #[error("{0}")]
    Unsupported(String),
    /// The file is bigger than a [`crate::limits`] limit allows; the text says which.
    #[error("it is {0}")]
    TooLarge(String),
}

/// The first bytes of a file for a message: quoted text when they are printable ASCII, else
/// hex; with what kind of file they look like, when [`crate::sniff`] knows.
fn show_magic(found: &[u8]) -> String {
    let text = found
        .iter()
        .take_while(|&&b| b != 0)
        .all(|&b| b.is_ascii_graphic() || b == b' ');
    let shown = if found.is_empty() {
        "nothing (the file is empty)".to_string()
    } else if text {
        let end = found.iter().position(|&b| b == 0).unwrap_or(found.len());
        format!("{:?}", String::from_utf8_lossy(&found[..end]))
    } else {
        let hex: Vec<String> = found.iter().take(16).map(|b| format!("{b:02x}")).collect();
        format!("bytes {}", hex.join(" "))
    };
    match crate::sniff(found) {
        Some(kind) => format!("{shown} (it looks like {kind})"),
        None => shown,
    }
}

fn not_mmd(expected: Option<Format>, found: &[u8]) -> String {
    let what = match expected {
        Some(f) => format!("not a {f} file"),
        None => "not a PMX, PMD, VMD or VPD file".to_string(),
    };
    if found.is_empty() {
        format!("{what}: the file is empty")
    } else if let Some(kind) = crate::sniff(found) {
        format!("{what} (it looks like {kind})")
    } else {
        format!("{what} (bad magic: it starts with {})", show_magic(found))
    }
}

/// What a [`FormatError`] holds.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatErrorDetail {
    /// The file, when the caller read from a path (see [`FormatError::with_path`]).
    pub path: Option<PathBuf>,
    pub location: Location,
    pub kind: ErrorKind,
}

/// A read or write failure, with its exact location. Boxed so that `Result<T, FormatError>`
/// stays one pointer wide on the hot success path; fields read through `Deref`
/// (`err.location.offset`, `err.kind`).
#[derive(Debug, Clone, PartialEq)]
pub struct FormatError(Box<FormatErrorDetail>);

impl FormatError {
    pub fn new(location: Location, kind: ErrorKind) -> Self {
        FormatError(Box::new(FormatErrorDetail {
            path: None,
            location,
            kind,
        }))
    }

    /// Attach the file name, so the message names the file.
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.0.path = Some(path.into());
        self
    }
}

impl std::ops::Deref for FormatError {
    type Target = FormatErrorDetail;
    fn deref(&self) -> &FormatErrorDetail {
        &self.0
    }
}

impl std::ops::DerefMut for FormatError {
    fn deref_mut(&mut self) -> &mut FormatErrorDetail {
        &mut self.0
    }
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.path {
            write!(f, "{}: ", p.display())?;
        }
        match self.kind {
            ErrorKind::Io(_) | ErrorKind::TooLarge(_) => {
                return write!(
                    f,
                    "cannot read the {} file: {}",
                    self.location.format, self.kind
                );
            }
            ErrorKind::NotMmd { .. } => return write!(f, "{}", self.kind),
            _ => {}
        }
        write!(f, "{}: {}", self.location, self.kind)
    }
}

impl std::error::Error for FormatError {}

/// Something wrong in a file that MikuMikuDance loads anyway, and so do we.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub location: Location,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

pub type Result<T> = std::result::Result<T, FormatError>;
