//! The viewer's own camera: MMD's camera parameters (target, angles, distance, field of view)
//! moved by the mouse as MMD's own view is — drag to orbit, wheel to zoom, right- or
//! middle-drag to pan.

use glam::Vec3;
use odori_render::CameraPose;

/// Radians of orbit per pixel dragged.
const ORBIT_PER_PIXEL: f32 = 0.008;
/// Pitch stays short of straight up or down, where yaw would spin the view.
const MAX_PITCH: f32 = 1.5;

/// An orbit camera over a [`CameraPose`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Orbit {
    pub pose: CameraPose,
}

impl Orbit {
    pub fn new(pose: CameraPose) -> Orbit {
        Orbit { pose }
    }

    /// Turn around the target by a drag of `dx`, `dy` pixels (right, down).
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        let r = &mut self.pose.rotation;
        r.y += dx * ORBIT_PER_PIXEL;
        r.x = (r.x + dy * ORBIT_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Move the target with the picture by a drag of `dx`, `dy` pixels in a view
    /// `height` pixels tall: what was under the cursor stays under it (at the target's depth).
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let p = &mut self.pose;
        let per_pixel = 2.0 * p.distance.abs().max(0.1) * (p.fov * 0.5).tan() / height.max(1.0);
        let r = p.rotation_matrix();
        p.target += r * Vec3::new(-dx * per_pixel, dy * per_pixel, 0.0);
    }

    /// Zoom by wheel `steps` (positive: closer), 10 % of the distance a step.
    pub fn zoom(&mut self, steps: f32) {
        let d = self.pose.distance * 0.9f32.powf(steps);
        // Never through the target (the sign of the distance says which side the eye is on).
        self.pose.distance = if d.abs() < 0.5 {
            0.5f32.copysign(self.pose.distance)
        } else {
            d
        };
    }

    /// Look at `target` from where the camera is turned now.
    pub fn focus(&mut self, target: Vec3) {
        self.pose.target = target;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Orbiting keeps the eye at the same distance from the target (a sphere), panning moves
    /// the eye and target together, and zooming scales the distance: the geometry of an
    /// orbit camera, checked on `CameraPose::eye`.
    #[test]
    fn orbit_pan_zoom_keep_their_geometry() {
        let mut o = Orbit::new(CameraPose::DEFAULT);
        let r0 = (o.pose.eye() - o.pose.target).length();
        o.orbit(120.0, -40.0);
        let r1 = (o.pose.eye() - o.pose.target).length();
        assert!((r0 - r1).abs() < 1e-4, "{r0} vs {r1}");
        assert!((o.pose.eye() - CameraPose::DEFAULT.eye()).length() > 1.0);

        let (eye, target) = (o.pose.eye(), o.pose.target);
        o.pan(30.0, 10.0, 720.0);
        let moved = o.pose.target - target;
        assert!(moved.length() > 0.1);
        assert!(((o.pose.eye() - eye) - moved).length() < 1e-4);
        // A pan is across the view: no motion along the line of sight.
        let forward = (target - eye).normalize();
        assert!(moved.dot(forward).abs() < 1e-4);

        let d = o.pose.distance;
        o.zoom(1.0);
        assert!((o.pose.distance - d * 0.9).abs() < 1e-4);
        o.zoom(1000.0);
        assert_eq!(o.pose.distance, -0.5, "never through the target");
    }

    #[test]
    fn pitch_stops_short_of_the_pole() {
        let mut o = Orbit::new(CameraPose::DEFAULT);
        o.orbit(0.0, 10_000.0);
        assert_eq!(o.pose.rotation.x, MAX_PITCH);
        o.orbit(0.0, -100_000.0);
        assert_eq!(o.pose.rotation.x, -MAX_PITCH);
    }
}
