//! `odori export FILE... -o OUT.glb|.gltf`: the dance baked as odori plays it (IK, append,
//! morphs, physics, outside parents) into a glTF 2.0 file any 3D tool plays: one model and
//! its motions, several models with stages and props, or a MikuMikuDance project. Arguments
//! and messages only; `odori_gltf` does the work.

use super::render::{ExportFps, Range};
use super::scene::SceneArgs;
use anyhow::{Result, bail};
use odori_playback::project::{self, Project};
use std::path::PathBuf;
use std::sync::Arc;

pub struct Args {
    /// Each model followed by its motions, or one project.
    pub files: Vec<PathBuf>,
    pub camera: Option<PathBuf>,
    pub scene: SceneArgs,
    pub search: Vec<PathBuf>,
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
    let Some(first) = args.files.first() else {
        bail!("give a model (PMX or PMD) and its motions, or a project (.pmm), to export");
    };
    let mut physics = args.physics;
    let (scene, warnings, project_range) = match project::single_project(&args.files) {
        Some(path) => {
            if args.files.len() > 1 {
                bail!(
                    "{}: a project brings its own models; give it alone",
                    path.display()
                );
            }
            if let Some(s) = args.scene.stage.first() {
                bail!("--stage {}: a project brings its own stage", s.display());
            }
            if !args.scene.accessory.is_empty() {
                bail!("--accessory: a project brings its own accessories");
            }
            let project = Project::load(path, &args.search)?;
            let (mut scene, warnings) = project::scene(&project);
            if args.scene.side_by_side {
                scene.arrange_side_by_side();
            }
            if let Some(path) = &args.camera {
                scene.set_camera(&odori_playback::load::camera_file(path)?);
            }
            if physics && !project.physics() {
                eprintln!(
                    "note: the project's physics is off (物理演算: 演算しない): exported without"
                );
                physics = false;
            }
            (scene, warnings, Some(project.range))
        }
        None => {
            if !odori_playback::load::is_model_path(first) {
                bail!(
                    "{}: give a model (PMX or PMD) first, then its motions",
                    first.display()
                );
            }
            let models = odori_playback::load::split_files(&args.files)?;
            let (scene, warnings) = odori_playback::load::scene_from_models(
                &models,
                args.camera.as_deref(),
                &args.scene.clone().options(),
            )?;
            (scene, warnings, None)
        }
    };
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if args.verbose {
        for m in scene.models() {
            crate::load::list_unmatched(m.asset().label(), m.motion().unbound());
        }
    }
    // A project's own range, unless one is given.
    let (start, stop) = match (&args.range, project_range) {
        (Some(r), _) => (r.start, r.stop),
        (None, Some((a, b))) => (a.unwrap_or(0) as f32, b.map(|b| b as f32)),
        (None, None) => (0.0, None),
    };
    // A model given alone is exported at rest, with no animation.
    let has_motion = args
        .files
        .iter()
        .any(|f| !odori_playback::load::is_model_path(f))
        || args.camera.is_some()
        || project_range.is_some()
        || scene
            .models()
            .iter()
            .any(|m| m.accessory().is_some_and(|a| !a.keys.is_empty()));
    let options = odori_gltf::Options {
        start,
        stop,
        fps: args.fps.0,
        physics,
        settle: args.settle.unwrap_or(odori_playback::SETTLE_SECONDS),
        reduce: args.reduce,
        animate: has_motion,
        ..odori_gltf::Options::default()
    };
    let scene_models = scene.models().len();
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
        "wrote {} ({} bytes) in {:.2} s: {}{} bones, {} vertices, {} triangles, {} morph targets; {animation}",
        s.files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        s.bytes,
        started.elapsed().as_secs_f64(),
        if scene_models > 1 {
            format!("{scene_models} models, ")
        } else {
            String::new()
        },
        s.bones,
        s.vertices,
        s.triangles,
        s.targets,
    );
    Ok(())
}
