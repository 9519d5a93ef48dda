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
use sample::Layout;
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

/// Export the scene (its dancers and stages as skinned meshes on one node tree, each
/// accessory a node under the bone holding it, and the camera) to `output` (`.glb`: one
/// file, textures inside; `.gltf`: with `.bin` and PNG textures beside).
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
    if scene.models().is_empty() {
        return Err(GltfError::NoModel);
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
    for m in scene.models() {
        let bones = m.asset().pose().bone_count();
        if bones > u16::MAX as usize {
            return Err(GltfError::TooLarge {
                model: m.asset().label().to_string(),
                what: format!("{bones} bones"),
                limit: u16::MAX as usize,
            });
        }
    }
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into());
    let folder = output.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut layout = Layout::of(&scene, start);
    let mut summary = Summary::default();

    let mut buf = Buffer::default();
    let mut image_files = Vec::new();
    let mut store = if glb {
        materials::ImageStore::Embedded
    } else {
        materials::ImageStore::Beside {
            stem: &stem,
            files: &mut image_files,
        }
    };
    // Every dancer's and stage's bones first, so that node `b` is exported bone `b`.
    let mut nodes: Vec<Value> = Vec::new();
    for (m, base) in scene.models().iter().zip(&layout.base) {
        if let Some(base) = *base {
            nodes.extend(geometry::bone_nodes(m.asset(), base));
        }
    }
    let parents = layout.parents(&scene);
    // Each model's skeleton root: its one root bone, or a node holding its several root
    // bones (a skin's joints need a common root).
    let mut skeleton: Vec<Option<usize>> = vec![None; scene.models().len()];
    let mut scene_nodes = Vec::new();
    for (i, m) in scene.models().iter().enumerate() {
        let Some(base) = layout.base[i] else {
            continue;
        };
        let pose = m.asset().pose();
        let roots = root_nodes(pose, base);
        let root = match roots[..] {
            [] => continue,
            [root] => root,
            _ => {
                nodes.push(json!({ "name": pose.name(), "children": roots }));
                nodes.len() - 1
            }
        };
        skeleton[i] = Some(root);
        scene_nodes.push(root);
    }
    let mut mats = materials::MaterialsOut::default();
    let mut meshes = Vec::new();
    let mut skins = Vec::new();
    let mut mesh_targets = Vec::new();
    let mut accessory_nodes = Vec::new();
    let mut described = Vec::new();
    for (i, m) in scene.models().iter().enumerate() {
        let asset = m.asset();
        let pose = asset.pose();
        let label = asset.label().to_string();
        let at_start = m.accessory().map(|a| a.at(start));
        let first_material = mats.materials.len();
        let opacity = at_start.map_or(1.0, |a| a.opacity);
        materials::materials(asset, &mut buf, &mut store, opacity, &mut mats);
        let first_joint = match layout.base[i] {
            Some(base) => base,
            None => {
                // The accessory's node, its bones at rest under it, hung under its holder.
                let node = nodes.len();
                let state = at_start.expect("an accessory has a state");
                let p = sample::AccessoryPose::of(&state);
                let bones = geometry::bone_nodes(asset, node + 1);
                let roots = root_nodes(pose, node + 1);
                let mut json = json!({
                    "name": format!("{} (accessory)", pose.name()),
                    "translation": p.translation.to_array(),
                    "rotation": p.rotation.to_array(),
                    "scale": [p.scale, p.scale, p.scale],
                    "extras": { "mmd": {
                        "accessory": label,
                        "opacity": state.opacity,
                        "additive": m.accessory().is_some_and(|a| a.transform.additive),
                    }},
                });
                if !roots.is_empty() {
                    skeleton[i] = Some(if let [root] = roots[..] { root } else { node });
                    json["children"] = json!(roots);
                }
                nodes.push(json);
                nodes.extend(bones);
                let holder = layout.accessories[accessory_nodes.len()].1;
                match holder.and_then(|h| layout.bone(h)) {
                    Some(b) => {
                        let children = nodes[b]
                            .as_object_mut()
                            .expect("a node is an object")
                            .entry("children")
                            .or_insert_with(|| json!([]));
                        children.as_array_mut().expect("a list").push(json!(node));
                    }
                    None => scene_nodes.push(node),
                }
                accessory_nodes.push(node);
                node + 1
            }
        };
        // A model of bones alone (MMD's dummy-bone models) has no mesh to write.
        let has_mesh = asset.mesh().vertex_count() > 0 && !asset.mesh().indices().is_empty();
        let geo = has_mesh.then(|| geometry::mesh(asset, &mut buf, first_material, first_joint));
        let (sdef, qdef) = geo.as_ref().map_or((0, 0), |g| (g.sdef, g.qdef));
        summary.bones += pose.bone_count();
        if let Some(geo) = geo {
            summary.vertices += asset.mesh().vertex_count();
            summary.triangles += geo.triangles;
            summary.sdef += geo.sdef;
            summary.qdef += geo.qdef;
            if geo.sdef + geo.qdef > 0 {
                summary.warnings.push(format!(
                    "{label}: {} SDEF and {} QDEF vertices written as linear (BDEF) skinning, which glTF has; they bend a little differently at joints",
                    geo.sdef, geo.qdef
                ));
            }
            let mesh_node = nodes.len();
            let mut mesh_json = geo.mesh;
            mesh_json["extras"]["mmd"] = mmd_morphs(pose);
            let mut node = json!({ "name": pose.name(), "mesh": meshes.len() });
            if let Some(mut skin) = geo.skin {
                if let Some(root) = skeleton[i] {
                    skin["skeleton"] = json!(root);
                }
                node["skin"] = json!(skins.len());
                skins.push(skin);
            }
            meshes.push(mesh_json);
            nodes.push(node);
            scene_nodes.push(mesh_node);
            if layout.base[i].is_some() {
                // An accessory's morphs have no keys: only dancers' and stages' targets move.
                let first = layout.targets.iter().map(|(_, t)| t.len()).sum::<usize>();
                mesh_targets.push((mesh_node, first..first + geo.target_morphs.len()));
                layout.targets.push((i, geo.target_morphs));
            }
            summary.targets += meshes
                .last()
                .map_or(0, |m| m["weights"].as_array().map_or(0, Vec::len));
        }
        let role = match m.role() {
            odori_playback::scene::Role::Dancer => "dancer",
            odori_playback::scene::Role::Stage => "stage",
            odori_playback::scene::Role::Accessory(_) => "accessory",
        };
        described.push(json!({
            "model": pose.name(),
            "source": label,
            "role": role,
            "firstBoneNode": first_joint,
            "sdefVertices": sdef,
            "qdefVertices": qdef,
        }));
    }
    summary.warnings.extend(mats.warnings.iter().cloned());
    let first = &described[0];
    let name = if scene.models().len() == 1 {
        scene.models()[0].asset().pose().name().to_string()
    } else {
        stem.clone()
    };

    let mut root = json!({
        "asset": { "version": "2.0", "generator": format!("odori {}", env!("CARGO_PKG_VERSION")) },
        "scene": 0,
    });
    if !meshes.is_empty() {
        root["meshes"] = json!(meshes);
    }
    if !mats.materials.is_empty() {
        root["materials"] = json!(mats.materials);
    }
    if !skins.is_empty() {
        root["skins"] = json!(skins);
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
        "model": first["model"],
        "source": first["source"],
        "sdefVertices": summary.sdef,
        "qdefVertices": summary.qdef,
        "models": described,
    }});
    if options.animate {
        let (samples, warnings) = sample::sample(
            scene.clone(),
            &layout,
            start,
            stop,
            fps,
            options.physics,
            options.settle,
        );
        summary.warnings.extend(warnings);
        for (a, &(model, _)) in layout.accessories.iter().enumerate() {
            let (lo, hi) = samples.opacity[a];
            if hi - lo > 1e-6 {
                summary.warnings.push(format!(
                    "{}: its opacity changes ({lo:.2} to {hi:.2}), which core glTF cannot animate; written at {:.2}",
                    scene.models()[model].asset().label(),
                    layout_opacity(&scene, model, start),
                ));
            }
        }
        summary.frames = samples.frames();
        summary.first = start;
        summary.last =
            start + (samples.frames().saturating_sub(1)) as f32 * odori_pose::FPS / fps as f32;
        let rest: Vec<Vec3> = (scene.models().iter().zip(&layout.base))
            .filter(|(_, b)| b.is_some())
            .flat_map(|(m, _)| m.asset().pose().rest_positions().iter())
            .map(|&p| space::point(p.into()))
            .collect();
        let mut kept = if options.reduce {
            let scale = (scene.models().iter().zip(&layout.base))
                .filter(|(_, b)| b.is_some())
                .map(|(m, _)| largest_offset(m.asset()))
                .fold(0.0, f32::max);
            reduce::reduce(&samples, &parents, &rest, scale, options.tolerance)
        } else {
            reduce::keep_all(&samples, &parents)
        };
        kept.accessories =
            reduce::accessories(&samples, options.reduce.then_some(options.tolerance));
        summary.error = kept.error;
        let channels = 2 * layout.bones
            + 2 * usize::from(!samples.camera.is_empty())
            + mesh_targets.iter().filter(|(_, r)| !r.is_empty()).count()
            + 3 * kept.accessories.iter().flatten().count();
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
                meshes: mesh_targets,
                accessories: accessory_nodes,
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
    root["scenes"] = json!([{ "name": name, "nodes": scene_nodes }]);
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

/// The nodes of `pose`'s root bones, its bones being nodes `first..`.
fn root_nodes(pose: &odori_pose::Model, first: usize) -> Vec<usize> {
    (0..pose.bone_count())
        .filter(|&b| pose.parents()[b] == odori_pose::model::NONE)
        .map(|b| first + b)
        .collect()
}

/// The opacity an accessory's materials are written with: its opacity at the first frame.
fn layout_opacity(scene: &Scene, model: usize, start: f32) -> f32 {
    scene.models()[model]
        .accessory()
        .map_or(1.0, |a| a.at(start).opacity)
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
