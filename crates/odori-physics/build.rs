//! Compiles Bullet 3.07 (rigid bodies only) and odori's C++ shim over it with the `cc` crate,
//! for the native targets and for `wasm32-unknown-unknown` (clang, with the C headers of
//! `shim/wasm/` and the C functions of `src/wasm_libc.rs`). No system Bullet: the source
//! comes from the crates.io package `rubullet-sys` (see `build/source.rs`).
//!
//! Bullet is always optimised (`-O2`, `NDEBUG`; for wasm32 `-O3` and the post-MVP
//! features, see `configure`) whatever the Cargo profile: the test and dev
//! profiles would otherwise give a workspace crate's C++ `-O0`, ten times slower. Single
//! precision, as MMD's Bullet. `ODORI_NO_BULLET=1` builds without physics (`odori_no_bullet`
//! cfg: `PhysicsWorld::new` then says physics is unavailable).

#[path = "build/files.rs"]
mod files;
#[path = "build/source.rs"]
mod source;

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rustc-check-cfg=cfg(odori_no_bullet)");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=shim");
    for var in [
        "ODORI_NO_BULLET",
        "ODORI_BULLET_SRC",
        "ODORI_SOLVER_SCALAR",
        "CARGO_HOME",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    // Lets CI and developers check the no-physics build.
    if std::env::var_os("ODORI_NO_BULLET").is_some_and(|v| v == "1") {
        println!("cargo:rustc-cfg=odori_no_bullet");
        return;
    }
    if let Err(e) = build() {
        eprintln!("\nodori-physics: {e}\n");
        std::process::exit(1);
    }
}

fn build() -> Result<(), String> {
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let src = source::bullet_src(&out_dir)?;
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");

    let mut bullet = configure(&src, wasm);
    // Bullet's own warnings are not ours to fix.
    bullet
        .warnings(false)
        .extra_warnings(false)
        .flag_if_supported("-w");
    for file in files::BULLET {
        bullet.file(src.join(file));
    }
    let mut shim = configure(&src, wasm);
    // A warning from Bullet 3.07's headers (btSerializer.h) under newer compilers.
    shim.flag_if_supported("-Wno-unused-but-set-variable")
        .file("shim/odori_bullet.cpp")
        .file("shim/odori_solver.cpp");
    // The solver's scalar spelling (what a compiler without vector extensions builds), for
    // CI to run tests/solver_loop.rs through it on a compiler that has them.
    if std::env::var_os("ODORI_SOLVER_SCALAR").is_some_and(|v| v == "1") {
        shim.define("ODORI_SOLVER_SCALAR", None);
    }
    if wasm {
        // The solver's rows in four lanes (shim/odori_solver.cpp, bit-identical to the
        // scalar ones). Only the shim: Bullet itself stays without SIMD128 (`configure`).
        shim.flag("-msimd128").file("shim/wasm/runtime.cpp");
    }

    let hint = "a C++ compiler is needed to build physics (Debian: apt-get install g++; for \
                wasm32: apt-get install clang), or set ODORI_NO_BULLET=1 to build without it";
    shim.try_compile("odori_bullet_shim")
        .map_err(|e| format!("compiling the shim (shim/*.cpp) failed: {e}; {hint}"))?;
    bullet
        .try_compile("odori_bullet3")
        .map_err(|e| format!("compiling Bullet ({}) failed: {e}; {hint}", src.display()))?;
    // The shim calls into Bullet, so it comes first on the link line.
    println!("cargo:rustc-link-search=native={}", out_dir.display());
    println!("cargo:rustc-link-lib=static=odori_bullet_shim");
    println!("cargo:rustc-link-lib=static=odori_bullet3");
    if !wasm {
        let target = std::env::var("TARGET").unwrap_or_default();
        let stdlib = if target.contains("apple") || target.contains("freebsd") {
            Some("c++")
        } else if target.contains("msvc") {
            None
        } else {
            Some("stdc++")
        };
        if let Some(lib) = stdlib {
            println!("cargo:rustc-link-lib={lib}");
        }
    }
    Ok(())
}

/// The flags Bullet and the shim share (they must agree on every define that changes a
/// class's layout).
fn configure(src: &Path, wasm: bool) -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .cargo_metadata(false)
        .include(src)
        .opt_level(2)
        .debug(false)
        .define("NDEBUG", None)
        // Bullet's built-in profiler timers cost time on every step and are never read.
        .define("BT_NO_PROFILE", "1")
        // Bullet's sinf, acosf, powf, … are src/bullet_math.rs (the same on every target).
        .flag("-include")
        .flag(concat!(env!("CARGO_MANIFEST_DIR"), "/shim/odori_math.h"))
        .flag_if_supported("-std=c++14")
        .flag_if_supported("-fno-exceptions");
    if wasm {
        // No libc and no C++ runtime: our own minimal headers (shim/wasm), clang's
        // freestanding ones (stddef.h, stdint.h, float.h), and the functions behind them in
        // src/wasm_libc.rs.
        // cc's compiler for wasm32 is clang (CXX_wasm32_unknown_unknown overrides it).
        b.cpp_link_stdlib(None)
            .flag("-nostdlibinc")
            .flag("-fno-rtti")
            .flag("-fno-threadsafe-statics")
            .include("shim/wasm");
        // Speed in the browser, the same bits: clang 14 targets the wasm MVP by default, so
        // without these, float-to-int conversions are guarded by range-check branches and
        // memset/memcpy are calls into Rust's byte loops rather than `memory.fill`/`copy`.
        // No fast-math, and wasm has no fused multiply-add to contract into. Not SIMD128
        // (`-mno-simd128`, though the Rust side has it: build.sh, tests/wasm.rs): with it,
        // clang's vectorised Bullet stepped Gene × wavefile_v2 as native does for 213 frames
        // and then left it (frame 214 in tests/wasm.rs, 236 in the page), for 1–2 % of speed
        // (an A/B in the page, crates/odori-web/bench/ab.mjs). tests/wasm.rs holds the build
        // bit-identical to native past that frame.
        b.opt_level(3)
            .flag("-mno-simd128")
            .flag("-mnontrapping-fptoint")
            .flag("-msign-ext")
            .flag("-mbulk-memory");
        if std::env::var_os("AR_wasm32_unknown_unknown").is_none()
            && std::env::var_os("AR").is_none()
        {
            // wasm objects need llvm-ar's symbol index.
            b.archiver("llvm-ar");
        }
    }
    b
}
