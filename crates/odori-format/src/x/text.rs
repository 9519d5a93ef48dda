//! The text encoding's tokens: identifiers, quoted strings, decimal numbers, `<GUID>`s,
//! punctuation; `//` and `#` comments to the end of the line.
//!
//! Identifiers and strings are Shift-JIS. A two-byte character's second byte can be `{`,
//! `}`, `[` or `]`, so identifiers are scanned a character at a time, never a byte.

use super::lex::{Source, Tok};
use crate::error::Result;
use crate::sjis::decode_sjis;

pub(super) struct TextLexer<'a> {
    source: Source<'a>,
    pos: usize,
}

fn is_lead_byte(b: u8) -> bool {
    matches!(b, 0x81..=0x9F | 0xE0..=0xFC)
}

/// Bytes that end an identifier or a number.
fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'<' | b'>' | b',' | b';' | b'"' | 0 | 0x1A
        )
        || b == b'/'
        || b == b'#'
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

/// Length of the identifier at the start of `bytes` (which starts with a name byte): up to
/// the first delimiter outside a two-byte character.
fn name_len(bytes: &[u8]) -> usize {
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if is_lead_byte(b) && at + 1 < bytes.len() {
            at += 2;
        } else if is_delimiter(b) {
            break;
        } else {
            at += 1;
        }
    }
    at
}

/// Whether `bytes` read back as exactly one identifier (not the `template` keyword).
pub(super) fn is_identifier(bytes: &[u8]) -> bool {
    bytes.first().is_some_and(|&b| is_name_start(b))
        && name_len(bytes) == bytes.len()
        && bytes != b"template"
}

impl<'a> TextLexer<'a> {
    pub(super) fn new(source: Source<'a>, start: usize) -> Self {
        TextLexer { source, pos: start }
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.source.data.get(at).copied()
    }

    /// Past whitespace (NUL and the DOS end-of-file byte included, which some exporters pad
    /// files with) and comments.
    fn skip_blank(&mut self) {
        while let Some(b) = self.byte(self.pos) {
            if b.is_ascii_whitespace() || b == 0 || b == 0x1A {
                self.pos += 1;
            } else if b == b'#' || (b == b'/' && self.byte(self.pos + 1) == Some(b'/')) {
                while let Some(c) = self.byte(self.pos) {
                    self.pos += 1;
                    if c == b'\n' {
                        break;
                    }
                }
            } else {
                break;
            }
        }
    }

    pub(super) fn next(&mut self) -> Result<Option<(Tok, usize)>> {
        self.skip_blank();
        let start = self.pos;
        let Some(b) = self.byte(start) else {
            return Ok(None);
        };
        let single = |tok| Ok(Some((tok, start)));
        match b {
            b'{' => {
                self.pos += 1;
                single(Tok::Open)
            }
            b'}' => {
                self.pos += 1;
                single(Tok::Close)
            }
            b',' => {
                self.pos += 1;
                single(Tok::Comma)
            }
            b';' => {
                self.pos += 1;
                single(Tok::Semicolon)
            }
            b'[' | b']' | b'(' | b')' | b'>' => {
                self.pos += 1;
                single(Tok::Other(match b {
                    b'[' => "[",
                    b']' => "]",
                    b'(' => "(",
                    b')' => ")",
                    _ => ">",
                }))
            }
            b'<' => self.guid(start),
            b'"' => self.string(start),
            b'0'..=b'9' => self.number(start),
            b'-' | b'+' | b'.' if self.starts_number(start) => self.number(start),
            // `.` alone: the `[...]` of an open template.
            b'.' => {
                self.pos += 1;
                single(Tok::Other("."))
            }
            b if is_name_start(b) => self.name(start),
            other => Err(self.source.error(
                "tokens",
                "token",
                start,
                format!("unexpected byte 0x{other:02X}"),
            )),
        }
    }

    /// Whether a sign or a point at `at` begins a number (a digit follows, after at most
    /// one point).
    fn starts_number(&self, at: usize) -> bool {
        let digit = |i: usize| self.byte(i).is_some_and(|b| b.is_ascii_digit());
        match self.byte(at) {
            Some(b'.') => digit(at + 1),
            _ => digit(at + 1) || (self.byte(at + 1) == Some(b'.') && digit(at + 2)),
        }
    }

    fn guid(&mut self, start: usize) -> Result<Option<(Tok, usize)>> {
        let rest = &self.source.data[start..];
        match rest.iter().take(64).position(|&b| b == b'>') {
            Some(end) => {
                self.pos = start + end + 1;
                Ok(Some((Tok::Guid, start)))
            }
            None => Err(self
                .source
                .error("tokens", "GUID", start, "`<` without a closing `>`")),
        }
    }

    fn string(&mut self, start: usize) -> Result<Option<(Tok, usize)>> {
        let rest = &self.source.data[start + 1..];
        // `"` is never the second byte of a Shift-JIS character (those are 0x40 and up).
        let Some(len) = rest.iter().position(|&b| b == b'"') else {
            return Err(self
                .source
                .error("tokens", "string", start, "string not closed by `\"`"));
        };
        self.pos = start + 1 + len + 1;
        Ok(Some((Tok::Str(rest[..len].to_vec()), start)))
    }

    fn name(&mut self, start: usize) -> Result<Option<(Tok, usize)>> {
        let at = start + name_len(&self.source.data[start..]);
        self.pos = at;
        let raw = &self.source.data[start..at];
        if raw == b"template" {
            return Ok(Some((Tok::Template, start)));
        }
        Ok(Some((Tok::Name(raw.to_vec()), start)))
    }

    fn number(&mut self, start: usize) -> Result<Option<(Tok, usize)>> {
        let mut at = start;
        while let Some(b) = self.byte(at) {
            if is_delimiter(b) {
                break;
            }
            at += 1;
        }
        self.pos = at;
        let raw = &self.source.data[start..at];
        let text = std::str::from_utf8(raw).unwrap_or("");
        let integral = !text.is_empty()
            && text
                .bytes()
                .enumerate()
                .all(|(i, b)| b.is_ascii_digit() || (i == 0 && (b == b'-' || b == b'+')));
        if integral && let Ok(i) = text.parse::<i64>() {
            return Ok(Some((Tok::Int(i), start)));
        }
        match text.parse::<f32>() {
            Ok(f) if f.is_finite() => Ok(Some((Tok::Float(f), start))),
            Ok(f) => Err(self.source.error(
                "tokens",
                "number",
                start,
                format!("not a finite number: {f}"),
            )),
            Err(_) => Err(self.source.error(
                "tokens",
                "number",
                start,
                format!("malformed number {:?}", String::from_utf8_lossy(raw)),
            )),
        }
    }
}

/// Shift-JIS bytes to text; anything that does not decode is an error, so what the writer
/// encodes again reads back the same.
pub(super) fn decode(
    source: &Source<'_>,
    raw: &[u8],
    offset: usize,
    field: &'static str,
) -> Result<String> {
    let text = decode_sjis(raw);
    // A trailing half character is dropped by the decoder, so the lengths differ: refused
    // too.
    if text.contains('\u{FFFD}') || crate::sjis::encode_sjis(&text).len() != raw.len() {
        return Err(source.error("tokens", field, offset, "invalid Shift-JIS text"));
    }
    Ok(text.into_owned())
}
