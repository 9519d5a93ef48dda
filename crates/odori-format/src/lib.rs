//! Readers and writers for MikuMikuDance's file formats: PMX and PMD models, VMD motions and
//! VPD poses.
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
mod sink;
pub mod sjis;

pub mod pmd;
pub mod pmx;
pub mod vmd;
pub mod vpd;

pub use error::{Diagnostic, ErrorKind, Format, FormatError, Location, Result};
pub use pmd::Pmd;
pub use pmx::Pmx;
pub use sjis::SjisName;
pub use vmd::Vmd;
pub use vpd::Vpd;

use std::path::Path;

/// Any of the four file kinds (boxed: the model types are large).
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Pmx(Box<Pmx>),
    Pmd(Box<Pmd>),
    Vmd(Box<Vmd>),
    Vpd(Box<Vpd>),
}

/// Which format `bytes` hold, by magic; `None` when none matches.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"PMX ") {
        Some(Format::Pmx)
    } else if bytes.starts_with(b"Pmd") {
        Some(Format::Pmd)
    } else if bytes.starts_with(vmd::MAGIC_V2) || bytes.starts_with(vmd::MAGIC_V1) {
        Some(Format::Vmd)
    } else if bytes.starts_with(b"Vocaloid Pose Data file") {
        Some(Format::Vpd)
    } else {
        None
    }
}

/// Parse bytes of any of the four formats (by magic), with diagnostics.
pub fn parse_any(bytes: &[u8]) -> Result<(Document, Vec<Diagnostic>)> {
    match detect(bytes) {
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
        None => Err(FormatError::new(
            Location {
                format: Format::Pmx,
                section: "header",
                element: None,
                field: "magic",
                offset: 0,
            },
            ErrorKind::BadMagic {
                expected: "\"PMX \", \"Pmd\", \"Vocaloid Motion Data\" or \"Vocaloid Pose Data file\"",
                found: bytes.iter().take(30).copied().collect(),
            },
        )),
    }
}

/// Read a file of any of the four formats; errors name the file.
pub fn read_path(path: impl AsRef<Path>) -> Result<(Document, Vec<Diagnostic>)> {
    let path = path.as_ref();
    let bytes = read_bytes(path)?;
    parse_any(&bytes).map_err(|e| e.with_path(path))
}

/// Read a file's bytes, turning an I/O failure into a [`FormatError`] that names the file and
/// the format its extension suggests.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| {
        let format = match path
            .extension()
            .and_then(|x| x.to_str())
            .map(|x| x.to_ascii_lowercase())
        {
            Some(x) if x == "pmd" => Format::Pmd,
            Some(x) if x == "vmd" => Format::Vmd,
            Some(x) if x == "vpd" => Format::Vpd,
            _ => Format::Pmx,
        };
        FormatError::new(
            Location {
                format,
                section: "file",
                element: None,
                field: "bytes",
                offset: 0,
            },
            ErrorKind::Io(e.to_string()),
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

impl Vpd {
    /// Read a VPD file; errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Vpd> {
        let path = path.as_ref();
        vpd::parse(&read_bytes(path)?).map_err(|e| e.with_path(path))
    }
}
