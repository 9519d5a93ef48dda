//! Writing rigid bodies, joints and (PMX 2.1) soft bodies.

use super::Writer;
use crate::error::Result;
use crate::pmx::{Joint, RigidBody, SoftBody};

impl Writer<'_> {
    pub(super) fn rigid_bodies(&mut self, bodies: &[RigidBody]) -> Result<()> {
        self.s.section("rigid bodies");
        self.s.count_i32("count", bodies.len())?;
        for (i, r) in bodies.iter().enumerate() {
            self.s.element(i);
            self.text("name", &r.name)?;
            self.text("name (English)", &r.name_en)?;
            self.bone_index("bone", r.bone)?;
            self.s.u8(r.group);
            self.s.u16(r.collision_mask);
            self.s.u8(r.shape);
            self.s.f32s(&r.size);
            self.s.f32s(&r.position);
            self.s.f32s(&r.rotation);
            self.s.f32s(&[
                r.mass,
                r.linear_damping,
                r.angular_damping,
                r.restitution,
                r.friction,
            ]);
            self.s.u8(r.mode);
        }
        Ok(())
    }

    pub(super) fn joints(&mut self, joints: &[Joint]) -> Result<()> {
        self.s.section("joints");
        self.s.count_i32("count", joints.len())?;
        for (i, j) in joints.iter().enumerate() {
            self.s.element(i);
            self.text("name", &j.name)?;
            self.text("name (English)", &j.name_en)?;
            self.s.u8(j.kind);
            self.body_index("body a", j.body_a)?;
            self.body_index("body b", j.body_b)?;
            for v in [
                &j.position,
                &j.rotation,
                &j.translation_min,
                &j.translation_max,
                &j.rotation_min,
                &j.rotation_max,
                &j.spring_translation,
                &j.spring_rotation,
            ] {
                self.s.f32s(v);
            }
        }
        Ok(())
    }

    /// A 2.1 file always gets the section (possibly empty); a 2.0 file cannot have one.
    pub(super) fn soft_bodies(&mut self, soft: &[SoftBody], vertices: usize) -> Result<()> {
        self.s.section("soft bodies");
        if !self.v21 {
            if soft.is_empty() {
                return Ok(());
            }
            return self.require_v21("count", "soft bodies");
        }
        self.s.count_i32("count", soft.len())?;
        for (i, b) in soft.iter().enumerate() {
            self.s.element(i);
            self.text("name", &b.name)?;
            self.text("name (English)", &b.name_en)?;
            self.s.u8(b.shape);
            self.material_index("material", b.material)?;
            self.s.u8(b.group);
            self.s.u16(b.collision_mask);
            self.s.u8(b.flags);
            self.s.i32(b.b_link_distance);
            self.s.i32(b.cluster_count);
            self.s.f32(b.total_mass);
            self.s.f32(b.collision_margin);
            self.s.i32(b.aero_model);
            self.s.f32s(&b.config);
            self.s.f32s(&b.cluster);
            for it in b.iterations {
                self.s.i32(it);
            }
            self.s.f32s(&b.material_coefficients);
            self.s.count_i32("anchor count", b.anchors.len())?;
            for a in &b.anchors {
                self.body_index("anchor body", a.rigid_body)?;
                self.vertex_index("anchor vertex", a.vertex, vertices)?;
                self.s.u8(a.near_mode);
            }
            self.s.count_i32("pin count", b.pins.len())?;
            for &p in &b.pins {
                self.vertex_index("pin vertex", p, vertices)?;
            }
        }
        Ok(())
    }
}
