//! `odori extract PROJECT.pmm -o DIR`: a MikuMikuDance project's dances as VMD files, one per
//! model (bone, morph, visibility and IK keys), and its camera, light and self-shadow keys as
//! one camera VMD, so they can be used with other models and tools.
//!
//! Each file is written beside its final name and renamed into place, so an interrupted run
//! leaves no partial VMD.

use anyhow::{Context, Result};
use odori_playback::project::Project;
use std::path::{Path, PathBuf};

/// The name of the camera VMD in the output folder.
pub const CAMERA_FILE: &str = "camera.vmd";

/// A model's VMD file name: its slot (two digits, so the files sort as the project lists its
/// models) and its name with the characters file systems refuse replaced.
pub fn model_file_name(slot: usize, name: &str) -> String {
    let clean: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    format!("{slot:02}_{}.vmd", clean.trim())
}

pub fn run(project: &Path, output: &Path, search: &[PathBuf]) -> Result<()> {
    let project = Project::load(project, search)?;
    for w in &project.warnings {
        eprintln!("warning: {w}");
    }
    std::fs::create_dir_all(output)
        .with_context(|| format!("cannot create the folder {}", output.display()))?;
    for m in &project.models {
        // The project keeps full names; the VMD written here keeps 15 bytes of each.
        for w in odori_format::pmm::cut_name_warnings(&project.pmm.models[m.slot]) {
            eprintln!("warning: model {}: {w}", m.name);
        }
        let path = output.join(model_file_name(m.slot, &m.name));
        write_vmd(&path, &m.motion)?;
        println!(
            "{}: {} bone keys, {} morph keys, {} model keys",
            path.display(),
            m.motion.bones.len(),
            m.motion.morphs.len(),
            m.motion.properties.len()
        );
    }
    let path = output.join(CAMERA_FILE);
    for w in odori_format::pmm::camera_follow_warnings(&project.pmm) {
        eprintln!("warning: {w}");
    }
    write_vmd(&path, &project.camera)?;
    println!(
        "{}: {} camera keys, {} light keys, {} self-shadow keys",
        path.display(),
        project.camera.cameras.len(),
        project.camera.lights.len(),
        project.camera.self_shadows.len()
    );
    Ok(())
}

fn write_vmd(path: &Path, vmd: &odori_format::Vmd) -> Result<()> {
    let bytes = odori_format::vmd::write(vmd)
        .map_err(|e| e.with_path(path))
        .with_context(|| format!("cannot write {}", path.display()))?;
    let partial = path.with_extension("vmd.partial");
    std::fs::write(&partial, bytes)
        .and_then(|()| std::fs::rename(&partial, path))
        .with_context(|| format!("cannot write {}", path.display()))
}
