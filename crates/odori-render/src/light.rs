//! The directional light: MMD's default, or VMD light keys (linear between keys).

use glam::Vec3;
use odori_format::vmd::LightKey;

/// One sampled light.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// RGB, 0..1 (MMD's slider value / 255).
    pub color: Vec3,
    /// The direction light travels (from the light into the scene), MMD's stored vector.
    pub direction: Vec3,
}

impl Light {
    /// MMD's default light: grey 154/255, direction (-0.5, -1.0, 0.5).
    pub const DEFAULT: Light = Light {
        color: Vec3::splat(154.0 / 255.0),
        direction: Vec3::new(-0.5, -1.0, 0.5),
    };

    /// Unit vector toward the light (what shading dots normals with).
    pub fn to_light(&self) -> Vec3 {
        (-self.direction).try_normalize().unwrap_or(Vec3::Y)
    }
}

/// VMD light keys, sorted.
#[derive(Debug, Clone, Default)]
pub struct LightMotion {
    keys: Vec<(f32, Light)>,
}

impl LightMotion {
    /// `None` when there are no keys (the default light applies).
    pub fn from_keys(keys: &[LightKey]) -> Option<LightMotion> {
        if keys.is_empty() {
            return None;
        }
        let mut keys: Vec<(f32, Light)> = keys
            .iter()
            .map(|k| {
                (
                    k.frame as f32,
                    Light {
                        color: Vec3::from(k.color),
                        direction: Vec3::from(k.direction),
                    },
                )
            })
            .collect();
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(LightMotion { keys })
    }

    /// The light at `frame`: held before the first and after the last key, linear between.
    pub fn sample(&self, frame: f32) -> Light {
        let keys = &self.keys;
        let Some(first) = keys.first() else {
            return Light::DEFAULT;
        };
        if frame <= first.0 {
            return first.1;
        }
        let i = keys.partition_point(|k| k.0 <= frame);
        if i >= keys.len() {
            return keys[keys.len() - 1].1;
        }
        let ((fa, a), (fb, b)) = (keys[i - 1], keys[i]);
        let t = (frame - fa) / (fb - fa);
        Light {
            color: a.color.lerp(b.color, t),
            direction: a.direction.lerp(b.direction, t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_between_keys() {
        let k = |frame, c: f32| LightKey {
            frame,
            color: [c; 3],
            direction: [0.0, -1.0, 0.0],
        };
        let m = LightMotion::from_keys(&[k(10, 0.0), k(0, 1.0)]).unwrap();
        assert_eq!(m.sample(-1.0).color.x, 1.0);
        assert!((m.sample(5.0).color.x - 0.5).abs() < 1e-6);
        assert_eq!(m.sample(20.0).color.x, 0.0);
    }
}
