//! odori's physics built for `wasm32-unknown-unknown` (Bullet and the shim compiled by clang
//! against `shim/wasm`'s headers, the C library from `src/wasm_libc.rs`) and run under Node,
//! against the native build: ten seconds (frames 0–299) of Gene_light.pmx × wavefile_v2, every
//! bone's world matrix, bit for bit: Bullet's maths, the bodies' rest rotations and the IK's
//! sines, cosines and arc-sines use the `libm` crate on both, and the wasm build has SIMD128
//! so glam computes as its SSE2 code does. Bit-identity is a stronger check than a tolerance:
//! with the platform's trigonometry in the IK it found floats that differed by up to 0.011.
//!
//! Needs the wasm32 target (`rustup target add wasm32-unknown-unknown`), clang, llvm-ar and
//! node; without one it prints SKIPPED, unless `ODORI_REQUIRE_PHYSICS=1` (CI), where that is a
//! failure.

#[path = "../examples/wasm_physics/run.rs"]
mod run;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Ten seconds: past frame 214, where a wasm Bullet compiled with SIMD128 left native (every
/// earlier frame bit-identical; build.rs). One second (the test's first length) missed it.
const FRAMES: u32 = 300;

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
        .args([
            "--print",
            "target-libdir",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .and_then(|dir| std::fs::read_dir(dir).ok())
        .is_some_and(|mut d| {
            d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libstd-")))
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
    for (tool, arg) in [
        ("clang++", "--version"),
        ("llvm-ar", "--version"),
        ("node", "--version"),
    ] {
        if !tool_runs(tool, arg) {
            return skip(&format!(
                "{tool} not found (needed for the wasm32 physics build)"
            ));
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
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
            "-C target-feature=+simd128",
        )
        .status()
        .unwrap();
    assert!(
        status.success(),
        "cargo build for wasm32-unknown-unknown failed"
    );
    dir.join("wasm32-unknown-unknown/release/examples/wasm_physics.wasm")
}

fn run_node(wasm: &Path, pmx: &Path, vmd: &Path) -> Vec<f32> {
    let out = target_dir().join("wasm").join("gene_frames.bin");
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

/// For each bone, whether physics moves it: a simulated body's bone, or one below it.
fn physics_bones(pmx: &Path) -> Vec<bool> {
    let pmx = odori_format::Pmx::read(pmx).unwrap();
    let model = odori_pose::Model::from_pmx(&pmx).unwrap();
    let rig = odori_physics::PhysicsModel::from_pmx(&pmx, &model);
    let mut simulated = vec![false; model.bone_count()];
    for b in rig.bodies.iter().filter(|b| b.mode.is_dynamic()) {
        if let Some(bone) = b.bone {
            simulated[bone as usize] = true;
        }
    }
    let parents = model.parents();
    (0..model.bone_count())
        .map(|b| {
            let mut at = b;
            for _ in 0..=parents.len() {
                if simulated[at] {
                    return true;
                }
                match parents.get(at) {
                    Some(&p) if (p as usize) < parents.len() => at = p as usize,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

/// Worst difference and where (index of the float), and how many floats are bit-identical.
#[derive(Default)]
struct Diff {
    worst: f32,
    at: usize,
    identical: usize,
    compared: usize,
}

#[test]
fn gene_physics_in_wasm_matches_native_over_frames_0_to_299() {
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
    assert!(
        per_frame >= run::FLOATS_PER_BONE * 100,
        "Gene has hundreds of bones"
    );
    assert_eq!(wasm.len(), native.len(), "wasm and native output sizes");
    let physics = physics_bones(&pmx);
    assert_eq!(
        physics.len() * run::FLOATS_PER_BONE,
        per_frame,
        "bone count"
    );
    assert!(
        physics.iter().filter(|&&p| p).count() >= 50,
        "Gene's hair and skirt bones"
    );
    // [bones physics moves, the others]
    let mut diffs = [Diff::default(), Diff::default()];
    for (i, (a, b)) in native.iter().zip(&wasm).enumerate() {
        assert!(a.is_finite() && b.is_finite(), "non-finite value at {i}");
        let bone = i % per_frame / run::FLOATS_PER_BONE;
        let d = &mut diffs[usize::from(!physics[bone])];
        d.compared += 1;
        d.identical += usize::from(a.to_bits() == b.to_bits());
        if (a - b).abs() > d.worst {
            (d.worst, d.at) = ((a - b).abs(), i);
        }
    }
    let place = |i: usize| (i / per_frame, i % per_frame / run::FLOATS_PER_BONE);
    for (d, what) in diffs.iter().zip(["bones physics moves", "other bones"]) {
        let (frame, bone) = place(d.at);
        println!(
            "wasm vs native, frames 0–{}, {what}: {} of {} floats bit-identical; worst \
             difference {:.3e} (frame {frame}, bone {bone})",
            FRAMES - 1,
            d.identical,
            d.compared,
            d.worst
        );
    }
    // The first frame that differs says more than the worst one: chaos grows from there.
    if let Some(i) = (native.iter().zip(&wasm)).position(|(a, b)| a.to_bits() != b.to_bits()) {
        let (frame, bone) = place(i);
        println!("first differing float: frame {frame}, bone {bone}");
    }
    // Both builds take every library function the pose and physics call from the `libm`
    // crate (odori-pose's IK trig, Bullet's maths, the bodies' rest rotations), so nothing is
    // left to round differently: every float must be the same bits, not merely close.
    for (d, what) in diffs.iter().zip(["physics", "the pose (IK included)"]) {
        let (frame, bone) = place(d.at);
        assert!(
            d.identical == d.compared,
            "{what} in wasm differs from native: {} of {} floats differ, the worst by {} \
             (frame {frame}, bone {bone})",
            d.compared - d.identical,
            d.compared,
            d.worst
        );
    }
}
