//! A scene exported whole, read back as a glTF player reads it (`common`'s own reader), against
//! the world pose odori's player computes for the same frames with physics on: every bone of
//! every dancer and stage, and every bone of every accessory (its skinning matrix × its rest
//! position: where the player draws it) while it is shown; hidden, its node's scale is 0.
//! The scene: a stage, Gene_light.pmx × wavefile_v2, the demo dancer stood 12 units aside,
//! one accessory keyed from Gene's right wrist to the demo's head (scaled, turned, hidden for
//! a while) and one fixed at the world origin, scaled 2.

mod common;

use common::{Glb, Played, difference};
use glam::{Affine3A, Vec3};
use odori_gltf::{Options, space};
use odori_playback::accessory::{Accessory, AccessoryKeyframe, AccessoryTransform, ParentBone};
use odori_playback::{Frame, ModelAsset, MotionFile, Scene};
use odori_pose::motion::Source;
use std::sync::Arc;

#[test]
fn a_scene_with_stage_and_props_plays_back_as_odori_poses_it() {
    let (Some(gene), Some(dance)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let demo = odori_render::demo::Demo::new();
    let demo_asset = Arc::new(ModelAsset::demo(&demo));
    let mut scene = Scene::new();
    scene.add_stage(demo_asset.clone());
    let gene = Arc::new(ModelAsset::load(&gene).unwrap());
    let wrist = gene.pose().find_bone("右手首").unwrap();
    let dancer = scene.add_model_files(gene, &[MotionFile::read(&dance).unwrap().0]);
    let second = scene.add_model(demo_asset.clone(), &[Source::Vmd(&demo.vmd)]);
    scene.set_placement(second, Vec3::new(12.0, 0.0, 0.0));
    let head = demo_asset.pose().bone_count() - 1;
    let key = |frame: f32, parent, position, rotation, scale, visible| AccessoryKeyframe {
        frame,
        parent,
        transform: AccessoryTransform {
            position,
            rotation,
            scale,
            visible,
            ..AccessoryTransform::DEFAULT
        },
    };
    let on_wrist = Some(ParentBone {
        model: dancer,
        bone: wrist,
    });
    let on_head = Some(ParentBone {
        model: second,
        bone: head,
    });
    let keyed = scene.add_accessory(
        demo_asset.clone(),
        Accessory {
            parent: None,
            transform: AccessoryTransform::DEFAULT,
            keys: vec![
                key(
                    0.0,
                    on_wrist,
                    Vec3::new(-0.9, -0.1, 0.0),
                    Vec3::ZERO,
                    0.5,
                    true,
                ),
                key(
                    20.0,
                    on_wrist,
                    Vec3::new(0.0, 1.0, 0.5),
                    Vec3::new(0.3, 1.2, -0.4),
                    0.8,
                    true,
                ),
                key(
                    40.0,
                    on_head,
                    Vec3::new(0.0, 2.0, 0.0),
                    Vec3::new(0.0, 0.0, 1.0),
                    1.5,
                    false,
                ),
                key(
                    55.0,
                    on_head,
                    Vec3::new(1.0, 2.0, 0.0),
                    Vec3::new(0.0, 0.5, 1.0),
                    1.0,
                    true,
                ),
            ],
        },
    );
    let fixed = scene.add_accessory(
        demo_asset.clone(),
        Accessory::fixed(
            None,
            AccessoryTransform {
                position: Vec3::new(-10.0, 0.0, 5.0),
                rotation: Vec3::new(0.0, 0.7, 0.0),
                scale: 2.0,
                ..AccessoryTransform::DEFAULT
            },
        ),
    );
    let scene = Arc::new(scene);
    let out = std::env::temp_dir().join(format!("odori-gltf-scene-{}.glb", std::process::id()));
    let last = 90;
    let options = Options {
        stop: Some(last as f32),
        ..Options::default()
    };
    let summary = odori_gltf::export(scene.clone(), &options, &out).unwrap();
    let glb = Glb::read(&std::fs::read(&out).unwrap());
    std::fs::remove_file(&out).unwrap();
    let played = Played::new(glb);
    let models = played.glb.json["extras"]["mmd"]["models"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(models.len(), 5);
    assert_eq!(played.glb.json["meshes"].as_array().unwrap().len(), 5);
    assert_eq!(played.glb.json["skins"].as_array().unwrap().len(), 5);
    let first_node = |i: usize| first_bone_node(&played, i);
    // The keyed accessory's node hangs under Gene's wrist, its holder at the first frame; the
    // fixed one at the scene's root, holding its values with no channel.
    let node_of = |i: usize| played.parent[first_node(i)].unwrap();
    assert_eq!(
        played.parent[node_of(keyed)],
        Some(first_node(dancer) + wrist)
    );
    assert_eq!(played.parent[node_of(fixed)], None);
    assert!(!played.is_animated(node_of(fixed)));
    assert!(played.is_animated(node_of(keyed)));

    let (compared, worst_p, worst_r) = compare(&scene, &played, last);
    eprintln!(
        "{compared:?} bone-frames (dancers and stages, accessories shown, hidden): largest error {worst_p:.2e} units, {worst_r:.2e} rotation; {} of {} keys",
        summary.keys, summary.keys_unreduced
    );
    let demo_bones = demo_asset.pose().bone_count();
    let gene_bones = scene.models()[dancer].asset().pose().bone_count();
    assert_eq!(compared[0], (last + 1) * (gene_bones + 2 * demo_bones));
    // Frames 40–54 the keyed accessory is hidden.
    assert_eq!(compared[2], 15 * demo_bones);
    assert_eq!(compared[1], (2 * (last + 1) - 15) * demo_bones);
    assert!(worst_p <= 1e-4 + 5e-5, "position off by {worst_p}");
    assert!(worst_r <= 1e-4 + 5e-6, "rotation off by {worst_r}");
}

/// The first bone node of scene model `i`, from the file's `extras.mmd.models`.
fn first_bone_node(played: &Played, i: usize) -> usize {
    played.glb.json["extras"]["mmd"]["models"][i]["firstBoneNode"]
        .as_u64()
        .unwrap() as usize
}

/// Every bone of every model of `scene`, frames 0..=last, played back against the player:
/// how many bone-frames were compared (dancers and stages, accessories shown, accessories
/// hidden) and the largest position and rotation errors.
fn compare(scene: &Arc<Scene>, played: &Played, last: usize) -> ([usize; 3], f32, f32) {
    let mut player = common::player(scene.clone());
    let mut frame = Frame::default();
    let (mut worst_p, mut worst_r) = (0.0f32, 0.0f32);
    let mut compared = [0usize; 3];
    for f in 0..=last {
        player.seek(f as f64);
        player.evaluate(&mut frame);
        let t = f as f32 / 30.0;
        for (i, m) in scene.models().iter().enumerate() {
            let pose = m.asset().pose();
            let base = first_bone_node(played, i);
            for b in 0..pose.bone_count() {
                let got = played.world(base + b, t);
                let want = match m.accessory() {
                    None => {
                        let place = Affine3A::from_translation(m.placement());
                        space::affine(place * player.instance(i).world(b))
                    }
                    Some(_) => {
                        if !frame.models()[i].visible() {
                            assert!(
                                got.matrix3.abs_diff_eq(glam::Mat3A::ZERO, 1e-6),
                                "frame {f}: hidden"
                            );
                            compared[2] += 1;
                            continue;
                        }
                        let rest = Vec3::from(pose.rest_positions()[b]);
                        space::affine(
                            frame.models()[i].skinning()[b] * Affine3A::from_translation(rest),
                        )
                    }
                };
                let (dp, dr) = difference(got, want);
                worst_p = worst_p.max(dp);
                worst_r = worst_r.max(dr);
                compared[usize::from(m.accessory().is_some())] += 1;
            }
        }
    }
    (compared, worst_p, worst_r)
}

/// MikuMikuDance's sample project (nine dancers and two dummy-bone models, its accessories'
/// files missing), exported through the project's scene with its gravity and calculation
/// order: every bone of every model, frames 0–120, played back as odori poses it.
#[test]
fn the_sample_project_plays_back_as_odori_poses_it() {
    let Some(file) =
        odori_testkit::shared("assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm")
    else {
        return;
    };
    let project = odori_playback::project::Project::load(&file, &[]).unwrap();
    let (scene, _) = odori_playback::project::scene(&project);
    assert_eq!(scene.models().len(), 11, "the sample's eleven models");
    let scene = Arc::new(scene);
    let out = std::env::temp_dir().join(format!("odori-gltf-pmm-{}.glb", std::process::id()));
    let last = 120;
    let options = Options {
        stop: Some(last as f32),
        ..Options::default()
    };
    let summary = odori_gltf::export(scene.clone(), &options, &out).unwrap();
    let played = Played::new(Glb::read(&std::fs::read(&out).unwrap()));
    std::fs::remove_file(&out).unwrap();
    // The two dummy-bone models have no mesh: nine meshes, eleven models' bones.
    assert_eq!(played.glb.json["meshes"].as_array().unwrap().len(), 9);
    let (compared, worst_p, worst_r) = compare(&scene, &played, last);
    eprintln!(
        "{compared:?} bone-frames: largest error {worst_p:.2e} units, {worst_r:.2e} rotation; {} of {} keys",
        summary.keys, summary.keys_unreduced
    );
    let bones: usize = scene
        .models()
        .iter()
        .map(|m| m.asset().pose().bone_count())
        .sum();
    assert_eq!(compared, [(last + 1) * bones, 0, 0]);
    assert!(worst_p <= 1e-4 + 5e-5, "position off by {worst_p}");
    assert!(worst_r <= 1e-4 + 5e-6, "rotation off by {worst_r}");
}
