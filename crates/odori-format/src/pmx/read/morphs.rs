//! Morphs (eleven offset layouts, chosen by the morph type byte) and display frames.

use super::Reader;
use crate::error::{ErrorKind, Result};
use crate::pmx::{
    BoneOffset, DisplayFrame, DisplayItem, GroupOffset, ImpulseOffset, MaterialOffset, Morph,
    MorphOffsets, UvOffset, VertexOffset,
};

impl Reader<'_> {
    pub(super) fn morphs(&mut self, bones: usize, materials: usize) -> Result<Vec<Morph>> {
        self.begin("morphs");
        // Two names, panel, type, offset count.
        let n = self.c.count_i32("count", 8 + 1 + 1 + 4)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            let name = self.text("name")?;
            let name_en = self.text("name (English)")?;
            let panel = self.c.u8("panel")?;
            let offsets = self.offsets(n, bones, materials)?;
            out.push(Morph {
                name,
                name_en,
                panel,
                offsets,
            });
        }
        Ok(out)
    }

    fn offsets(&mut self, morphs: usize, bones: usize, materials: usize) -> Result<MorphOffsets> {
        let at = self.c.pos();
        let kind = self.c.u8("type")?;
        let v = usize::from(self.h.vertex_index_size);
        // Each layout has a fixed size, so an offset count that does not fit is truncation.
        let size = match kind {
            0 | 9 => usize::from(self.h.morph_index_size) + 4,
            1 => v + 12,
            2 => usize::from(self.h.bone_index_size) + 28,
            3..=7 => v + 16,
            8 => usize::from(self.h.material_index_size) + 1 + 28 * 4,
            10 if self.v21 => usize::from(self.h.rigid_body_index_size) + 1 + 24,
            _ => {
                let expected = if self.v21 {
                    "morph type 0..=10"
                } else {
                    "morph type 0..=8 (PMX 2.0)"
                };
                return Err(self.c.error_at(
                    "type",
                    at,
                    ErrorKind::InvalidValue {
                        value: kind.into(),
                        expected,
                    },
                ));
            }
        };
        if kind == 9 && !self.v21 {
            return Err(self.c.error_at(
                "type",
                at,
                ErrorKind::InvalidValue {
                    value: 9,
                    expected: "morph type 0..=8 (PMX 2.0)",
                },
            ));
        }
        let n = self.exact_count("offset count", size)?;
        Ok(match kind {
            0 => MorphOffsets::Group(self.group_offsets(n, morphs)?),
            1 => {
                let mut o = Vec::with_capacity(n);
                for _ in 0..n {
                    o.push(VertexOffset {
                        vertex: self.vertex_index("vertex")?,
                        offset: self.c.f32s("offset")?,
                    });
                }
                MorphOffsets::Vertex(o)
            }
            2 => {
                let mut o = Vec::with_capacity(n);
                for _ in 0..n {
                    o.push(BoneOffset {
                        bone: self.reference("bone", "bone", bones, Self::bone_index)?,
                        translation: self.c.f32s("translation")?,
                        rotation: self.c.f32s("rotation")?,
                    });
                }
                MorphOffsets::Bone(o)
            }
            3..=7 => {
                let mut o = Vec::with_capacity(n);
                for _ in 0..n {
                    o.push(UvOffset {
                        vertex: self.vertex_index("vertex")?,
                        offset: self.c.f32s("offset")?,
                    });
                }
                MorphOffsets::Uv {
                    channel: kind - 3,
                    offsets: o,
                }
            }
            8 => {
                let mut o = Vec::with_capacity(n);
                for _ in 0..n {
                    o.push(self.material_offset(materials)?);
                }
                MorphOffsets::Material(o)
            }
            9 => MorphOffsets::Flip(self.group_offsets(n, morphs)?),
            _ => {
                let mut o = Vec::with_capacity(n);
                for _ in 0..n {
                    o.push(self.impulse_offset()?);
                }
                MorphOffsets::Impulse(o)
            }
        })
    }

    fn group_offsets(&mut self, n: usize, morphs: usize) -> Result<Vec<GroupOffset>> {
        let mut o = Vec::with_capacity(n);
        for _ in 0..n {
            o.push(GroupOffset {
                morph: self.reference("morph", "morph", morphs, Self::morph_index)?,
                ratio: self.c.f32("ratio")?,
            });
        }
        Ok(o)
    }

    fn material_offset(&mut self, materials: usize) -> Result<MaterialOffset> {
        Ok(MaterialOffset {
            material: self.reference("material", "material", materials, Self::material_index)?,
            operation: self.c.u8("operation")?,
            diffuse: self.c.f32s("diffuse")?,
            specular: self.c.f32s("specular")?,
            specular_power: self.c.f32("specular power")?,
            ambient: self.c.f32s("ambient")?,
            edge_color: self.c.f32s("edge color")?,
            edge_size: self.c.f32("edge size")?,
            texture_tint: self.c.f32s("texture tint")?,
            sphere_tint: self.c.f32s("sphere tint")?,
            toon_tint: self.c.f32s("toon tint")?,
        })
    }

    /// Rigid bodies come after morphs: the index is checked once they are read.
    fn impulse_offset(&mut self) -> Result<ImpulseOffset> {
        let location = self.c.location_at("rigid body", self.c.pos());
        let rigid_body = self.body_index("rigid body")?;
        self.pending_bodies.push((location, rigid_body));
        Ok(ImpulseOffset {
            rigid_body,
            local: self.c.u8("local")?,
            velocity: self.c.f32s("velocity")?,
            torque: self.c.f32s("torque")?,
        })
    }

    pub(super) fn display_frames(
        &mut self,
        bones: usize,
        morphs: usize,
    ) -> Result<Vec<DisplayFrame>> {
        self.begin("display frames");
        let (b, m) = (
            usize::from(self.h.bone_index_size),
            usize::from(self.h.morph_index_size),
        );
        // Two names, special flag, item count.
        let n = self.c.count_i32("count", 8 + 1 + 4)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            let name = self.text("name")?;
            let name_en = self.text("name (English)")?;
            let special = self.c.u8("special")?;
            // Items are all one size when both index sizes agree: then a count that does not
            // fit is truncation; otherwise only a lower bound is known.
            let count = if b == m {
                self.exact_count("item count", 1 + b)?
            } else {
                self.c.count_i32("item count", 1 + b.min(m))?
            };
            let mut items = Vec::with_capacity(count);
            for _ in 0..count {
                let at = self.c.pos();
                items.push(match self.c.u8("item kind")? {
                    0 => DisplayItem::Bone(self.reference(
                        "bone",
                        "bone",
                        bones,
                        Self::bone_index,
                    )?),
                    1 => DisplayItem::Morph(self.reference(
                        "morph",
                        "morph",
                        morphs,
                        Self::morph_index,
                    )?),
                    v => {
                        return Err(self.c.error_at(
                            "item kind",
                            at,
                            ErrorKind::InvalidValue {
                                value: v.into(),
                                expected: "0 (bone) or 1 (morph)",
                            },
                        ));
                    }
                });
            }
            out.push(DisplayFrame {
                name,
                name_en,
                special,
                items,
            });
        }
        Ok(out)
    }
}
