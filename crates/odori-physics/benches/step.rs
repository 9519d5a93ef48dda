//! Physics cost on Gene_light.pmx × wavefile_v2 (needs `../shared`; prints a skip notice
//! without it):
//! - `physics_step_60hz`: one 1/60 s step (kinematic bodies in, one Bullet step, bones out);
//! - `pose_plus_physics_30fps`: a whole 30 fps frame (pose, two steps, after-physics pass),
//!   frames played in order through the dance;
//! - `pose_only_30fps`: the same frames without physics, for comparison.

use criterion::{Criterion, criterion_group, criterion_main};
use odori_physics::{PhysicsConfig, PhysicsModel, PhysicsWorld};
use odori_pose::{Instance, Model, Motion};
use std::hint::black_box;

/// This thread's CPU time in seconds (Linux), so figures taken while other processes load
/// the machine still mean something; `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Mean CPU time per call of `f` over `n` calls, printed beside Criterion's wall-clock medians.
fn cpu_per_call(label: &str, n: u32, mut f: impl FnMut()) {
    let Some(t0) = thread_cpu_seconds() else {
        return;
    };
    for _ in 0..n {
        f();
    }
    let t1 = thread_cpu_seconds().unwrap_or(t0);
    println!(
        "{label}: {:.1} µs CPU per call (mean of {n})",
        (t1 - t0) * 1e6 / n as f64
    );
}

fn bench(c: &mut Criterion) {
    let (Some(pmx), Some(vmd)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let pmx = odori_format::Pmx::read(pmx).unwrap();
    let model = Model::from_pmx(&pmx).unwrap();
    let motion = Motion::from_vmd(&model, &odori_format::Vmd::read(vmd).unwrap());
    let rig = PhysicsModel::from_pmx(&pmx, &model);
    let Ok(mut world) = PhysicsWorld::new(&rig, &model, PhysicsConfig::default()) else {
        eprintln!("SKIPPED: odori-physics built without Bullet");
        return;
    };
    let end = motion.end_frame() as u32;
    let mut inst = Instance::new(&model, &motion);
    for f in 0..=300 {
        world
            .evaluate(&model, &motion, &mut inst, f as f32)
            .unwrap();
    }

    cpu_per_call("physics_step_60hz", 10_000, || {
        world.step(&model, &mut inst, 1.0 / 60.0)
    });
    c.bench_function("physics_step_60hz", |b| {
        b.iter(|| world.step(&model, black_box(&mut inst), 1.0 / 60.0))
    });

    let mut frame = 0u32;
    world.invalidate();
    cpu_per_call("pose_plus_physics_30fps", 2 * (end + 1), || {
        world
            .evaluate(&model, &motion, &mut inst, frame as f32)
            .unwrap();
        frame = if frame >= end { 0 } else { frame + 1 };
    });
    c.bench_function("pose_plus_physics_30fps", |b| {
        b.iter(|| {
            world
                .evaluate(&model, &motion, &mut inst, frame as f32)
                .unwrap();
            frame = if frame >= end { 0 } else { frame + 1 };
        })
    });

    let mut frame = 0u32;
    cpu_per_call("pose_only_30fps", 4 * (end + 1), || {
        inst.evaluate(&model, &motion, frame as f32).unwrap();
        frame = if frame >= end { 0 } else { frame + 1 };
    });
    c.bench_function("pose_only_30fps", |b| {
        b.iter(|| {
            inst.evaluate(&model, &motion, frame as f32).unwrap();
            frame = if frame >= end { 0 } else { frame + 1 };
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
