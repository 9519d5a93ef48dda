//! Writing vertices, faces, textures and materials.

use super::Writer;
use crate::error::Result;
use crate::pmx::{Material, Toon, Vertex, Weights};

impl Writer<'_> {
    pub(super) fn vertices(&mut self, vertices: &[Vertex], bones: usize) -> Result<()> {
        self.s.section("vertices");
        self.s.count_i32("count", vertices.len())?;
        let uvs = usize::from(self.h.additional_uvs);
        for (i, v) in vertices.iter().enumerate() {
            self.s.element(i);
            self.s.f32s(&v.position);
            self.s.f32s(&v.normal);
            self.s.f32s(&v.uv);
            for a in v.additional_uvs.iter().take(uvs) {
                self.s.f32s(a);
            }
            match &v.weights {
                Weights::Bdef1 { bone } => {
                    self.s.u8(0);
                    self.vertex_bones(&[*bone], bones)?;
                }
                Weights::Bdef2 { bones: b, weight } => {
                    self.s.u8(1);
                    self.vertex_bones(b, bones)?;
                    self.s.f32(*weight);
                }
                Weights::Bdef4 { bones: b, weights } => {
                    self.s.u8(2);
                    self.vertex_bones(b, bones)?;
                    self.s.f32s(weights);
                }
                Weights::Sdef {
                    bones: b,
                    weight,
                    c,
                    r0,
                    r1,
                } => {
                    self.s.u8(3);
                    self.vertex_bones(b, bones)?;
                    self.s.f32(*weight);
                    self.s.f32s(c);
                    self.s.f32s(r0);
                    self.s.f32s(r1);
                }
                Weights::Qdef { bones: b, weights } => {
                    self.require_v21("weight type", "QDEF weights")?;
                    self.s.u8(4);
                    self.vertex_bones(b, bones)?;
                    self.s.f32s(weights);
                }
            }
            self.s.f32(v.edge_scale);
        }
        Ok(())
    }

    /// Vertex bone indices must name a bone or be −1: the reader refuses others.
    fn vertex_bones(&mut self, b: &[i32], bones: usize) -> Result<()> {
        for &bone in b {
            if !crate::pmx::index_in_range(bone, bones) {
                return Err(self.s.error(
                    "bone",
                    format!("bone index {bone} out of range (-1..{bones})"),
                ));
            }
            self.bone_index("bone", bone)?;
        }
        Ok(())
    }

    pub(super) fn faces(&mut self, indices: &[u32], vertices: usize) -> Result<()> {
        self.s.section("faces");
        if !indices.len().is_multiple_of(3) {
            return Err(self.s.error(
                "count",
                format!("{} indices: not whole triangles", indices.len()),
            ));
        }
        self.s.count_i32("count", indices.len())?;
        for (i, &v) in indices.iter().enumerate() {
            self.s.element(i);
            self.vertex_index("vertex", v, vertices)?;
        }
        Ok(())
    }

    pub(super) fn textures(&mut self, textures: &[String]) -> Result<()> {
        self.s.section("textures");
        self.s.count_i32("count", textures.len())?;
        for (i, t) in textures.iter().enumerate() {
            self.s.element(i);
            self.text("path", t)?;
        }
        Ok(())
    }

    pub(super) fn materials(&mut self, materials: &[Material]) -> Result<()> {
        self.s.section("materials");
        self.s.count_i32("count", materials.len())?;
        for (i, m) in materials.iter().enumerate() {
            self.s.element(i);
            self.text("name", &m.name)?;
            self.text("name (English)", &m.name_en)?;
            self.s.f32s(&m.diffuse);
            self.s.f32s(&m.specular);
            self.s.f32(m.specular_power);
            self.s.f32s(&m.ambient);
            self.s.u8(m.flags);
            self.s.f32s(&m.edge_color);
            self.s.f32(m.edge_size);
            self.texture_index("texture", m.texture)?;
            self.texture_index("sphere texture", m.sphere_texture)?;
            self.s.u8(m.sphere_mode);
            match m.toon {
                Toon::Texture(t) => {
                    self.s.u8(0);
                    self.texture_index("toon texture", t)?;
                }
                Toon::Shared(t) => {
                    self.s.u8(1);
                    self.s.u8(t);
                }
            }
            self.text("memo", &m.memo)?;
            self.s.i32(m.index_count);
        }
        Ok(())
    }
}
