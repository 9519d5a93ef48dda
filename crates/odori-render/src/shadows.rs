//! Light-space geometry for both shadows: the orthographic view from the light that the
//! self-shadow and ground-shadow depth maps are rendered with, the ground rectangle the
//! ground shadow is drawn on, and the depth textures themselves.

use crate::pipelines::SHADOW_FORMAT;
use glam::{Mat4, Vec3};

/// The light must come from above for a ground shadow (MMD draws none otherwise).
pub fn lights_ground(dir: Vec3) -> bool {
    dir.y < -0.05
}

/// An orthographic view from the light that encloses the focus sphere and, deeper along the
/// light, the ground below it (so ground points can be tested against the map).
pub fn light_view_proj(dir: Vec3, (center, radius): (Vec3, f32)) -> Mat4 {
    let dir = dir.try_normalize().unwrap_or(Vec3::NEG_Y);
    let up = if dir.y.abs() > 0.99 { Vec3::Z } else { Vec3::Y };
    let r = radius.max(1.0);
    let eye = center - dir * r * 2.0;
    let to_ground = if lights_ground(dir) {
        ((center.y + r) / -dir.y).min(r * 20.0)
    } else {
        0.0
    };
    let far = r * 3.0 + to_ground;
    glam::camera::lh::proj::directx::orthographic(-r, r, -r, r, 0.0, far)
        * glam::camera::lh::view::look_to_mat4(eye, dir, up)
}

/// The rectangle on y = 0 the model's shadow can fall in: the posed box's corners slid down
/// the light onto the ground. Fragments outside the silhouette are discarded, but on a CPU
/// rasteriser each one still costs, so it is kept tight: (centre x, centre z, half x, half z).
pub fn ground_area(dir: Vec3, (lo, hi): (Vec3, Vec3)) -> [f32; 4] {
    let dir = dir.try_normalize().unwrap_or(Vec3::NEG_Y);
    if !lights_ground(dir) {
        return [0.0; 4];
    }
    let mut min = glam::Vec2::splat(f32::INFINITY);
    let mut max = glam::Vec2::splat(f32::NEG_INFINITY);
    for i in 0..8 {
        let c = Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        );
        let p = c + dir * (c.y.max(0.0) / -dir.y);
        min = min.min(glam::Vec2::new(p.x, p.z));
        max = max.max(glam::Vec2::new(p.x, p.z));
    }
    let (c, h) = ((min + max) * 0.5, (max - min) * 0.5);
    [c.x, c.y, h.x, h.y]
}

/// A light-space depth map and its view.
pub fn depth_map(device: &wgpu::Device, size: u32, label: &str) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: size,
                height: size,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: SHADOW_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ground_rectangle_follows_the_light() {
        // Light straight down: the rectangle is the box's footprint.
        let a = ground_area(
            Vec3::NEG_Y,
            (Vec3::new(-1.0, 0.0, -2.0), Vec3::new(1.0, 10.0, 2.0)),
        );
        assert_eq!(a, [0.0, 0.0, 1.0, 2.0]);
        // Light from the upper right at 45°: the shadow stretches towards −x by the height.
        let a = ground_area(
            Vec3::new(-1.0, -1.0, 0.0),
            (Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.0, 10.0, 1.0)),
        );
        assert!(
            (a[0] - -5.0).abs() < 1e-5 && (a[2] - 6.0).abs() < 1e-5,
            "{a:?}"
        );
        // Light from below: no ground shadow.
        assert!(!lights_ground(Vec3::Y));
    }

    #[test]
    fn light_view_contains_the_focus() {
        let m = light_view_proj(
            Vec3::new(-0.5, -1.0, 0.5),
            (Vec3::new(0.0, 10.0, 0.0), 12.0),
        );
        let p = m.project_point3(Vec3::new(0.0, 10.0, 0.0));
        assert!(
            p.x.abs() < 1e-4 && p.y.abs() < 1e-4 && (0.0..1.0).contains(&p.z),
            "{p}"
        );
        // The ground below is inside the depth range too.
        let g = m.project_point3(Vec3::new(6.0, 0.0, -6.0));
        assert!((0.0..=1.0).contains(&g.z), "{g}");
    }
}
