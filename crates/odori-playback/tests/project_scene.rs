//! Projects (`.pmm`) turned into scenes: MikuMikuDance's sample drawn as a golden, and an
//! accessory a project hangs on a dancer's bone placed where that bone holds it.

mod common;

use glam::{Affine3A, Vec3};
use odori_format::pmm::{self, ParentRef, Pmm};
use odori_format::sjis::SjisName;
use odori_playback::project::{self, Project};
use odori_playback::scene::Role;
use odori_playback::{Frame, Player, PlayerOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("odori-pmm-scene-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// MMD's sample as a scene: its eleven models (nine dancers and two dummy-bone models) in the
/// project's drawing order, its camera, every accessory left out with a warning (their files
/// are not in the sample's folder: SOURCE.md), and frame 450 drawn with the project's camera
/// as a golden (looked at when blessed: the camera close on the front row mid-dance, 巡音ルカ,
/// カイト and 初音ミク in front, MEIKO and 咲音メイコ behind, on white where the missing stage
/// would be).
#[test]
fn sample_project_plays_its_models_with_its_camera() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let p = Project::load(&file, &[]).unwrap();
    let (scene, warnings) = project::scene(&p);
    assert_eq!(scene.models().len(), 11);
    assert!(scene.models().iter().all(|m| *m.role() == Role::Dancer));
    // Drawing order: the models sorted by the project's own order, slots breaking ties.
    let mut by_order: Vec<_> = p.models.iter().collect();
    by_order.sort_by_key(|m| (m.draw_order, m.slot));
    for (m, pm) in scene.models().iter().zip(&by_order) {
        assert_eq!(Some(Path::new(m.asset().label())), pm.file.path());
    }
    let missing = warnings.iter().filter(|w| w.contains("not found")).count();
    assert_eq!(missing, 29, "{warnings:#?}");
    assert!(scene.camera().is_some());
    assert_eq!(scene.end_frame(), 732.0);
    common::check_frames(scene, &[(450.0, "pmm_sample_0450".into())], false);
}

/// A triangle as a text `.x` accessory.
const TRIANGLE_X: &str = "xof 0302txt 0064
Mesh {
 3;
 0.0;0.0;0.0;,
 1.0;0.0;0.0;,
 0.0;1.0;0.0;;
 1;
 3;0,1,2;;
}
";

/// The sample with its first accessory re-pointed at a `.x` written here and hung on 初音ミク's
/// right wrist at (1, 2, 3), then written by odori's PMM writer: at frame 0 the accessory's
/// root bone stands at the wrist's world transform × the translation (the `.x` file's tenfold
/// scale is in its vertices). Evidence: the wrist's world transform read back from the dancer's skinning matrix
/// (skinning × rest position), composed here by hand.
#[test]
fn a_project_accessory_follows_the_bone_it_is_hung_on() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let root = temp_dir("accessory");
    let user = root.join("UserFile");
    std::fs::create_dir_all(user.join("Accessory")).unwrap();
    std::fs::write(user.join("Accessory/prop.x"), TRIANGLE_X).unwrap();
    let mut pmm = Pmm::read(&file).unwrap();
    let slot = (pmm.models.iter())
        .position(|m| m.path.to_string().ends_with("初音ミク.pmd"))
        .unwrap();
    let bone = (pmm.models[slot].bone_names.iter())
        .position(|n| n.text() == "右手首")
        .unwrap();
    let a = &mut pmm.accessories[0];
    a.path = SjisName::new("UserFile\\Accessory\\prop.x");
    a.keys.clear();
    a.initial_key.parent = ParentRef {
        model: slot as i32,
        bone: bone as i32,
    };
    a.initial_key.translation = [1.0, 2.0, 3.0];
    a.initial_key.rotation = [0.0; 3];
    a.initial_key.scale = 1.0;
    let project_file = user.join("prop.pmm");
    std::fs::write(&project_file, pmm::write(&pmm).unwrap()).unwrap();

    let mmd = file.parent().unwrap().parent().unwrap().to_path_buf();
    let p = Project::load(&project_file, &[mmd]).unwrap();
    let (scene, warnings) = project::scene(&p);
    assert_eq!(
        warnings.iter().filter(|w| w.contains("not found")).count(),
        28,
        "{warnings:#?}"
    );
    let prop = (scene.models().iter())
        .position(|m| m.accessory().is_some())
        .expect("the accessory is in the scene");
    let holder = scene.models()[prop].accessory().unwrap().keys[0]
        .parent
        .unwrap();
    let miku = scene.models()[holder.model].asset().clone();
    assert!(miku.label().ends_with("初音ミク.pmd"));
    let wrist = miku.pose().find_bone("右手首").unwrap();
    assert_eq!(holder.bone, wrist);

    let scene = Arc::new(scene);
    let options = PlayerOptions {
        physics: false,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), options);
    let mut frame = Frame::default();
    player.evaluate_at(0.0, &mut frame);
    let rest = miku.pose().rest_positions()[wrist];
    let wrist_world = frame.models()[holder.model].skinning()[wrist]
        * Affine3A::from_translation(Vec3::from(rest));
    let want = wrist_world * Affine3A::from_translation(Vec3::new(1.0, 2.0, 3.0));
    let got = frame.models()[prop].skinning()[0];
    for p in [Vec3::ZERO, Vec3::X, Vec3::Y] {
        let (g, w) = (got.transform_point3(p), want.transform_point3(p));
        assert!((g - w).length() < 1e-4, "{p}: {g} against {w}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Each model's edge width in a project reaches what the renderers draw it with (the drawing
/// itself is held to the outline's formula in `scene.rs`). The sample keeps every width at 1,
/// so the test writes three others through the PMM writer: 0.5 and 0 are the models' widths;
/// a width that is no number is a warning naming the model, and the model keeps its
/// materials' edges.
#[test]
fn a_projects_edge_widths_reach_its_models() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let mut p = Pmm::read(&file).unwrap();
    let widths = [
        ("初音ミク", 0.5),
        ("ＫＡＩＴＯ", 0.0),
        ("鏡音リン", f32::NAN),
    ];
    for (name, width) in widths {
        let m = (p.models.iter_mut())
            .find(|m| m.name.text() == name)
            .unwrap_or_else(|| panic!("the sample has {name}"));
        m.edge_width = width;
    }
    let project = Project::from_pmm(&file, pmm::parse(&pmm::write(&p).unwrap()).unwrap(), &[]);
    let (scene, warnings) = project::scene(&project);
    let drawn = |label: &str| {
        let model = (scene.models().iter())
            .find(|m| m.asset().label().contains(label))
            .unwrap_or_else(|| panic!("{label} in the scene"));
        model.asset().render().edge_width
    };
    assert_eq!(drawn("初音ミク"), 0.5);
    assert_eq!(drawn("カイト"), 0.0);
    assert_eq!(drawn("鏡音リン"), 1.0);
    assert_eq!(drawn("鏡音レン"), 1.0);
    let named: Vec<&String> = (warnings.iter())
        .filter(|w| w.contains("edge width"))
        .collect();
    assert_eq!(named.len(), 1, "{warnings:?}");
    assert!(named[0].contains("鏡音リン"), "{named:?}");
}
