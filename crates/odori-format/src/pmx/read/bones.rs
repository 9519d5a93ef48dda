//! The bone section: fixed fields, then optional blocks whose presence follows the flags.

use super::Reader;
use crate::error::{ErrorKind, Result};
use crate::pmx::{Append, Bone, BoneTail, Ik, IkLimits, IkLink, LocalAxes, bone_flags as f};

impl Reader<'_> {
    pub(super) fn bones(&mut self) -> Result<Vec<Bone>> {
        self.begin("bones");
        let b = usize::from(self.h.bone_index_size);
        // Two names, position, parent, layer, flags, and the smallest tail (a bone index).
        let min_size = 8 + 12 + b + 4 + 2 + b;
        let n = self.c.count_i32("count", min_size)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            out.push(self.bone(i, n)?);
        }
        Ok(out)
    }

    fn bone(&mut self, i: usize, n: usize) -> Result<Bone> {
        let name = self.text("name")?;
        let name_en = self.text("name (English)")?;
        let position = self.c.f32s("position")?;
        let at = self.c.pos();
        let parent = self.reference("parent", "bone", n, Self::bone_index)?;
        if usize::try_from(parent).is_ok_and(|p| p == i) {
            self.c.diagnose_at(
                "parent",
                at,
                format!("bone {i} is its own parent; kept as stored"),
            );
        }
        let layer = self.c.i32("layer")?;
        let flags = self.c.u16("flags")?;
        let tail = if flags & f::TAIL_IS_BONE != 0 {
            BoneTail::Bone(self.reference("tail", "bone", n, Self::bone_index)?)
        } else {
            BoneTail::Offset(self.c.f32s("tail")?)
        };
        let append = if flags & (f::APPEND_ROTATE | f::APPEND_TRANSLATE) != 0 {
            Some(Append {
                parent: self.reference("append parent", "bone", n, Self::bone_index)?,
                ratio: self.c.f32("append ratio")?,
            })
        } else {
            None
        };
        let fixed_axis = if flags & f::FIXED_AXIS != 0 {
            Some(self.c.f32s("fixed axis")?)
        } else {
            None
        };
        let local_axes = if flags & f::LOCAL_AXES != 0 {
            Some(LocalAxes {
                x: self.c.f32s("local x")?,
                z: self.c.f32s("local z")?,
            })
        } else {
            None
        };
        let external_parent = if flags & f::EXTERNAL_PARENT != 0 {
            Some(self.c.i32("external parent")?)
        } else {
            None
        };
        let ik = if flags & f::IK != 0 {
            Some(self.ik(n)?)
        } else {
            None
        };
        Ok(Bone {
            name,
            name_en,
            position,
            parent,
            layer,
            flags,
            tail,
            append,
            fixed_axis,
            local_axes,
            external_parent,
            ik,
        })
    }

    fn ik(&mut self, n: usize) -> Result<Ik> {
        let target = self.reference("ik target", "bone", n, Self::bone_index)?;
        let loop_count = self.c.i32("ik loop count")?;
        let limit_angle = self.c.f32("ik limit angle")?;
        let b = usize::from(self.h.bone_index_size);
        let count = self.c.count_i32("ik link count", b + 1)?;
        let mut links = Vec::with_capacity(count);
        for _ in 0..count {
            let bone = self.reference("ik link", "bone", n, Self::bone_index)?;
            let at = self.c.pos();
            let limits = match self.c.u8("ik link has limits")? {
                0 => None,
                1 => Some(IkLimits {
                    min: self.c.f32s("ik link min")?,
                    max: self.c.f32s("ik link max")?,
                }),
                // Anything else would not survive a write: refuse rather than guess.
                v => {
                    return Err(self.c.error_at(
                        "ik link has limits",
                        at,
                        ErrorKind::InvalidValue {
                            value: v.into(),
                            expected: "0 or 1",
                        },
                    ));
                }
            };
            links.push(IkLink { bone, limits });
        }
        Ok(Ik {
            target,
            loop_count,
            limit_angle,
            links,
        })
    }
}
