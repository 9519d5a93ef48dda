//! The mesh sections: vertices, faces, textures and materials.

use super::Reader;
use crate::error::{ErrorKind, Result};
use crate::pmx::{Material, Toon, Vertex, Weights};

impl Reader<'_> {
    pub(super) fn vertices(&mut self) -> Result<Vec<Vertex>> {
        self.begin("vertices");
        let uvs = usize::from(self.h.additional_uvs);
        let bone = usize::from(self.h.bone_index_size);
        // Position, normal, UV, additional UVs, weight type, one bone (BDEF1), edge scale.
        let min_size = 12 + 12 + 8 + 16 * uvs + 1 + bone + 4;
        let n = self.c.count_i32("count", min_size)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            let position = self.c.f32s("position")?;
            // Degenerate vertices of real files have NaN normals, and MMD loads them.
            let normal = self.c.f32s_lenient("normal")?;
            let uv = self.c.f32s("uv")?;
            let mut additional_uvs = [[0.0; 4]; 4];
            for a in additional_uvs.iter_mut().take(uvs) {
                *a = self.c.f32s("additional uv")?;
            }
            let weights = self.weights(i)?;
            let edge_scale = self.c.f32("edge scale")?;
            out.push(Vertex {
                position,
                normal,
                uv,
                additional_uvs,
                weights,
                edge_scale,
            });
        }
        self.vertex_count = n;
        Ok(out)
    }

    fn weights(&mut self, i: usize) -> Result<Weights> {
        let at = self.c.pos();
        Ok(match self.c.u8("weight type")? {
            0 => Weights::Bdef1 {
                bone: self.vertex_bone(i)?,
            },
            1 => Weights::Bdef2 {
                bones: [self.vertex_bone(i)?, self.vertex_bone(i)?],
                weight: self.c.f32("weight")?,
            },
            2 => {
                let (bones, weights) = self.four_weights(i)?;
                Weights::Bdef4 { bones, weights }
            }
            3 => Weights::Sdef {
                bones: [self.vertex_bone(i)?, self.vertex_bone(i)?],
                weight: self.c.f32("weight")?,
                c: self.c.f32s("sdef c")?,
                r0: self.c.f32s("sdef r0")?,
                r1: self.c.f32s("sdef r1")?,
            },
            4 if self.v21 => {
                let (bones, weights) = self.four_weights(i)?;
                Weights::Qdef { bones, weights }
            }
            v => {
                let expected = if self.v21 {
                    "weight type 0..=4"
                } else {
                    "weight type 0..=3 (PMX 2.0)"
                };
                return Err(self.c.error_at(
                    "weight type",
                    at,
                    ErrorKind::InvalidValue {
                        value: v.into(),
                        expected,
                    },
                ));
            }
        })
    }

    fn four_weights(&mut self, i: usize) -> Result<([i32; 4], [f32; 4])> {
        let mut bones = [0; 4];
        for b in &mut bones {
            *b = self.vertex_bone(i)?;
        }
        Ok((bones, self.c.f32s("weight")?))
    }

    pub(super) fn faces(&mut self) -> Result<Vec<u32>> {
        self.begin("faces");
        let at = self.c.pos();
        let n = self.exact_count("count", usize::from(self.h.vertex_index_size))?;
        if !n.is_multiple_of(3) {
            return Err(self.c.error_at(
                "count",
                at,
                ErrorKind::InvalidValue {
                    value: n as i64,
                    expected: "a multiple of 3 indices",
                },
            ));
        }
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            out.push(self.vertex_index("vertex")?);
        }
        Ok(out)
    }

    pub(super) fn textures(&mut self) -> Result<Vec<String>> {
        self.begin("textures");
        let n = self.c.count_i32("count", 4)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            out.push(self.text("path")?);
        }
        Ok(out)
    }

    pub(super) fn materials(&mut self, textures: usize, faces: usize) -> Result<Vec<Material>> {
        self.begin("materials");
        let section_start = self.c.pos();
        let t = usize::from(self.h.texture_index_size);
        // Two names, colours and edge (44 + 1 + 20), two texture indices, sphere mode, toon
        // flag and a one-byte shared toon, memo, index count.
        let min_size = 8 + 44 + 1 + 20 + 2 * t + 2 + 1 + 4 + 4;
        let n = self.c.count_i32("count", min_size)?;
        let mut out = Vec::with_capacity(n);
        let mut total: i64 = 0;
        for i in 0..n {
            self.c.element(i);
            let name = self.text("name")?;
            let name_en = self.text("name (English)")?;
            let diffuse = self.c.f32s("diffuse")?;
            let specular = self.c.f32s("specular")?;
            let specular_power = self.c.f32("specular power")?;
            let ambient = self.c.f32s("ambient")?;
            let flags = self.c.u8("flags")?;
            let edge_color = self.c.f32s("edge color")?;
            let edge_size = self.c.f32("edge size")?;
            let texture = self.reference("texture", "texture", textures, Self::texture_index)?;
            let sphere_texture =
                self.reference("sphere texture", "texture", textures, Self::texture_index)?;
            let sphere_mode = self.c.u8("sphere mode")?;
            let toon = self.toon(textures)?;
            let memo = self.text("memo")?;
            let at = self.c.pos();
            let index_count = self.c.i32("index count")?;
            if index_count < 0 || index_count % 3 != 0 {
                self.c.diagnose_at(
                    "index count",
                    at,
                    format!("index count {index_count} is not a non-negative multiple of 3"),
                );
            }
            total = total.saturating_add(i64::from(index_count));
            out.push(Material {
                name,
                name_en,
                diffuse,
                specular,
                specular_power,
                ambient,
                flags,
                edge_color,
                edge_size,
                texture,
                sphere_texture,
                sphere_mode,
                toon,
                memo,
                index_count,
            });
        }
        if total != faces as i64 {
            self.c.section("materials");
            self.c.diagnose_at(
                "index count",
                section_start,
                format!("materials draw {total} face indices, but the model has {faces}"),
            );
        }
        Ok(out)
    }

    fn toon(&mut self, textures: usize) -> Result<Toon> {
        let at = self.c.pos();
        match self.c.u8("toon sharing")? {
            0 => Ok(Toon::Texture(self.reference(
                "toon texture",
                "texture",
                textures,
                Self::texture_index,
            )?)),
            1 => {
                let at = self.c.pos();
                let v = self.c.u8("shared toon")?;
                if v > 9 {
                    self.c.diagnose_at(
                        "shared toon",
                        at,
                        format!("shared toon {v} is not one of toon01..toon10 (0..=9)"),
                    );
                }
                Ok(Toon::Shared(v))
            }
            v => Err(self.c.error_at(
                "toon sharing",
                at,
                ErrorKind::InvalidValue {
                    value: v.into(),
                    expected: "0 (texture) or 1 (shared)",
                },
            )),
        }
    }
}
