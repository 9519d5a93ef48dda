//! What is under a point of the window: the model a dropped motion goes to (the nearest one
//! whose projected box holds the point) and the point of a model's skin a double-click
//! refocuses on (the nearest triangle of the posed mesh the click's ray meets). Pure geometry
//! on the camera the picture was drawn with, so it is tested without a window.

use glam::{Mat4, Vec3};
use odori_render::CameraPose;

/// The camera a picture of `size` pixels was drawn with, as the renderer sets it up.
#[derive(Debug, Clone, Copy)]
pub struct Projection {
    view_proj: Mat4,
    view: Mat4,
    size: (f32, f32),
}

impl Projection {
    pub fn new(camera: &CameraPose, (w, h): (u32, u32)) -> Projection {
        let (w, h) = (w.max(1) as f32, h.max(1) as f32);
        let view = camera.view();
        Projection {
            view_proj: camera.projection(w / h) * view,
            view,
            size: (w, h),
        }
    }

    /// Window pixel (x right, y down) of scene point `p`, and its depth along the view; `None`
    /// behind the eye.
    pub fn to_pixel(&self, p: Vec3) -> Option<(f32, f32, f32)> {
        let clip = self.view_proj * p.extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        let x = (ndc.x + 1.0) * 0.5 * self.size.0;
        let y = (1.0 - ndc.y) * 0.5 * self.size.1;
        Some((x, y, self.view.transform_point3(p).z))
    }

    /// The ray through window pixel (`x`, `y`): origin on the near plane and unit direction.
    pub fn ray(&self, x: f32, y: f32) -> (Vec3, Vec3) {
        let ndc_x = x / self.size.0 * 2.0 - 1.0;
        let ndc_y = 1.0 - y / self.size.1 * 2.0;
        let inv = self.view_proj.inverse();
        let near = inv.project_point3(Vec3::new(ndc_x, ndc_y, 0.0));
        let far = inv.project_point3(Vec3::new(ndc_x, ndc_y, 1.0));
        (near, (far - near).normalize_or_zero())
    }

    /// The screen rectangle (min x, min y, max x, max y) of box `lo`..`hi` and the depth of
    /// its centre; `None` when a corner is behind the eye.
    pub fn box_rect(&self, (lo, hi): (Vec3, Vec3)) -> Option<([f32; 4], f32)> {
        let mut r = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { lo.x } else { hi.x },
                if i & 2 == 0 { lo.y } else { hi.y },
                if i & 4 == 0 { lo.z } else { hi.z },
            );
            let (x, y, _) = self.to_pixel(c)?;
            r = [r[0].min(x), r[1].min(y), r[2].max(x), r[3].max(y)];
        }
        let (_, _, depth) = self.to_pixel((lo + hi) * 0.5)?;
        Some((r, depth))
    }
}

/// Of the boxes (one per model), the index of the nearest whose screen rectangle holds pixel
/// (`x`, `y`).
pub fn box_under(
    projection: &Projection,
    boxes: impl IntoIterator<Item = (Vec3, Vec3)>,
    (x, y): (f32, f32),
) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, b) in boxes.into_iter().enumerate() {
        let Some((r, depth)) = projection.box_rect(b) else {
            continue;
        };
        let inside = x >= r[0] && x <= r[2] && y >= r[1] && y <= r[3];
        if inside && best.is_none_or(|(_, d)| depth < d) {
            best = Some((i, depth));
        }
    }
    best.map(|(i, _)| i)
}

/// Distance along the ray (`origin`, unit `dir`) to the nearest of the triangles `indices`
/// makes of `positions` (either side faces), by Möller and Trumbore's test.
pub fn ray_mesh(origin: Vec3, dir: Vec3, positions: &[[f32; 3]], indices: &[u32]) -> Option<f32> {
    let mut nearest: Option<f32> = None;
    let get = |i: u32| positions.get(i as usize).map(|p| Vec3::from(*p));
    for tri in indices.chunks_exact(3) {
        let (Some(a), Some(b), Some(c)) = (get(tri[0]), get(tri[1]), get(tri[2])) else {
            continue;
        };
        let (e1, e2) = (b - a, c - a);
        let p = dir.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-9 {
            continue;
        }
        let inv = 1.0 / det;
        let s = origin - a;
        let u = s.dot(p) * inv;
        if !(0.0..=1.0).contains(&u) {
            continue;
        }
        let q = s.cross(e1);
        let v = dir.dot(q) * inv;
        if v < 0.0 || u + v > 1.0 {
            continue;
        }
        let t = e2.dot(q) * inv;
        if t > 0.0 && nearest.is_none_or(|n| t < n) {
            nearest = Some(t);
        }
    }
    nearest
}

/// Distance along the ray to where it enters box `lo`..`hi` (0 when it starts inside).
pub fn ray_box(origin: Vec3, dir: Vec3, (lo, hi): (Vec3, Vec3)) -> Option<f32> {
    let inv = dir.recip();
    let (t1, t2) = ((lo - origin) * inv, (hi - origin) * inv);
    let near = t1.min(t2).max_element();
    let far = t1.max(t2).min_element();
    (far >= near.max(0.0)).then_some(near.max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default MMD camera looks at (0, 10, 0) from 45 units in front: the target is the
    /// picture's centre, a point above it is above the centre, and the ray through the centre
    /// passes through the target. Evidence: the camera's own definition (eye, target).
    #[test]
    fn projection_and_ray_agree_with_the_camera() {
        let cam = CameraPose::DEFAULT;
        let p = Projection::new(&cam, (640, 480));
        let (x, y, depth) = p.to_pixel(cam.target).unwrap();
        assert!(
            (x - 320.0).abs() < 1e-3 && (y - 240.0).abs() < 1e-3,
            "{x} {y}"
        );
        assert!((depth - 45.0).abs() < 1e-3, "{depth}");
        let (_, y_up, _) = p.to_pixel(cam.target + Vec3::Y).unwrap();
        assert!(y_up < 240.0);
        let (o, d) = p.ray(320.0, 240.0);
        let to_target = (cam.target - o).normalize();
        assert!(d.dot(to_target) > 0.99999, "{d} vs {to_target}");
        // The origin is on the near plane, straight ahead of the eye.
        assert!((o - cam.eye()).normalize().dot(d) > 0.99999);
    }

    /// Two boxes side by side: a point over each picks it; a point over both picks the
    /// nearer; a point over neither picks none.
    #[test]
    fn box_under_picks_the_nearest_box_holding_the_point() {
        let cam = CameraPose::DEFAULT;
        let p = Projection::new(&cam, (640, 480));
        let left = (Vec3::new(-12.0, 0.0, -2.0), Vec3::new(-4.0, 20.0, 2.0));
        let right = (Vec3::new(4.0, 0.0, -2.0), Vec3::new(12.0, 20.0, 2.0));
        let (lx, ly, _) = p.to_pixel(Vec3::new(-8.0, 10.0, 0.0)).unwrap();
        let (rx, ry, _) = p.to_pixel(Vec3::new(8.0, 10.0, 0.0)).unwrap();
        assert_eq!(box_under(&p, [left, right], (lx, ly)), Some(0));
        assert_eq!(box_under(&p, [left, right], (rx, ry)), Some(1));
        assert_eq!(box_under(&p, [left, right], (320.0, 5.0)), None);
        // A box in front of the right one (nearer the eye at z = -45).
        let front = (Vec3::new(4.0, 0.0, -10.0), Vec3::new(12.0, 20.0, -6.0));
        assert_eq!(box_under(&p, [left, right, front], (rx, ry)), Some(2));
    }

    /// A ray meets the nearer of two parallel triangles at the distance the planes give, and
    /// misses outside them.
    #[test]
    fn ray_mesh_finds_the_nearest_triangle() {
        let positions = [
            [-1.0, -1.0, 5.0],
            [1.0, -1.0, 5.0],
            [0.0, 1.0, 5.0],
            [-1.0, -1.0, 3.0],
            [1.0, -1.0, 3.0],
            [0.0, 1.0, 3.0],
        ];
        let indices = [0, 1, 2, 3, 4, 5];
        let t = ray_mesh(Vec3::ZERO, Vec3::Z, &positions, &indices).unwrap();
        assert!((t - 3.0).abs() < 1e-6, "{t}");
        assert_eq!(
            ray_mesh(Vec3::new(5.0, 0.0, 0.0), Vec3::Z, &positions, &indices),
            None
        );
        assert_eq!(ray_mesh(Vec3::ZERO, -Vec3::Z, &positions, &indices), None);
        let b = (Vec3::new(-1.0, -1.0, 2.0), Vec3::new(1.0, 1.0, 4.0));
        assert_eq!(ray_box(Vec3::ZERO, Vec3::Z, b), Some(2.0));
        assert_eq!(ray_box(Vec3::new(3.0, 0.0, 0.0), Vec3::Z, b), None);
    }
}
