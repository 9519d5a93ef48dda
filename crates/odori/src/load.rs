//! Loading models and motions from paths, with errors that name the file.

use anyhow::{Context, Result, bail};
use odori_format::{Document, Vmd, Vpd};
use odori_pose::motion::Source;
use odori_pose::{Model, Motion};
use std::path::{Path, PathBuf};

/// A model file read and compiled.
pub struct LoadedModel {
    pub model: Model,
    pub doc: Document,
}

pub fn model(path: &Path) -> Result<LoadedModel> {
    let (doc, diagnostics) = odori_format::read_path(path)?;
    for d in &diagnostics {
        eprintln!("warning: {}: {d}", path.display());
    }
    let model = match &doc {
        Document::Pmx(p) => Model::from_pmx(p),
        Document::Pmd(p) => Model::from_pmd(p),
        _ => bail!("{}: not a model (PMX or PMD)", path.display()),
    }
    .with_context(|| format!("compiling {}", path.display()))?;
    for d in model.diagnostics() {
        eprintln!("warning: {}: {d}", path.display());
    }
    Ok(LoadedModel { model, doc })
}

/// Motion files read (VMD or VPD).
pub enum MotionFile {
    Vmd(Vmd),
    Vpd(Vpd),
}

pub fn motion_files(paths: &[PathBuf]) -> Result<Vec<MotionFile>> {
    paths
        .iter()
        .map(|p| {
            let (doc, diagnostics) = odori_format::read_path(p)?;
            for d in &diagnostics {
                eprintln!("warning: {}: {d}", p.display());
            }
            Ok(match doc {
                Document::Vmd(v) => MotionFile::Vmd(*v),
                Document::Vpd(v) => MotionFile::Vpd(*v),
                _ => bail!("{}: not a motion (VMD or VPD)", p.display()),
            })
        })
        .collect()
}

/// Bind motion files to a model (merged, in order).
pub fn bind(model: &Model, files: &[MotionFile]) -> Motion {
    let sources: Vec<Source<'_>> = files
        .iter()
        .map(|f| match f {
            MotionFile::Vmd(v) => Source::Vmd(v),
            MotionFile::Vpd(v) => Source::Vpd(v),
        })
        .collect();
    Motion::bind(model, &sources)
}
