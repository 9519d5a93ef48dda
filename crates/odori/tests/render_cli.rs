//! `odori render` end to end on the embedded demo: an MP4 (read back: frame count, duration,
//! a decoded frame), a PNG and a PNG folder. Skipped without a GPU adapter unless
//! `ODORI_REQUIRE_GPU=1` (CI installs Mesa's lavapipe).

use std::path::PathBuf;
use std::process::Command;

fn out_dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("render-cli-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn have_gpu() -> bool {
    odori_render::gpu::for_tests().is_some()
}

fn odori(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "odori {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn demo_to_mp4() {
    if !have_gpu() {
        return;
    }
    let dir = out_dir("mp4");
    let mp4 = dir.join("demo.mp4");
    odori(&[
        "render",
        "--size",
        "320x240",
        "--range",
        "0:59",
        "--msaa",
        "1",
        "-o",
        mp4.to_str().unwrap(),
    ]);
    let bytes = std::fs::read(&mp4).unwrap();
    let tracks = odori_video::probe::tracks(&bytes);
    assert_eq!(tracks.len(), 1);
    let v = &tracks[0];
    assert_eq!(&v.codec, b"avc1");
    assert_eq!((v.width, v.height), (320, 240));
    assert_eq!(v.samples, 60);
    assert!((v.seconds() - 2.0).abs() < 1e-6, "{}", v.seconds());
    let (w, h, rgba) = odori_video::probe::decode_frame(&bytes, v, 30).unwrap();
    assert_eq!((w, h), (320, 240));
    image::save_buffer(
        dir.join("frame30.png"),
        &rgba,
        w,
        h,
        image::ExtendedColorType::Rgba8,
    )
    .unwrap();
    // The character is drawn: the centre column has dark-ish (not background) pixels.
    let non_white = (0..h)
        .map(|y| &rgba[((y * w + w / 2) * 4) as usize..][..3])
        .filter(|p| p.iter().any(|&c| c < 200))
        .count();
    assert!(non_white > 20, "decoded frame looks empty ({non_white})");
}

#[test]
fn demo_to_png_and_folder() {
    if !have_gpu() {
        return;
    }
    let dir = out_dir("png");
    let png = dir.join("one.png");
    odori(&[
        "render",
        "--size",
        "64x64",
        "--range",
        "30",
        "-o",
        png.to_str().unwrap(),
    ]);
    let img = image::open(&png).unwrap();
    assert_eq!((img.width(), img.height()), (64, 64));
    let frames = dir.join("frames");
    odori(&[
        "render",
        "--size",
        "64x48",
        "--fps",
        "60",
        "--range",
        "0:2",
        "-o",
        frames.to_str().unwrap(),
    ]);
    let n = std::fs::read_dir(&frames).unwrap().count();
    assert_eq!(n, 5, "frames 0, 0.5, 1, 1.5, 2 at 60 fps");
}
