//! `odori mesh`: the deformed mesh of one frame as OBJ (+ .mtl) or PLY, with UVs and material
//! groups, for a look in any 3D viewer.

use crate::export;
use crate::load;
use anyhow::{Result, bail};
use odori_deform::Deformed;
use odori_pose::Instance;
use std::path::{Path, PathBuf};

pub fn run(
    model_path: &Path,
    motion_paths: &[PathBuf],
    frame: f32,
    ik: bool,
    output: &Path,
    verbose: bool,
) -> Result<()> {
    let ext = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    if !matches!(ext.as_deref(), Some("obj" | "ply")) {
        bail!("{}: the output must end in .obj or .ply", output.display());
    }
    crate::output::check_file(output)?;
    if !frame.is_finite() {
        bail!("bad frame {frame}");
    }
    let asset = load::model(model_path)?;
    let model = asset.pose();
    let mesh = asset.mesh();
    let files = load::motion_files(motion_paths)?;
    let motion = load::bind(&asset, &files, verbose);
    let mut inst = Instance::new(model, &motion);
    inst.options_mut().ik = ik;
    inst.evaluate(model, &motion, frame)?;
    let mut out = Deformed::new(mesh);
    odori_deform::deform(
        mesh,
        inst.skinning(),
        inst.effective_morph_weights(),
        &mut out,
    );

    let motions: Vec<String> = motion_paths
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let comment = format!(
        "odori {} mesh: {} at frame {frame}{}{}",
        env!("CARGO_PKG_VERSION"),
        model_path.display(),
        if motions.is_empty() { "" } else { ", motion " },
        motions.join(" + ")
    );
    let materials = export::materials(asset.render());
    let model_dir = model_path.parent().unwrap_or(Path::new("."));
    if ext.as_deref() == Some("obj") {
        export::obj::write(output, &comment, mesh, &out, &materials, model_dir)?;
    } else {
        export::ply::write(output, &comment, mesh, &out)?;
    }
    eprintln!(
        "wrote {}: {} vertices, {} triangles, {} materials, frame {frame}",
        output.display(),
        mesh.vertex_count(),
        mesh.indices().len() / 3,
        mesh.material_ranges().len()
    );
    Ok(())
}
