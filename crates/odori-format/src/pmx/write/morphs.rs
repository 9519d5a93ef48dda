//! Writing morphs and display frames.

use super::Writer;
use crate::error::Result;
use crate::pmx::{DisplayFrame, DisplayItem, GroupOffset, Morph, MorphOffsets};

impl Writer<'_> {
    pub(super) fn morphs(&mut self, morphs: &[Morph], vertices: usize) -> Result<()> {
        self.s.section("morphs");
        self.s.count_i32("count", morphs.len())?;
        for (i, m) in morphs.iter().enumerate() {
            self.s.element(i);
            self.text("name", &m.name)?;
            self.text("name (English)", &m.name_en)?;
            self.s.u8(m.panel);
            self.offsets(&m.offsets, vertices)?;
        }
        Ok(())
    }

    fn offsets(&mut self, offsets: &MorphOffsets, vertices: usize) -> Result<()> {
        match offsets {
            MorphOffsets::Group(o) => {
                self.s.u8(0);
                self.group_offsets(o)?;
            }
            MorphOffsets::Vertex(o) => {
                self.s.u8(1);
                self.s.count_i32("offset count", o.len())?;
                for v in o {
                    self.vertex_index("vertex", v.vertex, vertices)?;
                    self.s.f32s(&v.offset);
                }
            }
            MorphOffsets::Bone(o) => {
                self.s.u8(2);
                self.s.count_i32("offset count", o.len())?;
                for b in o {
                    self.bone_index("bone", b.bone)?;
                    self.s.f32s(&b.translation);
                    self.s.f32s(&b.rotation);
                }
            }
            MorphOffsets::Uv {
                channel,
                offsets: o,
            } => {
                if *channel > 4 {
                    return Err(self
                        .s
                        .error("type", format!("UV channel {channel} (0..=4)")));
                }
                self.s.u8(3 + channel);
                self.s.count_i32("offset count", o.len())?;
                for u in o {
                    self.vertex_index("vertex", u.vertex, vertices)?;
                    self.s.f32s(&u.offset);
                }
            }
            MorphOffsets::Material(o) => {
                self.s.u8(8);
                self.s.count_i32("offset count", o.len())?;
                for m in o {
                    self.material_index("material", m.material)?;
                    self.s.u8(m.operation);
                    self.s.f32s(&m.diffuse);
                    self.s.f32s(&m.specular);
                    self.s.f32(m.specular_power);
                    self.s.f32s(&m.ambient);
                    self.s.f32s(&m.edge_color);
                    self.s.f32(m.edge_size);
                    self.s.f32s(&m.texture_tint);
                    self.s.f32s(&m.sphere_tint);
                    self.s.f32s(&m.toon_tint);
                }
            }
            MorphOffsets::Flip(o) => {
                self.require_v21("type", "flip morphs")?;
                self.s.u8(9);
                self.group_offsets(o)?;
            }
            MorphOffsets::Impulse(o) => {
                self.require_v21("type", "impulse morphs")?;
                self.s.u8(10);
                self.s.count_i32("offset count", o.len())?;
                for m in o {
                    self.body_index("rigid body", m.rigid_body)?;
                    self.s.u8(m.local);
                    self.s.f32s(&m.velocity);
                    self.s.f32s(&m.torque);
                }
            }
        }
        Ok(())
    }

    fn group_offsets(&mut self, o: &[GroupOffset]) -> Result<()> {
        self.s.count_i32("offset count", o.len())?;
        for g in o {
            self.morph_index("morph", g.morph)?;
            self.s.f32(g.ratio);
        }
        Ok(())
    }

    pub(super) fn display_frames(&mut self, frames: &[DisplayFrame]) -> Result<()> {
        self.s.section("display frames");
        self.s.count_i32("count", frames.len())?;
        for (i, d) in frames.iter().enumerate() {
            self.s.element(i);
            self.text("name", &d.name)?;
            self.text("name (English)", &d.name_en)?;
            self.s.u8(d.special);
            self.s.count_i32("item count", d.items.len())?;
            for item in &d.items {
                match *item {
                    DisplayItem::Bone(b) => {
                        self.s.u8(0);
                        self.bone_index("bone", b)?;
                    }
                    DisplayItem::Morph(m) => {
                        self.s.u8(1);
                        self.morph_index("morph", m)?;
                    }
                }
            }
        }
        Ok(())
    }
}
