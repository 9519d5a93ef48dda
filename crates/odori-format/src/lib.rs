//! Readers and writers for MikuMikuDance's file formats: PMX and PMD models, VMD motions and
//! VPD poses, and the DirectX `.x` accessories and `.vac` accessory settings MMD also loads.
//!
//! The types mirror the files field for field (a "raw" layer, like the gltf crate's): reading
//! then writing a canonical file gives back its bytes. Nothing here knows about animation or
//! math; `odori-pose` compiles these into runtime structures.
//!
//! Every reader takes bytes and never panics: truncated, corrupted or hostile input gives a
//! [`FormatError`] naming the format, section, element, field and byte offset. Element counts
//! are checked against the bytes left before allocating. Damage that MikuMikuDance tolerates
//! gives a [`Diagnostic`] instead (see each format's `parse_with_diagnostics`).

mod cursor;
pub mod error;
pub mod faces;
pub mod limits;
mod sink;
pub mod sjis;

pub mod pmd;
pub mod pmm;
pub mod pmx;
pub mod vac;
pub mod vmd;
pub mod vpd;
pub mod x;

pub use error::{Diagnostic, ErrorKind, Format, FormatError, Location, Result};
pub use pmd::Pmd;
pub use pmm::Pmm;
pub use pmx::Pmx;
pub use sjis::SjisName;
pub use vac::Vac;
pub use vmd::Vmd;
pub use vpd::Vpd;
pub use x::XFile;

use std::path::Path;

/// Any of the file kinds (boxed: the model types are large).
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Pmx(Box<Pmx>),
    Pmd(Box<Pmd>),
    Vmd(Box<Vmd>),
    Vpd(Box<Vpd>),
    /// A DirectX `.x` accessory.
    X(Box<XFile>),
    /// A `.vac` accessory setting (known by its file name: it has no magic).
    Vac(Box<Vac>),
}

/// Which format `bytes` hold, by magic; `None` when none matches (a `.vac` has no magic).
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"PMX ") {
        Some(Format::Pmx)
    } else if bytes.starts_with(b"Pmd") {
        Some(Format::Pmd)
    } else if bytes.starts_with(vmd::MAGIC_V2) || bytes.starts_with(vmd::MAGIC_V1) {
        Some(Format::Vmd)
    } else if bytes.starts_with(b"Vocaloid Pose Data file") {
        Some(Format::Vpd)
    } else if bytes.starts_with(pmm::MAGIC_V2) || bytes.starts_with(pmm::MAGIC_V1) {
        Some(Format::Pmm)
    } else if bytes.starts_with(b"xof ") {
        Some(Format::X)
    } else {
        None
    }
}

/// What kind of (non-MMD) file `bytes` look like, by magic, for messages: "a PNG image",
/// "a ZIP archive"… `None` when nothing known matches (MMD's own formats included: see
/// [`detect`]).
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    const KINDS: &[(usize, &[u8], &str)] = &[
        (0, b"\x89PNG", "a PNG image"),
        (0, b"\xff\xd8\xff", "a JPEG image"),
        (0, b"GIF87a", "a GIF image"),
        (0, b"GIF89a", "a GIF image"),
        (0, b"BM", "a BMP image"),
        (0, b"DDS ", "a DDS texture"),
        (8, b"WEBP", "a WebP image"),
        (8, b"WAVE", "a WAV audio file"),
        (8, b"AVI ", "an AVI video"),
        (0, b"ID3", "an MP3 audio file"),
        (0, b"\xff\xfb", "an MP3 audio file"),
        (0, b"\xff\xf3", "an MP3 audio file"),
        (0, b"\xff\xf2", "an MP3 audio file"),
        (0, b"OggS", "an Ogg audio file"),
        (0, b"fLaC", "a FLAC audio file"),
        (4, b"ftyp", "an MP4 video"),
        (0, b"PK\x03\x04", "a ZIP archive"),
        (0, b"Rar!", "a RAR archive"),
        (0, b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
        (0, b"\x1f\x8b", "a gzip archive"),
        (0, b"%PDF", "a PDF document"),
        (0, b"glTF", "a binary glTF model"),
        (0, b"Kaydara FBX Binary", "an FBX model"),
        (0, b"xof ", "a DirectX .x model"),
        (0, b"Metasequoia Document", "a Metasequoia model"),
        (0, b"\x7fELF", "a program (ELF)"),
        (0, b"MZ", "a Windows program"),
    ];
    if detect(bytes).is_some() {
        return None;
    }
    for &(at, magic, kind) in KINDS {
        if bytes.get(at..at + magic.len()) == Some(magic) {
            return Some(kind);
        }
    }
    None
}

/// The format a file's name asks for (`.pmx`, `.pmd`, `.vmd`, `.vpd`, `.x`, `.vac`, any case).
pub fn format_of_path(path: &Path) -> Option<Format> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "pmx" => Some(Format::Pmx),
        "pmd" => Some(Format::Pmd),
        "vmd" => Some(Format::Vmd),
        "vpd" => Some(Format::Vpd),
        "x" => Some(Format::X),
        "vac" => Some(Format::Vac),
        _ => None,
    }
}

/// Parse bytes of any format with a magic (all but `.vac`), with diagnostics.
pub fn parse_any(bytes: &[u8]) -> Result<(Document, Vec<Diagnostic>)> {
    parse_expecting(bytes, None)
}

/// [`parse_any`], with the format the caller expects (from a file name) for the message when
/// no format's magic matches.
fn parse_expecting(bytes: &[u8], expected: Option<Format>) -> Result<(Document, Vec<Diagnostic>)> {
    // A file cut inside its magic is read as that format, which reports it truncated.
    let cut_magic = || {
        let magics: [(&[u8], Format); 6] = [
            (b"PMX ", Format::Pmx),
            (b"Pmd", Format::Pmd),
            (vmd::MAGIC_V2, Format::Vmd),
            (vmd::MAGIC_V1, Format::Vmd),
            (b"Vocaloid Pose Data file", Format::Vpd),
            (b"xof ", Format::X),
        ];
        (!bytes.is_empty())
            .then(|| magics.into_iter().find(|(m, _)| m.starts_with(bytes)))
            .flatten()
            .map(|(_, f)| f)
    };
    // A .vac has no magic: its name says what it is.
    let vac = || (expected == Some(Format::Vac)).then_some(Format::Vac);
    match detect(bytes).or_else(cut_magic).or_else(vac) {
        Some(Format::Pmx) => {
            pmx::parse_with_diagnostics(bytes).map(|(d, g)| (Document::Pmx(Box::new(d)), g))
        }
        Some(Format::Pmd) => {
            pmd::parse_with_diagnostics(bytes).map(|(d, g)| (Document::Pmd(Box::new(d)), g))
        }
        Some(Format::Vmd) => {
            vmd::parse_with_diagnostics(bytes).map(|(d, g)| (Document::Vmd(Box::new(d)), g))
        }
        Some(Format::Vpd) => vpd::parse(bytes).map(|d| (Document::Vpd(Box::new(d)), Vec::new())),
        Some(Format::X) => x::parse(bytes).map(|d| (Document::X(Box::new(d)), Vec::new())),
        Some(Format::Vac) => vac::parse(bytes).map(|d| (Document::Vac(Box::new(d)), Vec::new())),
        // A project holds many files' worth of data: its callers read it as a project.
        Some(Format::Pmm) => Err(FormatError::new(
            Location {
                format: Format::Pmm,
                section: "header",
                element: None,
                field: "magic",
                offset: 0,
            },
            ErrorKind::Unsupported(
                "a MikuMikuDance project (.pmm), not a single model or motion: \
                 open it as a project (odori_format::Pmm)"
                    .into(),
            ),
        )),
        None => Err(FormatError::new(
            Location {
                format: expected.unwrap_or(Format::Pmx),
                section: "header",
                element: None,
                field: "magic",
                offset: 0,
            },
            ErrorKind::NotMmd {
                expected,
                found: bytes.iter().take(30).copied().collect(),
            },
        )),
    }
}

/// Read a file of any of the formats; errors name the file.
pub fn read_path(path: impl AsRef<Path>) -> Result<(Document, Vec<Diagnostic>)> {
    let path = path.as_ref();
    let bytes = read_bytes(path)?;
    parse_expecting(&bytes, format_of_path(path)).map_err(|e| e.with_path(path))
}

/// Read a file's bytes, turning an I/O failure or a file over [`limits::MMD_FILE`] into a
/// [`FormatError`] that names the file and the format its extension suggests.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    limits::read_file(path, &limits::MMD_FILE).map_err(|e| {
        let format = format_of_path(path).unwrap_or(Format::Pmx);
        let kind = match e {
            limits::ReadError::Io(e) => ErrorKind::Io(e.to_string()),
            too_large => ErrorKind::TooLarge(too_large.to_string()),
        };
        FormatError::new(
            Location {
                format,
                section: "file",
                element: None,
                field: "bytes",
                offset: 0,
            },
            kind,
        )
        .with_path(path)
    })
}

impl Pmx {
    /// Read a PMX file; errors name the file. Diagnostics are dropped (see
    /// [`pmx::parse_with_diagnostics`]).
    pub fn read(path: impl AsRef<Path>) -> Result<Pmx> {
        let path = path.as_ref();
        pmx::parse(&read_bytes(path)?).map_err(|e| e.with_path(path))
    }
}

impl Pmd {
    /// Read a PMD file; errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Pmd> {
        let path = path.as_ref();
        pmd::parse(&read_bytes(path)?).map_err(|e| e.with_path(path))
    }
}

impl Vmd {
    /// Read a VMD file; errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Vmd> {
        let path = path.as_ref();
        vmd::parse(&read_bytes(path)?).map_err(|e| e.with_path(path))
    }
}

impl Pmm {
    /// Read a version 2 PMM project; errors name the file. Diagnostics are dropped (see
    /// [`pmm::parse_with_diagnostics`]).
    pub fn read(path: impl AsRef<Path>) -> Result<Pmm> {
        let path = path.as_ref();
        let bytes = read_bytes(path).map_err(|mut e| {
            e.location.format = Format::Pmm;
            e
        })?;
        pmm::parse(&bytes).map_err(|e| e.with_path(path))
    }
}

impl Vpd {
    /// Read a VPD file; errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Vpd> {
        let path = path.as_ref();
        vpd::parse(&read_bytes(path)?).map_err(|e| e.with_path(path))
    }
}

impl XFile {
    /// Read a DirectX `.x` file; errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<XFile> {
        let path = path.as_ref();
        x::parse(&read_bytes(path)?).map_err(|e| e.with_path(path))
    }
}

impl Vac {
    /// Read a `.vac` accessory setting; errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Vac> {
        let path = path.as_ref();
        vac::parse(&read_bytes(path)?).map_err(|e| e.with_path(path))
    }
}
