//! The 16-byte `.x` header: `xof `, a four-digit version (`0302`, `0303`), the encoding
//! (`txt `, `bin `, `tzip`, `bzip`) and the float size (`0032`, `0064`).

use super::lex::error_at;
use crate::error::{ErrorKind, Result};

pub(super) const MAGIC: &[u8; 4] = b"xof ";
pub(super) const LEN: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Text,
    Binary,
    /// MSZIP-compressed text (`tzip`).
    CompressedText,
    /// MSZIP-compressed binary (`bzip`).
    CompressedBinary,
}

impl Encoding {
    pub fn is_binary(self) -> bool {
        matches!(self, Encoding::Binary | Encoding::CompressedBinary)
    }

    pub fn is_compressed(self) -> bool {
        matches!(self, Encoding::CompressedText | Encoding::CompressedBinary)
    }

    /// What the encoding is called, for messages and `odori info`.
    pub fn describe(self) -> &'static str {
        match self {
            Encoding::Text => "text",
            Encoding::Binary => "binary",
            Encoding::CompressedText => "MSZIP-compressed text",
            Encoding::CompressedBinary => "MSZIP-compressed binary",
        }
    }

    fn tag(self) -> &'static [u8; 4] {
        match self {
            Encoding::Text => b"txt ",
            Encoding::Binary => b"bin ",
            Encoding::CompressedText => b"tzip",
            Encoding::CompressedBinary => b"bzip",
        }
    }
}

/// Size of a float in a binary file's float lists (a text file's header says it too, but
/// its numbers are decimal either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatSize {
    F32,
    F64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Major and minor version, each two decimal digits in the file (3 and 2 for `0302`).
    pub major: u8,
    pub minor: u8,
    pub encoding: Encoding,
    pub float_size: FloatSize,
}

impl Header {
    /// A version 3.3 header.
    pub fn new(encoding: Encoding, float_size: FloatSize) -> Header {
        Header {
            major: 3,
            minor: 3,
            encoding,
            float_size,
        }
    }

    pub(super) fn parse(bytes: &[u8]) -> Result<Header> {
        let Some(head) = bytes.get(..LEN) else {
            if !MAGIC.starts_with(bytes.get(..4).unwrap_or(bytes)) {
                return Err(bad_magic(bytes));
            }
            return Err(error_at(
                "header",
                "header",
                0,
                ErrorKind::Truncated {
                    needed: LEN as u64,
                    available: bytes.len() as u64,
                },
            ));
        };
        if &head[..4] != MAGIC {
            return Err(bad_magic(bytes));
        }
        let digits = |at: usize, field: &'static str| -> Result<u8> {
            let pair = &head[at..at + 2];
            if pair.iter().all(u8::is_ascii_digit) {
                Ok((pair[0] - b'0') * 10 + (pair[1] - b'0'))
            } else {
                Err(syntax(
                    field,
                    at,
                    format!("expected two digits, found {pair:?}"),
                ))
            }
        };
        let major = digits(4, "major version")?;
        let minor = digits(6, "minor version")?;
        let encoding = match &head[8..12] {
            b"txt " => Encoding::Text,
            b"bin " => Encoding::Binary,
            b"tzip" => Encoding::CompressedText,
            b"bzip" => Encoding::CompressedBinary,
            other => {
                let shown = String::from_utf8_lossy(other);
                let message =
                    format!("unknown encoding {shown:?} (expected txt, bin, tzip or bzip)");
                return Err(syntax("encoding", 8, message));
            }
        };
        let float_size = match &head[12..16] {
            b"0032" => FloatSize::F32,
            b"0064" => FloatSize::F64,
            other => {
                let shown = String::from_utf8_lossy(other);
                let message = format!("unknown float size {shown:?} (expected 0032 or 0064)");
                return Err(syntax("float size", 12, message));
            }
        };
        Ok(Header {
            major,
            minor,
            encoding,
            float_size,
        })
    }

    pub(super) fn bytes(&self) -> [u8; LEN] {
        let mut out = [0u8; LEN];
        out[..4].copy_from_slice(MAGIC);
        let two = |v: u8| [b'0' + v / 10 % 10, b'0' + v % 10];
        out[4..6].copy_from_slice(&two(self.major));
        out[6..8].copy_from_slice(&two(self.minor));
        out[8..12].copy_from_slice(self.encoding.tag());
        out[12..16].copy_from_slice(match self.float_size {
            FloatSize::F32 => b"0032",
            FloatSize::F64 => b"0064",
        });
        out
    }
}

fn bad_magic(bytes: &[u8]) -> crate::FormatError {
    error_at(
        "header",
        "magic",
        0,
        ErrorKind::BadMagic {
            expected: "\"xof \"",
            found: bytes.iter().take(16).copied().collect(),
        },
    )
}

fn syntax(field: &'static str, offset: usize, message: String) -> crate::FormatError {
    error_at("header", field, offset, ErrorKind::Syntax(message))
}
