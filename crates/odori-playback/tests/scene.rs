//! Scenes as MikuMikuDance builds them: where models stand, stages, accessories held by a
//! bone, and the light and self-shadow keys reaching the renderer.
//!
//! - Placement: two dancers with one motion stand on the same spot (MMD puts every model at
//!   the origin and only its motion moves it), each exactly where a scene of its own puts it;
//!   with side by side they stand apart by the arrangement's rule; a model with no motion
//!   stays at rest at the origin.
//! - Accessories: a prop held by Gene_light's right wrist, with a turned, moved and scaled
//!   accessory transform, is drawn at the wrist's world transform after physics × the
//!   transform, the product built here from glam's separate matrices (nanoem's order,
//!   `Accessory::fullWorldTransform`): its skinning matrix and its deformed vertices.
//! - The loader's draw order and its errors for `--accessory`.
//! - Light and self-shadow keys: a VMD written here turns the light red and self-shadow off at
//!   frame 30. Frame 29 draws exactly what the renderer draws with the default light and
//!   self-shadow on, frame 31 exactly what it draws with a red light and self-shadow off in
//!   its options, on both renderers; and 31 is redder than 29 and lost its self-shadow.
//! - A golden: Gene_light on a stage built here, a microphone in her right hand, on both
//!   renderers.

mod common;
#[path = "common/props.rs"]
mod props;

use glam::{Affine3A, Mat4, Vec3};
use odori_format::pmx::*;
use odori_playback::accessory::{Accessory, AccessorySpec, AccessoryTransform, ParentBone};
use odori_playback::load::{ModelInput, SceneOptions, scene_from_models};
use odori_playback::offline::renderer_for;
use odori_playback::{Frame, ModelAsset, MotionFile, Player, PlayerOptions, Role, Scene};
use odori_render::{Light, RenderOptions};
use props::{microphone, stage};
use std::path::PathBuf;
use std::sync::Arc;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("odori-scene-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn compile(pmx: &Pmx, label: &str) -> Arc<ModelAsset> {
    let textures = odori_render::TextureSource::Folder(std::env::temp_dir());
    Arc::new(ModelAsset::compile(odori_playback::ModelFile::Pmx(pmx), textures, label).unwrap())
}

/// Write `pmx` where the loader reads it.
fn written(pmx: &Pmx, name: &str) -> PathBuf {
    let path = tmp(name);
    std::fs::write(&path, odori_format::pmx::write(pmx).unwrap()).unwrap();
    path
}

/// The demo's model and dance, written as files.
fn demo_files() -> (PathBuf, PathBuf) {
    let demo = odori_render::demo::Demo::new();
    let model = written(&demo.pmx, "demo.pmx");
    let dance = tmp("demo.vmd");
    std::fs::write(&dance, odori_format::vmd::write(&demo.vmd).unwrap()).unwrap();
    (model, dance)
}

fn no_physics() -> PlayerOptions {
    PlayerOptions {
        physics: false,
        ..PlayerOptions::default()
    }
}

/// Frame 0 of `scene` without physics, through `camera`, on test device `k`
/// (`odori_render::devices_for_tests`).
fn still_picture(
    scene: &Arc<Scene>,
    k: usize,
    options: RenderOptions,
    camera: odori_render::CameraPose,
) -> image::RgbaImage {
    let device = odori_render::devices_for_tests().remove(k);
    let mut r = renderer_for(scene, device, options);
    let mut player = Player::new(scene.clone(), no_physics());
    let mut frame = Frame::default();
    player.evaluate_at(0.0, &mut frame);
    frame.prepare(&mut r, true);
    r.render_image(&frame.view(camera))
}

/// Two dancers with one motion and a third with none. By default (MMD's placement) the two
/// dancers' skinning matrices are bit for bit those of a scene holding one of them alone (the
/// dance untouched, nothing added), so they overlap, and the still one's are the identity
/// (rest pose at the origin). Side by side, each is that same frame moved along X by
/// (i − 1) × 1.1 × the widest model's width, the arrangement's rule, computed here.
#[test]
fn dancers_share_the_origin_unless_side_by_side() {
    let (model, dance) = demo_files();
    let models = vec![
        (ModelInput::Path(model.clone()), vec![dance.clone()]),
        (ModelInput::Path(model.clone()), vec![dance.clone()]),
        (ModelInput::Path(model.clone()), vec![]),
    ];
    let at = 75.0;
    let frame_of = |options: &SceneOptions, models: &[(ModelInput, Vec<PathBuf>)]| {
        let (scene, _) = scene_from_models(models, None, options).unwrap();
        let scene = Arc::new(scene);
        let mut player = Player::new(scene.clone(), no_physics());
        let mut frame = Frame::default();
        player.evaluate_at(at, &mut frame);
        (scene, frame)
    };
    let (_, alone) = frame_of(&SceneOptions::default(), &models[..1]);
    let alone = alone.models()[0].skinning().to_vec();

    let (scene, f) = frame_of(&SceneOptions::default(), &models);
    assert!(scene.models().iter().all(|m| m.placement() == Vec3::ZERO));
    assert_eq!(f.models()[0].skinning(), &alone[..]);
    assert_eq!(f.models()[1].skinning(), &alone[..]);
    assert!(
        alone.iter().any(|s| *s != Affine3A::IDENTITY),
        "the dance moves"
    );
    for s in f.models()[2].skinning() {
        assert!(
            Mat4::from(*s).abs_diff_eq(Mat4::IDENTITY, 1e-6),
            "a model with no motion stays at rest at the origin: {s:?}"
        );
    }

    let side = SceneOptions {
        side_by_side: true,
        ..SceneOptions::default()
    };
    let (scene, f) = frame_of(&side, &models);
    let (lo, hi) = scene.models()[0].asset().render().bounds;
    let spacing = ((hi.x - lo.x) * 1.1).max(1.0);
    for i in 0..2 {
        let shift = (i as f32 - 1.0) * spacing;
        assert_eq!(scene.models()[i].placement(), Vec3::X * shift);
        for (got, want) in f.models()[i].skinning().iter().zip(&alone) {
            let want = Affine3A::from_translation(Vec3::X * shift) * *want;
            assert!(Mat4::from(*got).abs_diff_eq(Mat4::from(want), 1e-5));
        }
    }
    let (a, b) = (f.models()[0].bounds(), f.models()[1].bounds());
    let apart = (b.0.x + b.1.x - a.0.x - a.1.x) * 0.5;
    assert!(
        (apart - spacing).abs() < 1e-3,
        "boxes {apart} apart, not {spacing}"
    );
}

/// The loader's order and errors: a stage drawn before the dancer, a PMX prop after, its
/// parent resolved by file name to the dancer's place in the draw order; a bone the model
/// lacks and a model index past the end are refused naming the accessory.
#[test]
fn loader_orders_stage_dancer_prop_and_names_bad_parents() {
    let (model, dance) = demo_files();
    let stage = written(&stage(), "stage.pmx");
    let mic = written(&microphone(), "mic.pmx");
    let models = vec![(ModelInput::Path(model.clone()), vec![dance])];
    let spec = |s: &str| AccessorySpec::parse(&format!("{}{s}", mic.display())).unwrap();
    let options = SceneOptions {
        stages: vec![ModelInput::Path(stage)],
        accessories: vec![spec("@demo.pmx:センター"), spec("")],
        side_by_side: false,
    };
    let (scene, _) = scene_from_models(&models, None, &options).unwrap();
    let roles: Vec<&Role> = scene.models().iter().map(|m| m.role()).collect();
    assert_eq!(roles[0], &Role::Stage);
    assert_eq!(roles[1], &Role::Dancer);
    let held = scene.models()[2].accessory().unwrap();
    assert_eq!(held.parent, Some(ParentBone { model: 1, bone: 0 }));
    assert_eq!(scene.models()[3].accessory().unwrap().parent, None);
    // The default camera frames the dancer, not the stage.
    assert_eq!(
        scene.rest_bounds(),
        scene.models()[1].asset().render().bounds
    );

    let bad = |s: &str| {
        let options = SceneOptions {
            accessories: vec![spec(s)],
            ..SceneOptions::default()
        };
        match scene_from_models(&models, None, &options) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("{s} was taken"),
        }
    };
    let e = bad("@0:存在しない骨");
    assert!(
        e.contains("mic.pmx") && e.contains("no bone `存在しない骨`"),
        "{e}"
    );
    let e = bad("@3:センター");
    assert!(e.contains("model 3 does not exist"), "{e}");
    let e = bad("@nobody.pmx:センター");
    assert!(e.contains("no model is named `nobody.pmx`"), "{e}");
}

/// Gene_light dancing wavefile_v2 with physics, a microphone at her right wrist
/// (右手首) moved, turned and scaled by the accessory transform. At each frame the prop's
/// skinning matrix is the wrist's world transform after physics (the player's own instance)
/// × T × Rz × Ry × Rx × S built here from glam's separate matrices; and a vertex of the prop,
/// deformed, lands where that matrix takes its rest position.
#[test]
fn accessory_follows_the_wrist_after_physics() {
    let (Some(gene), Some(wavefile)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let asset = Arc::new(ModelAsset::load(&gene).unwrap());
    let wrist = asset.pose().find_bone("右手首").unwrap();
    let mut scene = Scene::new();
    let dancer = scene.add_model_files(asset, &[MotionFile::read(&wavefile).unwrap().0]);
    let transform = AccessoryTransform {
        position: Vec3::new(-0.8, 0.3, 0.1),
        rotation: Vec3::new(0.4, -0.9, 1.3),
        scale: 1.7,
        ..AccessoryTransform::DEFAULT
    };
    let mic = microphone();
    let prop = scene.add_accessory(
        compile(&mic, "microphone"),
        Accessory {
            parent: Some(ParentBone {
                model: dancer,
                bone: wrist,
            }),
            transform,
            keys: Vec::new(),
        },
    );
    let mut player = Player::new(Arc::new(scene), PlayerOptions::default());
    let mut frame = Frame::default();
    let local = Mat4::from_translation(transform.position)
        * Mat4::from_rotation_z(transform.rotation.z)
        * Mat4::from_rotation_y(transform.rotation.y)
        * Mat4::from_rotation_x(transform.rotation.x)
        * Mat4::from_scale(Vec3::splat(transform.scale));
    for at in [0.0, 120.0, 121.0, 400.0] {
        player.evaluate_at(at, &mut frame);
        let hand = player.instance(dancer).world_matrix(wrist);
        let want = hand * local;
        let got = Mat4::from(frame.models()[prop].skinning()[0]);
        assert!(
            got.abs_diff_eq(want, 1e-4),
            "frame {at}: {got:?} against {want:?}"
        );
        let rest = Vec3::from(mic.vertices[30].position);
        let drawn = Vec3::from(frame.models()[prop].vertices().positions[30]);
        assert!(
            (drawn - want.transform_point3(rest)).length() < 1e-3,
            "frame {at}: vertex at {drawn}"
        );
    }
    // The wrist moved the prop: frames apart put it elsewhere.
    player.evaluate_at(0.0, &mut frame);
    let first = frame.models()[prop].skinning()[0].translation;
    player.evaluate_at(400.0, &mut frame);
    assert!((frame.models()[prop].skinning()[0].translation - first).length() > 1.0);
}

/// A VMD holding only light and self-shadow keys: grey light and self-shadow mode 1 up to
/// frame 29, a red light and self-shadow off from frame 30.
fn light_vmd() -> odori_format::Vmd {
    use odori_format::vmd::{LightKey, SelfShadowKey};
    let mut vmd = odori_render::demo::Demo::new().vmd;
    vmd.bones.clear();
    vmd.morphs.clear();
    vmd.cameras.clear();
    vmd.properties.clear();
    let grey = [154.0 / 255.0; 3];
    let dir = [-0.5, -1.0, 0.5];
    vmd.lights = vec![
        LightKey {
            frame: 0,
            color: grey,
            direction: dir,
        },
        LightKey {
            frame: 29,
            color: grey,
            direction: dir,
        },
        LightKey {
            frame: 30,
            color: [1.0, 0.25, 0.2],
            direction: dir,
        },
    ];
    let shadow = |frame, mode| SelfShadowKey {
        frame,
        mode,
        distance: odori_render::light::SelfShadow::DEFAULT.distance,
    };
    vmd.self_shadows = vec![shadow(0, 1), shadow(30, 0)];
    vmd.sections_present = 6;
    vmd
}

/// Frames 29 and 31 of the demo model standing still under `light_vmd`'s keys (written to a
/// file and read back), on every renderer: 29 is pixel for pixel the renderer's picture with
/// the default light and self-shadow on; 31 is its picture with the red light and
/// `RenderOptions::self_shadow` off (the keys reach the renderer as its own switches do); and
/// 31 differs from 29 as it must: redder, with the self-shadow's dark areas gone.
#[test]
fn light_and_self_shadow_keys_drive_the_renderer() {
    let demo = odori_render::demo::Demo::new();
    let path = tmp("light.vmd");
    std::fs::write(&path, odori_format::vmd::write(&light_vmd()).unwrap()).unwrap();
    let (motion, _) = MotionFile::read(&path).unwrap();
    let mut scene = Scene::new();
    scene.add_model_files(Arc::new(ModelAsset::demo(&demo)), &[motion]);
    let scene = Arc::new(scene);
    let camera = scene.framing_camera(1.0);
    let options = RenderOptions {
        width: 192,
        height: 192,
        msaa: 1,
        shadow_map_size: 1024,
        ..Default::default()
    };
    // Each renderer twice: one drawing the keyed frames, one with self-shadow off by option.
    let count = odori_render::devices_for_tests().len();
    for k in 0..count {
        let device = odori_render::devices_for_tests().remove(k);
        let name = device.describe();
        let mut r = renderer_for(&scene, device, options.clone());
        let mut player = Player::new(scene.clone(), no_physics());
        let mut frame = Frame::default();
        let mut at = |k: f64, r: &mut odori_render::AnyRenderer| {
            player.evaluate_at(k, &mut frame);
            frame.prepare(r, true);
            (frame.view(camera), r.render_image(&frame.view(camera)))
        };
        let (view29, img29) = at(29.0, &mut r);
        let (view31, img31) = at(31.0, &mut r);
        assert_eq!(view29.light, Light::DEFAULT, "{name}");
        assert!(!view31.light.shadow.is_on(), "{name}");
        assert_eq!(view31.light.color, Vec3::new(1.0, 0.25, 0.2), "{name}");

        // The same renderer asked directly: default light, self-shadow on; red light,
        // self-shadow off by option.
        let mut by_hand = view29;
        by_hand.light = Light::DEFAULT;
        assert!(img29 == r.render_image(&by_hand), "{name}: frame 29");
        let device = odori_render::devices_for_tests().remove(k);
        let off = RenderOptions {
            self_shadow: false,
            ..options.clone()
        };
        let mut r_off = renderer_for(&scene, device, off);
        frame.prepare(&mut r_off, true);
        let mut red = view31;
        red.light = Light {
            shadow: odori_render::light::SelfShadow::DEFAULT,
            ..view31.light
        };
        assert!(img31 == r_off.render_image(&red), "{name}: frame 31");

        // Redder, and the self-shadowed dark pixels of frame 29 are lit at 31.
        let covered = |img: &image::RgbaImage| -> Vec<(u32, u32)> {
            (img.enumerate_pixels())
                .filter(|(_, _, p)| p.0[..3] != [255, 255, 255])
                .map(|(x, y, _)| (x, y))
                .collect()
        };
        let tint = |img: &image::RgbaImage| {
            let px = covered(img);
            let sum: f64 = (px.iter())
                .map(|&(x, y)| {
                    let p = img.get_pixel(x, y).0;
                    p[0] as f64 - p[1] as f64
                })
                .sum();
            sum / px.len().max(1) as f64
        };
        let (t29, t31) = (tint(&img29), tint(&img31));
        assert!(
            t31 > t29 + 30.0,
            "{name}: red minus green {t29:.1} → {t31:.1}"
        );
        assert!(covered(&img29).len() > 1000, "{name}: the model is in view");
    }
}

/// Gene_light dancing wavefile_v2 under its camera on the stage built here, the microphone in
/// her right hand (右手首, moved into the palm), frame 900, physics off, on both renderers,
/// held to `tests/golden/scene_gene_stage_mic_0900.png` by the golden rule.
#[test]
fn golden_gene_on_a_stage_with_a_microphone() {
    let (Some(gene), Some(wavefile), Some(camera)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    let mut scene = Scene::new();
    scene.add_stage(compile(&stage(), "stage"));
    let asset = Arc::new(ModelAsset::load(&gene).unwrap());
    let wrist = asset.pose().find_bone("右手首").unwrap();
    let dancer = scene.add_model_files(asset, &[MotionFile::read(&wavefile).unwrap().0]);
    scene.add_accessory(
        compile(&microphone(), "microphone"),
        Accessory {
            parent: Some(ParentBone {
                model: dancer,
                bone: wrist,
            }),
            transform: AccessoryTransform {
                position: Vec3::new(-0.9, -0.1, 0.0),
                rotation: Vec3::new(0.0, 0.0, 0.5),
                ..AccessoryTransform::DEFAULT
            },
            keys: Vec::new(),
        },
    );
    scene.set_camera(&odori_playback::load::camera_file(&camera).unwrap());
    common::check_frames(scene, &[(900.0, "scene_gene_stage_mic_0900".into())], false);
}

/// 加算合成: an additive accessory's colour is added to what is behind it. Evidence, the blend
/// equation (source × alpha + destination, saturating at white), on every renderer: three
/// pictures of the demo standing still, one camera, on a dark background: without the
/// microphone (the destination), with it drawn normally (opaque: where it shows, its pixels
/// are the source) and with it additive (`ModelAsset::with_additive_blending`). Wherever the
/// normal picture differs from the first, the additive one is their sum, channel by channel,
/// within 2 (two 8-bit roundings).
#[test]
fn an_additive_accessory_adds_its_colour_to_what_is_behind() {
    let demo = odori_render::demo::Demo::new();
    let mic = |additive: bool| {
        let textures = odori_render::TextureSource::Folder(std::env::temp_dir());
        let asset = ModelAsset::compile(
            odori_playback::ModelFile::Pmx(&microphone()),
            textures,
            "mic",
        )
        .unwrap();
        Arc::new(match additive {
            true => asset.with_additive_blending(),
            false => asset,
        })
    };
    let scene_with = |prop: Option<Arc<ModelAsset>>| {
        let mut scene = Scene::new();
        scene.add_model(Arc::new(ModelAsset::demo(&demo)), &[]);
        if let Some(prop) = prop {
            let transform = AccessoryTransform {
                position: Vec3::new(0.0, 9.0, -4.0),
                rotation: Vec3::new(0.0, 0.0, 1.2),
                scale: 3.0,
                ..AccessoryTransform::DEFAULT
            };
            scene.add_accessory(prop, Accessory::fixed(None, transform));
        }
        Arc::new(scene)
    };
    let scenes = [
        scene_with(None),
        scene_with(Some(mic(false))),
        scene_with(Some(mic(true))),
    ];
    let camera = scenes[0].framing_camera(1.0);
    let options = RenderOptions {
        width: 160,
        height: 160,
        msaa: 1,
        self_shadow: false,
        ground_shadow: false,
        edges: false,
        background: [0.15, 0.2, 0.3, 1.0],
        ..Default::default()
    };
    let count = odori_render::devices_for_tests().len();
    for k in 0..count {
        let name = odori_render::devices_for_tests().remove(k).describe();
        let pictures: Vec<image::RgbaImage> = (scenes.iter())
            .map(|scene| still_picture(scene, k, options.clone(), camera))
            .collect();
        let [behind, normal, added] = &pictures[..] else {
            unreachable!()
        };
        let background = *behind.get_pixel(0, 0);
        let (mut compared, mut on_demo, mut worst) = (0, 0, 0i32);
        for ((d, s), a) in behind.pixels().zip(normal.pixels()).zip(added.pixels()) {
            if d == s {
                assert_eq!(
                    d, a,
                    "{name}: a pixel the microphone does not cover changed"
                );
                continue;
            }
            for c in 0..3 {
                let want = (d.0[c] as i32 + s.0[c] as i32).min(255);
                worst = worst.max((a.0[c] as i32 - want).abs());
            }
            compared += 1;
            // Over the demo rather than the background: the sum is not the background's.
            on_demo += usize::from(*d != background);
        }
        eprintln!("{name}: {compared} pixels compared, {on_demo} over the demo, worst {worst}");
        if let Ok(dir) = std::env::var("ODORI_KEEP_PICTURES") {
            added.save(format!("{dir}/additive_{k}.png")).unwrap();
            normal.save(format!("{dir}/normal_{k}.png")).unwrap();
        }
        assert!(compared > 500, "{name}: the microphone is in view");
        assert!(
            on_demo > 50,
            "{name}: the microphone covers some of the demo"
        );
        assert!(worst <= 2, "{name}: off the blend equation by {worst}");
    }
}

/// A model's edge width (MikuMikuDance's 輪郭幅, one per model in a project) scales every
/// edge of it. Evidence, the outline's formula (pushed out by material edge size × width):
/// the demo drawn with width 2 is, pixel for pixel, the demo whose every material's edge
/// size was doubled in its file, on every renderer; width 0 is the demo drawn with edges off;
/// and width 2 differs from width 1 (the outlines are in view).
#[test]
fn a_models_edge_width_scales_its_edges() {
    let demo = odori_render::demo::Demo::new();
    let plain = || ModelAsset::demo(&demo);
    let mut doubled_file = demo.pmx.clone();
    for m in &mut doubled_file.materials {
        m.edge_size *= 2.0;
    }
    let doubled = ModelAsset::compile(
        odori_playback::ModelFile::Pmx(&doubled_file),
        demo.textures.clone(),
        "demo, edge sizes doubled",
    )
    .unwrap();
    let scene_of = |asset: ModelAsset| {
        let mut scene = Scene::new();
        scene.add_model(Arc::new(asset), &[]);
        Arc::new(scene)
    };
    let cases = [
        scene_of(plain()),
        scene_of(plain().with_edge_width(2.0)),
        scene_of(doubled),
        scene_of(plain().with_edge_width(0.0)),
    ];
    let camera = cases[0].framing_camera(1.0);
    let options = RenderOptions {
        width: 200,
        height: 200,
        msaa: 1,
        self_shadow: false,
        ground_shadow: false,
        background: [0.9, 0.9, 0.9, 1.0],
        ..Default::default()
    };
    let count = odori_render::devices_for_tests().len();
    for k in 0..count {
        let name = odori_render::devices_for_tests().remove(k).describe();
        let picture = |scene: &Arc<Scene>, edges: bool| {
            let options = RenderOptions {
                edges,
                ..options.clone()
            };
            still_picture(scene, k, options, camera)
        };
        let one = picture(&cases[0], true);
        let two = picture(&cases[1], true);
        let file_doubled = picture(&cases[2], true);
        let zero = picture(&cases[3], true);
        let edges_off = picture(&cases[0], false);
        let differ = |a: &image::RgbaImage, b: &image::RgbaImage| {
            a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count()
        };
        let thicker = differ(&one, &two);
        eprintln!(
            "{name}: width 2 differs from width 1 at {thicker} pixels, from doubled sizes at {}; \
             width 0 from edges off at {}",
            differ(&two, &file_doubled),
            differ(&zero, &edges_off)
        );
        assert!(thicker > 100, "{name}: the outlines are in view");
        assert_eq!(differ(&two, &file_doubled), 0, "{name}: width 2");
        assert_eq!(differ(&zero, &edges_off), 0, "{name}: width 0");
    }
}
