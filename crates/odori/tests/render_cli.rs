//! `odori render` end to end on the embedded demo: an MP4 (read back: frame count, duration,
//! a decoded frame), a PNG and a PNG folder; outputs refused before anything loads; Ctrl-C
//! keeping a shorter MP4. Without a GPU adapter the command draws on the CPU rasteriser, so
//! these run everywhere; only GPU skinning needs an adapter (skipped without one unless
//! `ODORI_REQUIRE_GPU=1`). `--backend cpu`, and a machine where the Vulkan loader finds no
//! driver, are tried for real.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    let frames = PathBuf::from(format!("{}/frames/", dir.display()));
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
        assert_eq!(&t[1].codec, b"mp4a", "{encoder}: AAC, which browsers play");
        // The edit list plays 2 s of sound after the encoder's priming samples.
        let (ms, skip) = t[1].edit.expect("an edit list");
        assert!((ms as f64 - 2000.0).abs() <= 25.0, "{encoder}: {ms} ms");
        assert!(skip > 0, "{encoder}: priming not skipped");
        if encoder == "builtin" {
            assert_eq!(ms, 2000);
            // AudioSpecificConfig: AAC-LC (2), 22.05 kHz (index 7), mono (1).
            assert_eq!(t[1].decoder_config, vec![0x13, 0x88]);
        }
    }
}

/// `--audio` is checked before anything loads, and the message names the audio
/// file, once: a missing file, an image and a motion given as the soundtrack.
#[test]
fn audio_is_checked_first() {
    let dir = out_dir("audio-check");
    let png = dir.join("cover.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n....").unwrap();
    let vmd = dir.join("dance.vmd");
    std::fs::write(&vmd, b"Vocaloid Motion Data 0002\0\0\0\0\0").unwrap();
    let missing = dir.join("missing.mp3");
    let out_mp4 = dir.join("out.mp4");
    for (audio, says) in [
        (
            &png,
            "not a soundtrack odori can read (it looks like a PNG image)",
        ),
        (
            &vmd,
            "not a soundtrack odori can read (it looks like a VMD motion)",
        ),
        (&missing, "cannot read the soundtrack"),
    ] {
        // A model path that does not exist: the audio must be refused before it is looked at.
        let out = Command::new(env!("CARGO_BIN_EXE_odori"))
            .args(["render", "no-such-model.pmx", "--audio"])
            .arg(audio)
            .arg("-o")
            .arg(&out_mp4)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&*audio.to_string_lossy()),
            "names the audio file: {err}"
        );
        assert_eq!(err.matches(says).count(), 1, "{err}");
        assert!(
            !err.contains("no-such-model"),
            "audio is checked first: {err}"
        );
        assert!(
            !err.contains("out.mp4"),
            "the output is not to blame: {err}"
        );
    }
    assert!(!out_mp4.exists());
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
            // wgpu on whatever adapter there is (lavapipe on CI): auto would take the CPU
            // rasteriser on a machine with only a software adapter.
            "--backend",
            "gpu",
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

/// An output odori cannot write is refused with what it accepts, and a bad place
/// to write is reported before anything is loaded (the model here does not even exist).
#[test]
fn bad_outputs_are_refused_before_loading() {
    let dir = out_dir("bad-outputs");
    std::fs::create_dir_all(dir.join("taken.mp4")).unwrap();
    let p = |name: &str| format!("{}/{name}", dir.display());
    for (output, said) in [
        (p("x.avi"), "does not write .avi files; use NAME.mp4"),
        (p("x.jpg"), "does not write .jpg files; use NAME.mp4"),
        (
            p("frames"),
            "use NAME.mp4 (video), NAME.png (the first frame) or a folder",
        ),
        (p("missing/x.mp4"), "missing does not exist"),
        (p("missing/x.png"), "missing does not exist"),
        (p("taken.mp4"), "taken.mp4: is a folder"),
    ] {
        let t = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_odori"))
            .args([
                "render",
                "no-such-model.pmx",
                "no-such-dance.vmd",
                "-o",
                &output,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{output}: {err}");
        assert!(err.contains(said), "{output}: `{said}` not in {err}");
        assert!(
            !err.contains("no-such-model"),
            "output checked first: {err}"
        );
        assert!(t.elapsed() < Duration::from_secs(5), "fails fast");
    }
    assert!(!dir.join("frames").exists());
    assert!(!dir.join("missing").exists());

    // A folder without write permission (root writes anywhere: then there is nothing to see).
    let locked = dir.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(locked.join("probe"), b"").is_err() {
        let output = locked.join("x.mp4");
        let out = Command::new(env!("CARGO_BIN_EXE_odori"))
            .args(["render", "no-such-model.pmx", "-o"])
            .arg(&output)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot write in"), "{err}");
        assert!(!err.contains("no-such-model"), "{err}");
    }
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn hidden_parts(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".part"))
        .collect()
}

/// Ctrl-C (SIGINT) during an MP4 finishes a shorter, playable MP4 with the frames
/// done so far, says so, and leaves no hidden partial file.
#[test]
fn ctrl_c_keeps_a_shorter_mp4() {
    let dir = out_dir("ctrl-c");
    let mp4 = dir.join("long.mp4");
    let (mut child, mut stderr, mut seen) = common::start_long_render(&mp4);
    // Rendering has started; give it time for some frames.
    std::thread::sleep(Duration::from_secs(2));
    // Sent from here, as a terminal's Ctrl-C would.
    common::signal(&child, libc::SIGINT);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let status = child.wait().unwrap();
    seen.push_str(&rest);
    assert_eq!(status.code(), Some(130), "{seen}");
    let line = seen
        .lines()
        .find(|l| l.starts_with("interrupted: wrote "))
        .unwrap_or_else(|| panic!("no `interrupted: wrote N of M frames` in {seen}"));
    let words: Vec<&str> = line.split(' ').collect();
    let (n, m): (u32, u32) = (words[2].parse().unwrap(), words[4].parse().unwrap());
    assert_eq!(m, 6001, "{line}");
    assert!(n > 0 && n < m, "{line}");
    let bytes = std::fs::read(&mp4).expect("the MP4 is there under its name");
    let tracks = odori_video::probe::tracks(&bytes);
    assert_eq!(tracks.len(), 1);
    assert_eq!(tracks[0].samples, n, "{line}");
    let (w, h, _) = odori_video::probe::decode_frame(&bytes, &tracks[0], n as usize - 1).unwrap();
    assert_eq!((w, h), (160, 96));
    assert_eq!(hidden_parts(&dir), Vec::<String>::new());
}

/// A render that fails leaves no file under the output's name (and an older file
/// of that name as it was), and no hidden partial file.
#[test]
fn a_failed_render_leaves_no_output() {
    let dir = out_dir("failed");
    let broken = dir.join("broken.vmd");
    std::fs::write(&broken, b"Vocaloid Motion Data 0002\0\0\0\0\0").unwrap();
    let bad_audio = dir.join("noise.mp3");
    std::fs::write(&bad_audio, b"not audio at all").unwrap();
    let Some(model) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let fresh = dir.join("fresh.mp4");
    let old = dir.join("old.mp4");
    std::fs::write(&old, b"an older video").unwrap();
    for output in [&fresh, &old] {
        let runs: [Vec<&std::ffi::OsStr>; 2] = [
            vec![model.as_os_str(), broken.as_os_str()],
            vec!["--audio".as_ref(), bad_audio.as_os_str()],
        ];
        for args in runs {
            let out = Command::new(env!("CARGO_BIN_EXE_odori"))
                .arg("render")
                .args(&args)
                .args(["--size", "64x64", "--range", "0:5", "-o"])
                .arg(output)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        }
    }
    assert!(!fresh.exists());
    assert_eq!(std::fs::read(&old).unwrap(), b"an older video");
    assert_eq!(hidden_parts(&dir), Vec::<String>::new());
}

/// Without `XDG_RUNTIME_DIR` a render prints nothing about it, on the CPU rasteriser `auto`
/// picks here (after probing wgpu's adapters) and on wgpu (`--backend gpu`, lavapipe in CI).
/// Mesa's Vulkan device-select layer used to make libwayland print an error twice; the
/// playback library's off-screen Vulkan instance now leaves out the Wayland surface extension
/// that makes the layer ask (`odori_render::gpu::headless_instance`). No private runtime
/// folder is made for a render, and none is left behind.
#[test]
fn no_xdg_runtime_dir_noise() {
    let dir = out_dir("xdg");
    let backends: &[&str] = if have_gpu() {
        &["auto", "gpu"]
    } else {
        &["auto"]
    };
    for &backend in backends {
        let png = dir.join(format!("{backend}.png"));
        let child = Command::new(env!("CARGO_BIN_EXE_odori"))
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("NODEVICE_SELECT")
            .args([
                "render",
                "--size",
                "64x64",
                "--range",
                "10",
                "--backend",
                backend,
                "-o",
            ])
            .arg(&png)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{backend}: {err}");
        assert!(!err.contains("XDG_RUNTIME_DIR"), "{backend}: {err}");
        assert!(!err.contains("error"), "{backend}: {err}");
        assert!(png.exists());
        let private = std::env::temp_dir().join(format!("odori-runtime-{pid}"));
        assert!(!private.exists(), "{} left behind", private.display());
    }
}

/// `--range` past the motion's last key warns (naming the last frame); a range
/// starting with '-' is read as a range, and a negative start is a clear error.
#[test]
fn range_past_the_end_warns_and_negative_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(["render", "--range", "-5:3", "-o", "x.png"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid value '-5:3' for '--range"), "{err}");
    assert!(err.contains("MMD frames count from 0"), "{err}");
    let dir = out_dir("range");
    let png = dir.join("late.png");
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(["render", "--size", "64x64", "--range", "5000:5001", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning: --range goes past the motion's last frame ("),
        "{err}"
    );
    // Inside the motion: no warning.
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(["render", "--size", "64x64", "--range", "30", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("--range goes past"), "{err}");
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

/// Runs `odori render` of the demo's frame 45 at 128×128 into a PNG with `args` and `envs`,
/// returning the image and the startup line.
fn demo_png(tag: &str, args: &[&str], envs: &[(&str, &str)]) -> (image::RgbaImage, String) {
    let dir = out_dir(tag);
    let png = dir.join("f.png");
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(["render", "--size", "128x128", "--range", "45"])
        .args(args)
        .arg("-o")
        .arg(&png)
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "odori {args:?} failed:\n{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("odori render:"))
        .unwrap_or_default()
        .to_string();
    (image::open(&png).unwrap().to_rgba8(), line)
}

/// Covered (non-white) pixels whose channels differ by more than the golden rule's 24/255.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> (usize, usize) {
    let mut covered = 0;
    let mut differ = 0;
    for (p, q) in a.pixels().zip(b.pixels()) {
        if p.0[..3] == [255; 3] && q.0[..3] == [255; 3] {
            continue;
        }
        covered += 1;
        if (0..3).any(|c| p.0[c].abs_diff(q.0[c]) > 24) {
            differ += 1;
        }
    }
    (covered, differ)
}

#[test]
fn backend_cpu_draws_and_says_so() {
    let (cpu, line) = demo_png("backend-cpu", &["--backend", "cpu"], &[]);
    assert!(line.contains("on odori's CPU rasteriser"), "{line}");
    // Asked for, it is no fallback: nothing to install is suggested.
    assert!(!line.contains("apt-get"), "{line}");
    // `auto` (wgpu when an adapter opens, else the CPU) draws the same picture within the
    // golden rule (8 pixels + 0.1 % of the covered ones).
    let (auto, _) = demo_png("backend-auto", &[], &[]);
    let (covered, differ) = differing(&cpu, &auto);
    assert!(covered > 1000, "{covered} covered pixels: nothing drawn?");
    assert!(
        differ <= 8 + covered / 1000,
        "{differ} of {covered} pixels differ"
    );
    // GPU skinning needs a GPU renderer: refused before anything is drawn.
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(["render", "--backend", "cpu", "--skinning", "gpu", "-o"])
        .arg(out_dir("backend-cpu-gpu-skinning").join("x.png"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("--skinning gpu needs a GPU adapter"), "{err}");
}

/// A machine whose Vulkan loader finds no driver (the ICD list points nowhere, GL not tried):
/// `auto` falls back to the CPU rasteriser, says why and what to install, and draws what the
/// CPU rasteriser draws when asked for; `--backend gpu` fails with the reason.
#[test]
fn no_adapter_falls_back_to_the_cpu() {
    let none = [
        ("VK_ICD_FILENAMES", "/nonexistent.json"),
        ("VK_DRIVER_FILES", "/nonexistent.json"),
        ("WGPU_BACKEND", "vulkan"),
    ];
    let (img, line) = demo_png("no-adapter", &[], &none);
    assert!(line.contains("on odori's CPU rasteriser"), "{line}");
    assert!(line.contains("no GPU adapter"), "{line}");
    let (cpu, _) = demo_png("no-adapter-cpu", &["--backend", "cpu"], &[]);
    assert_eq!(
        img.as_raw(),
        cpu.as_raw(),
        "the fallback is the CPU rasteriser"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .args(["render", "--backend", "gpu", "-o"])
        .arg(out_dir("no-adapter-gpu").join("x.png"))
        .envs(none)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("no GPU adapter found"), "{err}");
}
