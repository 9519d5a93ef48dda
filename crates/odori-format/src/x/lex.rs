//! The token stream both encodings share, and located errors.
//!
//! Text and binary `.x` files hold the same tokens: names, strings, numbers, GUIDs, braces
//! and separators. Each lexer yields them one at a time, with the byte offset where each
//! starts; binary number lists come out one number per token, so nothing is allocated for
//! a list before its numbers are read.

use super::binary::BinaryLexer;
use super::text::TextLexer;
use crate::error::{ErrorKind, Format, FormatError, Location, Result};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// An identifier: a template or object name (Shift-JIS bytes, decoded where kept: text
    /// in objects MMD ignores may be in any encoding).
    Name(Vec<u8>),
    /// A quoted (text) or counted (binary) string's bytes.
    Str(Vec<u8>),
    Int(i64),
    Float(f32),
    /// A GUID (`<...>` in text); MMD's semantics never need its value.
    Guid,
    Open,
    Close,
    Comma,
    Semicolon,
    /// The `template` keyword.
    Template,
    /// Any other punctuation or a binary type keyword (`[`, `ARRAY`, `DWORD`...): they only
    /// occur inside templates.
    Other(&'static str),
}

impl Tok {
    /// What the token is, for messages.
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Name(n) => format!("the name `{}`", lossy(n)),
            Tok::Str(s) => format!("the string {:?}", lossy(s)),
            Tok::Int(i) => format!("the number {i}"),
            Tok::Float(f) => format!("the number {f}"),
            Tok::Guid => "a GUID".into(),
            Tok::Open => "`{`".into(),
            Tok::Close => "`}`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Semicolon => "`;`".into(),
            Tok::Template => "`template`".into(),
            Tok::Other(s) => format!("`{s}`"),
        }
    }
}

/// Shift-JIS bytes as text for messages and template names (invalid bytes shown as U+FFFD).
pub(super) fn lossy(bytes: &[u8]) -> String {
    crate::sjis::decode_sjis(bytes).into_owned()
}

/// Where the tokens come from, for locating errors: byte offsets in `data`, reported as
/// line numbers too when the data is text.
#[derive(Clone, Copy)]
pub(super) struct Source<'a> {
    pub data: &'a [u8],
    pub text: bool,
    /// The data is the decompressed body of a compressed file, not the file's bytes.
    pub decompressed: bool,
}

impl Source<'_> {
    /// A syntax error at `offset`: with its line number for text, and saying the offset is
    /// in the decompressed data when it is.
    pub(super) fn error(
        &self,
        section: &'static str,
        field: &'static str,
        offset: usize,
        message: impl Into<String>,
    ) -> FormatError {
        let mut message = message.into();
        if self.text {
            let line = line_of(self.data, offset);
            message = format!("line {line}: {message}");
        }
        if self.decompressed {
            message.push_str(" (offset in the decompressed data)");
        }
        error_at(section, field, offset, ErrorKind::Syntax(message))
    }
}

/// The 1-based line holding byte `offset`.
pub(super) fn line_of(data: &[u8], offset: usize) -> usize {
    let end = offset.min(data.len());
    1 + data[..end].iter().filter(|&&b| b == b'\n').count()
}

pub(super) fn error_at(
    section: &'static str,
    field: &'static str,
    offset: usize,
    kind: ErrorKind,
) -> FormatError {
    FormatError::new(
        Location {
            format: Format::X,
            section,
            element: None,
            field,
            offset: offset as u64,
        },
        kind,
    )
}

/// Either encoding's lexer, with one token of lookahead.
pub(super) struct Lexer<'a> {
    inner: Inner<'a>,
    peeked: Option<Option<(Tok, usize)>>,
    pub source: Source<'a>,
}

enum Inner<'a> {
    Text(TextLexer<'a>),
    Binary(BinaryLexer<'a>),
}

impl<'a> Lexer<'a> {
    /// Tokens of `source.data` from byte `start`; `f64` says binary float lists hold doubles.
    pub(super) fn new(source: Source<'a>, start: usize, f64: bool) -> Self {
        let inner = if source.text {
            Inner::Text(TextLexer::new(source, start))
        } else {
            Inner::Binary(BinaryLexer::new(source, start, f64))
        };
        Lexer {
            inner,
            peeked: None,
            source,
        }
    }

    /// The next token and its offset; `None` at the end of the data.
    pub(super) fn next(&mut self) -> Result<Option<(Tok, usize)>> {
        if let Some(t) = self.peeked.take() {
            return Ok(t);
        }
        match &mut self.inner {
            Inner::Text(t) => t.next(),
            Inner::Binary(b) => b.next(),
        }
    }

    pub(super) fn peek(&mut self) -> Result<Option<&(Tok, usize)>> {
        if self.peeked.is_none() {
            let t = self.next()?;
            self.peeked = Some(t);
        }
        Ok(self.peeked.as_ref().and_then(|t| t.as_ref()))
    }

    /// Offset of the end of the data (where a missing token would have been).
    pub(super) fn end(&self) -> usize {
        self.source.data.len()
    }
}
