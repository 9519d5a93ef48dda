//! PMX 2.0 / 2.1 reader.
//!
//! One [`Reader`] walks the file front to back through a bounds-checked [`Cursor`], one section
//! at a time (each section in its own file here). Every section start is recorded, so tests
//! and tools can cut a file exactly at a boundary (see [`section_offsets`]).
//!
//! What is an error and what is a diagnostic follows what MikuMikuDance loads: a model whose
//! bone is its own parent or whose display frame names a missing morph still loads there, so
//! it loads here with a [`Diagnostic`] and the raw index kept as stored (the runtime decides
//! what to do with it). What would make reading or drawing the mesh itself unsound (a face or
//! morph naming a vertex that does not exist, a vertex weighted to a bone that does not exist)
//! is an error.

mod bones;
mod mesh;
mod morphs;
mod physics;
mod text;

use super::{Header, ModelInfo, Pmx, TextEncoding, index_in_range as in_range};
use crate::cursor::Cursor;
use crate::error::{Diagnostic, ErrorKind, Format, FormatError, Location, Result};

/// Parse a PMX file from memory. Diagnostics are dropped; see [`parse_with_diagnostics`].
pub fn parse(bytes: &[u8]) -> Result<Pmx> {
    parse_with_diagnostics(bytes).map(|(pmx, _)| pmx)
}

/// Parse a PMX file from memory, also returning the damage that did not stop the read.
pub fn parse_with_diagnostics(bytes: &[u8]) -> Result<(Pmx, Vec<Diagnostic>)> {
    let mut r = Reader::new(bytes);
    let pmx = r.read()?;
    Ok((pmx, r.c.diagnostics))
}

/// The byte offset at which each section of a valid PMX file starts, in file order: "header"
/// (0), "model info", "vertices", "faces", "textures", "materials", "bones", "morphs",
/// "display frames", "rigid bodies", "joints", and "soft bodies" for PMX 2.1 files that have
/// that section. Each offset is that of the section's first byte (for counted sections, the
/// count). Fails as [`parse`] does.
pub fn section_offsets(bytes: &[u8]) -> Result<Vec<(&'static str, usize)>> {
    let mut r = Reader::new(bytes);
    r.read()?;
    Ok(r.sections)
}

/// The bone index in the vertex section that is furthest out of range so far, remembered
/// until the bone count (which comes later in the file) is known.
#[derive(Clone, Copy)]
struct VertexBoneRef {
    index: i32,
    element: usize,
    offset: usize,
}

pub(super) struct Reader<'a> {
    pub(super) c: Cursor<'a>,
    pub(super) h: Header,
    /// The file is PMX 2.1 (QDEF, flip and impulse morphs, soft bodies allowed).
    pub(super) v21: bool,
    sections: Vec<(&'static str, usize)>,
    /// Vertex count, for checking vertex indices in faces, morphs and soft bodies.
    pub(super) vertex_count: usize,
    /// Largest bone index used by a vertex (first occurrence).
    max_vertex_bone: Option<VertexBoneRef>,
    /// First bone index below −1 used by a vertex.
    negative_vertex_bone: Option<VertexBoneRef>,
    /// Impulse morph offsets name rigid bodies, which come later: checked once those are read.
    pub(super) pending_bodies: Vec<(Location, i32)>,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader {
            c: Cursor::new(bytes, Format::Pmx),
            h: Header::wide(),
            v21: false,
            sections: Vec::with_capacity(12),
            vertex_count: 0,
            max_vertex_bone: None,
            negative_vertex_bone: None,
            pending_bodies: Vec::new(),
        }
    }

    fn read(&mut self) -> Result<Pmx> {
        self.begin("header");
        self.header()?;
        self.begin("model info");
        let info = ModelInfo {
            name: self.text("name")?,
            name_en: self.text("name (English)")?,
            comment: self.text("comment")?,
            comment_en: self.text("comment (English)")?,
        };
        let vertices = self.vertices()?;
        let indices = self.faces()?;
        let textures = self.textures()?;
        let materials = self.materials(textures.len(), indices.len())?;
        let bones = self.bones()?;
        self.check_vertex_bones(bones.len())?;
        let morphs = self.morphs(bones.len(), materials.len())?;
        let display_frames = self.display_frames(bones.len(), morphs.len())?;
        let rigid_bodies = self.rigid_bodies(bones.len())?;
        self.check_pending_bodies(rigid_bodies.len());
        let joints = self.joints(rigid_bodies.len())?;
        let soft_bodies = self.soft_bodies(materials.len(), rigid_bodies.len())?;
        if !self.c.at_end() {
            let n = self.c.remaining();
            self.c.section("end");
            let at = self.c.pos();
            self.c
                .diagnose_at("trailing bytes", at, format!("{n} trailing bytes ignored"));
        }
        Ok(Pmx {
            header: self.h.clone(),
            info,
            vertices,
            indices,
            textures,
            materials,
            bones,
            morphs,
            display_frames,
            rigid_bodies,
            joints,
            soft_bodies,
        })
    }

    /// Start a section: errors name it, and its offset is recorded.
    pub(super) fn begin(&mut self, name: &'static str) {
        self.c.section(name);
        self.sections.push((name, self.c.pos()));
    }

    fn header(&mut self) -> Result<()> {
        let magic = self.c.array::<4>("magic")?;
        if &magic != b"PMX " {
            return Err(self.c.error_at(
                "magic",
                0,
                ErrorKind::BadMagic {
                    expected: "\"PMX \"",
                    found: magic.to_vec(),
                },
            ));
        }
        // Read raw, not with `Cursor::f32`: a NaN version is an unsupported version.
        let at = self.c.pos();
        let version = f32::from_le_bytes(self.c.array("version")?);
        if version != 2.0 && version != 2.1 {
            return Err(self
                .c
                .error_at("version", at, ErrorKind::UnsupportedVersion(version)));
        }
        self.h.version = version;
        self.v21 = version == 2.1;
        let at = self.c.pos();
        let n = self.c.u8("globals count")?;
        if n < 8 {
            return Err(self.c.error_at(
                "globals count",
                at,
                ErrorKind::InvalidValue {
                    value: n.into(),
                    expected: "at least 8 globals",
                },
            ));
        }
        let at = self.c.pos();
        self.h.encoding = match self.c.u8("encoding")? {
            0 => TextEncoding::Utf16Le,
            1 => TextEncoding::Utf8,
            v => {
                return Err(self.c.error_at(
                    "encoding",
                    at,
                    ErrorKind::InvalidValue {
                        value: v.into(),
                        expected: "0 (UTF-16LE) or 1 (UTF-8)",
                    },
                ));
            }
        };
        let at = self.c.pos();
        let uvs = self.c.u8("additional UV count")?;
        if uvs > 4 {
            return Err(self.c.error_at(
                "additional UV count",
                at,
                ErrorKind::InvalidValue {
                    value: uvs.into(),
                    expected: "0..=4",
                },
            ));
        }
        self.h.additional_uvs = uvs;
        self.h.vertex_index_size = self.index_size("vertex index size")?;
        self.h.texture_index_size = self.index_size("texture index size")?;
        self.h.material_index_size = self.index_size("material index size")?;
        self.h.bone_index_size = self.index_size("bone index size")?;
        self.h.morph_index_size = self.index_size("morph index size")?;
        self.h.rigid_body_index_size = self.index_size("rigid body index size")?;
        self.h.extra_globals = self.c.bytes("extra globals", usize::from(n) - 8)?.to_vec();
        Ok(())
    }

    fn index_size(&mut self, field: &'static str) -> Result<u8> {
        let at = self.c.pos();
        match self.c.u8(field)? {
            v @ (1 | 2 | 4) => Ok(v),
            v => Err(self.c.error_at(
                field,
                at,
                ErrorKind::InvalidValue {
                    value: v.into(),
                    expected: "index size 1, 2 or 4",
                },
            )),
        }
    }

    /// An element count whose elements all have exactly `size` bytes: a count that does not
    /// fit in the bytes left means the file ends early, so it is reported as truncation (before
    /// anything is allocated), like a short read would be.
    pub(super) fn exact_count(&mut self, field: &'static str, size: usize) -> Result<usize> {
        let at = self.c.pos();
        let n = self.c.i32(field)?;
        let Ok(n) = usize::try_from(n) else {
            return Err(self
                .c
                .error_at(field, at, ErrorKind::NegativeCount(n.into())));
        };
        let needed = n.saturating_mul(size);
        if needed > self.c.remaining() {
            return Err(self.c.error(
                field,
                ErrorKind::Truncated {
                    needed: needed as u64,
                    available: self.c.remaining() as u64,
                },
            ));
        }
        Ok(n)
    }

    /// A signed index of `size` bytes (−1 = none).
    fn signed(&mut self, field: &'static str, size: u8) -> Result<i32> {
        Ok(match size {
            1 => self.c.i8(field)?.into(),
            2 => self.c.i16(field)?.into(),
            _ => self.c.i32(field)?,
        })
    }

    pub(super) fn bone_index(&mut self, field: &'static str) -> Result<i32> {
        self.signed(field, self.h.bone_index_size)
    }

    pub(super) fn texture_index(&mut self, field: &'static str) -> Result<i32> {
        self.signed(field, self.h.texture_index_size)
    }

    pub(super) fn material_index(&mut self, field: &'static str) -> Result<i32> {
        self.signed(field, self.h.material_index_size)
    }

    pub(super) fn morph_index(&mut self, field: &'static str) -> Result<i32> {
        self.signed(field, self.h.morph_index_size)
    }

    pub(super) fn body_index(&mut self, field: &'static str) -> Result<i32> {
        self.signed(field, self.h.rigid_body_index_size)
    }

    /// A reference to a `what` (bone, morph, ...) among `len` of them, −1 meaning none: read,
    /// and diagnosed (not rejected) when out of range, as MMD loads such files.
    pub(super) fn reference(
        &mut self,
        field: &'static str,
        what: &str,
        len: usize,
        read: fn(&mut Self, &'static str) -> Result<i32>,
    ) -> Result<i32> {
        let at = self.c.pos();
        let v = read(self, field)?;
        if !in_range(v, len) {
            self.c.diagnose_at(
                field,
                at,
                format!("{what} index {v} out of range (valid: -1..{len}); kept as stored"),
            );
        }
        Ok(v)
    }

    /// A vertex index (unsigned; a 4-byte one is stored signed and must not be negative) that
    /// must name an existing vertex.
    pub(super) fn vertex_index(&mut self, field: &'static str) -> Result<u32> {
        let at = self.c.pos();
        let v: i64 = match self.h.vertex_index_size {
            1 => self.c.u8(field)?.into(),
            2 => self.c.u16(field)?.into(),
            _ => self.c.i32(field)?.into(),
        };
        match u32::try_from(v) {
            Ok(i) if (i as usize) < self.vertex_count => Ok(i),
            _ => Err(self.c.error_at(
                field,
                at,
                ErrorKind::IndexOutOfRange {
                    index: v,
                    len: self.vertex_count,
                },
            )),
        }
    }

    /// A vertex's bone index. The bone count is not known yet (bones come later in the
    /// file), so the worst offenders are remembered and checked by [`Self::check_vertex_bones`].
    pub(super) fn vertex_bone(&mut self, element: usize) -> Result<i32> {
        let offset = self.c.pos();
        let index = self.bone_index("bone")?;
        let seen = VertexBoneRef {
            index,
            element,
            offset,
        };
        if self.max_vertex_bone.is_none_or(|m| index > m.index) {
            self.max_vertex_bone = Some(seen);
        }
        if index < -1 && self.negative_vertex_bone.is_none() {
            self.negative_vertex_bone = Some(seen);
        }
        Ok(index)
    }

    fn check_vertex_bones(&self, bone_count: usize) -> Result<()> {
        let bad = match (self.negative_vertex_bone, self.max_vertex_bone) {
            (Some(neg), _) => neg,
            (None, Some(max)) if !in_range(max.index, bone_count) => max,
            _ => return Ok(()),
        };
        Err(FormatError::new(
            Location {
                format: Format::Pmx,
                section: "vertices",
                element: Some(bad.element),
                field: "bone",
                offset: bad.offset as u64,
            },
            ErrorKind::IndexOutOfRange {
                index: bad.index.into(),
                len: bone_count,
            },
        ))
    }

    fn check_pending_bodies(&mut self, body_count: usize) {
        for (location, v) in std::mem::take(&mut self.pending_bodies) {
            if !in_range(v, body_count) {
                let message = format!(
                    "rigid body index {v} out of range (valid: -1..{body_count}); kept as stored"
                );
                self.c.diagnostics.push(Diagnostic { location, message });
            }
        }
    }
}
