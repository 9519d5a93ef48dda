//! Pose evaluation speed: Gene_light.pmx × wavefile_v2.vmd.
//!
//! `playback`: all 2,810 frames in order on one thread (criterion reports the time of the
//! whole pass; divide by 2,810 for per frame). `instances_1000`: one frame of 1,000 instances
//! sharing the model and motion, each at its own frame, in parallel with rayon: in groups
//! (`evaluate_group`, the solves of each IK solver side by side in vector lanes), and one by
//! one for comparison.

use criterion::{Criterion, criterion_group, criterion_main};
use odori_format::{Pmx, Vmd};
use odori_pose::{GROUP, Instance, Model, Motion, evaluate_group};
use rayon::prelude::*;
use std::hint::black_box;

fn load() -> Option<(Model, Motion)> {
    let pmx = odori_testkit::shared("assets/gene/Gene_light.pmx")?;
    let vmd = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    let model = Model::from_pmx(&Pmx::read(pmx).ok()?).ok()?;
    let motion = Motion::from_vmd(&model, &Vmd::read(vmd).ok()?);
    Some((model, motion))
}

fn evaluate(c: &mut Criterion) {
    let Some((model, motion)) = load() else {
        return;
    };
    let frames = motion.end_frame() as usize + 1;
    let mut inst = Instance::new(&model, &motion);
    let mut g = c.benchmark_group("gene_wavefile");
    g.sample_size(20);
    g.bench_function(format!("playback_{frames}_frames"), |b| {
        b.iter(|| {
            for f in 0..frames {
                inst.evaluate(&model, &motion, f as f32).unwrap();
            }
            black_box(inst.skinning());
        })
    });
    let mut pool: Vec<Instance> = (0..1000).map(|_| Instance::new(&model, &motion)).collect();
    let mut tick = 0usize;
    g.bench_function("instances_1000_parallel", |b| {
        b.iter(|| {
            tick += 1;
            pool.par_chunks_mut(GROUP)
                .enumerate()
                .for_each(|(c, chunk)| {
                    let mut at = [0.0; GROUP];
                    for (j, f) in at.iter_mut().enumerate().take(chunk.len()) {
                        *f = (((c * GROUP + j) * 37 + tick) % frames) as f32;
                    }
                    evaluate_group(&model, &motion, chunk, &at[..chunk.len()]).unwrap();
                });
        })
    });
    g.bench_function("instances_1000_parallel_one_by_one", |b| {
        b.iter(|| {
            tick += 1;
            pool.par_iter_mut().enumerate().for_each(|(i, inst)| {
                inst.evaluate(&model, &motion, ((i * 37 + tick) % frames) as f32)
                    .unwrap();
            });
        })
    });
    g.finish();
}

criterion_group!(benches, evaluate);
criterion_main!(benches);
