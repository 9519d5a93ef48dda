//! Material morphs: MMD multiplies and adds per field (multiply starts from 1, add from 0;
//! all multiplies apply before all adds), and the renderer reads the result.

use glam::{Vec3, Vec4};

/// The morphable fields of a material.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialValues {
    pub diffuse: Vec4,
    pub specular: Vec3,
    pub specular_power: f32,
    pub ambient: Vec3,
    pub edge_color: Vec4,
    pub edge_size: f32,
    /// Texture, sphere and toon tints (colour factors on the sampled texels).
    pub texture_tint: Vec4,
    pub sphere_tint: Vec4,
    pub toon_tint: Vec4,
}

impl MaterialValues {
    /// A PMX material's values as the file gives them (tints 1): the one reading of a
    /// material's colours that the pose model (material morphs) and the renderer share.
    pub fn from_pmx(m: &odori_format::pmx::Material) -> MaterialValues {
        MaterialValues {
            diffuse: Vec4::from_array(m.diffuse),
            specular: Vec3::from_array(m.specular),
            specular_power: m.specular_power,
            ambient: Vec3::from_array(m.ambient),
            edge_color: Vec4::from_array(m.edge_color),
            edge_size: m.edge_size,
            ..MaterialValues::ONE
        }
    }

    /// A PMD material's values: PMD has no edge colour or size, so MMD draws a flagged
    /// material's edge black at size 1 and the others without one.
    pub fn from_pmd(m: &odori_format::pmd::Material) -> MaterialValues {
        MaterialValues {
            diffuse: Vec4::from_array(m.diffuse),
            specular: Vec3::from_array(m.specular),
            specular_power: m.specular_power,
            ambient: Vec3::from_array(m.ambient),
            edge_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
            edge_size: if m.edge_flag != 0 { 1.0 } else { 0.0 },
            ..MaterialValues::ONE
        }
    }

    /// Every field 1: the neutral element of multiply morphs, and the base tint.
    pub const ONE: MaterialValues = MaterialValues {
        diffuse: Vec4::ONE,
        specular: Vec3::ONE,
        specular_power: 1.0,
        ambient: Vec3::ONE,
        edge_color: Vec4::ONE,
        edge_size: 1.0,
        texture_tint: Vec4::ONE,
        sphere_tint: Vec4::ONE,
        toon_tint: Vec4::ONE,
    };

    /// Every field 0: the neutral element of add morphs.
    pub const ZERO: MaterialValues = MaterialValues {
        diffuse: Vec4::ZERO,
        specular: Vec3::ZERO,
        specular_power: 0.0,
        ambient: Vec3::ZERO,
        edge_color: Vec4::ZERO,
        edge_size: 0.0,
        texture_tint: Vec4::ZERO,
        sphere_tint: Vec4::ZERO,
        toon_tint: Vec4::ZERO,
    };

    fn lerp_from(self, from: MaterialValues, w: f32) -> MaterialValues {
        let l4 = |a: Vec4, b: Vec4| a + (b - a) * w;
        let l3 = |a: Vec3, b: Vec3| a + (b - a) * w;
        let l1 = |a: f32, b: f32| a + (b - a) * w;
        MaterialValues {
            diffuse: l4(from.diffuse, self.diffuse),
            specular: l3(from.specular, self.specular),
            specular_power: l1(from.specular_power, self.specular_power),
            ambient: l3(from.ambient, self.ambient),
            edge_color: l4(from.edge_color, self.edge_color),
            edge_size: l1(from.edge_size, self.edge_size),
            texture_tint: l4(from.texture_tint, self.texture_tint),
            sphere_tint: l4(from.sphere_tint, self.sphere_tint),
            toon_tint: l4(from.toon_tint, self.toon_tint),
        }
    }

    fn mul(self, o: MaterialValues) -> MaterialValues {
        MaterialValues {
            diffuse: self.diffuse * o.diffuse,
            specular: self.specular * o.specular,
            specular_power: self.specular_power * o.specular_power,
            ambient: self.ambient * o.ambient,
            edge_color: self.edge_color * o.edge_color,
            edge_size: self.edge_size * o.edge_size,
            texture_tint: self.texture_tint * o.texture_tint,
            sphere_tint: self.sphere_tint * o.sphere_tint,
            toon_tint: self.toon_tint * o.toon_tint,
        }
    }

    fn add(self, o: MaterialValues) -> MaterialValues {
        MaterialValues {
            diffuse: self.diffuse + o.diffuse,
            specular: self.specular + o.specular,
            specular_power: self.specular_power + o.specular_power,
            ambient: self.ambient + o.ambient,
            edge_color: self.edge_color + o.edge_color,
            edge_size: self.edge_size + o.edge_size,
            texture_tint: self.texture_tint + o.texture_tint,
            sphere_tint: self.sphere_tint + o.sphere_tint,
            toon_tint: self.toon_tint + o.toon_tint,
        }
    }
}

/// One material morph offset, resolved.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialOffset {
    /// `None` = every material.
    pub material: Option<u32>,
    pub add: bool,
    pub values: MaterialValues,
}

/// The morph state of one material this frame: `result = base × mul + add`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialState {
    pub mul: MaterialValues,
    pub add: MaterialValues,
}

impl MaterialState {
    pub const NEUTRAL: MaterialState = MaterialState {
        mul: MaterialValues::ONE,
        add: MaterialValues::ZERO,
    };

    /// Apply one offset at `weight`.
    pub fn apply(&mut self, offset: &MaterialOffset, weight: f32) {
        if offset.add {
            self.add = self
                .add
                .add(offset.values.lerp_from(MaterialValues::ZERO, weight));
        } else {
            self.mul = self
                .mul
                .mul(offset.values.lerp_from(MaterialValues::ONE, weight));
        }
    }

    /// The morphed values of a material with base values `base` (tints start at 1).
    pub fn resolve(&self, base: &MaterialValues) -> MaterialValues {
        base.mul(self.mul).add(self.add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiply_then_add() {
        let base = MaterialValues {
            diffuse: Vec4::new(0.5, 0.5, 0.5, 1.0),
            ..MaterialValues::ONE
        };
        let mut s = MaterialState::NEUTRAL;
        let half = MaterialValues {
            diffuse: Vec4::ZERO,
            ..MaterialValues::ONE
        };
        s.apply(
            &MaterialOffset {
                material: None,
                add: false,
                values: half,
            },
            0.5,
        );
        let plus = MaterialValues {
            diffuse: Vec4::new(0.2, 0.0, 0.0, 0.0),
            ..MaterialValues::ZERO
        };
        s.apply(
            &MaterialOffset {
                material: None,
                add: true,
                values: plus,
            },
            1.0,
        );
        let r = s.resolve(&base);
        assert!((r.diffuse.x - (0.25 + 0.2)).abs() < 1e-6);
        assert!((r.diffuse.y - 0.25).abs() < 1e-6);
    }
}
