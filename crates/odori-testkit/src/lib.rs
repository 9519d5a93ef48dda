//! Finds `../shared` (real MMD models, motions and peer reference dumps) for tests.
//!
//! The files are not ours to redistribute, so they live beside the checkout, not in it. A
//! newcomer's clone without them still passes its tests: real-asset tests print that they are
//! skipped. CI sets `ODORI_REQUIRE_SHARED=1`, which turns that skip into a failure.

use std::path::PathBuf;

/// Environment variable that makes a missing shared folder a test failure.
pub const REQUIRE_VAR: &str = "ODORI_REQUIRE_SHARED";

/// The shared folder: `$ODORI_SHARED` if set, else `../shared` beside the workspace root.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("ODORI_SHARED") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    };
    dir.join("assets")
        .is_dir()
        .then(|| dir.canonicalize().unwrap_or(dir))
}

/// The path of `rel` inside the shared folder, or `None` after printing a skip notice.
/// Panics instead of skipping when `ODORI_REQUIRE_SHARED=1`.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let found = shared_dir().map(|d| d.join(rel)).filter(|p| p.exists());
    if found.is_none() {
        if std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1") {
            panic!("{rel} not found under ../shared, and {REQUIRE_VAR}=1 forbids skipping");
        }
        eprintln!("SKIPPED: {rel} not found under ../shared (real-asset test)");
    }
    found
}

/// Every file under the shared folder's `rel` directory (recursively) whose extension is one
/// of `exts` (lower case), sorted. Empty (with a skip notice) when the folder is absent.
pub fn shared_files(rel: &str, exts: &[&str]) -> Vec<PathBuf> {
    let Some(root) = shared(rel) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x.to_ascii_lowercase().as_str()))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
