//! Outside parents (外部親) in a MikuMikuDance project, through the PMM writer, the project
//! layer and the player. MMD's sample project, re-keyed here: model B's first outside-parent
//! bone (初音ミク's センター) follows model A's (鏡音レン's) 右手首 from frame 50 (the sample's dancers start to move at 46), a key
//! written into B's model-key track.
//! Evidence: the rule ([`odori_pose::Instance::set_outside_parent`], held to forward
//! kinematics itself in odori-pose's `tests/outside_parent.rs`) gives, for that bone, world =
//! A's hand skinning matrix × (its own parent's skinning matrix)⁻¹ × its world without the
//! key; the same project without the key is played beside it. Before frame 50 B is bit for
//! bit the project without the key; a bone outside the follower's subtree never moves; and
//! with B calculated before A (MMD's calculation order) B reads A's hand a frame late.

use glam::Affine3A;
use odori_format::pmm::{self, KeyLink, Linked, ModelKey, ParentRef, Pmm};
use odori_playback::frame::Frame;
use odori_playback::project::{self, Project};
use odori_playback::{Player, PlayerOptions};
use std::path::Path;
use std::sync::Arc;

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";
const FROM: i32 = 50;

/// The sample with every outside parent of every model taken away, and B's model keys
/// reduced to the initial one (so that only the key written here acts).
fn without_outside_parents(mut p: Pmm, b: usize) -> Pmm {
    for m in &mut p.models {
        let none = |k: &mut ModelKey| k.outside_parents.fill(ParentRef::NONE);
        none(&mut m.initial_model_key);
        m.model_keys.iter_mut().for_each(|k| none(&mut k.key));
    }
    p.models[b].model_keys.clear();
    p.models[b].initial_model_key.link.next = 0;
    p
}

/// B's first outside-parent bone that is a bone (MMD lists −1 first), by its place in the
/// list.
fn first_bone(p: &Pmm, b: usize) -> usize {
    (p.models[b].outside_parent_bones.iter())
        .position(|&i| i >= 0)
        .expect("B has an outside-parent bone")
}

/// `p` with B's first outside-parent bone following A's `hand` from [`FROM`] on.
fn following(mut p: Pmm, a: usize, b: usize, hand: i32) -> Pmm {
    let k = first_bone(&p, b);
    let m = &mut p.models[b];
    let mut key = m.initial_model_key.clone();
    key.link = KeyLink {
        frame: FROM,
        previous: 0,
        next: 0,
    };
    key.outside_parents[k] = ParentRef {
        model: a as i32,
        bone: hand,
    };
    m.initial_model_key.link.next = 1;
    m.model_keys.push(Linked { index: 1, key });
    p
}

fn play(file: &Path, p: &Pmm) -> (Player, Vec<String>, Vec<usize>) {
    let project = Project::from_pmm(file, pmm::parse(&pmm::write(p).unwrap()).unwrap(), &[]);
    let (scene, warnings) = project::scene(&project);
    let slots = scene_slots(&project, &scene);
    let options = PlayerOptions {
        physics: false,
        deform: false,
        ..PlayerOptions::default()
    };
    (Player::new(Arc::new(scene), options), warnings, slots)
}

/// Each project slot's scene index (models are loaded in drawing order, after the
/// accessories drawn first; the sample's accessories are all missing).
fn scene_slots(project: &Project, scene: &odori_playback::Scene) -> Vec<usize> {
    let labels: Vec<String> = (scene.models().iter())
        .map(|m| m.asset().label().to_string())
        .collect();
    (project.models.iter())
        .map(|m| {
            let path = m.file.path().expect("the sample's models are found");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            labels.iter().position(|l| l.ends_with(&name)).unwrap()
        })
        .collect()
}

fn close(got: Affine3A, want: Affine3A) -> f32 {
    let d = (got.translation - want.translation).length();
    let r = (got.matrix3 - want.matrix3).abs().to_cols_array();
    r.iter().copied().fold(d, f32::max)
}

/// Plays frames 0..=90 of the keyed project and of the unkeyed one; `lag` is how many frames
/// late B reads A's hand.
fn check(file: &Path, keyed: &Pmm, plain: &Pmm, a: usize, b: usize, hand: &str, lag: f64) {
    let (mut player, warnings, slots) = play(file, keyed);
    let (mut reference, _, _) = play(file, plain);
    assert!(
        !warnings.iter().any(|w| w.contains("outside parent")),
        "{warnings:#?}"
    );
    let (sa, sb) = (slots[a], slots[b]);
    let model_a = player.scene().models()[sa].asset().pose().clone();
    let model_b = player.scene().models()[sb].asset().pose().clone();
    let bone_names = &keyed.models[b].bone_names;
    let follower_name =
        bone_names[keyed.models[b].outside_parent_bones[first_bone(keyed, b)] as usize].text();
    let follower = model_b.find_bone(&follower_name).unwrap();
    let hand = model_a.find_bone(hand).unwrap();
    let own_parent = model_b.parents()[follower];
    // A root bone of B that is not the follower: outside its subtree (legs' IK targets of a
    // PMD are roots, as is センター).
    let other_root = (0..model_b.bone_count())
        .find(|&x| x != follower && model_b.parents()[x] == odori_pose::model::NONE)
        .expect("a second root bone");
    let (mut out, mut out_ref) = (Frame::default(), Frame::default());
    let mut hand_before = None;
    let mut moved = 0.0f32;
    for f in 0..=90 {
        let frame = f as f64;
        player.evaluate_at(frame, &mut out);
        reference.evaluate_at(frame, &mut out_ref);
        let (got, want) = (player.instance(sb), reference.instance(sb));
        let hand_now = player.instance(sa).skinning()[hand];
        let hand_read = if lag > 0.0 {
            hand_before
        } else {
            Some(hand_now)
        };
        hand_before = Some(hand_now);
        if frame < FROM as f64 {
            assert_eq!(
                got.skinning(),
                want.skinning(),
                "frame {frame}: B moved before its key"
            );
            continue;
        }
        let own = match own_parent {
            odori_pose::model::NONE => Affine3A::IDENTITY,
            p => want.skinning()[p as usize],
        };
        let expected = hand_read.unwrap() * own.inverse() * want.world(follower);
        let off = close(got.world(follower), expected);
        assert!(
            off < 1e-3,
            "frame {frame}: B's {follower_name} is {off} from A's hand's"
        );
        assert_eq!(
            got.world(other_root),
            want.world(other_root),
            "frame {frame}"
        );
        moved = moved
            .max((got.world(follower).translation - want.world(follower).translation).length());
    }
    assert!(
        moved > 1.0,
        "following moved B's {follower_name} by at most {moved}"
    );
}

/// The sample's file and project.
fn sample() -> Option<(std::path::PathBuf, Pmm)> {
    let file = odori_testkit::shared(SAMPLE)?;
    Some((
        file.clone(),
        pmm::parse(&std::fs::read(&file).unwrap()).unwrap(),
    ))
}

#[test]
fn a_model_follows_another_models_hand_from_its_key_on() {
    let Some((file, p)) = sample() else {
        return;
    };
    // A: 鏡音レン, B: 初音ミク, whose first outside-parent bone is センター.
    let (a, b) = (3, 2);
    let hand = "右手首";
    let hand_index = (p.models[a].bone_names.iter())
        .position(|n| n.text() == hand)
        .expect("model A has a right wrist") as i32;
    let plain = without_outside_parents(p, b);
    let mut keyed = following(plain.clone(), a, b, hand_index);
    // A calculated first: B reads A's hand of the same frame.
    keyed.models[a].evaluation_order = 0;
    keyed.models[b].evaluation_order = 1;
    check(&file, &keyed, &plain, a, b, hand, 0.0);
    // B calculated first: B reads A's hand as the frame before left it.
    keyed.models[a].evaluation_order = 1;
    keyed.models[b].evaluation_order = 0;
    check(&file, &keyed, &plain, a, b, hand, 1.0);
}
