//! `.vac` files: MMD's accessory settings, saved from its accessory panel so an accessory
//! loads already placed. Shift-JIS text, one value per line:
//!
//! ```text
//! ネギ               display name
//! negi.x             the .x file, beside the .vac
//! 10.0               scale (Si)
//! 0.0,0.5,0.0        position X,Y,Z
//! 0.0,90.0,0.0       rotation X,Y,Z in degrees
//! 右手首             the bone it follows (empty: none)
//! 1                  (optional) ground shadow on (1) or off (0)
//! ```
//!
//! Lines end with CRLF or LF; blank lines after the last value are ignored.

use crate::error::{ErrorKind, Format, FormatError, Location, Result};
use crate::sjis::{decode_sjis, encode_sjis};
use crate::vpd::write::num;

#[derive(Debug, Clone, PartialEq)]
pub struct Vac {
    pub name: String,
    /// The `.x` file name, relative to the `.vac`'s folder.
    pub x_file: String,
    pub scale: f32,
    pub position: [f32; 3],
    /// Degrees, about X, Y and Z.
    pub rotation: [f32; 3],
    /// Empty when the accessory follows no bone.
    pub bone: String,
    /// The shadow line, when the file has one.
    pub shadow: Option<bool>,
}

struct Line {
    offset: usize,
    number: usize,
    text: String,
}

/// Parse a `.vac` file.
pub fn parse(bytes: &[u8]) -> Result<Vac> {
    // A line feed is never part of a two-byte character, so lines split on bytes.
    let mut lines = Vec::new();
    let mut offset = 0usize;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let decoded = decode_sjis(raw);
        if decoded.contains('\u{FFFD}') {
            let message = format!("line {}: invalid Shift-JIS text", i + 1);
            return Err(error("text", offset, message));
        }
        let text = decoded.into_owned();
        lines.push(Line {
            offset,
            number: i + 1,
            text: text.strip_suffix('\r').map(str::to_owned).unwrap_or(text),
        });
        offset += raw.len() + 1;
    }
    while lines.last().is_some_and(|l| l.text.trim().is_empty()) {
        lines.pop();
    }
    let end = bytes.len();
    let line = |i: usize, what: &str| -> Result<&Line> {
        lines.get(i).ok_or_else(|| {
            error(
                "lines",
                end,
                format!("the file ends where {what} (line {}) should be", i + 1),
            )
        })
    };
    let name = line(0, "the display name")?.text.trim().to_string();
    let x_file = line(1, "the .x file name")?.text.trim().to_string();
    let [scale] = numbers::<1>(line(2, "the scale")?, "scale")?;
    let position = numbers::<3>(line(3, "the position")?, "position")?;
    let rotation = numbers::<3>(line(4, "the rotation")?, "rotation")?;
    let bone = lines.get(5).map_or("", |l| l.text.trim()).to_string();
    let shadow = match lines.get(6) {
        None => None,
        Some(l) => match l.text.trim() {
            "1" => Some(true),
            "0" => Some(false),
            other => {
                let message = format!(
                    "line {}: expected the shadow flag 0 or 1, found {other:?}",
                    l.number
                );
                return Err(error("shadow", l.offset, message));
            }
        },
    };
    if let Some(extra) = lines.get(7) {
        let message = format!(
            "line {}: unexpected line after the shadow flag",
            extra.number
        );
        return Err(error("lines", extra.offset, message));
    }
    if x_file.is_empty() {
        return Err(error(
            "x file",
            lines[1].offset,
            "line 2: empty .x file name".into(),
        ));
    }
    Ok(Vac {
        name,
        x_file,
        scale,
        position,
        rotation,
        bone,
        shadow,
    })
}

/// Write a `.vac` as MMD does (Shift-JIS, CRLF). Line feeds in names become spaces.
pub fn write(vac: &Vac) -> Vec<u8> {
    let one_line = |s: &str| s.replace(['\r', '\n'], " ");
    let three = |v: [f32; 3]| format!("{},{},{}", num(v[0]), num(v[1]), num(v[2]));
    let mut text = format!(
        "{}\r\n{}\r\n{}\r\n{}\r\n{}\r\n{}\r\n",
        one_line(&vac.name),
        one_line(&vac.x_file),
        num(vac.scale),
        three(vac.position),
        three(vac.rotation),
        one_line(&vac.bone),
    );
    if let Some(shadow) = vac.shadow {
        text.push_str(if shadow { "1\r\n" } else { "0\r\n" });
    }
    encode_sjis(&text)
}

/// `N` comma-separated finite numbers.
fn numbers<const N: usize>(line: &Line, field: &'static str) -> Result<[f32; N]> {
    let mut out = [0.0f32; N];
    let mut parts = line.text.split(',');
    for v in &mut out {
        let part = parts.next().map(str::trim).unwrap_or("");
        match part.parse::<f32>() {
            Ok(x) if x.is_finite() => *v = x,
            _ => {
                let message = format!(
                    "line {}: expected {N} comma-separated numbers, found {:?}",
                    line.number, line.text
                );
                return Err(error(field, line.offset, message));
            }
        }
    }
    if parts.next().is_some() {
        let message = format!(
            "line {}: expected {N} numbers, found more: {:?}",
            line.number, line.text
        );
        return Err(error(field, line.offset, message));
    }
    Ok(out)
}

fn error(field: &'static str, offset: usize, message: String) -> FormatError {
    FormatError::new(
        Location {
            format: Format::Vac,
            section: "accessory",
            element: None,
            field,
            offset: offset as u64,
        },
        ErrorKind::Syntax(message),
    )
}
