//! MMD's light and self-shadow as its 照明 (lighting) and セルフシャドウ (self-shadow) panels
//! set them: MMD's defaults, or a VMD's light keys (colour and direction, linear between
//! keys) and self-shadow keys (mode and distance), sampled at a frame. What the renderer
//! takes; the sampling lives here with the rest of the animation.

use glam::Vec3;
use odori_format::vmd::{LightKey, SelfShadowKey};

/// One sampled light.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Light {
    /// RGB, 0..1 (MMD's slider value / 255).
    pub color: Vec3,
    /// The direction light travels (from the light into the scene), MMD's stored vector.
    pub direction: Vec3,
    /// The self-shadow panel's state at this frame.
    pub shadow: SelfShadow,
}

impl Light {
    /// MMD's default light: grey 154/255, direction (-0.5, -1.0, 0.5), self-shadow in mode 1
    /// at the default distance.
    pub const DEFAULT: Light = Light {
        color: Vec3::splat(154.0 / 255.0),
        direction: Vec3::new(-0.5, -1.0, 0.5),
        shadow: SelfShadow::DEFAULT,
    };

    /// Unit vector toward the light (what shading dots normals with).
    pub fn to_light(&self) -> Vec3 {
        (-self.direction).try_normalize().unwrap_or(Vec3::Y)
    }
}

/// The self-shadow mode of MMD's セルフシャドウ panel (a VMD self-shadow key's mode byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShadowMode {
    /// 影なし: no self-shadow; materials are shaded by their toon ramp alone.
    Off,
    /// モード1: the shadow map covers a wide area around the camera.
    Mode1,
    /// モード2: the shadow map is spent nearer the camera (sharper close by, shorter reach).
    Mode2,
}

impl ShadowMode {
    /// A key's mode byte: 0 off, 1 mode 1, 2 mode 2; any other value is read as off, as
    /// nanoem's reading of MMD's data does for an unknown coverage mode.
    pub fn from_byte(b: u8) -> ShadowMode {
        match b {
            1 => ShadowMode::Mode1,
            2 => ShadowMode::Mode2,
            _ => ShadowMode::Off,
        }
    }
}

/// One sampled self-shadow state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelfShadow {
    pub mode: ShadowMode,
    /// The VMD's stored distance: `0.1 − slider / 100000`, where the panel's 影範囲 slider
    /// runs 0..10000 (MMD's default 8875 stores 0.01125). Larger values cover less ground.
    pub distance: f32,
}

impl SelfShadow {
    /// MMD's default: mode 1, slider 8875.
    pub const DEFAULT: SelfShadow = SelfShadow {
        mode: ShadowMode::Mode1,
        distance: 0.1 - 8875.0 / 100000.0,
    };

    /// Whether self-shadow is drawn.
    pub fn is_on(&self) -> bool {
        self.mode != ShadowMode::Off
    }

    /// The panel's 影範囲 slider value this distance stores.
    pub fn slider(&self) -> f32 {
        (0.1 - self.distance) * 100000.0
    }
}

/// VMD light keys, sorted.
#[derive(Debug, Clone, Default)]
pub struct LightMotion {
    keys: Vec<(f32, Vec3, Vec3)>,
}

impl LightMotion {
    /// `None` when there are no keys (the default light applies).
    pub fn from_keys(keys: &[LightKey]) -> Option<LightMotion> {
        if keys.is_empty() {
            return None;
        }
        let mut keys: Vec<(f32, Vec3, Vec3)> = (keys.iter())
            .map(|k| (k.frame as f32, Vec3::from(k.color), Vec3::from(k.direction)))
            .collect();
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(LightMotion { keys })
    }

    /// The last key's frame.
    pub fn end_frame(&self) -> f32 {
        self.keys.last().map_or(0.0, |k| k.0)
    }

    /// The light's colour and direction at `frame`: held before the first and after the last
    /// key, linear between.
    pub fn sample(&self, frame: f32) -> (Vec3, Vec3) {
        let keys = &self.keys;
        let Some(first) = keys.first() else {
            return (Light::DEFAULT.color, Light::DEFAULT.direction);
        };
        if frame <= first.0 {
            return (first.1, first.2);
        }
        let i = keys.partition_point(|k| k.0 <= frame);
        if i >= keys.len() {
            let last = keys[keys.len() - 1];
            return (last.1, last.2);
        }
        let ((fa, ca, da), (fb, cb, db)) = (keys[i - 1], keys[i]);
        let t = (frame - fa) / (fb - fa);
        (ca.lerp(cb, t), da.lerp(db, t))
    }
}

/// VMD self-shadow keys, sorted.
#[derive(Debug, Clone, Default)]
pub struct SelfShadowMotion {
    keys: Vec<(f32, SelfShadow)>,
}

impl SelfShadowMotion {
    /// `None` when there are no keys (MMD's default self-shadow applies).
    pub fn from_keys(keys: &[SelfShadowKey]) -> Option<SelfShadowMotion> {
        if keys.is_empty() {
            return None;
        }
        let mut keys: Vec<(f32, SelfShadow)> = (keys.iter())
            .map(|k| {
                let shadow = SelfShadow {
                    mode: ShadowMode::from_byte(k.mode),
                    distance: if k.distance.is_finite() {
                        k.distance
                    } else {
                        SelfShadow::DEFAULT.distance
                    },
                };
                (k.frame as f32, shadow)
            })
            .collect();
        keys.sort_by(|a, b| a.0.total_cmp(&b.0));
        Some(SelfShadowMotion { keys })
    }

    /// The last key's frame.
    pub fn end_frame(&self) -> f32 {
        self.keys.last().map_or(0.0, |k| k.0)
    }

    /// The self-shadow at `frame`: the mode switches at a key (a mode has no in-between);
    /// the distance is linear between keys; both held before the first and after the last.
    pub fn sample(&self, frame: f32) -> SelfShadow {
        let keys = &self.keys;
        let Some(first) = keys.first() else {
            return SelfShadow::DEFAULT;
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
        SelfShadow {
            mode: a.mode,
            distance: a.distance + (b.distance - a.distance) * t,
        }
    }
}

/// A scene's light: its light motion and its self-shadow motion, either absent (MMD's
/// defaults).
#[derive(Debug, Clone, Default)]
pub struct LightTrack {
    pub light: Option<LightMotion>,
    pub shadow: Option<SelfShadowMotion>,
}

impl LightTrack {
    /// The light at `frame`.
    pub fn sample(&self, frame: f32) -> Light {
        let (color, direction) = match &self.light {
            Some(l) => l.sample(frame),
            None => (Light::DEFAULT.color, Light::DEFAULT.direction),
        };
        let shadow = self
            .shadow
            .as_ref()
            .map_or(SelfShadow::DEFAULT, |s| s.sample(frame));
        Light {
            color,
            direction,
            shadow,
        }
    }

    /// The last key's frame of either motion.
    pub fn end_frame(&self) -> f32 {
        let light = self.light.as_ref().map_or(0.0, LightMotion::end_frame);
        let shadow = self
            .shadow
            .as_ref()
            .map_or(0.0, SelfShadowMotion::end_frame);
        light.max(shadow)
    }

    /// Whether neither motion has keys.
    pub fn is_empty(&self) -> bool {
        self.light.is_none() && self.shadow.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Light keys interpolate linearly (MMD's light keys have no curves) and hold outside.
    #[test]
    fn linear_between_keys() {
        let k = |frame, c: f32| LightKey {
            frame,
            color: [c; 3],
            direction: [0.0, -1.0, 0.0],
        };
        let m = LightMotion::from_keys(&[k(10, 0.0), k(0, 1.0)]).unwrap();
        assert_eq!(m.sample(-1.0).0.x, 1.0);
        assert!((m.sample(5.0).0.x - 0.5).abs() < 1e-6);
        assert_eq!(m.sample(20.0).0.x, 0.0);
    }

    /// A self-shadow key's mode holds until the next key; its distance moves linearly; the
    /// default (no keys) is MMD's panel default, mode 1 at slider 8875.
    #[test]
    fn self_shadow_mode_steps_distance_moves() {
        let k = |frame, mode, distance| SelfShadowKey {
            frame,
            mode,
            distance,
        };
        let m = SelfShadowMotion::from_keys(&[k(30, 0, 0.02), k(0, 2, 0.01)]).unwrap();
        assert_eq!(m.sample(0.0).mode, ShadowMode::Mode2);
        let mid = m.sample(15.0);
        assert_eq!(mid.mode, ShadowMode::Mode2);
        assert!((mid.distance - 0.015).abs() < 1e-7);
        assert_eq!(m.sample(29.9).mode, ShadowMode::Mode2);
        assert!(!m.sample(30.0).is_on());
        assert!(!m.sample(100.0).is_on());
        assert_eq!(ShadowMode::from_byte(7), ShadowMode::Off);
        assert!((SelfShadow::DEFAULT.slider() - 8875.0).abs() < 1e-2);
        assert_eq!(LightTrack::default().sample(3.0), Light::DEFAULT);
    }
}
