//! A camera keyed to follow a bone (MikuMikuDance's camera panel: a model and a bone the
//! camera's target follows, kept with each camera key of a project). Evidence, nanoem's rule
//! (`PerspectiveCamera::boundLookAt`: the followed bone's world position plus the keyed
//! target, the camera not turning with the bone): MMD's sample project written back through
//! the PMM writer with its camera keys following 初音ミク's head (頭) up to frame 300 and
//! nothing after. Played with physics, every frame's camera differs from the unfollowed
//! project's exactly by the head's world position at that frame before 300 (rotation, distance
//! and field of view untouched), and not at all from 300 on.

use glam::Vec3;
use odori_format::pmm::{self, ParentRef};
use odori_playback::project::{self, Project};
use odori_playback::{Frame, Player, PlayerOptions};
use std::sync::Arc;

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";
const UNTIL: i32 = 300;

#[test]
fn the_camera_follows_the_keyed_bone_until_a_key_lets_go() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let plain = pmm::Pmm::read(&file).unwrap();
    let slot = (plain.models.iter())
        .position(|m| m.name.text() == "初音ミク")
        .expect("the sample has 初音ミク");
    let head = (plain.models[slot].bone_names.iter())
        .position(|n| n.text() == "頭")
        .expect("the project names 初音ミク's 頭");
    let mut followed = plain.clone();
    let cam = &mut followed.camera;
    let follow = |frame: i32| match frame < UNTIL {
        true => ParentRef {
            model: slot as i32,
            bone: head as i32,
        },
        false => ParentRef {
            model: -1,
            bone: -1,
        },
    };
    cam.initial_key.parent = follow(cam.initial_key.link.frame);
    for k in &mut cam.keys {
        k.key.parent = follow(k.key.link.frame);
    }
    assert!(
        cam.keys.iter().any(|k| k.key.link.frame >= UNTIL),
        "the sample has camera keys after {UNTIL}"
    );
    let scene_of = |p: &pmm::Pmm| {
        let project = Project::from_pmm(&file, pmm::parse(&pmm::write(p).unwrap()).unwrap(), &[]);
        let (scene, warnings) = project::scene(&project);
        assert!(
            !warnings.iter().any(|w| w.starts_with("camera")),
            "{warnings:?}"
        );
        Arc::new(scene)
    };
    let (plain, followed) = (scene_of(&plain), scene_of(&followed));
    let miku = (plain.models().iter())
        .position(|m| m.asset().label().contains("初音ミク"))
        .unwrap();
    let head_bone = plain.models()[miku].asset().pose().find_bone("頭").unwrap();
    let options = PlayerOptions {
        deform: false,
        ..PlayerOptions::default()
    };
    let mut a = Player::new(plain, options);
    let mut b = Player::new(followed, options);
    let (mut fa, mut fb) = (Frame::default(), Frame::default());
    let (mut compared, mut worst, mut after) = (0, 0.0f32, 0);
    for f in (0..=400).step_by(5) {
        a.play_on(f as f64);
        a.evaluate(&mut fa);
        b.play_on(f as f64);
        b.evaluate(&mut fb);
        let (ca, cb) = (fa.camera().unwrap(), fb.camera().unwrap());
        assert_eq!(
            (ca.rotation, ca.distance, ca.fov),
            (cb.rotation, cb.distance, cb.fov),
            "frame {f}"
        );
        let head_at = Vec3::from(a.instance(miku).world(head_bone).translation);
        if f < UNTIL {
            let off = (cb.target - ca.target - head_at).length();
            worst = worst.max(off);
            assert!(head_at.length() > 5.0, "the head stands above the floor");
            compared += 1;
        } else {
            assert_eq!(
                ca.target, cb.target,
                "frame {f}, after the key that lets go"
            );
            after += 1;
        }
    }
    eprintln!("{compared} frames followed the head (worst {worst:e}), {after} after");
    assert!(
        worst < 1e-4,
        "the target is the head plus the key: off by {worst}"
    );
    assert_eq!((compared, after), (60, 21));
}
