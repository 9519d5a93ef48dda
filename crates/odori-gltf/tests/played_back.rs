//! The written file, read back as a glTF player reads it (this test's own GLB reader and
//! sampler: linear translation, spherical linear rotation, nodes composed down the node tree),
//! against the world pose odori's player computes for the same frames with physics on (what
//! the export claims to reproduce): every bone of Gene_light.pmx × wavefile_v2, frames 0–300,
//! within the stated tolerance (1e-4 units, 1e-4 per rotation element) plus f32 rounding of
//! the composition.

use glam::{Affine3A, Quat, Vec3};
use odori_gltf::{Options, space};
use odori_playback::{Frame, Player, PlayerOptions, Preroll, load};
use serde_json::Value;
use std::sync::Arc;

struct Glb {
    json: Value,
    bin: Vec<u8>,
}

impl Glb {
    fn read(bytes: &[u8]) -> Glb {
        assert_eq!(&bytes[0..4], b"glTF");
        let u = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        assert_eq!(u(8), bytes.len(), "header length");
        let json_len = u(12);
        assert_eq!(&bytes[16..20], b"JSON");
        let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
        let at = 20 + json_len;
        assert_eq!(&bytes[at + 4..at + 8], b"BIN\0");
        let bin = bytes[at + 8..at + 8 + u(at)].to_vec();
        Glb { json, bin }
    }

    /// A float accessor's elements (dense accessors only: animation data).
    fn floats(&self, index: u64) -> Vec<Vec<f32>> {
        let a = &self.json["accessors"][index as usize];
        assert_eq!(a["componentType"], 5126);
        let width = match a["type"].as_str().unwrap() {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            t => panic!("unexpected accessor type {t}"),
        };
        let view = &self.json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize
            + a["byteOffset"].as_u64().unwrap_or(0) as usize;
        let count = a["count"].as_u64().unwrap() as usize;
        (0..count)
            .map(|i| {
                (0..width)
                    .map(|c| {
                        let at = start + (i * width + c) * 4;
                        f32::from_le_bytes(self.bin[at..at + 4].try_into().unwrap())
                    })
                    .collect()
            })
            .collect()
    }
}

/// A channel: key times and values.
struct Channel {
    times: Vec<f32>,
    values: Vec<Vec<f32>>,
}

impl Channel {
    /// The value at time `t`, as glTF's LINEAR interpolation defines it.
    fn at(&self, t: f32, rotation: bool) -> Vec<f32> {
        let i = self.times.partition_point(|&k| k <= t);
        if i == 0 {
            return self.values[0].clone();
        }
        if i >= self.times.len() {
            return self.values[self.times.len() - 1].clone();
        }
        let (a, b) = (&self.values[i - 1], &self.values[i]);
        let u = (t - self.times[i - 1]) / (self.times[i] - self.times[i - 1]);
        if rotation {
            let q = |v: &Vec<f32>| Quat::from_xyzw(v[0], v[1], v[2], v[3]);
            q(a).slerp(q(b), u).to_array().to_vec()
        } else {
            a.iter().zip(b).map(|(x, y)| x + (y - x) * u).collect()
        }
    }
}

#[test]
fn the_file_plays_back_as_odori_poses_with_physics() {
    let (Some(model), Some(dance)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let (scene, _) = load::scene_from_files(&[model, dance], None).unwrap();
    let scene = Arc::new(scene);
    let out = std::env::temp_dir().join(format!("odori-gltf-played-{}.glb", std::process::id()));
    let options = Options {
        stop: Some(300.0),
        ..Options::default()
    };
    let summary = odori_gltf::export(scene.clone(), &options, &out).unwrap();
    assert!(
        summary.keys < summary.keys_unreduced / 2,
        "reduction kept {} of {}",
        summary.keys,
        summary.keys_unreduced
    );
    let glb = Glb::read(&std::fs::read(&out).unwrap());
    std::fs::remove_file(&out).unwrap();

    let nodes = glb.json["nodes"].as_array().unwrap();
    let bones = scene.models()[0].asset().pose().bone_count();
    let mut parent = vec![None; nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        for c in n["children"].as_array().into_iter().flatten() {
            parent[c.as_u64().unwrap() as usize] = Some(i);
        }
    }
    let anim = &glb.json["animations"][0];
    let mut channels: Vec<[Option<Channel>; 2]> = (0..nodes.len()).map(|_| [None, None]).collect();
    for c in anim["channels"].as_array().unwrap() {
        let s = &anim["samplers"][c["sampler"].as_u64().unwrap() as usize];
        assert_eq!(s["interpolation"], "LINEAR");
        let node = c["target"]["node"].as_u64().unwrap() as usize;
        let slot = match c["target"]["path"].as_str().unwrap() {
            "translation" => 0,
            "rotation" => 1,
            _ => continue,
        };
        channels[node][slot] = Some(Channel {
            times: glb
                .floats(s["input"].as_u64().unwrap())
                .into_iter()
                .map(|v| v[0])
                .collect(),
            values: glb.floats(s["output"].as_u64().unwrap()),
        });
    }

    let mut player = Player::new(
        scene,
        PlayerOptions {
            deform: false,
            preroll: Preroll::FromStart { step: 1.0 },
            ..PlayerOptions::default()
        },
    );
    assert!(
        player.has_physics(),
        "physics is needed for this test (Bullet)"
    );
    let mut frame = Frame::default();
    let (mut worst_p, mut worst_r, mut compared) = (0.0f32, 0.0f32, 0usize);
    for f in 0..=300 {
        player.seek(f as f64);
        player.evaluate(&mut frame);
        let t = f as f32 / 30.0;
        let local = |n: usize| {
            let c = &channels[n];
            let tr = c[0]
                .as_ref()
                .expect("every bone has a translation channel")
                .at(t, false);
            let r = c[1]
                .as_ref()
                .expect("every bone has a rotation channel")
                .at(t, true);
            Affine3A::from_rotation_translation(
                Quat::from_xyzw(r[0], r[1], r[2], r[3]).normalize(),
                Vec3::new(tr[0], tr[1], tr[2]),
            )
        };
        for b in 0..bones {
            let mut world = local(b);
            let mut at = parent[b];
            while let Some(p) = at {
                world = local(p) * world;
                at = parent[p];
            }
            let want = space::affine(player.instance(0).world(b));
            worst_p = worst_p.max((world.translation - want.translation).length());
            let dr = (world.matrix3 - want.matrix3).to_cols_array();
            worst_r = dr.iter().fold(worst_r, |m, v| m.max(v.abs()));
            compared += 1;
        }
    }
    eprintln!(
        "{compared} bone-frames: largest error {worst_p:.2e} units, {worst_r:.2e} rotation; {} of {} keys",
        summary.keys, summary.keys_unreduced
    );
    assert_eq!(compared, 301 * bones);
    // The stated tolerance, plus f32 rounding of a composition down chains of up to ~15
    // bones and 90-unit levers.
    assert!(worst_p <= 1e-4 + 5e-5, "position off by {worst_p}");
    assert!(worst_r <= 1e-4 + 5e-6, "rotation off by {worst_r}");
}
