//! Finds `../shared` (real MMD models, motions and peer reference dumps) for tests.
//!
//! The files are not ours to redistribute, so they live beside the checkout, not in it. A
//! newcomer's clone without them still passes its tests: real-asset tests print that they are
//! skipped. CI sets `ODORI_REQUIRE_SHARED=1`, which turns that skip into a failure.

use std::path::PathBuf;

pub mod alloc;
pub mod browser;
#[cfg(feature = "golden")]
pub mod golden;
pub mod png;
pub mod xvfb;

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

/// The kinds of file in the shared folder's `oracle-ref` (see its README), each compared by
/// one family of tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OracleFamily {
    /// `{model}__{motion}__{peer}.json`, physics off: bone world matrices
    /// (odori-pose `oracle`, and `leg_ik` for those of a VMD motion).
    Pose,
    /// `{model}__{motion}__physics_{peer}.json`: bone world matrices with physics on
    /// (odori-physics `peers`).
    Physics,
    /// `{camera}__{peer}.json`: a VMD camera sampled every frame (odori-render `camera_oracle`).
    Camera,
    /// `{model}.ikset.json`: the bones each model's IK solvers move (read by the pose tests).
    IkSet,
}

/// The family of `oracle-ref` file `name`, or `None` for a `.json` no family covers.
pub fn oracle_family(name: &str) -> Option<OracleFamily> {
    let stem = name.strip_suffix(".json")?;
    if stem.ends_with(".ikset") {
        return Some(OracleFamily::IkSet);
    }
    match stem.split("__").collect::<Vec<_>>()[..] {
        [_, _, peer] if peer.starts_with("physics_") => Some(OracleFamily::Physics),
        [_, _, _] => Some(OracleFamily::Pose),
        [camera, _] if camera.ends_with("camera") => Some(OracleFamily::Camera),
        _ => None,
    }
}

/// Every `.json` file of `family` in `../shared/oracle-ref`, sorted (`None`, after the skip
/// notice, without the folder). Panics, listing them, when the folder holds `.json` files no
/// family covers: a dump nobody compares is a failure, not a silent gap.
pub fn oracle_files(family: OracleFamily) -> Option<Vec<PathBuf>> {
    let root = shared("oracle-ref")?;
    let mut files = Vec::new();
    let mut unclaimed = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        match oracle_family(&name) {
            Some(f) if f == family => files.push(entry.path()),
            Some(_) => {}
            None => unclaimed.push(name),
        }
    }
    assert!(
        unclaimed.is_empty(),
        "oracle-ref files no test family compares: {unclaimed:?}"
    );
    assert!(!files.is_empty(), "oracle-ref holds no {family:?} files");
    files.sort();
    Some(files)
}

/// Fails listing the files of `expected` that are not in `compared` (file names): every dump
/// of a family must be compared by some case of the tests that cover it.
pub fn assert_all_compared(
    family: &str,
    expected: &[PathBuf],
    compared: &std::collections::HashSet<String>,
) {
    let missed: Vec<String> = expected
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| !compared.contains(n))
        .collect();
    assert!(
        missed.is_empty(),
        "{family}: oracle-ref dumps nobody compares: {missed:?}"
    );
}
