//! Faults while a render writes its output: the disk fills, the process is killed, two renders
//! write the same file, a texture cannot be read. Each is injected from the test itself (a
//! file-size limit set in the child, a signal sent with libc): no external program.
//!
//! The evidence each test holds the binary to is the file system afterwards (which names
//! exist, an older file's bytes) and the MP4 itself, read back by odori-video's own probe and
//! decoder (independent of the writer's bookkeeping).

#![cfg(unix)]

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn out_dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("faults-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every name in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn odori() -> Command {
    Command::new(env!("CARGO_BIN_EXE_odori"))
}

/// `command` run with the file-size limit set to `bytes` in the child (RLIMIT_FSIZE: a write
/// past it fails with EFBIG, as one on a full disk fails with ENOSPC). SIGXFSZ, which the
/// kernel sends with that failure, is ignored so the write's error reaches odori.
fn with_file_size_limit(mut command: Command, bytes: u64) -> Output {
    // SAFETY: between fork and exec only async-signal-safe calls (setrlimit, signal).
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    command.output().unwrap()
}

/// The disk fills while an MP4, one PNG, or a folder of PNGs is written: the render fails
/// with a message naming the output, no file is left under the final name (a PNG folder
/// keeps the frames that were whole), an older file of that name is as it was, and no hidden
/// partial file is left.
#[test]
fn a_full_disk_leaves_no_partial_output_and_older_files_intact() {
    let dir = out_dir("full-disk");
    let frames = dir.join("frames");
    std::fs::create_dir_all(&frames).unwrap();
    let outputs = [
        (dir.join("video.mp4"), "video.mp4"),
        (dir.join("still.png"), "still.png"),
        (frames.join("frame_00000.png"), "frames/"),
    ];
    for (older, _) in &outputs {
        std::fs::write(older, b"an older file").unwrap();
    }
    for (older, target) in &outputs {
        let mut command = odori();
        command
            .args(["render", "--size", "320x240", "--range", "0:20", "-o"])
            .arg(dir.join(target));
        // 2 KiB: more than the checks' probe files, less than one frame of the demo.
        let out = with_file_size_limit(command, 2048);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{target}: {err}");
        let named = target.trim_end_matches('/');
        assert!(
            err.contains(named) && err.contains("File too large"),
            "{target}: the message names the output and the failure: {err}"
        );
        assert_eq!(
            std::fs::read(older).unwrap(),
            b"an older file",
            "{target}: the older file is as it was"
        );
    }
    assert_eq!(names_in(&dir), ["frames", "still.png", "video.mp4"]);
    assert_eq!(names_in(&frames), ["frame_00000.png"]);
}

/// The name of every hidden partial file in `dir`.
fn hidden_parts(dir: &Path) -> Vec<String> {
    (names_in(dir).into_iter())
        .filter(|n| n.starts_with('.') && n.ends_with(".part"))
        .collect()
}

/// A long render (`common::start_long_render`) whose standard error is drained in the
/// background, so a full pipe never stalls it.
fn start_long_render(mp4: &Path) -> (Child, String) {
    let (child, mut stderr, seen) = common::start_long_render(mp4);
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    (child, seen)
}

/// SIGKILL mid-render (no handler runs): only the hidden `.part` file is left, never a file
/// under the final name; the next render of that output removes it and writes a whole file.
#[test]
fn a_killed_render_leaves_only_its_part_file_which_the_next_render_removes() {
    let dir = out_dir("sigkill");
    let mp4 = dir.join("long.mp4");
    let (mut child, _) = start_long_render(&mp4);
    std::thread::sleep(Duration::from_secs(2));
    let pid = child.id();
    common::signal(&child, libc::SIGKILL);
    let status = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    assert_eq!(hidden_parts(&dir), [format!(".long.mp4.{pid}.part")]);
    assert_eq!(names_in(&dir).len(), 1, "nothing under the final name");

    let out = odori()
        .args(["render", "--size", "64x48", "--range", "0:9", "-o"])
        .arg(&mp4)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(names_in(&dir), ["long.mp4"], "the stale part file is gone");
    let bytes = std::fs::read(&mp4).unwrap();
    let tracks = odori_video::probe::tracks(&bytes);
    assert_eq!(tracks[0].samples, 10);
}

/// Two renders to one output at once: both finish, and the file is one of them, whole (its
/// size and frame count are one render's, and its last frame decodes).
#[test]
fn two_renders_to_one_output_leave_one_of_them_whole() {
    let dir = out_dir("two-at-once");
    let mp4 = dir.join("same.mp4");
    let sizes = [("96x64", (96, 64), 40), ("64x48", (64, 48), 30)];
    let children: Vec<Child> = (sizes.iter())
        .map(|(size, _, frames)| {
            odori()
                .args(["render", "--size", size, "--range"])
                .arg(format!("0:{}", frames - 1))
                .arg("-o")
                .arg(&mp4)
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(names_in(&dir), ["same.mp4"]);
    let bytes = std::fs::read(&mp4).unwrap();
    let tracks = odori_video::probe::tracks(&bytes);
    assert_eq!(tracks.len(), 1);
    let last = tracks[0].samples as usize - 1;
    let (w, h, _) = odori_video::probe::decode_frame(&bytes, &tracks[0], last).unwrap();
    let which = sizes.iter().find(|(_, wh, _)| *wh == (w, h));
    let (_, _, frames) = which.unwrap_or_else(|| panic!("{w}x{h} is neither render's size"));
    assert_eq!(tracks[0].samples, *frames, "{w}x{h}: that render's frames");
}

/// Textures that cannot be read (a folder of that name: the tests run as root, so
/// permissions would not stop them) or decoded (corrupt bytes, a header that lies about its
/// size): each is a warning naming it, and the render goes on to a whole PNG.
#[test]
fn unreadable_textures_are_named_and_the_render_goes_on() {
    let Some(model) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let dir = out_dir("textures");
    let copy = dir.join("Gene_light.pmx");
    std::fs::copy(&model, &copy).unwrap();
    let light = dir.join("light");
    std::fs::create_dir_all(light.join("face.png")).unwrap();
    std::fs::write(light.join("arm.png"), b"\x89PNG\r\n\x1a\ncorrupt").unwrap();
    std::fs::write(
        light.join("bottoms.png"),
        odori_testkit::png::header_claiming(60_000, 60_000),
    )
    .unwrap();
    std::fs::write(light.join("top.png"), b"not an image at all").unwrap();
    let png = dir.join("out.png");
    let out = odori()
        .arg("render")
        .arg(&copy)
        .args(["--size", "96x96", "--range", "0", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let warning = |name: &str| {
        err.lines()
            .find(|l| l.starts_with("warning:") && l.contains(name))
            .unwrap_or_else(|| panic!("no warning naming {name}: {err}"))
            .to_string()
    };
    warning("light/face.png");
    warning("light/arm.png");
    warning("light/top.png");
    assert!(warning("light/bottoms.png").contains("60000 × 60000"));
    // The textures not given at all are named too.
    warning("light/eye.png");
    let image = image::open(&png).unwrap();
    assert_eq!((image.width(), image.height()), (96, 96));
}
