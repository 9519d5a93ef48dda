//! A project names every bone in full, where a VMD key keeps 15 bytes of a name: in MMD's
//! sample project 巡音ルカ's `右外枝後髪後列３` and `右外枝後髪後列４` share those 15 bytes. The
//! sample keys both at rest, so the test turns `４`'s first key 30° (through the PMM writer) to
//! tell them apart. Evidence: the project's own keys for each track (walked by the PMM reader's
//! `track`), against the scene's motion evaluated without physics at each key's frame: each
//! bone turns as its own keys say, not as the other's.

use glam::Quat;
use odori_format::pmm;
use odori_playback::project::{self, Project};

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";

#[test]
fn bones_sharing_fifteen_bytes_play_their_own_keys() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let mut p = pmm::Pmm::read(&file).unwrap();
    let slot = (p.models.iter())
        .position(|m| m.name.text() == "巡音ルカ")
        .expect("the sample has 巡音ルカ");
    let four = (p.models[slot].bone_names.iter())
        .position(|n| n.text() == "右外枝後髪後列４")
        .expect("the project names 右外枝後髪後列４");
    let turned = Quat::from_rotation_z(30f32.to_radians()).to_array();
    p.models[slot].initial_bone_keys[four].rotation = turned;
    let project = Project::from_pmm(&file, pmm::parse(&pmm::write(&p).unwrap()).unwrap(), &[]);
    let (scene, _) = project::scene(&project);
    let raw = &project.pmm.models[slot];
    let tracks = pmm::track(&raw.initial_bone_keys, &raw.bone_keys);
    let i = (scene.models().iter())
        .position(|m| m.asset().label().contains("巡音ルカ"))
        .expect("巡音ルカ in the scene");
    let model = scene.models()[i].asset().pose();
    let motion = scene.models()[i].motion();
    let mut inst = odori_pose::Instance::new(model, motion);
    let mut compared = 0;
    let mut differing = 0;
    let names = ["右外枝後髪後列３", "右外枝後髪後列４"];
    let track_of = |name: &str| {
        (raw.bone_names.iter())
            .position(|n| n.text() == name)
            .unwrap_or_else(|| panic!("the project names {name}"))
    };
    let (a, b) = (track_of(names[0]), track_of(names[1]));
    for (name, own, other) in [(names[0], a, b), (names[1], b, a)] {
        let bone = model.find_bone(name).expect("the model has the bone");
        for k in &tracks[own].keys {
            let frame = k.link.frame as f32;
            inst.evaluate(model, motion, frame).unwrap();
            let rotation = |b: usize| Quat::from_mat3a(&inst.world(b).matrix3).normalize();
            let parent = model.parents()[bone] as usize;
            let got = rotation(parent).inverse() * rotation(bone);
            let want = Quat::from_array(k.rotation).normalize();
            assert!(
                got.dot(want).abs() > 1.0 - 1e-6,
                "{name} at frame {frame}: {got:?}, its key says {want:?}"
            );
            // Where the other bone's track differs at this frame, a binding by 15 bytes would
            // have given this bone the other's rotation.
            let theirs = (tracks[other].keys.iter()).find(|o| o.link.frame == k.link.frame);
            if let Some(o) = theirs
                && Quat::from_array(o.rotation).normalize().dot(want).abs() < 1.0 - 1e-4
            {
                differing += 1;
            }
            compared += 1;
        }
    }
    eprintln!("{compared} keys compared, {differing} where the two tracks differ");
    assert_eq!(compared, tracks[a].keys.len() + tracks[b].keys.len());
    assert!(compared >= 2, "keys were compared");
    assert!(
        differing > 0,
        "the two tracks differ somewhere, or this test shows nothing"
    );
}
