//! PMD's optional trailing sections: English names, toon textures, rigid bodies and joints.
//!
//! These were added to the format over time, so older files stop after the display lists, or
//! after any one of these. Each reads as `None` when the file ends where it would begin, which
//! lets the writer reproduce such a file exactly.

use super::read::NONE16;
use super::{English, Joint, RigidBody};
use crate::cursor::Cursor;
use crate::error::{ErrorKind, Result};
use crate::sjis::SjisName;

const RIGID_BODY_SIZE: usize = 83;
const JOINT_SIZE: usize = 124;
pub(super) const TOON_COUNT: usize = 10;

/// Everything after the bone display list.
pub(super) struct Tail {
    pub english: Option<English>,
    pub english_flag_present: bool,
    pub toon_textures: Option<[SjisName<100>; TOON_COUNT]>,
    pub rigid_bodies: Option<Vec<RigidBody>>,
    pub joints: Option<Vec<Joint>>,
}

pub(super) fn read(
    c: &mut Cursor<'_>,
    bone_count: usize,
    morph_count: usize,
    display_name_count: usize,
) -> Result<Tail> {
    let mut tail = Tail {
        english: None,
        english_flag_present: false,
        toon_textures: None,
        rigid_bodies: None,
        joints: None,
    };
    if c.at_end() {
        return Ok(tail);
    }
    c.section("english");
    let at = c.pos();
    match c.u8("flag")? {
        0 => {}
        1 => tail.english = Some(english(c, bone_count, morph_count, display_name_count)?),
        v => {
            return Err(c.error_at(
                "flag",
                at,
                ErrorKind::InvalidValue {
                    value: i64::from(v),
                    expected: "0 (no English names) or 1",
                },
            ));
        }
    }
    tail.english_flag_present = true;
    if c.at_end() {
        return Ok(tail);
    }
    c.section("toon textures");
    let mut toon = [SjisName::<100>::default(); TOON_COUNT];
    for (i, t) in toon.iter_mut().enumerate() {
        c.element(i);
        *t = SjisName(c.array("name")?);
    }
    tail.toon_textures = Some(toon);
    if c.at_end() {
        return Ok(tail);
    }
    let bodies = rigid_bodies(c, bone_count)?;
    let body_count = bodies.len();
    tail.rigid_bodies = Some(bodies);
    if c.at_end() {
        return Ok(tail);
    }
    tail.joints = Some(joints(c, body_count)?);
    Ok(tail)
}

/// `count` fixed-size names, the count checked against the bytes left first.
fn names<const N: usize>(
    c: &mut Cursor<'_>,
    field: &'static str,
    count: usize,
) -> Result<Vec<SjisName<N>>> {
    let at = c.pos();
    let n = c.check_count(field, at, count as u64, N)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        out.push(SjisName(c.array(field)?));
    }
    Ok(out)
}

fn english(
    c: &mut Cursor<'_>,
    bones: usize,
    morphs: usize,
    display_names: usize,
) -> Result<English> {
    let name = SjisName(c.array("name")?);
    let comment = SjisName(c.array("comment")?);
    let bone_names = names(c, "bone names", bones)?;
    // The base morph has no English name.
    let morph_names = names(c, "morph names", morphs.saturating_sub(1))?;
    let display_names = names(c, "display names", display_names)?;
    Ok(English {
        name,
        comment,
        bone_names,
        morph_names,
        display_names,
    })
}

fn rigid_bodies(c: &mut Cursor<'_>, bone_count: usize) -> Result<Vec<RigidBody>> {
    c.section("rigid bodies");
    let n = c.count_u32("count", RIGID_BODY_SIZE)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        let name = SjisName(c.array("name")?);
        let bone_at = c.pos();
        let bone = c.u16("bone")?;
        if bone != NONE16 && usize::from(bone) >= bone_count {
            c.diagnose_at(
                "bone",
                bone_at,
                format!("bone {bone} out of range (valid: 0..{bone_count})"),
            );
        }
        out.push(RigidBody {
            name,
            bone,
            group: c.u8("group")?,
            collision_mask: c.u16("collision mask")?,
            shape: c.u8("shape")?,
            size: c.f32s("size")?,
            position: c.f32s("position")?,
            rotation: c.f32s("rotation")?,
            mass: c.f32("mass")?,
            linear_damping: c.f32("linear damping")?,
            angular_damping: c.f32("angular damping")?,
            restitution: c.f32("restitution")?,
            friction: c.f32("friction")?,
            mode: c.u8("mode")?,
        });
    }
    Ok(out)
}

fn joints(c: &mut Cursor<'_>, body_count: usize) -> Result<Vec<Joint>> {
    c.section("joints");
    let n = c.count_u32("count", JOINT_SIZE)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        let name = SjisName(c.array("name")?);
        let body_a = body(c, "body a", body_count)?;
        let body_b = body(c, "body b", body_count)?;
        out.push(Joint {
            name,
            body_a,
            body_b,
            position: c.f32s("position")?,
            rotation: c.f32s("rotation")?,
            translation_min: c.f32s("translation min")?,
            translation_max: c.f32s("translation max")?,
            rotation_min: c.f32s("rotation min")?,
            rotation_max: c.f32s("rotation max")?,
            spring_translation: c.f32s("spring translation")?,
            spring_rotation: c.f32s("spring rotation")?,
        });
    }
    Ok(out)
}

fn body(c: &mut Cursor<'_>, field: &'static str, body_count: usize) -> Result<u32> {
    let at = c.pos();
    let v = c.u32(field)?;
    if v as usize >= body_count {
        c.diagnose_at(
            field,
            at,
            format!("rigid body {v} out of range (valid: 0..{body_count})"),
        );
    }
    Ok(v)
}
