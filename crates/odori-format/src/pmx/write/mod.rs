//! PMX writer: the mirror of `read`, section for section.
//!
//! The header decides the layout (text encoding, index sizes, additional UV count), so a
//! value the layout cannot hold (an index too big for its size, a 2.1 feature in a 2.0 file)
//! is a [`FormatError`] naming the section, element and field. The writer also refuses what
//! the reader would refuse (a face naming a missing vertex, say), so that whatever it writes
//! reads back. Floats are written as given.
//!
//! Reading then writing a file gives back its bytes when the file is canonical: no trailing
//! bytes, and (PMX 2.1) a soft body section present.

mod bones;
mod mesh;
mod morphs;
mod physics;

use super::{Header, Pmx, TextEncoding};
use crate::error::{Format, FormatError, Result};
use crate::sink::Sink;

/// Write a PMX file to memory.
pub fn write(pmx: &Pmx) -> Result<Vec<u8>> {
    let mut w = Writer {
        s: Sink::new(Format::Pmx, estimate(pmx)),
        h: &pmx.header,
        v21: false,
    };
    w.header()?;
    w.s.section("model info");
    w.text("name", &pmx.info.name)?;
    w.text("name (English)", &pmx.info.name_en)?;
    w.text("comment", &pmx.info.comment)?;
    w.text("comment (English)", &pmx.info.comment_en)?;
    w.vertices(&pmx.vertices, pmx.bones.len())?;
    w.faces(&pmx.indices, pmx.vertices.len())?;
    w.textures(&pmx.textures)?;
    w.materials(&pmx.materials)?;
    w.bones(&pmx.bones)?;
    w.morphs(&pmx.morphs, pmx.vertices.len())?;
    w.display_frames(&pmx.display_frames)?;
    w.rigid_bodies(&pmx.rigid_bodies)?;
    w.joints(&pmx.joints)?;
    w.soft_bodies(&pmx.soft_bodies, pmx.vertices.len())?;
    Ok(w.s.buf)
}

/// A close guess of the file size, so the buffer is allocated once for typical models.
fn estimate(pmx: &Pmx) -> usize {
    let uvs = usize::from(pmx.header.additional_uvs.min(4));
    64 + pmx.vertices.len() * (60 + 16 * uvs)
        + pmx.indices.len() * usize::from(pmx.header.vertex_index_size.min(4))
        + pmx.textures.len() * 64
        + pmx.materials.len() * 160
        + pmx.bones.len() * 96
        + pmx
            .morphs
            .iter()
            .map(|m| 32 + 32 * morph_len(&m.offsets))
            .sum::<usize>()
        + pmx
            .display_frames
            .iter()
            .map(|d| 32 + 4 * d.items.len())
            .sum::<usize>()
        + pmx.rigid_bodies.len() * 112
        + pmx.joints.len() * 144
        + pmx.soft_bodies.len() * 256
}

fn morph_len(o: &super::MorphOffsets) -> usize {
    use super::MorphOffsets as M;
    match o {
        M::Group(v) | M::Flip(v) => v.len(),
        M::Vertex(v) => v.len(),
        M::Bone(v) => v.len(),
        M::Uv { offsets, .. } => offsets.len(),
        M::Material(v) => 4 * v.len(),
        M::Impulse(v) => v.len(),
    }
}

pub(super) struct Writer<'a> {
    pub(super) s: Sink,
    pub(super) h: &'a Header,
    pub(super) v21: bool,
}

impl Writer<'_> {
    fn header(&mut self) -> Result<()> {
        let h = self.h;
        if h.version != 2.0 && h.version != 2.1 {
            return Err(self.s.error(
                "version",
                format!("version {} (only 2.0 and 2.1)", h.version),
            ));
        }
        self.v21 = h.version == 2.1;
        self.s.bytes(b"PMX ");
        self.s.f32(h.version);
        let globals = u8::try_from(h.extra_globals.len() + 8).map_err(|_| {
            self.s.error(
                "globals count",
                format!("{} extra globals", h.extra_globals.len()),
            )
        })?;
        self.s.u8(globals);
        self.s.u8(match h.encoding {
            TextEncoding::Utf16Le => 0,
            TextEncoding::Utf8 => 1,
        });
        if h.additional_uvs > 4 {
            return Err(self.s.error(
                "additional UV count",
                format!("{} (at most 4)", h.additional_uvs),
            ));
        }
        self.s.u8(h.additional_uvs);
        for (field, size) in [
            ("vertex index size", h.vertex_index_size),
            ("texture index size", h.texture_index_size),
            ("material index size", h.material_index_size),
            ("bone index size", h.bone_index_size),
            ("morph index size", h.morph_index_size),
            ("rigid body index size", h.rigid_body_index_size),
        ] {
            if !matches!(size, 1 | 2 | 4) {
                return Err(self
                    .s
                    .error(field, format!("index size {size} (1, 2 or 4)")));
            }
            self.s.u8(size);
        }
        self.s.bytes(&h.extra_globals);
        Ok(())
    }

    /// A text field in the header's encoding.
    pub(super) fn text(&mut self, field: &'static str, t: &str) -> Result<()> {
        match self.h.encoding {
            TextEncoding::Utf16Le => {
                let units = t.encode_utf16().count();
                self.s.count_i32(field, units.saturating_mul(2))?;
                self.s.buf.reserve(units * 2);
                for u in t.encode_utf16() {
                    self.s.u16(u);
                }
            }
            TextEncoding::Utf8 => {
                self.s.count_i32(field, t.len())?;
                self.s.bytes(t.as_bytes());
            }
        }
        Ok(())
    }

    /// A signed index in `size` bytes (−1 = none).
    fn signed(&mut self, field: &'static str, size: u8, v: i32) -> Result<()> {
        let fits = match size {
            1 => i8::try_from(v).map(|x| self.s.i8(x)).is_ok(),
            2 => i16::try_from(v).map(|x| self.s.i16(x)).is_ok(),
            _ => {
                self.s.i32(v);
                true
            }
        };
        if fits {
            Ok(())
        } else {
            Err(self.too_big(field, i64::from(v), size))
        }
    }

    fn too_big(&self, field: &'static str, v: i64, size: u8) -> FormatError {
        self.s.error(
            field,
            format!("index {v} does not fit the header's {size}-byte index size"),
        )
    }

    pub(super) fn bone_index(&mut self, field: &'static str, v: i32) -> Result<()> {
        self.signed(field, self.h.bone_index_size, v)
    }

    pub(super) fn texture_index(&mut self, field: &'static str, v: i32) -> Result<()> {
        self.signed(field, self.h.texture_index_size, v)
    }

    pub(super) fn material_index(&mut self, field: &'static str, v: i32) -> Result<()> {
        self.signed(field, self.h.material_index_size, v)
    }

    pub(super) fn morph_index(&mut self, field: &'static str, v: i32) -> Result<()> {
        self.signed(field, self.h.morph_index_size, v)
    }

    pub(super) fn body_index(&mut self, field: &'static str, v: i32) -> Result<()> {
        self.signed(field, self.h.rigid_body_index_size, v)
    }

    /// A vertex index, which must name one of `vertices` vertices (the reader refuses others)
    /// and fit the header's vertex index size (unsigned; the 4-byte form is a non-negative i32).
    pub(super) fn vertex_index(
        &mut self,
        field: &'static str,
        v: u32,
        vertices: usize,
    ) -> Result<()> {
        if (v as usize) >= vertices {
            return Err(self.s.error(
                field,
                format!("vertex index {v} out of range (0..{vertices})"),
            ));
        }
        let size = self.h.vertex_index_size;
        let fits = match size {
            1 => u8::try_from(v).map(|x| self.s.u8(x)).is_ok(),
            2 => u16::try_from(v).map(|x| self.s.u16(x)).is_ok(),
            _ => i32::try_from(v).map(|x| self.s.i32(x)).is_ok(),
        };
        if fits {
            Ok(())
        } else {
            Err(self.too_big(field, i64::from(v), size))
        }
    }

    /// Refuse a PMX 2.1 feature in a 2.0 file.
    pub(super) fn require_v21(&self, field: &'static str, what: &str) -> Result<()> {
        if self.v21 {
            Ok(())
        } else {
            Err(self.s.error(field, format!("{what} needs PMX 2.1")))
        }
    }
}
