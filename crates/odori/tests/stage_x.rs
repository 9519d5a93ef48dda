//! A DirectX `.x` file as a stage through `odori render --stage`: the path a user takes with an
//! MMD accessory such as a floor. The evidence is the file itself: a horizontal square whose
//! one material is a distinct blue (diffuse 0.2, 0.4, 0.9), written by this test in DirectX's
//! text format. Rendered beneath the embedded demo on the CPU rasteriser, the lower part of the
//! frame (the floor, in front of and below the dancer) must turn blue where without the stage
//! it is the background, and the upper part (sky, far above a floor at y = 0) must stay as it
//! was.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A 40 × 40 square (400 × 400 after MMD's ×10 accessory scale) at y = 0, facing up, one material.
const FLOOR: &str = "xof 0302txt 0064
Mesh {
 4;
 -20.0;0.0;-20.0;,
 20.0;0.0;-20.0;,
 20.0;0.0;20.0;,
 -20.0;0.0;20.0;;
 2;
 3;0,2,1;,
 3;0,3,2;;
 MeshMaterialList {
  1;
  2;
  0,
  0;;
  Material {
   0.2;0.4;0.9;1.0;;
   5.0;
   0.0;0.0;0.0;;
   0.1;0.2;0.45;;
  }
 }
}
";

fn dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stage-x");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn render(out: &Path, extra: &[&str]) -> image::RgbaImage {
    let status = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args([
            "render",
            "--backend",
            "cpu",
            "--size",
            "160x90",
            "--range",
            "60",
        ])
        .args(["--no-ground-shadow", "--no-self-shadow"])
        .args(extra)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "odori render {extra:?}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    image::open(out).unwrap().to_rgba8()
}

/// Pixels of rows `rows` whose blue exceeds their red by more than 60 levels.
fn blue_pixels(img: &image::RgbaImage, rows: std::ops::Range<u32>) -> usize {
    rows.flat_map(|y| (0..img.width()).map(move |x| (x, y)))
        .map(|(x, y)| img.get_pixel(x, y).0)
        .filter(|p| i32::from(p[2]) - i32::from(p[0]) > 60)
        .count()
}

#[test]
fn an_x_floor_is_drawn_under_the_dancer() {
    let d = dir();
    let floor = d.join("floor.x");
    std::fs::write(&floor, FLOOR).unwrap();
    let plain = render(&d.join("plain.png"), &[]);
    let staged = render(&d.join("staged.png"), &["--stage", floor.to_str().unwrap()]);
    let (h, w) = (plain.height(), plain.width());
    let lower = h * 3 / 4..h;
    let before = blue_pixels(&plain, lower.clone());
    let after = blue_pixels(&staged, lower.clone());
    println!("blue pixels in the lower quarter: {before} without the stage, {after} with it");
    // The floor covers most of the lower quarter's width where the dancer does not stand.
    assert!(
        after >= before + (w * (lower.end - lower.start)) as usize / 4,
        "the .x floor did not show: {before} → {after} blue pixels"
    );
    // The sky is untouched: the top rows are the same picture.
    for y in 0..h / 8 {
        for x in 0..w {
            assert_eq!(
                plain.get_pixel(x, y),
                staged.get_pixel(x, y),
                "pixel {x},{y} above the floor changed"
            );
        }
    }
}
