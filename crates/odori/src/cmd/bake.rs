//! `odori bake MODEL MOTION -o BAKED.vmd`: the motion with its physics result written as
//! keyframes (one per frame for every bone a simulated body drives, physics off on them),
//! which MikuMikuDance and any other runtime play back without simulating.

use crate::load;
use anyhow::{Context, Result, bail};
use odori_physics::{PhysicsConfig, PhysicsWorld};
use odori_playback::MotionFile;
use std::path::Path;

pub fn run(
    model_path: &Path,
    motion_path: &Path,
    output: &Path,
    tolerance: f32,
    verbose: bool,
) -> Result<()> {
    if !(tolerance.is_finite() && (0.0..=1.0).contains(&tolerance)) {
        bail!("--tolerance {tolerance}: give model units from 0 to 1 (default 0.001)");
    }
    crate::output::check_file(output)?;
    let asset = load::model(model_path)?;
    if asset.physics().dynamic_body_count() == 0 {
        bail!(
            "{}: nothing to bake: the model has no rigid bodies that physics moves ({} in all, \
             none simulated); its motion plays the same without physics",
            model_path.display(),
            asset.physics().bodies.len()
        );
    }
    let files = load::motion_files(&[motion_path.to_path_buf()])?;
    let Some(MotionFile::Vmd(vmd)) = files.first() else {
        bail!("{}: bake needs a VMD motion", motion_path.display());
    };
    let model = asset.pose();
    let mut world = PhysicsWorld::new(asset.physics(), model, PhysicsConfig::default())
        .context("odori bake needs physics")?;
    for w in &world.diagnostics()[asset.physics().diagnostics.len()..] {
        eprintln!("warning: {}: physics: {w}", asset.label());
    }
    if world.driven_bones().is_empty() {
        bail!(
            "{}: nothing to bake: no bone is moved by a simulated rigid body",
            model_path.display()
        );
    }
    let motion = load::bind(&asset, &files, verbose);
    let mut baked = odori_physics::bake(model, &motion, &mut world, vmd)?;
    let reduction = (tolerance > 0.0)
        .then(|| odori_physics::reduce(model, &mut baked, tolerance))
        .transpose()?;
    let bytes = odori_format::vmd::write(&baked.vmd).context("encoding the baked VMD")?;
    std::fs::write(output, &bytes).with_context(|| format!("writing {}", output.display()))?;
    eprintln!(
        "baked {} bones × {} frames (0–{}) into {}",
        baked.bones.len(),
        baked.last_frame + 1,
        baked.last_frame,
        output.display()
    );
    let mb = |n: usize| n as f64 / 1e6;
    match reduction {
        Some(r) => eprintln!(
            "keys: {} of {} kept (replay within {:.1e} units of the simulation, tolerance \
             {tolerance}); {:.2} MB, {:.2} MB with a key on every frame",
            r.keys_after,
            r.keys_before,
            r.max_error,
            mb(bytes.len()),
            // The keys dropped are fixed-size records: no second encoding to learn the size.
            mb(bytes.len() + (r.keys_before - r.keys_after) * odori_format::vmd::BONE_KEY_SIZE)
        ),
        None => eprintln!(
            "keys: one per frame (--tolerance 0); {:.2} MB",
            mb(bytes.len())
        ),
    }
    Ok(())
}
