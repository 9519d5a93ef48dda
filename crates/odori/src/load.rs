//! The commands' way of loading: the playback library reads and compiles, this prints its
//! warnings (each names its file) on standard error.

use anyhow::Result;
use odori_playback::{ModelAsset, MotionFile};
use odori_pose::Motion;
use odori_pose::motion::Source;
use std::path::{Path, PathBuf};

/// Read and compile a model file, printing what was repaired or dropped.
pub fn model(path: &Path) -> Result<ModelAsset> {
    let asset = ModelAsset::load(path)?;
    for w in asset.warnings() {
        eprintln!("warning: {w}");
    }
    Ok(asset)
}

/// Read motion files (VMD or VPD), printing their warnings.
pub fn motion_files(paths: &[PathBuf]) -> Result<Vec<MotionFile>> {
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let (file, warnings) = MotionFile::read(p)?;
        for w in warnings {
            eprintln!("warning: {w}");
        }
        out.push(file);
    }
    Ok(out)
}

/// Bind motion files to a model (merged, in order), with one line for the tracks that match
/// nothing in it (all of them with `verbose`).
pub fn bind(asset: &ModelAsset, files: &[MotionFile], verbose: bool) -> Motion {
    let sources: Vec<Source<'_>> = files.iter().map(MotionFile::source).collect();
    let motion = Motion::bind(asset.pose(), &sources);
    let unbound = motion.unbound();
    if verbose {
        for name in unbound {
            eprintln!(
                "note: motion track `{name}` matches nothing in {}",
                asset.label()
            );
        }
    } else if !unbound.is_empty() {
        const SHOWN: usize = 5;
        let names: Vec<&str> = unbound.iter().take(SHOWN).map(String::as_str).collect();
        eprintln!(
            "note: {} motion track(s) match nothing in {} ({}{}); --verbose lists them all",
            unbound.len(),
            asset.label(),
            names.join(", "),
            if unbound.len() > SHOWN { ", …" } else { "" }
        );
    }
    motion
}
