//! A WebAssembly module (built for `wasm32-unknown-unknown` by `tests/wasm.rs`) that runs
//! odori's physics — Bullet compiled to wasm with odori's shim — for a JavaScript host
//! (`tests/wasm/run.mjs` under Node):
//!
//! 1. `odori_alloc(len)` twice: room for the PMX and the VMD bytes, which the host copies in;
//! 2. `odori_run(pmx, pmx_len, vmd, vmd_len, frames)`: 0 on success, else a non-zero code
//!    and `odori_result` / `odori_result_len` point at the UTF-8 error message;
//! 3. `odori_result()` / `odori_result_len()`: the world matrices (`run.rs`), f32 little-end.
//!
//! Natively this builds as an ordinary library (and does nothing), so the workspace's
//! native builds and lints see it too.

#![allow(clippy::missing_safety_doc)]

#[path = "run.rs"]
mod run;

use std::cell::RefCell;

thread_local! {
    /// The last run's output bytes (matrices, or an error message), owned until the next run.
    static RESULT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `len` bytes the host may fill; they are given back by `odori_run`.
#[unsafe(no_mangle)]
pub extern "C" fn odori_alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Runs `frames` frames; the pointers are two `odori_alloc` blocks of exactly these lengths,
/// which are freed here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn odori_run(
    pmx: *mut u8,
    pmx_len: usize,
    vmd: *mut u8,
    vmd_len: usize,
    frames: u32,
) -> u32 {
    // SAFETY: both came from odori_alloc with these lengths (the contract above).
    let (pmx, vmd) = unsafe {
        (
            Vec::from_raw_parts(pmx, pmx_len, pmx_len),
            Vec::from_raw_parts(vmd, vmd_len, vmd_len),
        )
    };
    let (code, bytes) = match run::run(&pmx, &vmd, frames) {
        Ok(m) => (0, m.iter().flat_map(|v| v.to_le_bytes()).collect()),
        Err(e) => (1, e.into_bytes()),
    };
    RESULT.with(|r| *r.borrow_mut() = bytes);
    code
}

#[unsafe(no_mangle)]
pub extern "C" fn odori_result() -> *const u8 {
    RESULT.with(|r| r.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn odori_result_len() -> usize {
    RESULT.with(|r| r.borrow().len())
}
