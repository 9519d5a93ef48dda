//! The generic layer: tokens to a tree of data objects, templates skipped.
//!
//! A data object is `Type [name] { [GUID] members... }`; its members are numbers and strings
//! (the separators between them only matter to a reader that knows every template, which
//! MMD's loader does not need), nested data objects, and references `{ Name }` to objects
//! named elsewhere. Both encodings give the same tree.

use super::lex::{Lexer, Tok, lossy};
use crate::error::Result;

/// Deepest nesting of data objects (and of braces in a template) accepted: real files nest
/// a frame per bone at most, and recursion must stay bounded on hostile input.
pub(super) const MAX_DEPTH: usize = 64;

#[derive(Debug)]
pub(super) enum Scalar {
    Int(i64),
    Float(f32),
    /// Shift-JIS bytes, decoded when a template member that MMD uses is read.
    Str(Vec<u8>),
}

#[derive(Debug)]
pub(super) struct Value {
    pub scalar: Scalar,
    pub offset: usize,
}

#[derive(Debug)]
pub(super) enum Child {
    Object(Object),
    /// `{ Name }`: the name's bytes and offset.
    Reference(Vec<u8>, usize),
}

#[derive(Debug)]
pub(super) struct Object {
    /// The template name (`Mesh`, `Material`...).
    pub kind: String,
    /// The name's bytes (empty when unnamed) and where it is.
    pub name: Vec<u8>,
    pub name_at: usize,
    /// Where its closing brace is.
    pub end: usize,
    pub values: Vec<Value>,
    pub children: Vec<Child>,
}

impl Object {
    pub(super) fn is(&self, kind: &str) -> bool {
        self.kind.eq_ignore_ascii_case(kind)
    }
}

/// Every top-level data object, in file order.
pub(super) fn objects(lex: &mut Lexer<'_>) -> Result<Vec<Object>> {
    let mut out = Vec::new();
    while let Some((tok, at)) = lex.next()? {
        match tok {
            Tok::Template => skip_template(lex, at)?,
            Tok::Name(kind) => out.push(object(lex, lossy(&kind), at, 1)?),
            other => {
                let message = format!(
                    "expected a data object or a template, found {}",
                    other.describe()
                );
                return Err(lex.source.error("objects", "object", at, message));
            }
        }
    }
    Ok(out)
}

/// `template Name { ... }`: read past, braces matched.
fn skip_template(lex: &mut Lexer<'_>, at: usize) -> Result<()> {
    match lex.next()? {
        Some((Tok::Name(_), _)) => {}
        other => return Err(unexpected(lex, other, "templates", "the template's name")),
    }
    match lex.next()? {
        Some((Tok::Open, _)) => {}
        other => return Err(unexpected(lex, other, "templates", "`{`")),
    }
    let mut depth = 1usize;
    while depth > 0 {
        match lex.next()? {
            Some((Tok::Open, open_at)) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep(lex, "templates", open_at));
                }
            }
            Some((Tok::Close, _)) => depth -= 1,
            Some(_) => {}
            None => {
                return Err(lex.source.error(
                    "templates",
                    "end",
                    at,
                    "template not closed before the end of the file",
                ));
            }
        }
    }
    Ok(())
}

/// The data object whose template name `kind` was just read at `at`.
fn object(lex: &mut Lexer<'_>, kind: String, at: usize, depth: usize) -> Result<Object> {
    if depth > MAX_DEPTH {
        return Err(too_deep(lex, "objects", at));
    }
    let mut name = Vec::new();
    let mut name_at = at;
    match lex.next()? {
        Some((Tok::Open, _)) => {}
        Some((Tok::Name(n), n_at)) => {
            name = n;
            name_at = n_at;
            match lex.next()? {
                Some((Tok::Open, _)) => {}
                other => return Err(unexpected(lex, other, "objects", "`{` opening the object")),
            }
        }
        other => {
            return Err(unexpected(
                lex,
                other,
                "objects",
                "the object's name or `{` after its template name",
            ));
        }
    }
    let mut obj = Object {
        kind,
        name,
        name_at,
        end: at,
        values: Vec::new(),
        children: Vec::new(),
    };
    loop {
        let Some((tok, tok_at)) = lex.next()? else {
            let message = format!("`{}` not closed before the end of the file", obj.kind);
            return Err(lex.source.error("objects", "end", at, message));
        };
        let scalar = match tok {
            Tok::Close => {
                obj.end = tok_at;
                return Ok(obj);
            }
            Tok::Comma | Tok::Semicolon | Tok::Guid => continue,
            Tok::Int(i) => Scalar::Int(i),
            Tok::Float(f) => Scalar::Float(f),
            Tok::Str(s) => Scalar::Str(s),
            Tok::Name(kind) => {
                let child = object(lex, lossy(&kind), tok_at, depth + 1)?;
                obj.children.push(Child::Object(child));
                continue;
            }
            Tok::Open => {
                let (reference, ref_at) = reference(lex)?;
                obj.children.push(Child::Reference(reference, ref_at));
                continue;
            }
            other => {
                let message = format!("unexpected {} inside `{}`", other.describe(), obj.kind);
                return Err(lex.source.error("objects", "member", tok_at, message));
            }
        };
        obj.values.push(Value {
            scalar,
            offset: tok_at,
        });
    }
}

/// `Name [GUID] }` after a reference's `{`: the name and where it is.
fn reference(lex: &mut Lexer<'_>) -> Result<(Vec<u8>, usize)> {
    let (name, at) = match lex.next()? {
        Some((Tok::Name(n), at)) => (n, at),
        other => return Err(unexpected(lex, other, "objects", "a name in the reference")),
    };
    if matches!(lex.peek()?, Some((Tok::Guid, _))) {
        lex.next()?;
    }
    match lex.next()? {
        Some((Tok::Close, _)) => Ok((name, at)),
        other => Err(unexpected(
            lex,
            other,
            "objects",
            "`}` closing the reference",
        )),
    }
}

fn unexpected(
    lex: &Lexer<'_>,
    found: Option<(Tok, usize)>,
    section: &'static str,
    expected: &str,
) -> crate::FormatError {
    match found {
        Some((tok, at)) => lex.source.error(
            section,
            "token",
            at,
            format!("expected {expected}, found {}", tok.describe()),
        ),
        None => lex.source.error(
            section,
            "token",
            lex.end(),
            format!("file ends where {expected} should be"),
        ),
    }
}

fn too_deep(lex: &Lexer<'_>, section: &'static str, at: usize) -> crate::FormatError {
    lex.source.error(
        section,
        "depth",
        at,
        format!("objects nested more than {MAX_DEPTH} deep"),
    )
}
