//! Golden-image comparison shared by the render tests.
//!
//! Tolerance (software rasterisers differ in the last bits of blending and MSAA coverage,
//! lavapipe vs llvmpipe, Mesa versions): a pixel *differs* when any channel is off by more
//! than [`CHANNEL_TOLERANCE`]; an image passes when at most [`MAX_DIFFERING`] of its pixels
//! differ and the mean absolute channel difference is at most [`MAX_MEAN`]. `ODORI_BLESS=1`
//! rewrites the golden files instead of comparing.

#![allow(dead_code)]

use image::RgbaImage;
use std::path::PathBuf;

pub const CHANNEL_TOLERANCE: u8 = 24;
pub const MAX_DIFFERING: f64 = 0.01;
pub const MAX_MEAN: f64 = 1.5;

pub fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.png"))
}

/// Compare `img` with golden `name` (or write it under `ODORI_BLESS=1`). On failure the
/// actual image and a difference map are written next to the test binary's temp dir.
pub fn check(name: &str, img: &RgbaImage) {
    let path = golden_path(name);
    if std::env::var("ODORI_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        img.save(&path).unwrap();
        eprintln!("blessed {}", path.display());
        return;
    }
    let golden = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with ODORI_BLESS=1 to create)", path.display()))
        .to_rgba8();
    assert_eq!(
        golden.dimensions(),
        img.dimensions(),
        "{name}: size differs"
    );
    let mut differing = 0usize;
    let mut total = 0u64;
    let mut diff = RgbaImage::new(img.width(), img.height());
    for ((a, b), d) in img.pixels().zip(golden.pixels()).zip(diff.pixels_mut()) {
        let m = (0..4).map(|c| a.0[c].abs_diff(b.0[c])).max().unwrap();
        total += (0..3).map(|c| a.0[c].abs_diff(b.0[c]) as u64).sum::<u64>();
        if m > CHANNEL_TOLERANCE {
            differing += 1;
            *d = image::Rgba([255, 0, 0, 255]);
        } else {
            *d = image::Rgba([m * 8, m * 8, m * 8, 255]);
        }
    }
    let n = (img.width() * img.height()) as f64;
    let frac = differing as f64 / n;
    let mean = total as f64 / (n * 3.0);
    eprintln!(
        "{name}: {differing} pixels differ ({:.3}%), mean diff {mean:.3}",
        frac * 100.0
    );
    if frac > MAX_DIFFERING || mean > MAX_MEAN {
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let _ = img.save(out.join(format!("{name}.actual.png")));
        let _ = diff.save(out.join(format!("{name}.diff.png")));
        panic!(
            "{name}: {:.3}% of pixels differ by more than {CHANNEL_TOLERANCE} (max {:.1}%), \
             mean diff {mean:.3} (max {MAX_MEAN}); actual and diff written to {}",
            frac * 100.0,
            MAX_DIFFERING * 100.0,
            out.display()
        );
    }
}
