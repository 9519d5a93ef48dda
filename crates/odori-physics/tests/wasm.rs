//! odori's physics built for `wasm32-unknown-unknown` (Bullet and the shim compiled by clang
//! against `shim/wasm`'s headers, the C library from `src/wasm_libc.rs`) and run under Node,
//! against the native build: one second (frames 0–60) of Gene_light.pmx × wavefile_v2, every
//! bone's world matrix, within 1e-3 (and says whether the two are bit-identical).
//!
//! Needs the wasm32 target (`rustup target add wasm32-unknown-unknown`), clang, llvm-ar and
//! node; without one it prints SKIPPED, unless `ODORI_REQUIRE_PHYSICS=1` (CI), where that is a
//! failure.

#[path = "../examples/wasm_physics/run.rs"]
mod run;

use std::path::{Path, PathBuf};
use std::process::Command;

const FRAMES: u32 = 61;
/// The bound on any matrix element (MMD units for translations; Gene is ~20 tall).
const TOLERANCE: f32 = 1e-3;

fn required() -> bool {
    std::env::var("ODORI_REQUIRE_PHYSICS").is_ok_and(|v| v == "1")
}

/// `None` after a skip notice (a panic under `ODORI_REQUIRE_PHYSICS=1`).
fn skip(why: &str) -> Option<()> {
    if required() {
        panic!("{why}, and ODORI_REQUIRE_PHYSICS=1 forbids skipping");
    }
    eprintln!("SKIPPED: {why}");
    None
}

fn tool_runs(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn wasm_target_installed() -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(rustc)
        .args(["--print", "target-libdir", "--target", "wasm32-unknown-unknown"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .is_some_and(|mut d| {
            d.any(|e| {
                e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libstd-"))
            })
        })
}

/// Everything the test needs, or `None` after a skip notice.
fn tools() -> Option<()> {
    if !odori_physics::AVAILABLE {
        return skip("odori-physics built with ODORI_NO_BULLET=1");
    }
    if !wasm_target_installed() {
        return skip("wasm32-unknown-unknown target not installed (rustup target add …)");
    }
    for (tool, arg) in [("clang++", "--version"), ("llvm-ar", "--version"), ("node", "--version")]
    {
        if !tool_runs(tool, arg) {
            return skip(&format!("{tool} not found (needed for the wasm32 physics build)"));
        }
    }
    Some(())
}

/// The cargo target folder this test was built in (…/target/debug/deps/wasm-… → …/target).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors().nth(3).unwrap().to_path_buf()
}

/// Builds the example module for wasm32 in its own target folder (the outer cargo holds the
/// lock on this one while tests run).
fn build_wasm() -> PathBuf {
    let dir = target_dir().join("wasm");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-unknown-unknown",
            "-p",
            "odori-physics",
            "--example",
            "wasm_physics",
            "--target-dir",
        ])
        .arg(&dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .status()
        .unwrap();
    assert!(status.success(), "cargo build for wasm32-unknown-unknown failed");
    dir.join("wasm32-unknown-unknown/release/examples/wasm_physics.wasm")
}

fn run_node(wasm: &Path, pmx: &Path, vmd: &Path) -> Vec<f32> {
    let out = target_dir().join("wasm").join("gene_frames_0_60.bin");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/wasm/run.mjs");
    let o = Command::new("node")
        .arg(script)
        .arg(wasm)
        .arg(pmx)
        .arg(vmd)
        .arg(FRAMES.to_string())
        .arg(&out)
        .output()
        .unwrap();
    print!("{}", String::from_utf8_lossy(&o.stdout));
    assert!(
        o.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).ok();
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn gene_physics_in_wasm_matches_native_over_frames_0_to_60() {
    let (Some(pmx), Some(vmd)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let Some(()) = tools() else {
        return;
    };
    let native = run::run(
        &std::fs::read(&pmx).unwrap(),
        &std::fs::read(&vmd).unwrap(),
        FRAMES,
    )
    .unwrap();
    let wasm = run_node(&build_wasm(), &pmx, &vmd);

    // Every frame of every bone is compared: the two runs must hold the same count, and one
    // that cannot hold a frame of matrices compares nothing.
    let per_frame = native.len() / FRAMES as usize;
    assert!(per_frame >= run::FLOATS_PER_BONE * 100, "Gene has hundreds of bones");
    assert_eq!(wasm.len(), native.len(), "wasm and native output sizes");
    let mut worst = (0f32, 0usize);
    let mut identical = 0usize;
    for (i, (a, b)) in native.iter().zip(&wasm).enumerate() {
        assert!(a.is_finite() && b.is_finite(), "non-finite value at {i}");
        identical += usize::from(a.to_bits() == b.to_bits());
        let d = (a - b).abs();
        if d > worst.0 {
            worst = (d, i);
        }
    }
    let (frame, bone) = (
        worst.1 / per_frame,
        worst.1 % per_frame / run::FLOATS_PER_BONE,
    );
    println!(
        "wasm vs native, frames 0–60: {identical} of {} floats bit-identical; worst \
         difference {:.3e} (frame {frame}, bone {bone})",
        native.len(),
        worst.0
    );
    assert!(
        worst.0 <= TOLERANCE,
        "wasm differs from native by {} at frame {frame}, bone {bone}",
        worst.0
    );
}
