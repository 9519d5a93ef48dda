//! odori's physics against two Bullet-based peers' dumps of Gene_light.pmx × wavefile_v2
//! (`../shared/oracle-ref/*__physics_*`): babylon-mmd's WASM build (Bullet 3, 1/60 s steps)
//! and mmd-anim (Bullet 3.26, 1/120 s steps). Chaotic systems drift apart, so the bound is
//! tight over frames 0–60 and loose after; the table per 100 frames is printed beside the
//! peers' own difference.

mod common;

use odori_physics::{PhysicsConfig, PhysicsModel, PhysicsWorld};
use odori_pose::{Instance, Model, Motion};
use serde_json::Value;
use std::collections::HashMap;

struct Dump {
    /// frame → bone name → translation.
    frames: HashMap<u32, HashMap<String, [f32; 3]>>,
    /// Bones the peer simulates.
    physics: Vec<String>,
}

fn load(rel: &str) -> Option<Dump> {
    let path = odori_testkit::shared(rel)?;
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let bones: Vec<(String, bool)> = v["bones"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["name"].as_str().unwrap().to_string(),
                b["physics"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    let mut frames = HashMap::new();
    for f in v["frames"].as_array().unwrap() {
        let mut m = HashMap::new();
        for (w, (name, _)) in f["world"].as_array().unwrap().iter().zip(&bones) {
            let w = w.as_array().unwrap();
            let t = |k: usize| w[k].as_f64().unwrap() as f32;
            m.insert(name.clone(), [t(12), t(13), t(14)]);
        }
        frames.insert(f["frame"].as_f64().unwrap() as u32, m);
    }
    let physics = bones.into_iter().filter(|b| b.1).map(|b| b.0).collect();
    Some(Dump { frames, physics })
}

fn dist(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(f32::total_cmp);
    if v.is_empty() { 0.0 } else { v[v.len() / 2] }
}

fn config_from_env() -> PhysicsConfig {
    let mut c = PhysicsConfig::default();
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f32>().ok());
    if let Some(v) = env("ODORI_PHYS_SETTLE") {
        c.settle_steps = v as u32;
    }
    if let Some(v) = env("ODORI_PHYS_ERP") {
        c.joint_stop_erp = v;
    }
    if let Some(v) = env("ODORI_PHYS_STEP") {
        c.fixed_step = 1.0 / v;
        c.max_substeps = (v / 30.0).ceil() as u32 + 3;
    }
    c
}

#[test]
fn gene_physics_bones_stay_near_the_bullet_peers() {
    let (Some(pmx), Some(vmd), Some(wasm), Some(anim)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        load("oracle-ref/gene_light_pmx__wavefile_v2__physics_wasm.json"),
        load("oracle-ref/gene_light_pmx__wavefile_v2__physics_mmdanim.json"),
    ) else {
        return;
    };
    let pmx = odori_format::Pmx::read(pmx).unwrap();
    let vmd = common::read_vmd(&vmd);
    let model = Model::from_pmx(&pmx).unwrap();
    let motion = Motion::from_vmd(&model, &vmd);
    let rig = PhysicsModel::from_pmx(&pmx, &model);
    let Ok(mut world) = PhysicsWorld::new(&rig, &model, config_from_env()) else {
        return;
    };
    let mut inst = Instance::new(&model, &motion);
    // Weight bones (…錘) carry no mesh and swing freely; peers agree on them least.
    let bones: Vec<(usize, &String)> = wasm
        .physics
        .iter()
        .filter(|n| !n.ends_with('錘'))
        .map(|n| (model.find_bone(n).unwrap(), n))
        .collect();
    // Per 100-frame bucket: (ours vs nearer peer, peers vs each other).
    let mut buckets: Vec<(Vec<f32>, Vec<f32>)> = vec![(Vec::new(), Vec::new()); 7];
    let mut early_worst = (0.0f32, 0, String::new());
    for f in 0..=600u32 {
        world.evaluate(&model, &motion, &mut inst, f as f32);
        let (Some(a), Some(b)) = (wasm.frames.get(&f), anim.frames.get(&f)) else {
            continue;
        };
        for &(bone, name) in &bones {
            let ours = inst.world[bone].translation.to_array();
            let d = dist(ours, a[name]).min(dist(ours, b[name]));
            let peers = dist(a[name], b[name]);
            let k = (f as usize / 100).min(6);
            buckets[k].0.push(d);
            buckets[k].1.push(peers);
            if std::env::var("ODORI_PHYS_DEBUG").is_ok() && f % 100 == 0 {
                println!(
                    "{f} {name}: wasm {:.5} anim {:.5}",
                    dist(ours, a[name]),
                    dist(ours, b[name])
                );
            }
            if f <= 60 && d > early_worst.0 {
                early_worst = (d, f, name.clone());
            }
        }
    }
    let early: Vec<f32> = buckets[0].0.clone();
    println!(
        "frames    | odori vs nearer peer: median / max | peers' own difference: median / max"
    );
    for (k, (ours, peers)) in buckets.iter().enumerate() {
        let max = |v: &Vec<f32>| v.iter().copied().fold(0.0, f32::max);
        println!(
            "{:3}–{:3}   | {:.4} / {:.3} | {:.4} / {:.3}",
            k * 100,
            k * 100 + 99,
            median(ours.clone()),
            max(ours),
            median(peers.clone()),
            max(peers)
        );
    }
    println!(
        "frames 0–60 worst: {:.3} at {} `{}`",
        early_worst.0, early_worst.1, early_worst.2
    );
    assert!(!early.is_empty());
    assert!(
        early_worst.0 < 0.3,
        "frames 0–60: {:.3} from the nearer peer at frame {} `{}`",
        early_worst.0,
        early_worst.1,
        early_worst.2
    );
    for (k, (ours, _)) in buckets.iter().enumerate() {
        let max = ours.iter().copied().fold(0.0, f32::max);
        assert!(
            max < 3.0,
            "frames {}–{}: {max} from the nearer peer",
            k * 100,
            k * 100 + 99
        );
    }
}
