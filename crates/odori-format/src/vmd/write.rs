//! VMD writer: the mirror of `read.rs`.
//!
//! Writes as many section counts as the file had (`sections_present`), and more when a later
//! section has keys, so a file read then written gives back its bytes, including files that
//! stop after the camera section as MMD's camera exports do.

use super::read::SECTIONS;
use super::{
    BONE_KEY_SIZE, BoneKey, CameraKey, LightKey, MorphKey, PropertyKey, SelfShadowKey, Vmd,
};
use crate::error::{Format, Result};
use crate::sink::Sink;

const HEADER_SIZE: usize = 50;

/// Write a VMD file.
///
/// Fails when a count does not fit its `u32` field, when a float is NaN or infinite (the reader
/// rejects those, so the file could not be read back), or when a version-1 file's model name
/// has bytes past the 10 its field holds (they would be lost silently otherwise).
pub fn write(vmd: &Vmd) -> Result<Vec<u8>> {
    let mut s = Sink::new(Format::Vmd, estimate_size(vmd));
    s.bytes(&vmd.magic);
    if vmd.is_version1() {
        if vmd.model_name.0[10..].iter().any(|&b| b != 0) {
            return Err(s.error(
                "model name",
                "a version-1 model name holds only 10 bytes".into(),
            ));
        }
        s.bytes(&vmd.model_name.0[..10]);
    } else {
        s.bytes(&vmd.model_name.0);
    }

    let lens = [
        vmd.bones.len(),
        vmd.morphs.len(),
        vmd.cameras.len(),
        vmd.lights.len(),
        vmd.self_shadows.len(),
        vmd.properties.len(),
    ];
    let last_non_empty = lens.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
    let sections = usize::from(vmd.sections_present)
        .max(last_non_empty)
        .min(SECTIONS.len());
    for (index, name) in SECTIONS.iter().enumerate().take(sections) {
        s.section(name);
        s.count_u32("count", lens[index])?;
        match index {
            0 => each(&mut s, &vmd.bones, bone_key)?,
            1 => each(&mut s, &vmd.morphs, morph_key)?,
            2 => each(&mut s, &vmd.cameras, camera_key)?,
            3 => each(&mut s, &vmd.lights, light_key)?,
            4 => each(&mut s, &vmd.self_shadows, self_shadow_key)?,
            _ => each(&mut s, &vmd.properties, property_key)?,
        }
    }
    Ok(s.buf)
}

/// Exact for everything but property keys, so the buffer is allocated once.
fn estimate_size(vmd: &Vmd) -> usize {
    HEADER_SIZE
        + 6 * 4
        + vmd.bones.len() * BONE_KEY_SIZE
        + vmd.morphs.len() * 23
        + vmd.cameras.len() * 61
        + vmd.lights.len() * 28
        + vmd.self_shadows.len() * 9
        + vmd
            .properties
            .iter()
            .map(|p| 9 + p.ik.len() * 21)
            .sum::<usize>()
}

fn each<T>(s: &mut Sink, items: &[T], write: fn(&mut Sink, &T) -> Result<()>) -> Result<()> {
    for (i, item) in items.iter().enumerate() {
        s.element(i);
        write(s, item)?;
    }
    Ok(())
}

/// Finite floats only: the reader rejects NaN and infinity.
fn floats(s: &mut Sink, field: &'static str, v: &[f32]) -> Result<()> {
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(s.error(field, format!("not a finite number: {x}")));
    }
    s.f32s(v);
    Ok(())
}

fn bone_key(s: &mut Sink, k: &BoneKey) -> Result<()> {
    s.bytes(&k.name.0);
    s.u32(k.frame);
    floats(s, "translation", &k.translation)?;
    floats(s, "rotation", &k.rotation)?;
    s.bytes(&k.interpolation);
    Ok(())
}

fn morph_key(s: &mut Sink, k: &MorphKey) -> Result<()> {
    s.bytes(&k.name.0);
    s.u32(k.frame);
    floats(s, "weight", &[k.weight])
}

fn camera_key(s: &mut Sink, k: &CameraKey) -> Result<()> {
    s.u32(k.frame);
    floats(s, "distance", &[k.distance])?;
    floats(s, "target", &k.target)?;
    floats(s, "rotation", &k.rotation)?;
    s.bytes(&k.interpolation);
    s.u32(k.fov);
    s.u8(k.perspective_off);
    Ok(())
}

fn light_key(s: &mut Sink, k: &LightKey) -> Result<()> {
    s.u32(k.frame);
    floats(s, "color", &k.color)?;
    floats(s, "direction", &k.direction)
}

fn self_shadow_key(s: &mut Sink, k: &SelfShadowKey) -> Result<()> {
    s.u32(k.frame);
    s.u8(k.mode);
    floats(s, "distance", &[k.distance])
}

fn property_key(s: &mut Sink, k: &PropertyKey) -> Result<()> {
    s.u32(k.frame);
    s.u8(k.visible);
    s.count_u32("ik count", k.ik.len())?;
    for ik in &k.ik {
        s.bytes(&ik.name.0);
        s.u8(ik.enabled);
    }
    Ok(())
}
