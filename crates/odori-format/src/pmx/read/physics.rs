//! The physics sections: rigid bodies, joints and (PMX 2.1) soft bodies.

use super::Reader;
use crate::error::Result;
use crate::pmx::{Joint, RigidBody, SoftBody, SoftBodyAnchor};

impl Reader<'_> {
    pub(super) fn rigid_bodies(&mut self, bones: usize) -> Result<Vec<RigidBody>> {
        self.begin("rigid bodies");
        let b = usize::from(self.h.bone_index_size);
        // Two names, bone, group, mask, shape, size/position/rotation, five floats, mode.
        let n = self.c.count_i32("count", 8 + b + 1 + 2 + 1 + 36 + 20 + 1)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            out.push(RigidBody {
                name: self.text("name")?,
                name_en: self.text("name (English)")?,
                bone: self.reference("bone", "bone", bones, Self::bone_index)?,
                group: self.c.u8("group")?,
                collision_mask: self.c.u16("collision mask")?,
                shape: self.c.u8("shape")?,
                size: self.c.f32s("size")?,
                position: self.c.f32s("position")?,
                rotation: self.c.f32s("rotation")?,
                mass: self.c.f32("mass")?,
                linear_damping: self.c.f32("linear damping")?,
                angular_damping: self.c.f32("angular damping")?,
                restitution: self.c.f32("restitution")?,
                friction: self.c.f32("friction")?,
                mode: self.c.u8("mode")?,
            });
        }
        Ok(out)
    }

    pub(super) fn joints(&mut self, bodies: usize) -> Result<Vec<Joint>> {
        self.begin("joints");
        let r = usize::from(self.h.rigid_body_index_size);
        // Two names, type, two bodies, eight vec3s.
        let n = self.c.count_i32("count", 8 + 1 + 2 * r + 8 * 12)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            out.push(Joint {
                name: self.text("name")?,
                name_en: self.text("name (English)")?,
                kind: self.c.u8("type")?,
                body_a: self.reference("body a", "rigid body", bodies, Self::body_index)?,
                body_b: self.reference("body b", "rigid body", bodies, Self::body_index)?,
                position: self.c.f32s("position")?,
                rotation: self.c.f32s("rotation")?,
                translation_min: self.c.f32s("translation min")?,
                translation_max: self.c.f32s("translation max")?,
                rotation_min: self.c.f32s("rotation min")?,
                rotation_max: self.c.f32s("rotation max")?,
                spring_translation: self.c.f32s("spring translation")?,
                spring_rotation: self.c.f32s("spring rotation")?,
            });
        }
        Ok(out)
    }

    /// PMX 2.1 only: a 2.0 file ends after its joints. A 2.1 file that ends there too (some
    /// exporters write no soft body count) loads with a diagnostic, as having none.
    pub(super) fn soft_bodies(&mut self, materials: usize, bodies: usize) -> Result<Vec<SoftBody>> {
        if !self.v21 {
            return Ok(Vec::new());
        }
        if self.c.at_end() {
            self.c.section("soft bodies");
            let at = self.c.pos();
            self.c.diagnose_at(
                "count",
                at,
                "PMX 2.1 file without a soft body section".into(),
            );
            return Ok(Vec::new());
        }
        self.begin("soft bodies");
        let m = usize::from(self.h.material_index_size);
        let (r, v) = (
            usize::from(self.h.rigid_body_index_size),
            usize::from(self.h.vertex_index_size),
        );
        // Names, shape, material, group, mask, flags, 5 scalars, 12 + 6 config floats,
        // 4 iteration counts, 3 coefficients, anchor and pin counts.
        let min_size = 8 + 1 + m + 1 + 2 + 1 + 20 + 48 + 24 + 16 + 12 + 4 + 4;
        let n = self.c.count_i32("count", min_size)?;
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            self.c.element(i);
            let name = self.text("name")?;
            let name_en = self.text("name (English)")?;
            let shape = self.c.u8("shape")?;
            let material =
                self.reference("material", "material", materials, Self::material_index)?;
            let group = self.c.u8("group")?;
            let collision_mask = self.c.u16("collision mask")?;
            let flags = self.c.u8("flags")?;
            let b_link_distance = self.c.i32("b-link distance")?;
            let cluster_count = self.c.i32("cluster count")?;
            let total_mass = self.c.f32("total mass")?;
            let collision_margin = self.c.f32("collision margin")?;
            let aero_model = self.c.i32("aero model")?;
            let config = self.c.f32s("config")?;
            let cluster = self.c.f32s("cluster")?;
            let mut iterations = [0; 4];
            for it in &mut iterations {
                *it = self.c.i32("iterations")?;
            }
            let material_coefficients = self.c.f32s("material coefficients")?;
            let count = self.exact_count("anchor count", r + v + 1)?;
            let mut anchors = Vec::with_capacity(count);
            for _ in 0..count {
                anchors.push(SoftBodyAnchor {
                    rigid_body: self.reference(
                        "anchor body",
                        "rigid body",
                        bodies,
                        Self::body_index,
                    )?,
                    vertex: self.vertex_index("anchor vertex")?,
                    near_mode: self.c.u8("anchor near mode")?,
                });
            }
            let count = self.exact_count("pin count", v)?;
            let mut pins = Vec::with_capacity(count);
            for _ in 0..count {
                pins.push(self.vertex_index("pin vertex")?);
            }
            out.push(SoftBody {
                name,
                name_en,
                shape,
                material,
                group,
                collision_mask,
                flags,
                b_link_distance,
                cluster_count,
                total_mass,
                collision_margin,
                aero_model,
                config,
                cluster,
                iterations,
                material_coefficients,
                anchors,
                pins,
            });
        }
        Ok(out)
    }
}
