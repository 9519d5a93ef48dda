//! The animation: per bone a translation and a rotation channel (linear), the morph targets'
//! weights, and the camera node's translation and rotation, each channel with the keys the
//! reduction kept, and the camera's field of view (every frame) when it changes. Channels that keep the same frames share one time accessor.

use crate::buffer::Buffer;
use crate::reduce::Kept;
use crate::sample::Samples;
use serde_json::{Value, json};
use std::collections::HashMap;

/// How many keys were written (all channels), for the summary.
pub struct AnimOut {
    pub animation: Value,
    pub keys: usize,
}

/// Node indices the channels point at.
pub struct Targets {
    /// Per skinned mesh with morph targets: its node, and the range of its targets among the
    /// sampled weights.
    pub meshes: Vec<(usize, std::ops::Range<usize>)>,
    /// Per accessory (layout order): its node.
    pub accessories: Vec<usize>,
    pub camera_node: Option<usize>,
    /// The camera's field of view changes: animate camera 0's `yfov`.
    pub animate_fov: bool,
}

/// The narrowest field of view written (radians): glTF requires `yfov` > 0, and MMD's key
/// of 0° would give none.
pub const MIN_YFOV: f32 = 0.01;

pub fn animation(s: &Samples, kept: &Kept, nodes: Targets, buf: &mut Buffer) -> AnimOut {
    let mut inputs: HashMap<Vec<bool>, usize> = HashMap::new();
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let count = |keep: &[bool]| keep.iter().filter(|&&k| k).count();
    let mut keys = 0;
    let mut add = |buf: &mut Buffer,
                   keep: &[bool],
                   values: Vec<f32>,
                   width: usize,
                   target: Value,
                   interpolation: &str| {
        let input = *inputs.entry(keep.to_vec()).or_insert_with(|| {
            let times: Vec<f32> = (0..keep.len())
                .filter(|&k| keep[k])
                .map(|k| s.times[k])
                .collect();
            buf.floats(&times, 1, None, true)
        });
        let output = buf.floats(&values, width, None, false);
        samplers.push(json!({ "input": input, "output": output, "interpolation": interpolation }));
        channels.push(json!({ "sampler": samplers.len() - 1, "target": target }));
    };

    let node = |node: usize, path: &str| json!({ "node": node, "path": path });
    let bones = s.bones;
    let frames = |keep: &[bool]| (0..keep.len()).filter(|&k| keep[k]).collect::<Vec<_>>();
    for b in 0..bones {
        let t: Vec<f32> = (frames(&kept.translation[b]).into_iter())
            .flat_map(|k| s.translation[k * bones + b].to_array())
            .collect();
        add(
            buf,
            &kept.translation[b],
            t,
            3,
            node(b, "translation"),
            "LINEAR",
        );
        let r: Vec<f32> = (frames(&kept.rotation[b]).into_iter())
            .flat_map(|k| s.rotation[k * bones + b].to_array())
            .collect();
        add(buf, &kept.rotation[b], r, 4, node(b, "rotation"), "LINEAR");
        keys += count(&kept.translation[b]) + count(&kept.rotation[b]);
    }
    let n = s.frames();
    let targets = s.weights.len().checked_div(n).unwrap_or(0);
    for (mesh, range) in &nodes.meshes {
        if n == 0 || range.is_empty() {
            continue;
        }
        let w: Vec<f32> = (frames(&kept.weights).into_iter())
            .flat_map(|k| {
                s.weights[k * targets + range.start..k * targets + range.end]
                    .iter()
                    .copied()
            })
            .collect();
        // A weights channel's output is frames × targets scalars.
        add(buf, &kept.weights, w, 1, node(*mesh, "weights"), "LINEAR");
        keys += count(&kept.weights);
    }
    for (a, accessory) in nodes.accessories.iter().enumerate() {
        let Some(keep) = kept.accessories.get(a).and_then(Option::as_ref) else {
            continue;
        };
        let at = accessory;
        let poses = &s.accessories[a];
        let t: Vec<f32> = (frames(&keep.translation).into_iter())
            .flat_map(|k| poses[k].translation.to_array())
            .collect();
        add(
            buf,
            &keep.translation,
            t,
            3,
            node(*at, "translation"),
            "LINEAR",
        );
        let r: Vec<f32> = (frames(&keep.rotation).into_iter())
            .flat_map(|k| poses[k].rotation.to_array())
            .collect();
        add(buf, &keep.rotation, r, 4, node(*at, "rotation"), "LINEAR");
        let sc: Vec<f32> = (frames(&keep.scale).into_iter())
            .flat_map(|k| [poses[k].scale; 3])
            .collect();
        // Hidden frames are scale 0, held until shown again rather than grown into.
        let interpolation = if keep.hidden { "STEP" } else { "LINEAR" };
        add(buf, &keep.scale, sc, 3, node(*at, "scale"), interpolation);
        keys += count(&keep.translation) + count(&keep.rotation) + count(&keep.scale);
    }
    if let Some(camera) = nodes.camera_node
        && !s.camera.is_empty()
    {
        let t: Vec<f32> = (frames(&kept.camera_translation).into_iter())
            .flat_map(|k| s.camera[k].0.to_array())
            .collect();
        add(
            buf,
            &kept.camera_translation,
            t,
            3,
            node(camera, "translation"),
            "LINEAR",
        );
        let r: Vec<f32> = (frames(&kept.camera_rotation).into_iter())
            .flat_map(|k| s.camera[k].1.to_array())
            .collect();
        add(
            buf,
            &kept.camera_rotation,
            r,
            4,
            node(camera, "rotation"),
            "LINEAR",
        );
        keys += count(&kept.camera_translation) + count(&kept.camera_rotation);
        if nodes.animate_fov {
            // Every frame's field of view, through KHR_animation_pointer: core glTF animates
            // only nodes' transforms and meshes' weights. A reader without the extension
            // skips a channel with no node and keeps the camera's own (the first frame's).
            let every = vec![true; n];
            let fov = s.camera.iter().map(|c| c.2.max(MIN_YFOV)).collect();
            let pointer = json!({
                "path": "pointer",
                "extensions": { "KHR_animation_pointer": { "pointer": "/cameras/0/perspective/yfov" } },
            });
            add(buf, &every, fov, 1, pointer, "LINEAR");
            keys += n;
        }
    }
    AnimOut {
        animation: json!({ "name": "odori", "samplers": samplers, "channels": channels }),
        keys,
    }
}
