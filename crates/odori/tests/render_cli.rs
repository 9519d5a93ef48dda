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

/// A mono 16-bit WAV of a 440 Hz tone.
fn tone_wav(seconds: f32) -> Vec<u8> {
    let rate = 22050u32;
    let samples: Vec<u8> = (0..(seconds * rate as f32) as u32)
        .flat_map(|i| {
            let v = (i as f32 * 440.0 * std::f32::consts::TAU / rate as f32).sin() * 8000.0;
            (v as i16).to_le_bytes()
        })
        .collect();
    let mut w = b"RIFF".to_vec();
    w.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes());
    w.extend_from_slice(&rate.to_le_bytes());
    w.extend_from_slice(&(rate * 2).to_le_bytes());
    w.extend_from_slice(&2u16.to_le_bytes());
    w.extend_from_slice(&16u16.to_le_bytes());
    w.extend_from_slice(b"data");
    w.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    w.extend_from_slice(&samples);
    w
}

#[test]
fn demo_with_wav_audio() {
    if !have_gpu() {
        return;
    }
    let dir = out_dir("audio");
    let wav = dir.join("tone.wav");
    std::fs::write(&wav, tone_wav(5.0)).unwrap();
    let mp4 = dir.join("a.mp4");
    for encoder in ["builtin", "ffmpeg"] {
        if encoder == "ffmpeg" && !odori_video::ffmpeg::available() {
            eprintln!("SKIPPED: --encoder ffmpeg (no ffmpeg on PATH; optional)");
            continue;
        }
        odori(&[
            "render",
            "--size",
            "96x64",
            "--range",
            "30:89",
            "--encoder",
            encoder,
            "--audio",
            wav.to_str().unwrap(),
            "-o",
            mp4.to_str().unwrap(),
        ]);
        let bytes = std::fs::read(&mp4).unwrap();
        let t = odori_video::probe::tracks(&bytes);
        assert_eq!(t.len(), 2, "{encoder}");
        assert_eq!(t[0].samples, 60, "{encoder}");
        assert!(
            (t[1].seconds() - 2.0).abs() < 0.05,
            "{encoder}: {}",
            t[1].seconds()
        );
    }
}

#[test]
fn gpu_and_cpu_skinning_agree() {
    if !have_gpu() {
        return;
    }
    let dir = out_dir("skinning");
    let mut images = Vec::new();
    for sk in ["cpu", "gpu"] {
        let png = dir.join(format!("{sk}.png"));
        odori(&[
            "render",
            "--size",
            "128x128",
            "--range",
            "45",
            "--skinning",
            sk,
            "-o",
            png.to_str().unwrap(),
        ]);
        images.push(image::open(&png).unwrap().to_rgba8());
    }
    let differing = images[0]
        .pixels()
        .zip(images[1].pixels())
        .filter(|(a, b)| (0..3).any(|c| a.0[c].abs_diff(b.0[c]) > 24))
        .count();
    assert!(
        differing < 40,
        "{differing} pixels differ between CPU and GPU skinning"
    );
}

/// The startup line of `odori render` on the demo, one PNG at `size` with `extra` arguments.
fn startup_line(tag: &str, size: &str, extra: &[&str]) -> String {
    let png = out_dir(tag).join("still.png");
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(["render", "--size", size, "--range", "0:0"])
        .args(extra)
        .args(["-o", png.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "odori render failed:\n{stderr}");
    assert!(png.exists());
    stderr
        .lines()
        .find(|l| l.starts_with("odori render:"))
        .unwrap_or_else(|| panic!("no startup line in:\n{stderr}"))
        .to_string()
}

#[test]
fn defaults_msaa_4_everywhere_and_fast_trades_it() {
    if !have_gpu() {
        return;
    }
    // On the software adapter too (the only one on CI): MSAA 4 unless asked otherwise, since
    // without it the outlines break into dashes. The shadow map follows the output size.
    let line = startup_line("defaults", "320x576", &[]);
    assert!(line.contains("MSAA 4, shadow map 1152)"), "{line}");
    let line = startup_line("defaults-720", "160x720", &[]);
    assert!(line.contains("MSAA 4, shadow map 1440)"), "{line}");
    // --fast: no multisampling and the small map; --msaa still wins over it.
    let line = startup_line("fast", "160x720", &["--fast"]);
    assert!(line.contains("MSAA 1, shadow map 1024)"), "{line}");
    let line = startup_line("fast-msaa", "160x720", &["--fast", "--msaa", "4"]);
    assert!(line.contains("MSAA 4, shadow map 1024)"), "{line}");
    let line = startup_line("msaa1", "160x720", &["--msaa", "1"]);
    assert!(line.contains("MSAA 1, shadow map 1440)"), "{line}");
}
