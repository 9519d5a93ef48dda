//! Golden images of the command line's own path: `odori render` of Gene_light.pmx dancing
//! wavefile_v2 under its camera (wavefile_camera.vmd), physics on (the default), frame 900 at
//! 256×256, held to the goldens in `tests/golden/` by `odori_testkit::golden`'s rule over
//! covered pixels:
//!
//! - `cli_gene_light_0900.png`, blessed from the CPU-skinned render: `--range 900:900` with
//!   CPU and with GPU skinning. Physics is simulated from frame 0 (settled) up to 900, so this
//!   is frame 900 of the whole video; and it is: a `--range 0:900` render into a folder ends
//!   on the same picture, within the same rule. miku_v2.pmd, whose twin tails reach her
//!   knees, is held the same way at frame 2500 of the song (no golden file: the still against
//!   the whole range, and a control without physics that must fail).
//! - `cli_gene_light_0900_settle0.png`: `--settle 0`, physics started at frame 900 itself
//!   (reset onto its pose, sixty settling steps).
//!
//! Why and when the goldens were re-blessed is in CHANGELOG.md.
//!
//! Each runs on the default backend (wgpu when an adapter opens, else the CPU rasteriser); the
//! CPU-skinned frame is also drawn with `--backend cpu` against the same golden and limits, and
//! the GPU-skinned one only where there is an adapter. Skipped without ../shared or Bullet
//! unless `ODORI_REQUIRE_SHARED`, `ODORI_REQUIRE_PHYSICS` are 1 (and without an adapter, GPU
//! skinning unless `ODORI_REQUIRE_GPU` is). Multisampling is pinned off
//! (`--msaa 1`, the default on software rasterisers) so that a GPU machine renders what the
//! goldens hold.

use odori_testkit::golden::{self, LIMITS};
use std::path::{Path, PathBuf};
use std::process::Command;

const NAME: &str = "cli_gene_light_0900";
const SETTLE_0: &str = "cli_gene_light_0900_settle0";

struct Files {
    model: PathBuf,
    motion: PathBuf,
    camera: PathBuf,
}

/// The shared files, when there and when Bullet is.
fn files() -> Option<Files> {
    files_for("assets/gene/Gene_light.pmx")
}

/// `model` (a path under ../shared) with wavefile_v2 and its camera, when there and when
/// Bullet is.
fn files_for(model: &str) -> Option<Files> {
    let (Some(model), Some(motion), Some(camera)) = (
        odori_testkit::shared(model),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return None;
    };
    if !odori_physics::AVAILABLE {
        if std::env::var("ODORI_REQUIRE_PHYSICS").is_ok_and(|v| v == "1") {
            panic!("odori built without Bullet, and ODORI_REQUIRE_PHYSICS=1 forbids skipping");
        }
        eprintln!("SKIPPED: odori built without Bullet (physics), so no golden of its render");
        return None;
    }
    Some(Files {
        model,
        motion,
        camera,
    })
}

fn temp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(&path);
    path
}

/// `odori render` of the files at 256×256, `--msaa 1`, with `args` and `-o out`; it must
/// run with physics unless `args` turn it off.
fn render(f: &Files, args: &[&str], out: &Path) {
    let run = Command::new(env!("CARGO_BIN_EXE_odori"))
        .arg("render")
        .arg(&f.model)
        .arg(&f.motion)
        .arg("--camera")
        .arg(&f.camera)
        .args(["--size", "256x256", "--msaa", "1"])
        .args(args)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "odori render {args:?}:\n{err}");
    assert!(
        args.contains(&"--no-physics") || !err.contains("without physics"),
        "{args:?} ran without physics:\n{err}"
    );
}

fn still(f: &Files, args: &[&str], name: &str) -> image::RgbaImage {
    let png = temp(name);
    render(f, args, &png);
    image::open(&png).unwrap().to_rgba8()
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

#[test]
fn gene_light_frame_900_cpu_and_gpu_skinning() {
    let Some(f) = files() else { return };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let range = ["--range", "900:900"];
    let cpu = still(
        &f,
        &[&range[..], &["--skinning", "cpu"]].concat(),
        "cpu.png",
    );
    golden::check(&golden_dir(), NAME, &cpu, out, LIMITS);
    let rasteriser = still(
        &f,
        &[&range[..], &["--skinning", "cpu", "--backend", "cpu"]].concat(),
        "cpu-rasteriser.png",
    );
    eprintln!("--backend cpu against the same golden:");
    golden::verify(&golden_dir(), NAME, &rasteriser, out, LIMITS);
    if odori_render::gpu::for_tests().is_none() {
        return;
    }
    let gpu = still(
        &f,
        &[&range[..], &["--backend", "gpu", "--skinning", "gpu"]].concat(),
        "gpu.png",
    );
    eprintln!("--skinning gpu against the same golden:");
    golden::verify(&golden_dir(), NAME, &gpu, out, LIMITS);
}

/// `--settle 0` is the command as it was before the settled start: physics starts at the
/// range's first frame.
#[test]
fn gene_light_frame_900_settle_0() {
    let Some(f) = files() else { return };
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let args = ["--range", "900:900", "--skinning", "cpu", "--settle", "0"];
    let img = still(&f, &args, "settle0.png");
    golden::check(&golden_dir(), SETTLE_0, &img, out, LIMITS);
}

/// A still of frame 900 is frame 900 of the video: the last of a `--range 0:900` folder.
#[test]
fn gene_light_still_900_is_frame_900_of_the_whole_range() {
    let Some(f) = files() else { return };
    let args = ["--range", "900:900", "--skinning", "cpu"];
    let alone = still(&f, &args, "alone.png");
    let dir = temp("range_0_900");
    // A folder output is an existing folder (or a path with a trailing slash).
    std::fs::create_dir_all(&dir).unwrap();
    render(&f, &["--range", "0:900", "--skinning", "cpu"], &dir);
    let last = image::open(dir.join("frame_00900.png")).unwrap().to_rgba8();
    assert!(!dir.join("frame_00901.png").exists());
    let (figures, _) = golden::compare(&last, &alone);
    eprintln!("--range 900:900 against frame 900 of --range 0:900: {figures:?}");
    assert!(figures.pass(LIMITS), "{figures:?}");
}

/// A still deep into a song is the video's frame, for a model with long hair: miku_v2's twin
/// tails, which hang to her knees and swing through the whole of wavefile_v2. `--range
/// 2500:2500` simulates physics from frame 0 (settled) up to 2500 on its own; a `--range
/// 0:2500` folder plays every frame. Its last picture must be the still within the golden
/// rule. The same still without physics must fail that rule, or the hair would not show in
/// the picture and the comparison would hold nothing.
#[test]
fn miku_v2_still_2500_is_frame_2500_of_the_whole_range() {
    let Some(f) = files_for("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let args = ["--range", "2500:2500", "--skinning", "cpu"];
    let alone = still(&f, &args, "miku_alone.png");
    let dir = temp("miku_range_0_2500");
    std::fs::create_dir_all(&dir).unwrap();
    render(&f, &["--range", "0:2500", "--skinning", "cpu"], &dir);
    let last = image::open(dir.join("frame_02500.png")).unwrap().to_rgba8();
    assert!(!dir.join("frame_02501.png").exists());
    let (figures, _) = golden::compare(&last, &alone);
    eprintln!("miku_v2: --range 2500:2500 against frame 2500 of --range 0:2500: {figures:?}");
    assert!(figures.pass(LIMITS), "{figures:?}");

    let still_args = [&args[..], &["--no-physics"]].concat();
    let rigid = still(&f, &still_args, "miku_no_physics.png");
    let (control, _) = golden::compare(&last, &rigid);
    eprintln!("miku_v2: frame 2500 against the same still without physics: {control:?}");
    assert!(
        !control.pass(LIMITS),
        "frame 2500 without physics passes as the video's frame: the hair is not in the \
         picture, so the comparison above proved nothing ({control:?})"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
