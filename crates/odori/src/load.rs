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
        list_unmatched(asset.label(), unbound);
    } else if let Some(line) = odori_playback::load::unmatched_summary(asset.label(), unbound) {
        eprintln!("note: {line}; --verbose lists them all");
    }
    motion
}

/// `--verbose`: a line for every motion track that matches nothing in model `label`.
pub fn list_unmatched(label: &str, unbound: &[String]) {
    for name in unbound {
        eprintln!("note: motion track `{name}` matches nothing in {label}");
    }
}
