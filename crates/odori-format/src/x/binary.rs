//! The binary encoding's tokens: a little-endian `u16` token code, then its payload.
//!
//! | code | token | payload |
//! |---|---|---|
//! | 1 | name | `u32` length, bytes |
//! | 2 | string | `u32` length, bytes, then a `u16` `;` or `,` token ending it |
//! | 3 | integer | `u32` |
//! | 5 | GUID | 16 bytes |
//! | 6 | integer list | `u32` count, `u32` × count |
//! | 7 | float list | `u32` count, `f32` or `f64` (the header says which) × count |
//! | 10–20 | `{ } ( ) [ ] < > . , ;` | none |
//! | 31 | `template` | none |
//! | 40–53 | type keywords (`WORD`, `DWORD`, `FLOAT`, ..., `ARRAY`) | none |
//!
//! (The DirectX file format reference, "Binary Format" tokens.)

use super::lex::{Source, Tok};
use crate::cursor::Cursor;
use crate::error::{Format, Result};

pub(super) const NAME: u16 = 1;
pub(super) const STRING: u16 = 2;
const INTEGER: u16 = 3;
const GUID: u16 = 5;
pub(super) const INTEGER_LIST: u16 = 6;
pub(super) const FLOAT_LIST: u16 = 7;
pub(super) const OPEN: u16 = 10;
pub(super) const CLOSE: u16 = 11;
const COMMA: u16 = 19;
pub(super) const SEMICOLON: u16 = 20;
const TEMPLATE: u16 = 31;

/// A list being read out one number at a time.
#[derive(Clone, Copy)]
enum List {
    Ints(u32),
    Floats(u32),
}

pub(super) struct BinaryLexer<'a> {
    source: Source<'a>,
    cursor: Cursor<'a>,
    f64: bool,
    list: Option<List>,
}

impl<'a> BinaryLexer<'a> {
    pub(super) fn new(source: Source<'a>, start: usize, f64: bool) -> Self {
        let mut cursor = Cursor::new(source.data, Format::X);
        cursor.section("tokens");
        // `start` is within the data (the header was read from it).
        let _ = cursor.bytes("header", start);
        BinaryLexer {
            source,
            cursor,
            f64,
            list: None,
        }
    }

    pub(super) fn next(&mut self) -> Result<Option<(Tok, usize)>> {
        // Empty lists yield nothing: go on to the token after them.
        loop {
            if let Some(found) = self.next_or_list()? {
                return Ok(found);
            }
        }
    }

    /// The next token; `None` when a list was opened (its numbers come next).
    #[allow(clippy::option_option)]
    fn next_or_list(&mut self) -> Result<Option<Option<(Tok, usize)>>> {
        let at = self.cursor.pos();
        match self.list {
            Some(List::Ints(left)) if left > 0 => {
                self.list = Some(List::Ints(left - 1));
                let v = self.cursor.u32("integer list")?;
                return Ok(Some(Some((Tok::Int(i64::from(v)), at))));
            }
            Some(List::Floats(left)) if left > 0 => {
                self.list = Some(List::Floats(left - 1));
                let v = if self.f64 {
                    f64::from_le_bytes(self.cursor.array::<8>("float list")?) as f32
                } else {
                    f32::from_le_bytes(self.cursor.array::<4>("float list")?)
                };
                if !v.is_finite() {
                    return Err(self.source.error(
                        "tokens",
                        "float list",
                        at,
                        format!("not a finite number: {v}"),
                    ));
                }
                return Ok(Some(Some((Tok::Float(v), at))));
            }
            _ => self.list = None,
        }
        if self.cursor.at_end() {
            return Ok(Some(None));
        }
        let code = self.cursor.u16("token")?;
        let tok = match code {
            NAME => {
                let raw = self.counted("name")?;
                Tok::Name(raw.to_vec())
            }
            STRING => {
                let raw = self.counted("string")?;
                let text = raw.to_vec();
                let end_at = self.cursor.pos();
                let end = self.cursor.u16("string terminator")?;
                if end != SEMICOLON && end != COMMA {
                    return Err(self.source.error(
                        "tokens",
                        "string terminator",
                        end_at,
                        format!("a string must end with a `;` or `,` token, found token {end}"),
                    ));
                }
                Tok::Str(text)
            }
            INTEGER => Tok::Int(i64::from(self.cursor.u32("integer")?)),
            GUID => {
                self.cursor.bytes("GUID", 16)?;
                Tok::Guid
            }
            INTEGER_LIST => {
                let n = self.cursor.count_u32("integer list count", 4)?;
                self.list = Some(List::Ints(n as u32));
                return Ok(None);
            }
            FLOAT_LIST => {
                let size = if self.f64 { 8 } else { 4 };
                let n = self.cursor.count_u32("float list count", size)?;
                self.list = Some(List::Floats(n as u32));
                return Ok(None);
            }
            OPEN => Tok::Open,
            CLOSE => Tok::Close,
            12 => Tok::Other("("),
            13 => Tok::Other(")"),
            14 => Tok::Other("["),
            15 => Tok::Other("]"),
            16 => Tok::Other("<"),
            17 => Tok::Other(">"),
            18 => Tok::Other("."),
            COMMA => Tok::Comma,
            SEMICOLON => Tok::Semicolon,
            TEMPLATE => Tok::Template,
            40..=53 => Tok::Other("type keyword"),
            other => {
                return Err(self.source.error(
                    "tokens",
                    "token",
                    at,
                    format!("unknown binary token {other}"),
                ));
            }
        };
        Ok(Some(Some((tok, at))))
    }

    /// A `u32` length and that many bytes, without trailing NULs (some writers count the
    /// C string terminator).
    fn counted(&mut self, field: &'static str) -> Result<&'a [u8]> {
        let n = self.cursor.count_u32(field, 1)?;
        let raw = self.cursor.bytes(field, n)?;
        let end = raw.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        Ok(&raw[..end])
    }
}
