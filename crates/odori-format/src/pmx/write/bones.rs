//! Writing bones: the flags decide which optional blocks are written.

use super::Writer;
use crate::error::Result;
use crate::pmx::{Bone, BoneTail, bone_flags as f};

impl Writer<'_> {
    pub(super) fn bones(&mut self, bones: &[Bone]) -> Result<()> {
        self.s.section("bones");
        self.s.count_i32("count", bones.len())?;
        for (i, b) in bones.iter().enumerate() {
            self.s.element(i);
            self.bone(b)?;
        }
        Ok(())
    }

    /// The flags are the truth, as in the file: a block whose flag is set but whose `Option` is
    /// `None` is written as zeros; a block whose flag is clear is not written.
    fn bone(&mut self, b: &Bone) -> Result<()> {
        self.text("name", &b.name)?;
        self.text("name (English)", &b.name_en)?;
        self.s.f32s(&b.position);
        self.bone_index("parent", b.parent)?;
        self.s.i32(b.layer);
        self.s.u16(b.flags);
        if b.has(f::TAIL_IS_BONE) {
            let t = match b.tail {
                BoneTail::Bone(t) => t,
                BoneTail::Offset(_) => -1,
            };
            self.bone_index("tail", t)?;
        } else {
            let t = match b.tail {
                BoneTail::Offset(t) => t,
                BoneTail::Bone(_) => [0.0; 3],
            };
            self.s.f32s(&t);
        }
        if b.has(f::APPEND_ROTATE | f::APPEND_TRANSLATE) {
            let (parent, ratio) = b.append.map_or((0, 0.0), |a| (a.parent, a.ratio));
            self.bone_index("append parent", parent)?;
            self.s.f32(ratio);
        }
        if b.has(f::FIXED_AXIS) {
            self.s.f32s(&b.fixed_axis.unwrap_or_default());
        }
        if b.has(f::LOCAL_AXES) {
            let axes = b.local_axes.map_or([[0.0; 3]; 2], |a| [a.x, a.z]);
            self.s.f32s(axes.as_flattened());
        }
        if b.has(f::EXTERNAL_PARENT) {
            self.s.i32(b.external_parent.unwrap_or(0));
        }
        if b.has(f::IK) {
            match &b.ik {
                Some(ik) => {
                    self.bone_index("ik target", ik.target)?;
                    self.s.i32(ik.loop_count);
                    self.s.f32(ik.limit_angle);
                    self.s.count_i32("ik link count", ik.links.len())?;
                    for link in &ik.links {
                        self.bone_index("ik link", link.bone)?;
                        match &link.limits {
                            Some(l) => {
                                self.s.u8(1);
                                self.s.f32s(&l.min);
                                self.s.f32s(&l.max);
                            }
                            None => self.s.u8(0),
                        }
                    }
                }
                None => {
                    self.bone_index("ik target", 0)?;
                    self.s.i32(0);
                    self.s.f32(0.0);
                    self.s.i32(0);
                }
            }
        }
        Ok(())
    }
}
