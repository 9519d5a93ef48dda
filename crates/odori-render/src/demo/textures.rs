//! The demo's textures, drawn in code: a plaid for the skirt, a glossy "add" sphere map, a
//! soft "multiply" sphere map and a toon ramp of the model's own.

use image::{Rgba, RgbaImage};
use std::collections::HashMap;

fn plaid() -> RgbaImage {
    RgbaImage::from_fn(64, 64, |x, y| {
        let band = |v: u32| (v / 8).is_multiple_of(4);
        let base = [200u8, 40, 70];
        let dark = |c: [u8; 3], k: f32| c.map(|v| (v as f32 * k) as u8);
        let c = match (band(x), band(y)) {
            (true, true) => dark(base, 0.45),
            (true, false) | (false, true) => dark(base, 0.7),
            _ => base,
        };
        let line = x % 16 == 12 || y % 16 == 12;
        let c = if line { [240, 220, 120] } else { c };
        Rgba([c[0], c[1], c[2], 255])
    })
}

/// Sphere maps are indexed by view-space normal: the centre faces the camera.
fn sphere(f: impl Fn(f32, f32) -> [f32; 3]) -> RgbaImage {
    RgbaImage::from_fn(64, 64, |x, y| {
        let u = (x as f32 + 0.5) / 32.0 - 1.0;
        let v = (y as f32 + 0.5) / 32.0 - 1.0;
        let c = f(u, v).map(|c| (c.clamp(0.0, 1.0) * 255.0) as u8);
        Rgba([c[0], c[1], c[2], 255])
    })
}

pub fn all() -> HashMap<String, RgbaImage> {
    let gloss = sphere(|u, v| {
        // A highlight up and to the left, and a faint rim.
        let d = ((u + 0.35).powi(2) + (v + 0.45).powi(2)).sqrt();
        let spot = (1.0 - d / 0.35).max(0.0).powi(2) * 0.8;
        let rim = ((u * u + v * v).sqrt() - 0.75).max(0.0) * 0.6;
        [spot + rim * 0.6, spot + rim * 0.8, spot + rim]
    });
    let soft = sphere(|u, v| {
        let r = (u * u + v * v).sqrt().min(1.0);
        let k = 1.0 - 0.25 * r * r + 0.05 * (-v);
        [k, k, k * 1.02]
    });
    let toon = RgbaImage::from_fn(1, 32, |_, y| {
        // Three bands: lit, a cool mid-tone, a deeper shade.
        let c = if y < 15 {
            [255, 255, 255]
        } else if y < 20 {
            [205, 225, 235]
        } else {
            [160, 190, 205]
        };
        Rgba([c[0], c[1], c[2], 255])
    });
    let mut m = HashMap::new();
    m.insert("skirt.png".to_string(), plaid());
    m.insert("gloss_add.png".to_string(), gloss);
    m.insert("soft_mul.png".to_string(), soft);
    m.insert("own_toon.png".to_string(), toon);
    m
}
