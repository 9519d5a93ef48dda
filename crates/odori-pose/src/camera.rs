//! The camera: VMD camera motion sampled as MMD does, or a camera that frames the model. The
//! renderer takes the sampled [`CameraPose`]; the keys and their curves stay here, with the
//! rest of the animation.
//!
//! MMD's camera is a target point, Euler angles, a distance and a vertical field of view. The
//! eye sits at `target + R · (0, 0, distance)` and looks along `R · +Z` (distance is negative in
//! ordinary files, which puts the eye behind the target, looking at it). `R` rotates Z (roll)
//! first, then X (pitch), then Y (yaw), each by the *negated* stored angle in a right-handed
//! sense — the convention that reproduces babylon-mmd's eye positions for wavefile_camera.vmd
//! (see `tests/camera_oracle.rs`). World space stays MMD's left-handed, Y-up space, so the
//! view and projection matrices are the left-handed ones.

use crate::bezier::Curve;
use glam::{Mat3, Mat4, Vec3};
use odori_format::vmd::CameraKey;

/// One sampled camera pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraPose {
    pub target: Vec3,
    /// Euler angles as stored in VMD, radians.
    pub rotation: Vec3,
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov: f32,
    /// True: orthographic (VMD's perspective flag off).
    pub orthographic: bool,
}

impl CameraPose {
    /// MMD's default camera: looking at (0, 10, 0) from 45 units in front, 30° FOV.
    pub const DEFAULT: CameraPose = CameraPose {
        target: Vec3::new(0.0, 10.0, 0.0),
        rotation: Vec3::ZERO,
        distance: -45.0,
        fov: 30.0 * std::f32::consts::PI / 180.0,
        orthographic: false,
    };

    /// The rotation taking camera space to world space.
    pub fn rotation_matrix(&self) -> Mat3 {
        Mat3::from_rotation_y(-self.rotation.y)
            * Mat3::from_rotation_x(-self.rotation.x)
            * Mat3::from_rotation_z(-self.rotation.z)
    }

    pub fn eye(&self) -> Vec3 {
        self.target + self.rotation_matrix() * Vec3::new(0.0, 0.0, self.distance)
    }

    /// World → view (left-handed, looking down +Z).
    pub fn view(&self) -> Mat4 {
        let r = self.rotation_matrix();
        let eye = self.eye();
        // Inverse of the rigid transform (R, eye).
        let rt = r.transpose();
        Mat4::from_mat3(rt) * Mat4::from_translation(-eye)
    }

    /// View → clip, wgpu depth range 0..1. `near`/`far` are chosen for MMD's scale (1 unit ≈
    /// 8 cm): stages rarely exceed a few hundred units.
    pub fn projection(&self, aspect: f32) -> Mat4 {
        if self.orthographic {
            // MMD's orthographic mode keeps the apparent size at the target's distance.
            let h = self.distance.abs().max(1.0) * (self.fov * 0.5).tan();
            glam::camera::lh::proj::directx::orthographic(
                -h * aspect,
                h * aspect,
                -h,
                h,
                -2000.0,
                4000.0,
            )
        } else {
            glam::camera::lh::proj::directx::perspective(self.fov.max(0.01), aspect, 0.5, 4000.0)
        }
    }
}

/// VMD camera keys prepared for sampling (sorted, curves decoded).
#[derive(Debug, Clone, Default)]
pub struct CameraMotion {
    keys: Vec<Key>,
}

#[derive(Debug, Clone)]
struct Key {
    frame: f32,
    pose: CameraPose,
    /// Curves of the segment ending at this key: x, y, z, rotation, distance, fov.
    curves: [Curve; 6],
}

impl CameraMotion {
    /// From a VMD's camera section; `None` when it has no keys.
    pub fn from_keys(keys: &[CameraKey]) -> Option<CameraMotion> {
        if keys.is_empty() {
            return None;
        }
        let mut keys: Vec<Key> = keys
            .iter()
            .map(|k| {
                let c = k.curves();
                Key {
                    frame: k.frame as f32,
                    pose: CameraPose {
                        target: Vec3::from(k.target),
                        rotation: Vec3::from(k.rotation),
                        distance: k.distance,
                        fov: (k.fov as f32).to_radians(),
                        orthographic: k.perspective_off != 0,
                    },
                    curves: [c.x, c.y, c.z, c.rotation, c.distance, c.fov].map(Curve::from_bezier),
                }
            })
            .collect();
        // Stable: of two keys at one frame, the later one in the file wins.
        keys.sort_by(|a, b| a.frame.total_cmp(&b.frame));
        keys.dedup_by(|later, earlier| {
            if later.frame == earlier.frame {
                *earlier = later.clone();
                true
            } else {
                false
            }
        });
        Some(CameraMotion { keys })
    }

    /// The last key's frame.
    pub fn end_frame(&self) -> f32 {
        self.keys.last().map_or(0.0, |k| k.frame)
    }

    /// The camera at `frame` (any real value).
    pub fn sample(&self, frame: f32) -> CameraPose {
        let keys = &self.keys;
        let Some(first) = keys.first() else {
            return CameraPose::DEFAULT;
        };
        if frame <= first.frame {
            return first.pose;
        }
        // First key strictly after `frame`.
        let i = keys.partition_point(|k| k.frame <= frame);
        if i >= keys.len() {
            return keys[keys.len() - 1].pose;
        }
        let (a, b) = (&keys[i - 1], &keys[i]);
        // MMD's cut rule: keys one frame apart do not interpolate.
        if b.frame - a.frame <= 1.0 {
            return a.pose;
        }
        let x = (frame - a.frame) / (b.frame - a.frame);
        let w = b.curves.map(|c| c.eval(x));
        let lerp = |p: f32, q: f32, t: f32| p + (q - p) * t;
        let (pa, pb) = (a.pose, b.pose);
        CameraPose {
            target: Vec3::new(
                lerp(pa.target.x, pb.target.x, w[0]),
                lerp(pa.target.y, pb.target.y, w[1]),
                lerp(pa.target.z, pb.target.z, w[2]),
            ),
            rotation: pa.rotation.lerp(pb.rotation, w[3]),
            distance: lerp(pa.distance, pb.distance, w[4]),
            fov: lerp(pa.fov, pb.fov, w[5]),
            orthographic: pa.orthographic,
        }
    }
}

/// A camera that frames an axis-aligned box (the model at rest) from the front, as MMD's
/// default camera would if it knew the model's size.
pub fn framing(min: Vec3, max: Vec3, aspect: f32) -> CameraPose {
    let fov = 30f32.to_radians();
    let center = (min + max) * 0.5;
    let size = (max - min).max(Vec3::splat(1e-3));
    let half_h = size.y * 0.5;
    let half_w = size.x.max(size.z) * 0.5;
    let t = (fov * 0.5).tan();
    // Distance at which both the height and the width fit, with a margin.
    let d = (half_h / t).max(half_w / (t * aspect)) * 1.15 + size.z * 0.5;
    CameraPose {
        target: center,
        rotation: Vec3::ZERO,
        distance: -d,
        fov,
        orthographic: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eye_matches_babylon_mmd_frame_0() {
        // wavefile_camera.vmd key 0 and babylon-mmd's eye for it.
        let p = CameraPose {
            target: Vec3::new(-11.066984, 9.816891, -6.404209),
            rotation: Vec3::new(-0.390359, 0.367245, 0.0),
            distance: -103.88623,
            fov: 33f32.to_radians(),
            orthographic: false,
        };
        let eye = p.eye();
        // babylon-mmd's own frame-0 target differs from the key by ~1e-4; the eye by ~1e-3.
        assert!(
            (eye - Vec3::new(23.426235, 49.346973, -96.068633)).length() < 5e-3,
            "{eye}"
        );
        // The view matrix maps the eye to the origin and the target onto +Z.
        let v = p.view();
        assert!(v.transform_point3(eye).length() < 1e-3);
        let t = v.transform_point3(p.target);
        assert!(t.x.abs() < 1e-3 && t.y.abs() < 1e-3 && (t.z - 103.88623).abs() < 1e-3);
    }

    #[test]
    fn cut_holds_previous_key() {
        let key = |frame, x: f32| CameraKey {
            frame,
            distance: -10.0,
            target: [x, 0.0, 0.0],
            rotation: [0.0; 3],
            interpolation: [20, 107, 20, 107].repeat(6).try_into().unwrap(),
            fov: 30,
            perspective_off: 0,
        };
        let m = CameraMotion::from_keys(&[key(0, 0.0), key(10, 10.0), key(11, 50.0)]).unwrap();
        assert!((m.sample(5.0).target.x - 5.0).abs() < 1e-4);
        assert_eq!(m.sample(10.5).target.x, 10.0);
        assert_eq!(m.sample(11.0).target.x, 50.0);
        assert_eq!(m.sample(100.0).target.x, 50.0);
    }
}
