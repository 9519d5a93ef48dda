//! PMD reader: header, geometry, skeleton, morphs and display lists.
//!
//! The sections after the display lists (English names, toon textures, physics) may each be
//! missing at the end of the file; `read_tail.rs` reads those. Indices that point nowhere are
//! reported as diagnostics where MMD loads the model anyway (a bone parent, an IK link, a
//! vertex's bone), and are errors only for face indices, which would make the mesh unreadable.

use super::read_tail::{self, Tail};
use super::{Bone, BoneDisplay, Header, Ik, Material, Morph, Pmd, Vertex};
use crate::cursor::Cursor;
use crate::error::{Diagnostic, ErrorKind, Format, Result};
use crate::sjis::SjisName;

pub(super) const VERTEX_SIZE: usize = 38;
const MATERIAL_SIZE: usize = 70;
const BONE_SIZE: usize = 39;
/// bone, target, chain length, iterations, limit; the links follow.
const IK_MIN_SIZE: usize = 11;
/// name, vertex count, panel; the vertices follow.
const MORPH_MIN_SIZE: usize = 25;
const MORPH_VERTEX_SIZE: usize = 16;
/// Offset of the two bone indices inside a vertex record.
const VERTEX_BONES_OFFSET: usize = 32;
/// A `u16` index whose value means "none".
pub(super) const NONE16: u16 = 0xFFFF;

/// Parse a PMD file; diagnostics are dropped (see [`parse_with_diagnostics`]).
pub fn parse(bytes: &[u8]) -> Result<Pmd> {
    parse_with_diagnostics(bytes).map(|(v, _)| v)
}

/// Parse a PMD file, also returning the damage MMD tolerates (indices out of range, a bone
/// that is its own parent, non-finite normals, bytes after the last section), in file order.
pub fn parse_with_diagnostics(bytes: &[u8]) -> Result<(Pmd, Vec<Diagnostic>)> {
    let mut c = Cursor::new(bytes, Format::Pmd);
    let header = header(&mut c, bytes)?;
    c.section("vertices");
    let (vertices_at, vertices) = vertices(&mut c)?;
    let indices = faces(&mut c, vertices.len())?;
    let materials = materials(&mut c, indices.len())?;
    let bones = bones(&mut c)?;
    check_vertex_bones(&mut c, vertices_at, &vertices, bones.len());
    let iks = iks(&mut c, bones.len())?;
    let morphs = morphs(&mut c, vertices.len())?;

    c.section("morph display");
    let n = c.count_u8("count", 2)?;
    let mut morph_display = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        morph_display.push(index16(&mut c, "morph", morphs.len())?);
    }

    c.section("bone display names");
    let n = c.count_u8("count", 50)?;
    let mut bone_display_names = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        bone_display_names.push(SjisName(c.array("name")?));
    }

    c.section("bone display");
    let n = c.count_u32("count", 3)?;
    let mut bone_display = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        let bone = index16(&mut c, "bone", bones.len())?;
        bone_display.push(BoneDisplay {
            bone,
            frame: c.u8("frame")?,
        });
    }

    let Tail {
        english,
        english_flag_present,
        toon_textures,
        rigid_bodies,
        joints,
    } = read_tail::read(&mut c, bones.len(), morphs.len(), bone_display_names.len())?;

    if !c.at_end() {
        c.section("file");
        let (at, left) = (c.pos(), c.remaining());
        c.diagnose_at(
            "trailing bytes",
            at,
            format!("{left} bytes after the last section, dropped on write"),
        );
    }
    let pmd = Pmd {
        header,
        vertices,
        indices,
        materials,
        bones,
        iks,
        morphs,
        morph_display,
        bone_display_names,
        bone_display,
        english,
        english_flag_present,
        toon_textures,
        rigid_bodies,
        joints,
    };
    // Vertex bones are checked after the bones are read: restore file order.
    let mut diagnostics = c.diagnostics;
    diagnostics.sort_by_key(|d| d.location.offset);
    Ok((pmd, diagnostics))
}

fn header(c: &mut Cursor<'_>, bytes: &[u8]) -> Result<Header> {
    // Compare only what is there, so a file cut inside the magic reads as truncated.
    if !b"Pmd".starts_with(bytes.get(..3).unwrap_or(bytes)) {
        return Err(c.error_at(
            "magic",
            0,
            ErrorKind::BadMagic {
                expected: "\"Pmd\"",
                found: bytes.iter().take(3).copied().collect(),
            },
        ));
    }
    c.bytes("magic", 3)?;
    let at = c.pos();
    let version = c.f32("version")?;
    if version != 1.0 {
        c.diagnose_at("version", at, format!("version {version}, expected 1.0"));
    }
    Ok(Header {
        version,
        name: SjisName(c.array("name")?),
        comment: SjisName(c.array("comment")?),
    })
}

/// The vertices and the offset of the first one (for later diagnostics on its bones).
fn vertices(c: &mut Cursor<'_>) -> Result<(usize, Vec<Vertex>)> {
    let n = c.count_u32("count", VERTEX_SIZE)?;
    let at = c.pos();
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        let position = c.f32s("position")?;
        let normal = c.f32s_lenient("normal")?;
        let uv = c.f32s("uv")?;
        let bones = [c.u16("bones")?, c.u16("bones")?];
        let weight_at = c.pos();
        let weight = c.u8("weight")?;
        if weight > 100 {
            c.diagnose_at("weight", weight_at, format!("weight {weight}% above 100"));
        }
        out.push(Vertex {
            position,
            normal,
            uv,
            bones,
            weight,
            edge_off: c.u8("edge flag")?,
        });
    }
    Ok((at, out))
}

fn faces(c: &mut Cursor<'_>, vertex_count: usize) -> Result<Vec<u16>> {
    c.section("faces");
    let n = c.count_u32("count", 2)?;
    if n % 3 != 0 {
        let at = c.pos().saturating_sub(4);
        c.diagnose_at(
            "count",
            at,
            format!("{n} indices is not a whole number of triangles"),
        );
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let at = c.pos();
        let v = c.u16("index")?;
        if usize::from(v) >= vertex_count {
            c.element(i);
            return Err(c.error_at(
                "index",
                at,
                ErrorKind::IndexOutOfRange {
                    index: i64::from(v),
                    len: vertex_count,
                },
            ));
        }
        out.push(v);
    }
    Ok(out)
}

fn materials(c: &mut Cursor<'_>, index_count: usize) -> Result<Vec<Material>> {
    c.section("materials");
    let n = c.count_u32("count", MATERIAL_SIZE)?;
    let mut out = Vec::with_capacity(n);
    let mut covered: u64 = 0;
    for i in 0..n {
        c.element(i);
        let m = Material {
            diffuse: c.f32s("diffuse")?,
            specular_power: c.f32("specular power")?,
            specular: c.f32s("specular")?,
            ambient: c.f32s("ambient")?,
            toon_index: c.u8("toon index")?,
            edge_flag: c.u8("edge flag")?,
            index_count: c.u32("index count")?,
            texture: SjisName(c.array("texture")?),
        };
        covered = covered.saturating_add(u64::from(m.index_count));
        out.push(m);
    }
    if covered != index_count as u64 {
        c.section("materials");
        let at = c.pos();
        c.diagnose_at(
            "index count",
            at,
            format!("materials cover {covered} indices, the model has {index_count}"),
        );
    }
    Ok(out)
}

fn bones(c: &mut Cursor<'_>) -> Result<Vec<Bone>> {
    c.section("bones");
    let n = count_u16(c, "count", BONE_SIZE)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        let name = SjisName(c.array("name")?);
        let parent_at = c.pos();
        let parent = c.u16("parent")?;
        if usize::from(parent) == i {
            c.diagnose_at("parent", parent_at, "bone is its own parent".into());
        } else if parent != NONE16 && usize::from(parent) >= n {
            c.diagnose_at(
                "parent",
                parent_at,
                format!("parent {parent} out of range (valid: 0..{n})"),
            );
        }
        let tail_at = c.pos();
        let tail = c.u16("tail")?;
        if tail != NONE16 && usize::from(tail) >= n {
            c.diagnose_at(
                "tail",
                tail_at,
                format!("tail {tail} out of range (valid: 0..{n})"),
            );
        }
        out.push(Bone {
            name,
            parent,
            tail,
            kind: c.u8("kind")?,
            ik_parent: c.u16("ik parent")?,
            position: c.f32s("position")?,
        });
    }
    Ok(out)
}

/// Vertex bone indices can only be checked once the bones are read, which is after the
/// vertices: the offsets are recomputed from the fixed vertex size.
fn check_vertex_bones(c: &mut Cursor<'_>, first: usize, vertices: &[Vertex], bone_count: usize) {
    c.section("vertices");
    for (i, v) in vertices.iter().enumerate() {
        for (k, &b) in v.bones.iter().enumerate() {
            if usize::from(b) >= bone_count {
                c.element(i);
                let at = first + i * VERTEX_SIZE + VERTEX_BONES_OFFSET + 2 * k;
                c.diagnose_at(
                    "bones",
                    at,
                    format!("bone {b} out of range (valid: 0..{bone_count})"),
                );
            }
        }
    }
}

fn iks(c: &mut Cursor<'_>, bone_count: usize) -> Result<Vec<Ik>> {
    c.section("ik");
    let n = count_u16(c, "count", IK_MIN_SIZE)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        let bone = index16(c, "bone", bone_count)?;
        let target = index16(c, "target", bone_count)?;
        let links = c.count_u8("chain length", 2)?;
        let iterations = c.u16("iterations")?;
        let limit = c.f32("limit")?;
        let mut chain = Vec::with_capacity(links);
        for _ in 0..links {
            chain.push(index16(c, "links", bone_count)?);
        }
        out.push(Ik {
            bone,
            target,
            iterations,
            limit,
            links: chain,
        });
    }
    Ok(out)
}

fn morphs(c: &mut Cursor<'_>, vertex_count: usize) -> Result<Vec<Morph>> {
    c.section("morphs");
    let n = count_u16(c, "count", MORPH_MIN_SIZE)?;
    let mut out: Vec<Morph> = Vec::with_capacity(n);
    for i in 0..n {
        c.element(i);
        let name = SjisName(c.array("name")?);
        let count = c.count_u32("vertex count", MORPH_VERTEX_SIZE)?;
        let panel = c.u8("panel")?;
        // The base morph indexes model vertices; the others index the base morph's list.
        let range = match out.first() {
            None => vertex_count,
            Some(base) => base.vertices.len(),
        };
        let mut vertices = Vec::with_capacity(count);
        for _ in 0..count {
            let at = c.pos();
            let index = c.u32("vertex index")?;
            if index as usize >= range {
                c.diagnose_at(
                    "vertex index",
                    at,
                    format!("index {index} out of range (valid: 0..{range})"),
                );
            }
            vertices.push((index, c.f32s("offset")?));
        }
        out.push(Morph {
            name,
            panel,
            vertices,
        });
    }
    Ok(out)
}

/// A `u16` element count, checked against the bytes left before allocating.
fn count_u16(c: &mut Cursor<'_>, field: &'static str, min_size: usize) -> Result<usize> {
    let at = c.pos();
    let n = c.u16(field)?;
    c.check_count(field, at, u64::from(n), min_size)
}

/// A `u16` index into a list of `len` items; out of range is a diagnostic, not an error.
fn index16(c: &mut Cursor<'_>, field: &'static str, len: usize) -> Result<u16> {
    let at = c.pos();
    let v = c.u16(field)?;
    if usize::from(v) >= len {
        c.diagnose_at(
            field,
            at,
            format!("index {v} out of range (valid: 0..{len})"),
        );
    }
    Ok(v)
}
