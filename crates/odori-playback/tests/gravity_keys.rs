//! Gravity keys: a project changes gravity mid-dance (MikuMikuDance's 重力設定 registers a
//! key), and each key holds from its frame until the next.
//!
//! - Gene_light × wavefile_v2 with gravity turned from down to sideways (+X) at frame 30,
//!   against the same dance with gravity down throughout. Evidence, causality and the
//!   direction of the pull: frames 0–29 equal the constant run bit for bit (a key acts from
//!   its frame, not before); from frame 30 the simulated bones part from it, and by frame 90
//!   they hang towards +X: their mean displacement from the constant run is along +X and
//!   larger than any other component.
//! - The same scene entered by a seek to frame 75 (the player pre-rolls from the start) equals
//!   playing frames 0–75 in order, bit for bit: the pre-roll plays each frame's gravity too.
//! - A project written through the PMM writer with a key at frame 30 gives its scene those
//!   keys; noise (not played) and a key with no direction are warnings.

use glam::Vec3;
use odori_format::pmm::{self, GravityKey, KeyLink, Linked, Pmm};
use odori_playback::project::{self, Project};
use odori_playback::{Frame, ModelAsset, MotionFile, Player, PlayerOptions, Scene};
use std::sync::Arc;

const DOWN: Vec3 = Vec3::new(0.0, -98.0, 0.0);
const SIDEWAYS: Vec3 = Vec3::new(98.0, 0.0, 0.0);

fn gene_scene(gravity: &[(f32, Vec3)]) -> Option<Arc<Scene>> {
    let model = odori_testkit::shared("assets/gene/Gene_light.pmx")?;
    let dance = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    let mut scene = Scene::new();
    let asset = Arc::new(ModelAsset::load(&model).unwrap());
    scene.add_model_files(asset, &[MotionFile::read(&dance).unwrap().0]);
    scene.set_gravity_keys(gravity.iter().copied());
    Some(Arc::new(scene))
}

fn options() -> PlayerOptions {
    PlayerOptions {
        deform: false,
        ..PlayerOptions::default()
    }
}

/// Every bone's world position, frames 0 to `last` played in order.
fn played(scene: &Arc<Scene>, last: u32) -> Vec<Vec<Vec3>> {
    let mut player = Player::new(scene.clone(), options());
    assert!(player.has_physics(), "physics is needed for this test");
    let mut out = Frame::default();
    (0..=last)
        .map(|f| {
            player.play_on(f as f64);
            player.evaluate(&mut out);
            world_positions(&player)
        })
        .collect()
}

fn world_positions(player: &Player) -> Vec<Vec3> {
    let inst = player.instance(0);
    (0..inst.skinning().len())
        .map(|b| Vec3::from(inst.world(b).translation))
        .collect()
}

#[test]
fn a_gravity_key_acts_from_its_frame_in_its_direction() {
    let (Some(keyed), Some(steady)) = (
        gene_scene(&[(0.0, DOWN), (30.0, SIDEWAYS)]),
        gene_scene(&[(0.0, DOWN)]),
    ) else {
        return;
    };
    let a = played(&keyed, 90);
    let b = played(&steady, 90);
    for f in 0..30 {
        assert!(a[f] == b[f], "frame {f}, before the key, moved");
    }
    let moved: Vec<usize> = (0..a[90].len())
        .filter(|&i| (a[90][i] - b[90][i]).length() > 1e-3)
        .collect();
    let mean = moved.iter().map(|&i| a[90][i] - b[90][i]).sum::<Vec3>() / moved.len() as f32;
    eprintln!(
        "frame 30 first differs: {}; at frame 90 {} bones moved, mean displacement {mean:?}",
        a[30] != b[30],
        moved.len()
    );
    assert!(a[30] != b[30], "the key acts at its own frame");
    assert!(moved.len() >= 10, "the simulated bones moved");
    assert!(
        mean.x > 0.5 && mean.x > mean.y.abs() && mean.x > mean.z.abs(),
        "they hang towards +X: {mean:?}"
    );
}

#[test]
fn a_seek_pre_rolls_through_the_gravity_keys() {
    let Some(keyed) = gene_scene(&[(0.0, DOWN), (30.0, SIDEWAYS), (50.0, DOWN)]) else {
        return;
    };
    let in_order = played(&keyed, 75);
    let mut player = Player::new(keyed.clone(), options());
    let mut out = Frame::default();
    player.evaluate_at(75.0, &mut out);
    let sought = world_positions(&player);
    let off = (sought.iter().zip(&in_order[75]))
        .map(|(a, b)| (*a - *b).length())
        .fold(0.0f32, f32::max);
    assert!(
        sought == in_order[75],
        "a seek to 75 is {off} units from playing there"
    );
}

#[test]
fn keys_sort_and_hold() {
    let mut scene = Scene::new();
    assert_eq!(scene.gravity_at(10.0), DOWN, "MMD's default without keys");
    let up = Vec3::new(0.0, 98.0, 0.0);
    scene.set_gravity_keys([
        (30.0, SIDEWAYS),
        (10.0, up),
        (30.0, DOWN),
        (f32::NAN, up),
        (40.0, Vec3::NAN),
    ]);
    assert_eq!(scene.gravity(), up, "the first key holds before it");
    assert_eq!(scene.gravity_at(0.0), up);
    assert_eq!(scene.gravity_at(29.9), up);
    assert_eq!(scene.gravity_at(30.0), DOWN, "the later of two on a frame");
    assert_eq!(scene.gravity_at(1e6), DOWN, "the NaN key was dropped");
}

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";

#[test]
fn a_projects_gravity_keys_reach_its_scene() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let mut p = Pmm::read(&file).unwrap();
    let v2 = p.v2.as_mut().expect("the sample is version 2");
    let first = v2.gravity.initial_key.clone();
    assert_eq!(first.link.next, 0, "the sample keys gravity once");
    let key = |frame: i32, direction: [f32; 3], next: i32| GravityKey {
        link: KeyLink {
            frame,
            previous: 0,
            next,
        },
        acceleration: 5.0,
        direction,
        noise_enabled: 1,
        noise: 10,
        ..first.clone()
    };
    v2.gravity.initial_key.link.next = 1;
    v2.gravity.keys = vec![
        Linked {
            index: 1,
            key: key(30, [1.0, 0.0, 0.0], 2),
        },
        Linked {
            index: 2,
            key: key(60, [0.0, 0.0, 0.0], 0),
        },
    ];
    let project = Project::from_pmm(&file, pmm::parse(&pmm::write(&p).unwrap()).unwrap(), &[]);
    let (scene, warnings) = project::scene(&project);
    let initial = Vec3::from(first.direction).normalize() * first.acceleration * 10.0;
    assert_eq!(scene.gravity_at(29.0), initial);
    assert_eq!(scene.gravity_at(30.0), Vec3::new(50.0, 0.0, 0.0));
    assert_eq!(
        scene.gravity_at(60.0),
        Vec3::new(50.0, 0.0, 0.0),
        "the key with no direction is left out"
    );
    let about = |w: &&String| w.contains("gravity");
    let said: Vec<&String> = warnings.iter().filter(about).collect();
    assert!(said.iter().any(|w| w.contains("frame 60")), "{said:?}");
    assert!(said.iter().any(|w| w.contains("noise")), "{said:?}");
}
