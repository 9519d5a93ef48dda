//! Splits VPD text into its meaningful lines: comments and blank lines dropped, each kept line
//! decoded from Shift-JIS, trimmed, and tagged with the byte offset where it starts (so errors
//! point at the line in the file).

use crate::error::{ErrorKind, Format, FormatError, Location, Result};
use crate::sjis::decode_sjis;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// One line's content, without its comment and surrounding whitespace; never empty.
pub(super) struct Line {
    /// Byte offset of the line's first byte in the file.
    pub offset: usize,
    pub text: String,
}

/// The non-empty lines of `bytes`, in order.
pub(super) struct Lines<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Lines<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        // Not written by MMD, but harmless: a BOM would otherwise spoil the magic line.
        let pos = if bytes.starts_with(UTF8_BOM) {
            UTF8_BOM.len()
        } else {
            0
        };
        Lines { bytes, pos }
    }

    /// Offset of the end of the file (where a missing line would have been).
    pub(super) fn end(&self) -> usize {
        self.bytes.len()
    }

    /// The next non-empty line, `None` at the end; text that is not valid Shift-JIS is an
    /// error (`section` names where we are, for that message).
    pub(super) fn next(&mut self, section: &'static str) -> Result<Option<Line>> {
        while self.pos < self.bytes.len() {
            let offset = self.pos;
            let rest = self.bytes.get(offset..).unwrap_or_default();
            let len = rest.iter().position(|&b| b == b'\n');
            self.pos = len.map_or(self.bytes.len(), |n| offset + n + 1);
            let raw = &rest[..len.unwrap_or(rest.len())];
            // "//" cannot occur inside a Shift-JIS character (trail bytes are 0x40 and up),
            // so cutting on bytes before decoding is safe, and a comment in another encoding
            // cannot spoil the line.
            let content = raw
                .windows(2)
                .position(|w| w == b"//")
                .map_or(raw, |i| &raw[..i]);
            let text = decode_sjis(content);
            if text.contains('\u{FFFD}') {
                return Err(syntax(section, "text", offset, "invalid Shift-JIS text"));
            }
            let text = text.trim();
            if !text.is_empty() {
                return Ok(Some(Line {
                    offset,
                    text: text.to_owned(),
                }));
            }
        }
        Ok(None)
    }
}

/// A VPD syntax error at the line starting at `offset`.
pub(super) fn syntax(
    section: &'static str,
    field: &'static str,
    offset: usize,
    message: &str,
) -> FormatError {
    error(
        section,
        None,
        field,
        offset,
        ErrorKind::Syntax(message.to_owned()),
    )
}

pub(super) fn error(
    section: &'static str,
    element: Option<usize>,
    field: &'static str,
    offset: usize,
    kind: ErrorKind,
) -> FormatError {
    FormatError::new(
        Location {
            format: Format::Vpd,
            section,
            element,
            field,
            offset: offset as u64,
        },
        kind,
    )
}
