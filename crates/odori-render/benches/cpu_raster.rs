//! The CPU rasteriser alone: one prepared frame drawn again and again, without pose,
//! deformation or encoding, so speed work on `cpu/` is measured on its own.
//!
//! Gene_light.pmx × wavefile_v2.vmd with wavefile_camera.vmd from `../shared`, frames 30 and
//! 900 (a full-body shot and a close-up), 1280×720 with edges, ground shadow and self-shadow,
//! at MSAA 1 (with `--fast`'s 1024-texel shadow map) and MSAA 4 (the default map) — what
//! `odori render --backend cpu` draws. Without `../shared` the embedded demo is drawn instead.
//! Each iteration is `render` (light maps, set-up, raster, resolve) of a frame whose vertices
//! were uploaded once.

use criterion::{Criterion, criterion_group, criterion_main};
use odori_playback::offline::renderer_for;
use odori_playback::{Frame, ModelAsset, MotionFile, Player, PlayerOptions, Scene};
use odori_render::{Device, RenderOptions};
use std::sync::Arc;

/// The scene and the frames to draw: Gene on wavefile when `../shared` has it, else the demo.
fn scene() -> (Arc<Scene>, &'static str, Vec<f64>) {
    let files = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    );
    if let (Some(model), Some(motion), Some(camera)) = files {
        let mut scene = Scene::new();
        let asset = Arc::new(ModelAsset::load(&model).expect("Gene_light.pmx loads"));
        let motion = MotionFile::read(&motion).expect("wavefile_v2.vmd reads").0;
        scene.add_model_files(asset, &[motion]);
        let camera = odori_playback::load::camera_file(&camera).expect("camera reads");
        scene.set_camera(&camera);
        return (Arc::new(scene), "gene", vec![30.0, 900.0]);
    }
    println!("SKIPPED: ../shared has no Gene_light × wavefile_v2; drawing the embedded demo");
    (Arc::new(Scene::demo()), "demo", vec![45.0])
}

fn cpu_raster(c: &mut Criterion) {
    let (scene, tag, frames) = scene();
    let mut g = c.benchmark_group("cpu_raster");
    g.sample_size(20);
    for msaa in [1, 4] {
        let options = RenderOptions {
            msaa,
            // `odori render --fast` (MSAA 1) keeps the 1024-texel map; MSAA 4 follows the size.
            shadow_map_size: if msaa == 1 { 1024 } else { 0 },
            ..RenderOptions::default()
        };
        let mut r = renderer_for(&scene, Device::Cpu { why: None }, options);
        let no_physics = PlayerOptions {
            physics: false,
            deform: true,
            ..PlayerOptions::default()
        };
        let mut player = Player::new(scene.clone(), no_physics);
        let mut frame = Frame::default();
        for &at in &frames {
            player.evaluate_at(at, &mut frame);
            frame.prepare(&mut r, true);
            let view = frame.view(scene.framing_camera(1280.0 / 720.0));
            if let Some(n) = cpu_time_iterations() {
                // On a machine other jobs load, the process's CPU time per frame is steadier
                // than the wall time criterion measures.
                r.render(&view, 0);
                let (wall, cpu) = (std::time::Instant::now(), cpu_seconds());
                for _ in 0..n {
                    r.render(&view, 0);
                }
                let cpu = (cpu_seconds() - cpu) / n as f64 * 1e3;
                let wall = wall.elapsed().as_secs_f64() / n as f64 * 1e3;
                println!(
                    "{tag}_{at:04}_720p_msaa{msaa}: CPU {cpu:.1} ms, wall {wall:.1} ms per frame"
                );
                continue;
            }
            g.bench_function(format!("{tag}_{at:04}_720p_msaa{msaa}"), |b| {
                b.iter(|| r.render(&view, 0))
            });
        }
    }
    g.finish();
}

/// `ODORI_BENCH_CPU_TIME=N`: instead of criterion, draw each frame N times and print the CPU
/// time (all threads) and wall time per frame.
fn cpu_time_iterations() -> Option<u32> {
    std::env::var("ODORI_BENCH_CPU_TIME").ok()?.parse().ok()
}

/// User + system CPU seconds of this process so far (`/proc/self/stat`, Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let mut f = rest.split_whitespace().skip(11);
    let mut tick = || f.next().and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // Clock ticks: 100 per second on Linux.
    (tick() + tick()) / 100.0
}

criterion_group!(benches, cpu_raster);
criterion_main!(benches);
