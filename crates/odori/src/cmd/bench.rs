//! `odori bench`: how long pose evaluation takes, per frame and per stage.
//!
//! Medians over every frame of the motion, in playback order (as a player evaluates them),
//! then N instances sharing one model and motion, each at its own frame, in parallel: in
//! groups (`odori_pose::evaluate_group`, how a crowd should be evaluated), and one by one
//! for comparison.

use crate::load;
use crate::stdout::stdout;
use anyhow::Result;
use odori_pose::{GROUP, Instance, Stage, evaluate_group};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    if v.is_empty() {
        Duration::ZERO
    } else {
        v[v.len() / 2]
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub fn run(
    model_path: &Path,
    motion_paths: &[PathBuf],
    instances: usize,
    passes: usize,
    verbose: bool,
) -> Result<()> {
    let asset = load::model(model_path)?;
    let model = asset.pose();
    let files = load::motion_files(motion_paths)?;
    let motion = load::bind(&asset, &files, verbose);
    let mut out = stdout();
    let frames = motion.end_frame().max(0.0) as usize + 1;
    writeln!(
        out,
        "model: {} ({} bones, {} IK solvers, {} morphs); motion: {} frames",
        model_path.display(),
        model.bone_count(),
        model.solvers().len(),
        model.morph_count(),
        frames
    )?;
    out.flush()?;

    let mut inst = Instance::new(model, &motion);
    let mut total = Vec::with_capacity(frames * passes);
    for _ in 0..passes.max(1) {
        for f in 0..frames {
            let t = Instant::now();
            inst.evaluate(model, &motion, f as f32)?;
            total.push(t.elapsed());
        }
    }
    let mut stages: [Vec<Duration>; 4] = Default::default();
    for f in 0..frames {
        let t0 = Instant::now();
        inst.run_stage(model, &motion, f as f32, Stage::Sample)?;
        let t1 = Instant::now();
        inst.run_stage(model, &motion, f as f32, Stage::Morphs)?;
        let t2 = Instant::now();
        inst.run_stage(model, &motion, f as f32, Stage::BeforePhysics)?;
        let t3 = Instant::now();
        inst.run_stage(model, &motion, f as f32, Stage::AfterPhysics)?;
        let t4 = Instant::now();
        for (s, d) in stages.iter_mut().zip([t1 - t0, t2 - t1, t3 - t2, t4 - t3]) {
            s.push(d);
        }
    }
    writeln!(
        out,
        "single thread, median per frame: {:.2} µs",
        us(median(&mut total))
    )?;
    for (name, s) in [
        "sample keyframes",
        "morphs",
        "FK + append + IK",
        "after-physics + skinning",
    ]
    .iter()
    .zip(stages.iter_mut())
    {
        writeln!(out, "  {name:<26} {:.2} µs", us(median(s)))?;
    }
    out.flush()?;

    let mut pool: Vec<Instance> = (0..instances)
        .map(|_| Instance::new(model, &motion))
        .collect();
    let ticks = 60;
    for grouped in [true, false] {
        let mut per_tick = Vec::with_capacity(ticks);
        for tick in 0..ticks {
            let frame = |i: usize| ((i * 37 + tick) % frames) as f32;
            let t = Instant::now();
            if grouped {
                pool.par_chunks_mut(GROUP)
                    .enumerate()
                    .for_each(|(c, chunk)| {
                        let mut at = [0.0; GROUP];
                        for (j, f) in at.iter_mut().enumerate().take(chunk.len()) {
                            *f = frame(c * GROUP + j);
                        }
                        evaluate_group(model, &motion, chunk, &at[..chunk.len()])
                            .expect("instances made for this motion");
                    });
            } else {
                pool.par_iter_mut().enumerate().for_each(|(i, inst)| {
                    inst.evaluate(model, &motion, frame(i))
                        .expect("instances made for this motion");
                });
            }
            per_tick.push(t.elapsed());
        }
        writeln!(
            out,
            "{instances} instances in parallel ({} threads, {}), median per frame: {:.3} ms",
            rayon::current_num_threads(),
            if grouped {
                "in groups of 16"
            } else {
                "one by one"
            },
            median(&mut per_tick).as_secs_f64() * 1e3
        )?;
        out.flush()?;
    }
    Ok(())
}
