//! `odori bake MODEL MOTION -o BAKED.vmd`: the motion with its physics result written as
//! keyframes (one per frame for every bone a simulated body drives, physics off on them),
//! which MikuMikuDance and any other runtime play back without simulating. Arguments and
//! messages only; the playback library bakes (`odori_playback::bake_job`, which Python's
//! `odori.bake` calls too).

use anyhow::Result;
use odori_playback::bake_job;
use odori_playback::load::ModelInput;
use odori_playback::render_job::{Note, OptionNames};
use std::path::Path;

pub fn run(
    model_path: &Path,
    motion_path: &Path,
    output: &Path,
    tolerance: f32,
    verbose: bool,
) -> Result<()> {
    let model = ModelInput::Path(model_path.to_path_buf());
    let mut hinted = false;
    let r = bake_job::bake(
        &model,
        motion_path,
        output,
        tolerance,
        verbose,
        OptionNames::CommandLine,
        &mut |note| match note {
            Note::Warning(w) => eprintln!("warning: {w}"),
            Note::Note(n) if !verbose && !hinted => {
                hinted = true;
                eprintln!("note: {n}; --verbose lists them all");
            }
            Note::Note(n) | Note::Info(n) => eprintln!("note: {n}"),
        },
    )?;
    eprintln!(
        "baked {} bones × {} frames (0–{}) into {}",
        r.bones,
        r.last_frame + 1,
        r.last_frame,
        output.display()
    );
    let mb = |n: usize| n as f64 / 1e6;
    if tolerance > 0.0 {
        eprintln!(
            "keys: {} of {} kept (replay within {:.1e} units of the simulation, tolerance \
             {tolerance}); {:.2} MB, {:.2} MB with a key on every frame",
            r.keys_after,
            r.keys_before,
            r.max_error,
            mb(r.bytes),
            // The keys dropped are fixed-size records: no second encoding to learn the size.
            mb(r.bytes + (r.keys_before - r.keys_after) * odori_format::vmd::BONE_KEY_SIZE)
        );
    } else {
        eprintln!("keys: one per frame (--tolerance 0); {:.2} MB", mb(r.bytes));
    }
    Ok(())
}
