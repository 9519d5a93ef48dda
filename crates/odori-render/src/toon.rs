//! The ten shared toon ramps (`toon01.bmp`..`toon10.bmp`), drawn by odori itself.
//!
//! MMD ships these files with the application, not with models, and they are not ours to
//! copy, so we draw ramps of the same kind: white at the top (surfaces facing the light) and
//! a tinted shade at the bottom, with a step near the middle of varying softness. The shader
//! samples them at `v = 0.5 - N·L / 2`, so the step sits at the terminator.

use image::{Rgba, RgbaImage};

/// Ramp height in texels (MMD's files are 32 tall too).
const HEIGHT: u32 = 32;

/// (shade colour, step softness 0..1) for toon01..toon10.
const RAMPS: [([f32; 3], f32); 10] = [
    ([0.80, 0.80, 0.80], 0.10),
    ([0.94, 0.82, 0.78], 0.15),
    ([0.70, 0.70, 0.70], 0.05),
    ([0.80, 0.84, 0.94], 0.20),
    ([0.90, 0.80, 0.90], 0.15),
    ([0.88, 0.86, 0.76], 0.25),
    ([0.62, 0.62, 0.66], 0.05),
    ([0.88, 0.88, 0.88], 0.45),
    ([0.98, 0.88, 0.80], 0.30),
    ([0.92, 0.92, 0.92], 0.60),
];

/// Shared ramp `index` (0-based: 0 = toon01). Out-of-range indices give the white ramp MMD
/// uses for "no toon".
pub fn shared(index: u8) -> RgbaImage {
    let Some(&(shade, softness)) = RAMPS.get(index as usize) else {
        return white();
    };
    let mut img = RgbaImage::new(1, HEIGHT);
    for y in 0..HEIGHT {
        let v = (y as f32 + 0.5) / HEIGHT as f32;
        // 0 above the step (lit), 1 below (shade).
        let half = 0.02 + softness * 0.25;
        let t = smoothstep(0.5 - half, 0.5 + half, v);
        let c = shade.map(|s| ((1.0 - t) + t * s) * 255.0 + 0.5);
        img.put_pixel(0, y, Rgba([c[0] as u8, c[1] as u8, c[2] as u8, 255]));
    }
    img
}

/// The all-white ramp (toon shading off).
pub fn white() -> RgbaImage {
    RgbaImage::from_pixel(1, HEIGHT, Rgba([255; 4]))
}

/// If `name` is one of MMD's shared toon names (`toon01.bmp`..`toon10.bmp`, any case, any
/// folder prefix), its 0-based index.
pub fn shared_index(name: &str) -> Option<u8> {
    let file = name.rsplit(['\\', '/']).next()?.to_ascii_lowercase();
    let n: u8 = file
        .strip_prefix("toon")?
        .strip_suffix(".bmp")?
        .parse()
        .ok()?;
    (1..=10).contains(&n).then(|| n - 1)
}

fn smoothstep(a: f32, b: f32, x: f32) -> f32 {
    let t = ((x - a) / (b - a)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramps_go_from_white_to_shade() {
        for i in 0..10 {
            let r = shared(i);
            assert_eq!(r.get_pixel(0, 0).0, [255; 4]);
            let bottom = r.get_pixel(0, HEIGHT - 1).0;
            assert!(bottom[0] < 255 || bottom[2] < 255, "toon{:02}", i + 1);
        }
    }

    #[test]
    fn shared_names() {
        assert_eq!(shared_index("toon01.bmp"), Some(0));
        assert_eq!(shared_index("Data\\TOON10.BMP"), Some(9));
        assert_eq!(shared_index("toon11.bmp"), None);
        assert_eq!(shared_index("mytoon.bmp"), None);
    }
}
