//! `odori export MODEL [MOTION ...] -o OUT.glb|.gltf`: the dance baked as odori plays it
//! (IK, append, morphs, physics) into a glTF 2.0 file any 3D tool plays. Arguments and
//! messages only; `odori_gltf` does the work.

use super::render::{ExportFps, Range};
use anyhow::{Result, bail};
use std::path::PathBuf;
use std::sync::Arc;

pub struct Args {
    pub model: PathBuf,
    pub motions: Vec<PathBuf>,
    pub camera: Option<PathBuf>,
    pub range: Option<Range>,
    pub fps: ExportFps,
    pub output: PathBuf,
    pub physics: bool,
    pub settle: Option<f32>,
    pub reduce: bool,
    pub verbose: bool,
}

pub fn run(args: Args) -> Result<()> {
    let ext = (args.output.extension().and_then(|e| e.to_str())).map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("glb" | "gltf")) {
        bail!(
            "{}: the output must end in .glb or .gltf",
            args.output.display()
        );
    }
    crate::output::check_file(&args.output)?;
    if let Some(s) = args.settle
        && !(0.0..=600.0).contains(&s)
    {
        bail!("--settle {s}: give seconds from 0 to 600");
    }
    if let Some(m) = args
        .motions
        .iter()
        .find(|m| odori_playback::load::is_model_path(m))
    {
        bail!(
            "{}: glTF export takes one model (give MODEL then its motions)",
            m.display()
        );
    }
    let mut files = vec![args.model.clone()];
    files.extend(args.motions.iter().cloned());
    let (scene, warnings) = odori_playback::load::scene_from_files(&files, args.camera.as_deref())?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if args.verbose {
        let m = &scene.models()[0];
        crate::load::list_unmatched(m.asset().label(), m.motion().unbound());
    }
    let options = odori_gltf::Options {
        start: args.range.as_ref().map_or(0.0, |r| r.start),
        stop: args.range.as_ref().and_then(|r| r.stop),
        fps: args.fps.0,
        physics: args.physics,
        settle: args.settle.unwrap_or(odori_playback::SETTLE_SECONDS),
        reduce: args.reduce,
        animate: !args.motions.is_empty() || args.camera.is_some(),
        ..odori_gltf::Options::default()
    };
    let started = std::time::Instant::now();
    let s = odori_gltf::export(Arc::new(scene), &options, &args.output)?;
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    let animation = if s.frames == 0 {
        "rest pose, no animation".to_string()
    } else {
        format!(
            "frames {}–{} ({} samples), {} keys of {} ({:.1} %), largest world error {:.1e} units / {:.1e} rotation",
            s.first,
            s.last,
            s.frames,
            s.keys,
            s.keys_unreduced,
            100.0 * s.keys as f64 / s.keys_unreduced.max(1) as f64,
            s.error.0,
            s.error.1
        )
    };
    eprintln!(
        "wrote {} ({} bytes) in {:.2} s: {} bones, {} vertices, {} triangles, {} morph targets; {animation}",
        s.files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        s.bytes,
        started.elapsed().as_secs_f64(),
        s.bones,
        s.vertices,
        s.triangles,
        s.targets,
    );
    Ok(())
}
