//! A GLB read back as a glTF player reads it: this test's own reader and sampler, written
//! from the glTF 2.0 specification (not from the exporter): LINEAR translation and scale,
//! spherical linear rotation, STEP holding each key, and nodes composed down the node tree.

use glam::{Affine3A, Quat, Vec3};
use odori_playback::{Player, PlayerOptions, Preroll, Scene};
use serde_json::Value;
use std::sync::Arc;

pub struct Glb {
    pub json: Value,
    bin: Vec<u8>,
}

impl Glb {
    pub fn read(bytes: &[u8]) -> Glb {
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
pub struct Channel {
    times: Vec<f32>,
    values: Vec<Vec<f32>>,
    step: bool,
}

impl Channel {
    /// The value at time `t`, as glTF's LINEAR (or STEP) interpolation defines it.
    fn at(&self, t: f32, rotation: bool) -> Vec<f32> {
        let i = self.times.partition_point(|&k| k <= t);
        if i == 0 {
            return self.values[0].clone();
        }
        if i >= self.times.len() || self.step {
            return self.values[i - 1].clone();
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

/// The file's node tree with its first animation's translation, rotation and scale channels.
pub struct Played {
    pub glb: Glb,
    pub parent: Vec<Option<usize>>,
    /// Per node: translation, rotation, scale.
    channels: Vec<[Option<Channel>; 3]>,
}

impl Played {
    pub fn new(glb: Glb) -> Played {
        let nodes = glb.json["nodes"].as_array().unwrap();
        let mut parent = vec![None; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            for c in n["children"].as_array().into_iter().flatten() {
                let c = c.as_u64().unwrap() as usize;
                assert!(parent[c].is_none(), "node {c} has two parents");
                parent[c] = Some(i);
            }
        }
        let mut channels: Vec<[Option<Channel>; 3]> =
            (0..nodes.len()).map(|_| [None, None, None]).collect();
        let anim = &glb.json["animations"][0];
        for c in anim["channels"].as_array().into_iter().flatten() {
            let s = &anim["samplers"][c["sampler"].as_u64().unwrap() as usize];
            let step = match s["interpolation"].as_str().unwrap() {
                "LINEAR" => false,
                "STEP" => true,
                i => panic!("unexpected interpolation {i}"),
            };
            let Some(node) = c["target"]["node"].as_u64() else {
                continue;
            };
            let slot = match c["target"]["path"].as_str().unwrap() {
                "translation" => 0,
                "rotation" => 1,
                "scale" => 2,
                _ => continue,
            };
            channels[node as usize][slot] = Some(Channel {
                times: (glb.floats(s["input"].as_u64().unwrap()).into_iter())
                    .map(|v| v[0])
                    .collect(),
                values: glb.floats(s["output"].as_u64().unwrap()),
                step,
            });
        }
        Played {
            glb,
            parent,
            channels,
        }
    }

    /// Whether node `n` has a translation and a rotation channel.
    pub fn is_animated(&self, n: usize) -> bool {
        self.channels[n][0].is_some() && self.channels[n][1].is_some()
    }

    /// Node `n`'s own transform at `t` seconds: its channels, else its own values.
    pub fn local(&self, n: usize, t: f32) -> Affine3A {
        let node = &self.glb.json["nodes"][n];
        let own = |key: &str, default: Vec<f32>| -> Vec<f32> {
            node[key].as_array().map_or(default, |a| {
                a.iter().map(|v| v.as_f64().unwrap() as f32).collect()
            })
        };
        let c = &self.channels[n];
        let tr = c[0]
            .as_ref()
            .map_or_else(|| own("translation", vec![0.0; 3]), |c| c.at(t, false));
        let r = c[1].as_ref().map_or_else(
            || own("rotation", vec![0.0, 0.0, 0.0, 1.0]),
            |c| c.at(t, true),
        );
        let s = c[2]
            .as_ref()
            .map_or_else(|| own("scale", vec![1.0; 3]), |c| c.at(t, false));
        Affine3A::from_scale_rotation_translation(
            Vec3::new(s[0], s[1], s[2]),
            Quat::from_xyzw(r[0], r[1], r[2], r[3]).normalize(),
            Vec3::new(tr[0], tr[1], tr[2]),
        )
    }

    /// Node `n`'s world transform at `t` seconds, composed down the tree.
    pub fn world(&self, n: usize, t: f32) -> Affine3A {
        let mut world = self.local(n, t);
        let mut at = self.parent[n];
        while let Some(p) = at {
            world = self.local(p, t) * world;
            at = self.parent[p];
        }
        world
    }
}

/// The largest translation and matrix-element differences between two transforms.
pub fn difference(a: Affine3A, b: Affine3A) -> (f32, f32) {
    let dp = (a.translation - b.translation).length();
    let dr = (a.matrix3 - b.matrix3).to_cols_array();
    (dp, dr.iter().fold(0.0f32, |m, v| m.max(v.abs())))
}

/// A player of `scene` with physics, stepping frame by frame from the start as the export
/// samples it (the frames must then be played in order).
pub fn player(scene: Arc<Scene>) -> Player {
    let player = Player::new(
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
    player
}
