//! VMD reader.
//!
//! A VMD file is a 30-byte magic, the model name, then up to six sections (bones, morphs,
//! cameras, lights, self-shadows, properties), each a `u32` count and fixed or
//! counted records. MMD and other tools stop writing after the last section they know, so any
//! trailing run of sections may be missing entirely: a file that ends exactly where a count
//! would start is complete. A file that ends inside a count or a record is truncated.

use super::{
    BONE_KEY_SIZE, BoneKey, CameraKey, IkState, LightKey, MAGIC_V1, MAGIC_V2, MorphKey,
    PropertyKey, SelfShadowKey, Vmd,
};
use crate::cursor::Cursor;
use crate::error::{Diagnostic, ErrorKind, Format, Result};
use crate::sjis::SjisName;

/// Section names, in file order; errors and diagnostics use them.
pub(crate) const SECTIONS: [&str; 6] = [
    "bones",
    "morphs",
    "cameras",
    "lights",
    "self shadows",
    "properties",
];

/// Smallest record of each section, to bound counts before allocating.
const MIN_RECORD: [usize; 6] = [BONE_KEY_SIZE, 23, 61, 28, 9, 9];

/// One property key's IK entry: name 20 + enabled flag.
const IK_STATE_SIZE: usize = 21;

/// Parse a VMD file; diagnostics are dropped (see [`parse_with_diagnostics`]).
pub fn parse(bytes: &[u8]) -> Result<Vmd> {
    parse_with_diagnostics(bytes).map(|(v, _)| v)
}

/// Parse a VMD file, also returning what was wrong but tolerated (bytes after the last
/// section, which the writer drops).
pub fn parse_with_diagnostics(bytes: &[u8]) -> Result<(Vmd, Vec<Diagnostic>)> {
    let mut c = Cursor::new(bytes, Format::Vmd);
    // Compare only what is there, so a file cut inside the magic reads as truncated.
    let head = bytes.get(..MAGIC_V2.len()).unwrap_or(bytes);
    if !MAGIC_V2.starts_with(head) && !MAGIC_V1.starts_with(head) {
        return Err(c.error_at("magic", 0, bad_magic(bytes)));
    }
    let magic: [u8; 30] = c.array("magic")?;
    let mut model_name = SjisName::<20>::default();
    if magic.starts_with(MAGIC_V1) {
        model_name.0[..10].copy_from_slice(&c.array::<10>("model name")?);
    } else {
        model_name.0 = c.array("model name")?;
    }

    let mut vmd = Vmd {
        magic,
        model_name,
        bones: Vec::new(),
        morphs: Vec::new(),
        cameras: Vec::new(),
        lights: Vec::new(),
        self_shadows: Vec::new(),
        properties: Vec::new(),
        sections_present: 0,
    };
    for (index, name) in SECTIONS.iter().enumerate() {
        if c.at_end() {
            break;
        }
        c.section(name);
        let count = c.count_u32("count", MIN_RECORD[index])?;
        match index {
            0 => vmd.bones = records(&mut c, count, bone_key)?,
            1 => vmd.morphs = records(&mut c, count, morph_key)?,
            2 => vmd.cameras = records(&mut c, count, camera_key)?,
            3 => vmd.lights = records(&mut c, count, light_key)?,
            4 => vmd.self_shadows = records(&mut c, count, self_shadow_key)?,
            _ => vmd.properties = records(&mut c, count, property_key)?,
        }
        vmd.sections_present += 1;
    }
    if !c.at_end() {
        c.section("file");
        let at = c.pos();
        let left = c.remaining();
        c.diagnose_at(
            "trailing bytes",
            at,
            format!("{left} bytes after the last section, dropped on write"),
        );
    }
    Ok((vmd, c.diagnostics))
}

fn bad_magic(bytes: &[u8]) -> ErrorKind {
    ErrorKind::BadMagic {
        expected: "\"Vocaloid Motion Data 0002\" or \"Vocaloid Motion Data file\"",
        found: bytes.iter().take(30).copied().collect(),
    }
}

/// `count` records read by `read`, each named by its index in errors.
fn records<'a, T>(
    c: &mut Cursor<'a>,
    count: usize,
    read: fn(&mut Cursor<'a>) -> Result<T>,
) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        c.element(i);
        out.push(read(c)?);
    }
    Ok(out)
}

/// Bone keys are most of a dance motion's bytes, so each is taken as one 111-byte record (the
/// section's count check has already made sure every record is there) and split in place.
/// The offsets are constants inside the fixed-size array, so no index depends on the input.
fn bone_key(c: &mut Cursor<'_>) -> Result<BoneKey> {
    let at = c.pos();
    let r: [u8; BONE_KEY_SIZE] = c.array("bone key")?;
    let word = |i: usize| [r[i], r[i + 1], r[i + 2], r[i + 3]];
    let float = |i: usize| f32::from_le_bytes(word(i));
    let translation = [float(19), float(23), float(27)];
    let rotation = [float(31), float(35), float(39), float(43)];
    if let Some(i) = translation
        .iter()
        .chain(&rotation)
        .position(|v| !v.is_finite())
    {
        let field = if i < 3 { "translation" } else { "rotation" };
        let offset = 19 + 4 * i;
        return Err(c.error_at(field, at + offset, ErrorKind::NonFinite(float(offset))));
    }
    let mut name = [0u8; 15];
    name.copy_from_slice(&r[..15]);
    let mut interpolation = [0u8; 64];
    interpolation.copy_from_slice(&r[47..]);
    Ok(BoneKey {
        name: SjisName(name),
        frame: u32::from_le_bytes(word(15)),
        translation,
        rotation,
        interpolation,
    })
}

fn morph_key(c: &mut Cursor<'_>) -> Result<MorphKey> {
    Ok(MorphKey {
        name: SjisName(c.array("name")?),
        frame: c.u32("frame")?,
        weight: c.f32("weight")?,
    })
}

fn camera_key(c: &mut Cursor<'_>) -> Result<CameraKey> {
    Ok(CameraKey {
        frame: c.u32("frame")?,
        distance: c.f32("distance")?,
        target: c.f32s("target")?,
        rotation: c.f32s("rotation")?,
        interpolation: c.array("interpolation")?,
        fov: c.u32("fov")?,
        perspective_off: c.u8("perspective")?,
    })
}

fn light_key(c: &mut Cursor<'_>) -> Result<LightKey> {
    Ok(LightKey {
        frame: c.u32("frame")?,
        color: c.f32s("color")?,
        direction: c.f32s("direction")?,
    })
}

fn self_shadow_key(c: &mut Cursor<'_>) -> Result<SelfShadowKey> {
    Ok(SelfShadowKey {
        frame: c.u32("frame")?,
        mode: c.u8("mode")?,
        distance: c.f32("distance")?,
    })
}

fn property_key(c: &mut Cursor<'_>) -> Result<PropertyKey> {
    let frame = c.u32("frame")?;
    let visible = c.u8("visible")?;
    let n = c.count_u32("ik count", IK_STATE_SIZE)?;
    let mut ik = Vec::with_capacity(n);
    for _ in 0..n {
        ik.push(IkState {
            name: SjisName(c.array("ik name")?),
            enabled: c.u8("ik enabled")?,
        });
    }
    Ok(PropertyKey { frame, visible, ik })
}
