//! glTF 2.0 export of an MMD dance, baked exactly as odori plays it: a front end on the
//! playback library.
//!
//! The model becomes a skinned mesh (a primitive per material, morph targets from the vertex
//! morphs, MMD's material values in `extras`), the bones become a node hierarchy whose joints
//! are in the model's bone order, and the dance becomes plain node animation: every bone's
//! local translation and rotation relative to its parent bone at every frame, taken from
//! odori's world pose after IK, append and physics (settled as in render), so any glTF player
//! reproduces odori's world pose without knowing anything of MMD. Keys are reduced within a
//! stated tolerance of that world pose ([`Tolerance`], checked by playing the reduced
//! animation back; see [`reduce`]). The camera motion becomes a camera node with its own
//! animation.
//!
//! MMD is left-handed (+Z into the screen); glTF right-handed (+Z toward the viewer): every
//! position, transform and rotation is mirrored in Z and triangle winding reversed
//! ([`space`]).

pub mod anim;
pub mod buffer;
pub mod error;
pub mod geometry;
pub mod materials;
pub mod reduce;
pub mod sample;
pub mod write;

/// MMD's frame to a right-handed one: the pose runtime's rule, shared with odori's npm
/// package.
pub use odori_pose::space;

pub use error::GltfError;
pub use reduce::Tolerance;

use buffer::Buffer;
use glam::Vec3;
use odori_playback::Scene;
use odori_pose::model::MorphKind;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How to export.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// First MMD frame (30 a second).
    pub start: f32,
    /// Last MMD frame, included; `None`: the scene's last key.
    pub stop: Option<f32>,
    /// Samples a second: 30 (MMD's rate) or 60 (half frames interpolated).
    pub fps: u32,
    /// Run rigid-body physics (settled for `settle` seconds at frame 0, as render does).
    pub physics: bool,
    pub settle: f32,
    /// Reduce keys within `tolerance`; off: a key at every sampled frame for every channel.
    pub reduce: bool,
    pub tolerance: Tolerance,
    /// Write an animation. Off (a model given without motion or camera): the rest pose only.
    pub animate: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            start: 0.0,
            stop: None,
            fps: 30,
            physics: true,
            settle: odori_playback::SETTLE_SECONDS,
            reduce: true,
            tolerance: Tolerance::default(),
            animate: true,
        }
    }
}

/// What an export wrote.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub files: Vec<PathBuf>,
    /// Bytes of all files together.
    pub bytes: usize,
    /// Sampled frames and the MMD frames they span.
    pub frames: usize,
    pub first: f32,
    pub last: f32,
    pub bones: usize,
    pub vertices: usize,
    pub triangles: usize,
    pub targets: usize,
    /// Keys written (all channels) and how many a key per sampled frame would be.
    pub keys: usize,
    pub keys_unreduced: usize,
    /// The largest world error of the written animation (position units, rotation element).
    pub error: (f32, f32),
    /// SDEF and QDEF vertices written as BDEF.
    pub sdef: usize,
    pub qdef: usize,
    /// Problems that did not stop the export (textures not found, physics off, degraded
    /// skinning), one line each, naming the model.
    pub warnings: Vec<String>,
}

/// Export the scene's one model (with its motions and the scene's camera) to `output`
/// (`.glb`: one file, textures inside; `.gltf`: with `.bin` and PNG textures beside).
pub fn export(scene: Arc<Scene>, options: &Options, output: &Path) -> Result<Summary, GltfError> {
    let ext = output
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let glb = match ext.as_deref() {
        Some("glb") => true,
        Some("gltf") => false,
        _ => {
            return Err(GltfError::BadExtension {
                path: output.to_path_buf(),
            });
        }
    };
    if scene.models().len() != 1 {
        return Err(GltfError::ModelCount(scene.models().len()));
    }
    let start = options.start;
    let stop = options
        .stop
        .unwrap_or_else(|| scene.end_frame().ceil().max(start));
    if !(start.is_finite() && stop.is_finite()) || start < 0.0 {
        return Err(GltfError::BadRange {
            start,
            stop,
            why: "frames must be finite and not negative",
        });
    }
    if stop < start {
        return Err(GltfError::BadRange {
            start,
            stop,
            why: "the last frame is before the first",
        });
    }
    let fps = if options.fps == 60 { 60 } else { 30 };
    let asset = scene.models()[0].asset().clone();
    let label = asset.label().to_string();
    let pose = asset.pose();
    if pose.bone_count() > u16::MAX as usize {
        return Err(GltfError::TooLarge {
            model: label,
            what: format!("{} bones", pose.bone_count()),
            limit: u16::MAX as usize,
        });
    }
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into());
    let folder = output.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut summary = Summary {
        bones: pose.bone_count(),
        vertices: asset.mesh().vertex_count(),
        ..Summary::default()
    };

    let mut buf = Buffer::default();
    let mut image_files = Vec::new();
    let store = if glb {
        materials::ImageStore::Embedded
    } else {
        materials::ImageStore::Beside {
            stem: &stem,
            files: &mut image_files,
        }
    };
    let mats = materials::materials(&asset, &mut buf, store);
    summary.warnings.extend(mats.warnings.iter().cloned());
    let geo = geometry::mesh(&asset, &mut buf);
    summary.triangles = geo.triangles;
    summary.targets = geo.target_morphs.len();
    summary.sdef = geo.sdef;
    summary.qdef = geo.qdef;
    if geo.sdef + geo.qdef > 0 {
        summary.warnings.push(format!(
            "{label}: {} SDEF and {} QDEF vertices written as linear (BDEF) skinning, which glTF has; they bend a little differently at joints",
            geo.sdef, geo.qdef
        ));
    }

    let mut nodes = geometry::bone_nodes(&asset);
    let bones = nodes.len();
    let roots: Vec<usize> = (0..bones)
        .filter(|&b| pose.parents()[b] == odori_pose::model::NONE)
        .collect();
    let mesh_node = nodes.len();
    let mut mesh_json = geo.mesh;
    mesh_json["extras"]["mmd"] = mmd_morphs(pose);
    let mut node = json!({ "name": pose.name(), "mesh": 0 });
    if geo.skin.is_some() {
        node["skin"] = json!(0);
    }
    nodes.push(node);
    let mut scene_nodes: Vec<usize> = roots.clone();
    scene_nodes.push(mesh_node);

    let mut root = json!({
        "asset": { "version": "2.0", "generator": format!("odori {}", env!("CARGO_PKG_VERSION")) },
        "scene": 0,
        "materials": mats.materials,
        "meshes": [mesh_json],
    });
    if let Some(skin) = geo.skin {
        let mut skin = skin;
        if roots.len() == 1 {
            skin["skeleton"] = json!(roots[0]);
        }
        root["skins"] = json!([skin]);
    }
    if !mats.textures.is_empty() {
        root["textures"] = json!(mats.textures);
        root["images"] = json!(mats.images);
        root["samplers"] = json!(mats.samplers);
    }

    let has_camera = scene.camera().is_some() && options.animate;
    let mut camera_node = None;
    let mut animate_fov = false;
    let mut extras = json!({ "mmd": {
        "model": pose.name(),
        "source": label,
        "sdefVertices": geo.sdef,
        "qdefVertices": geo.qdef,
    }});
    if options.animate {
        let (samples, warnings) = sample::sample(
            scene.clone(),
            start,
            stop,
            fps,
            options.physics,
            options.settle,
            &geo.target_morphs,
        );
        summary.warnings.extend(warnings);
        summary.frames = samples.frames();
        summary.first = start;
        summary.last =
            start + (samples.frames().saturating_sub(1)) as f32 * odori_pose::FPS / fps as f32;
        let parents = pose.parents();
        let rest: Vec<Vec3> = pose
            .rest_positions()
            .iter()
            .map(|&p| space::point(p.into()))
            .collect();
        let kept = if options.reduce {
            let scale = largest_offset(&asset);
            reduce::reduce(&samples, parents, &rest, scale, options.tolerance)
        } else {
            reduce::keep_all(&samples, parents)
        };
        summary.error = kept.error;
        let channels = 2 * bones
            + 2 * usize::from(!samples.camera.is_empty())
            + usize::from(summary.targets > 0);
        summary.keys_unreduced = channels * samples.frames();
        if has_camera && let Some(&(t, r, fov)) = samples.camera.first() {
            let index = nodes.len();
            camera_node = Some(index);
            nodes.push(json!({
                "name": "camera",
                "camera": 0,
                "translation": t.to_array(),
                "rotation": r.to_array(),
            }));
            let (lo, hi) = samples
                .camera
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
                    (lo.min(c.2), hi.max(c.2))
                });
            let mut camera = json!({ "name": "camera", "type": "perspective", "perspective": { "yfov": fov.max(anim::MIN_YFOV), "znear": 0.5, "zfar": 4000.0 } });
            if hi - lo > 1e-6 {
                animate_fov = true;
                camera["extras"] =
                    json!({ "yfov": samples.camera.iter().map(|c| c.2).collect::<Vec<_>>() });
                root["extensionsUsed"] = json!(["KHR_animation_pointer"]);
                summary.warnings.push(format!(
                    "the camera's field of view changes ({:.1}° to {:.1}°): it is animated through the KHR_animation_pointer extension; a reader without it keeps the first frame's (every frame's is also in the camera's extras.yfov)",
                    lo.to_degrees(), hi.to_degrees()
                ));
            }
            root["cameras"] = json!([camera]);
            scene_nodes.push(index);
        }
        summary.keys_unreduced += usize::from(animate_fov) * samples.frames();
        let anim = anim::animation(
            &samples,
            &kept,
            anim::Targets {
                mesh_node: (summary.targets > 0).then_some(mesh_node),
                camera_node,
                animate_fov,
            },
            &mut buf,
        );
        summary.keys = anim.keys;
        root["animations"] = json!([anim.animation]);
        extras["mmd"]["animation"] = json!({
            "firstFrame": start,
            "lastFrame": summary.last,
            "fps": fps,
            "physics": options.physics,
            "reduced": options.reduce,
            "tolerance": { "position": options.tolerance.position, "rotation": options.tolerance.rotation },
            "largestError": { "position": kept.error.0, "rotation": kept.error.1 },
        });
    }
    root["nodes"] = json!(nodes);
    root["scenes"] = json!([{ "name": pose.name(), "nodes": scene_nodes }]);
    root["extras"] = extras;
    root["bufferViews"] = json!(buf.views);
    root["accessors"] = json!(buf.accessors);

    let mut files = Vec::new();
    if glb {
        root["buffers"] = json!([{ "byteLength": buf.data.len() }]);
        let text = serde_json::to_vec(&root)?;
        files.push(write::OutFile {
            path: output.to_path_buf(),
            bytes: write::glb(&text, &buf.data),
        });
    } else {
        let bin_name = format!("{stem}.bin");
        root["buffers"] = json!([{ "byteLength": buf.data.len(), "uri": bin_name }]);
        let text = serde_json::to_vec_pretty(&root)?;
        files.push(write::OutFile {
            path: output.to_path_buf(),
            bytes: text,
        });
        files.push(write::OutFile {
            path: folder.join(&bin_name),
            bytes: buf.data,
        });
        for (name, png) in image_files {
            files.push(write::OutFile {
                path: folder.join(name),
                bytes: png,
            });
        }
    }
    write::all(&files)?;
    summary.bytes = files.iter().map(|f| f.bytes.len()).sum();
    summary.files = files.into_iter().map(|f| f.path).collect();
    Ok(summary)
}

/// The longest vertex morph offset: how far a weight error moves a vertex at most.
fn largest_offset(asset: &odori_playback::ModelAsset) -> f32 {
    (asset.mesh().vertex_morphs())
        .flat_map(|(_, o)| o.into_iter().map(|(_, d)| Vec3::from(d).length()))
        .fold(0.0, f32::max)
}

/// UV and material morphs (glTF has no such thing) and the rest, listed for tools that want
/// to rebuild them.
fn mmd_morphs(pose: &odori_pose::Model) -> Value {
    let mut uv = Vec::new();
    let mut material = Vec::new();
    let mut other = Vec::new();
    for (i, m) in pose.morphs().iter().enumerate() {
        match &m.kind {
            MorphKind::Uv(channel, list) => uv.push(
                json!({ "index": i, "name": m.name, "channel": channel, "vertices": list.len() }),
            ),
            MorphKind::Material(list) => {
                material.push(json!({ "index": i, "name": m.name, "offsets": list.len() }))
            }
            MorphKind::Vertex(_) => {}
            MorphKind::Group(_) => {
                other.push(json!({ "index": i, "name": m.name, "kind": "group" }))
            }
            MorphKind::Flip(_) => other.push(json!({ "index": i, "name": m.name, "kind": "flip" })),
            MorphKind::Bone(_) => other.push(json!({ "index": i, "name": m.name, "kind": "bone" })),
            MorphKind::Impulse(_) => {
                other.push(json!({ "index": i, "name": m.name, "kind": "impulse" }))
            }
        }
    }
    json!({ "uvMorphs": uv, "materialMorphs": material, "otherMorphs": other })
}
