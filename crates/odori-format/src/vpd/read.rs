//! VPD reader.
//!
//! The text MMD writes is line-oriented:
//!
//! ```text
//! Vocaloid Pose Data file
//! miku.osm;                 // model file name
//! 2;                        // bone count
//! Bone0{センター
//!   0.000000,1.000000,0.000000;          // translation
//!   0.000000,0.000000,0.000000,1.000000; // quaternion x,y,z,w
//! }
//! Morph0{まばたき
//!   1.000000;
//! }
//! ```
//!
//! Comments (`//` to the end of the line) and blank lines may appear anywhere. Bone and morph
//! blocks may come in any order; their numbers are not checked (MMD writes them in sequence),
//! but the bone count must match the bone blocks, or the file is ambiguous.

use super::lines::{Line, Lines, error, syntax};
use super::{BonePose, MorphPose, Vpd};
use crate::error::{ErrorKind, Result};

pub(super) const MAGIC: &str = "Vocaloid Pose Data file";

/// Parse a VPD file (Shift-JIS text, LF or CRLF line ends).
pub fn parse(bytes: &[u8]) -> Result<Vpd> {
    let mut lines = Lines::new(bytes);
    let first = lines.next("header")?;
    match &first {
        Some(l) if l.text == MAGIC => {}
        _ => {
            let offset = first.as_ref().map_or(0, |l| l.offset);
            let found = bytes
                .iter()
                .skip(offset)
                .take(MAGIC.len())
                .copied()
                .collect();
            return Err(error(
                "header",
                None,
                "magic",
                offset,
                ErrorKind::BadMagic {
                    expected: "\"Vocaloid Pose Data file\"",
                    found,
                },
            ));
        }
    }
    let model = expect(&mut lines, "header", "model name", "the model file name")?;
    let model_name = statement(&model, "header", "model name")?.trim().to_owned();
    let count_line = expect(&mut lines, "header", "bone count", "the bone count")?;
    let count_text = statement(&count_line, "header", "bone count")?.trim();
    let count: usize = count_text.parse().map_err(|_| {
        syntax(
            "header",
            "bone count",
            count_line.offset,
            &format!("bad bone count {count_text:?}"),
        )
    })?;

    let mut vpd = Vpd {
        model_name,
        bones: Vec::new(),
        morphs: Vec::new(),
    };
    while let Some(line) = lines.next("bones")? {
        if let Some(name) = block_name(&line, "Bone", "bones")? {
            let element = Some(vpd.bones.len());
            let at = line.offset;
            let t = expect(&mut lines, "bones", "translation", "a translation")?;
            let translation = numbers::<3>(&t, "bones", element, "translation")?;
            let r = expect(&mut lines, "bones", "rotation", "a rotation")?;
            let rotation = numbers::<4>(&r, "bones", element, "rotation")?;
            close(&mut lines, "bones", at)?;
            vpd.bones.push(BonePose {
                name,
                translation,
                rotation,
            });
        } else if let Some(name) = block_name(&line, "Morph", "morphs")? {
            let element = Some(vpd.morphs.len());
            let at = line.offset;
            let w = expect(&mut lines, "morphs", "weight", "a weight")?;
            let [weight] = numbers::<1>(&w, "morphs", element, "weight")?;
            close(&mut lines, "morphs", at)?;
            vpd.morphs.push(MorphPose { name, weight });
        } else {
            return Err(syntax(
                "bones",
                "block",
                line.offset,
                "expected `BoneN{name` or `MorphN{name`",
            ));
        }
    }
    if vpd.bones.len() != count {
        let message = format!(
            "the header says {count} bones, the file has {}",
            vpd.bones.len()
        );
        return Err(syntax("header", "bone count", count_line.offset, &message));
    }
    Ok(vpd)
}

/// The next line, which must exist; the end of the file is an unterminated block.
fn expect(
    lines: &mut Lines<'_>,
    section: &'static str,
    field: &'static str,
    what: &str,
) -> Result<Line> {
    let line = lines.next(section)?;
    line.ok_or_else(|| {
        syntax(
            section,
            field,
            lines.end(),
            &format!("file ends where {what} should be"),
        )
    })
}

/// The block's closing brace; `opened` is the offset of its first line, for the message.
fn close(lines: &mut Lines<'_>, section: &'static str, opened: usize) -> Result<()> {
    match lines.next(section)? {
        Some(l) if l.text == "}" => Ok(()),
        Some(l) => Err(syntax(
            section,
            "end",
            l.offset,
            "expected `}` closing the block",
        )),
        None => Err(syntax(
            section,
            "end",
            opened,
            "block not closed before the end of the file",
        )),
    }
}

/// `Some(name)` when `line` opens a `<keyword>N{name` block.
fn block_name(line: &Line, keyword: &str, section: &'static str) -> Result<Option<String>> {
    let Some(rest) = line.text.strip_prefix(keyword) else {
        return Ok(None);
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = rest.get(digits..).unwrap_or_default();
    match after.strip_prefix('{') {
        Some(name) if digits > 0 => Ok(Some(name.trim().to_owned())),
        _ => Err(syntax(
            section,
            "block",
            line.offset,
            &format!("expected `{keyword}N{{name`"),
        )),
    }
}

/// The text of a `...;` statement, without the semicolon.
fn statement<'l>(line: &'l Line, section: &'static str, field: &'static str) -> Result<&'l str> {
    line.text
        .strip_suffix(';')
        .ok_or_else(|| syntax(section, field, line.offset, "expected `;` at the end"))
}

/// `N` comma-separated floats ending with `;`.
fn numbers<const N: usize>(
    line: &Line,
    section: &'static str,
    element: Option<usize>,
    field: &'static str,
) -> Result<[f32; N]> {
    let text = statement(line, section, field)?;
    let at = |kind| error(section, element, field, line.offset, kind);
    let mut out = [0f32; N];
    let mut parts = text.split(',');
    for v in &mut out {
        let part = parts
            .next()
            .ok_or_else(|| at(ErrorKind::Syntax(format!("expected {N} numbers"))))?
            .trim();
        let x: f32 = part
            .parse()
            .map_err(|_| at(ErrorKind::Syntax(format!("malformed number {part:?}"))))?;
        if !x.is_finite() {
            return Err(at(ErrorKind::NonFinite(x)));
        }
        *v = x;
    }
    if parts.next().is_some() {
        return Err(at(ErrorKind::Syntax(format!(
            "expected {N} numbers, found more"
        ))));
    }
    Ok(out)
}
