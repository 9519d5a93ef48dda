//! `odori bake MODEL MOTION -o BAKED.vmd`: the motion with its physics result written as
//! keyframes (one per frame for every bone a simulated body drives, physics off on them),
//! which MikuMikuDance and any other runtime play back without simulating.

use crate::load::{self, MotionFile};
use anyhow::{Context, Result, bail};
use odori_pose::Motion;
use std::path::Path;

pub fn run(model_path: &Path, motion_path: &Path, output: &Path) -> Result<()> {
    let loaded = load::model(model_path)?;
    let vmd = match load::motion_files(&[motion_path.to_path_buf()])?.pop() {
        Some(MotionFile::Vmd(v)) => v,
        _ => bail!("{}: bake needs a VMD motion", motion_path.display()),
    };
    let label = model_path.display().to_string();
    let mut world = crate::physics::world(&loaded, &label).context("odori bake needs physics")?;
    let motion = Motion::from_vmd(&loaded.model, &vmd);
    let baked = odori_physics::bake(&loaded.model, &motion, &mut world, &vmd)?;
    let bytes = odori_format::vmd::write(&baked.vmd).context("encoding the baked VMD")?;
    std::fs::write(output, bytes).with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "baked {} bones × {} frames (0–{}) into {}",
        baked.bones.len(),
        baked.last_frame + 1,
        baked.last_frame,
        output.display()
    );
    Ok(())
}
