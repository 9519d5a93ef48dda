//! PMD writer: the mirror of `read.rs` and `read_tail.rs`.
//!
//! The optional trailing sections are written when present, and also when a later one is
//! present (a file cannot hold physics without the toon list before it): a missing toon list
//! is then written as MMD's default `toon01.bmp`..`toon10.bmp`, missing rigid bodies as an
//! empty list.

use super::read_tail::TOON_COUNT;
use super::{English, Joint, Pmd, RigidBody};
use crate::error::{Format, Result};
use crate::sink::Sink;
use crate::sjis::SjisName;

/// Write a PMD file.
///
/// Fails, rather than write a file that reads back differently or not at all, when a count
/// does not fit its field, an English name list's length does not match what it names, a face
/// index points past the vertices, or a float other than a vertex normal is NaN or infinite.
pub fn write(pmd: &Pmd) -> Result<Vec<u8>> {
    let mut s = Sink::new(Format::Pmd, estimate_size(pmd));
    s.bytes(b"Pmd");
    floats(&mut s, "version", &[pmd.header.version])?;
    s.bytes(&pmd.header.name.0);
    s.bytes(&pmd.header.comment.0);

    s.section("vertices");
    s.count_u32("count", pmd.vertices.len())?;
    for (i, v) in pmd.vertices.iter().enumerate() {
        s.element(i);
        floats(&mut s, "position", &v.position)?;
        s.f32s(&v.normal); // kept as read, NaN included: MMD loads such models.
        floats(&mut s, "uv", &v.uv)?;
        s.u16(v.bones[0]);
        s.u16(v.bones[1]);
        s.u8(v.weight);
        s.u8(v.edge_off);
    }

    s.section("faces");
    s.count_u32("count", pmd.indices.len())?;
    for (i, &index) in pmd.indices.iter().enumerate() {
        if usize::from(index) >= pmd.vertices.len() {
            s.element(i);
            return Err(s.error(
                "index",
                format!("index {index} past the {} vertices", pmd.vertices.len()),
            ));
        }
        s.u16(index);
    }

    s.section("materials");
    s.count_u32("count", pmd.materials.len())?;
    for (i, m) in pmd.materials.iter().enumerate() {
        s.element(i);
        floats(&mut s, "diffuse", &m.diffuse)?;
        floats(&mut s, "specular power", &[m.specular_power])?;
        floats(&mut s, "specular", &m.specular)?;
        floats(&mut s, "ambient", &m.ambient)?;
        s.u8(m.toon_index);
        s.u8(m.edge_flag);
        s.u32(m.index_count);
        s.bytes(&m.texture.0);
    }

    s.section("bones");
    count_u16(&mut s, "count", pmd.bones.len())?;
    for (i, b) in pmd.bones.iter().enumerate() {
        s.element(i);
        s.bytes(&b.name.0);
        s.u16(b.parent);
        s.u16(b.tail);
        s.u8(b.kind);
        s.u16(b.ik_parent);
        floats(&mut s, "position", &b.position)?;
    }

    s.section("ik");
    count_u16(&mut s, "count", pmd.iks.len())?;
    for (i, ik) in pmd.iks.iter().enumerate() {
        s.element(i);
        s.u16(ik.bone);
        s.u16(ik.target);
        count_u8(&mut s, "chain length", ik.links.len())?;
        s.u16(ik.iterations);
        floats(&mut s, "limit", &[ik.limit])?;
        for &l in &ik.links {
            s.u16(l);
        }
    }

    s.section("morphs");
    count_u16(&mut s, "count", pmd.morphs.len())?;
    for (i, m) in pmd.morphs.iter().enumerate() {
        s.element(i);
        s.bytes(&m.name.0);
        s.count_u32("vertex count", m.vertices.len())?;
        s.u8(m.panel);
        for (index, offset) in &m.vertices {
            s.u32(*index);
            floats(&mut s, "offset", offset)?;
        }
    }

    s.section("morph display");
    count_u8(&mut s, "count", pmd.morph_display.len())?;
    for &m in &pmd.morph_display {
        s.u16(m);
    }
    s.section("bone display names");
    count_u8(&mut s, "count", pmd.bone_display_names.len())?;
    for n in &pmd.bone_display_names {
        s.bytes(&n.0);
    }
    s.section("bone display");
    s.count_u32("count", pmd.bone_display.len())?;
    for d in &pmd.bone_display {
        s.u16(d.bone);
        s.u8(d.frame);
    }

    write_tail(&mut s, pmd)?;
    Ok(s.buf)
}

fn write_tail(s: &mut Sink, pmd: &Pmd) -> Result<()> {
    let joints = pmd.joints.is_some();
    let bodies = joints || pmd.rigid_bodies.is_some();
    let toon = bodies || pmd.toon_textures.is_some();
    let flag = toon || pmd.english.is_some() || pmd.english_flag_present;
    if !flag {
        return Ok(());
    }
    s.section("english");
    match &pmd.english {
        None => s.u8(0),
        Some(e) => {
            s.u8(1);
            english(s, pmd, e)?;
        }
    }
    if !toon {
        return Ok(());
    }
    s.section("toon textures");
    match &pmd.toon_textures {
        Some(names) => names.iter().for_each(|n| s.bytes(&n.0)),
        None => (1..=TOON_COUNT)
            .for_each(|i| s.bytes(&SjisName::<100>::new(&format!("toon{i:02}.bmp")).0)),
    }
    if !bodies {
        return Ok(());
    }
    s.section("rigid bodies");
    let empty = Vec::new();
    let list = pmd.rigid_bodies.as_ref().unwrap_or(&empty);
    s.count_u32("count", list.len())?;
    for (i, b) in list.iter().enumerate() {
        s.element(i);
        rigid_body(s, b)?;
    }
    if let Some(list) = &pmd.joints {
        s.section("joints");
        s.count_u32("count", list.len())?;
        for (i, j) in list.iter().enumerate() {
            s.element(i);
            joint(s, j)?;
        }
    }
    Ok(())
}

/// The reader takes each English list's length from the section it names, so the lengths
/// must match or the file would read back shifted.
fn english(s: &mut Sink, pmd: &Pmd, e: &English) -> Result<()> {
    s.bytes(&e.name.0);
    s.bytes(&e.comment.0);
    let expected = [
        ("bone names", e.bone_names.len(), pmd.bones.len()),
        (
            "morph names",
            e.morph_names.len(),
            pmd.morphs.len().saturating_sub(1),
        ),
        (
            "display names",
            e.display_names.len(),
            pmd.bone_display_names.len(),
        ),
    ];
    for (field, have, want) in expected {
        if have != want {
            return Err(s.error(
                field,
                format!("{have} English names, the file layout needs {want}"),
            ));
        }
    }
    e.bone_names.iter().for_each(|n| s.bytes(&n.0));
    e.morph_names.iter().for_each(|n| s.bytes(&n.0));
    e.display_names.iter().for_each(|n| s.bytes(&n.0));
    Ok(())
}

fn rigid_body(s: &mut Sink, b: &RigidBody) -> Result<()> {
    s.bytes(&b.name.0);
    s.u16(b.bone);
    s.u8(b.group);
    s.u16(b.collision_mask);
    s.u8(b.shape);
    floats(s, "size", &b.size)?;
    floats(s, "position", &b.position)?;
    floats(s, "rotation", &b.rotation)?;
    floats(s, "mass", &[b.mass])?;
    floats(s, "linear damping", &[b.linear_damping])?;
    floats(s, "angular damping", &[b.angular_damping])?;
    floats(s, "restitution", &[b.restitution])?;
    floats(s, "friction", &[b.friction])?;
    s.u8(b.mode);
    Ok(())
}

fn joint(s: &mut Sink, j: &Joint) -> Result<()> {
    s.bytes(&j.name.0);
    s.u32(j.body_a);
    s.u32(j.body_b);
    floats(s, "position", &j.position)?;
    floats(s, "rotation", &j.rotation)?;
    floats(s, "translation min", &j.translation_min)?;
    floats(s, "translation max", &j.translation_max)?;
    floats(s, "rotation min", &j.rotation_min)?;
    floats(s, "rotation max", &j.rotation_max)?;
    floats(s, "spring translation", &j.spring_translation)?;
    floats(s, "spring rotation", &j.spring_rotation)
}

/// Finite floats only: the reader rejects NaN and infinity everywhere but in normals.
fn floats(s: &mut Sink, field: &'static str, v: &[f32]) -> Result<()> {
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(s.error(field, format!("not a finite number: {x}")));
    }
    s.f32s(v);
    Ok(())
}

fn count_u16(s: &mut Sink, field: &'static str, n: usize) -> Result<()> {
    let v =
        u16::try_from(n).map_err(|_| s.error(field, format!("{n} elements, at most 65535 fit")))?;
    s.u16(v);
    Ok(())
}

fn count_u8(s: &mut Sink, field: &'static str, n: usize) -> Result<()> {
    let v =
        u8::try_from(n).map_err(|_| s.error(field, format!("{n} elements, at most 255 fit")))?;
    s.u8(v);
    Ok(())
}

/// Close to the final size, so the buffer is allocated about once.
fn estimate_size(pmd: &Pmd) -> usize {
    let english = pmd.english.as_ref().map_or(0, |e| {
        276 + 20 * (e.bone_names.len() + e.morph_names.len()) + 50 * e.display_names.len()
    });
    283 + 38 * pmd.vertices.len()
        + 2 * pmd.indices.len()
        + 70 * pmd.materials.len()
        + 39 * pmd.bones.len()
        + pmd
            .iks
            .iter()
            .map(|ik| 11 + 2 * ik.links.len())
            .sum::<usize>()
        + pmd
            .morphs
            .iter()
            .map(|m| 25 + 16 * m.vertices.len())
            .sum::<usize>()
        + 2 * pmd.morph_display.len()
        + 50 * pmd.bone_display_names.len()
        + 3 * pmd.bone_display.len()
        + 16
        + english
        + 1000
        + 83 * pmd.rigid_bodies.as_ref().map_or(0, Vec::len)
        + 124 * pmd.joints.as_ref().map_or(0, Vec::len)
}
