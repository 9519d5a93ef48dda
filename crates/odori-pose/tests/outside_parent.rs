//! Outside parents (外部親) held to forward kinematics itself. Evidence: the rule says the
//! followed bone takes the place of the bone's own parent, rest offset kept. So two rigs A
//! and B, with a bone of B following a bone of A, must pose as one model in which that bone's
//! parent *is* A's bone (B's bones appended after A's with their rest positions unchanged),
//! evaluated by the ordinary runtime: its FK, IK (B's leg and toe solvers) and append (B's
//! twist bone) then run under A's bone. B dances its own motion (the rig's dance 15 frames
//! later), so reading the wrong model's matrices shows.

mod common;

use odori_format::pmx::{BoneTail, MorphOffsets, Pmx};
use odori_format::sjis::SjisName;
use odori_format::vmd::Vmd;
use odori_pose::{Instance, Model, Motion};

const SUFFIX: &str = "B";

/// The rig's dance with every key `shift` frames later.
fn shifted(vmd: &Vmd, shift: u32) -> Vmd {
    let mut v = vmd.clone();
    v.bones.iter_mut().for_each(|k| k.frame += shift);
    v.morphs.iter_mut().for_each(|k| k.frame += shift);
    v
}

fn renamed<const N: usize>(name: &SjisName<N>) -> SjisName<N> {
    SjisName::new(&format!("{}{SUFFIX}", name.text()))
}

/// `a` with `b`'s bones and morphs appended (names suffixed, indices moved), and `b`'s bone
/// `follower` made a child of `a`'s bone `followed`.
fn merged(a: &Pmx, b: &Pmx, follower: usize, followed: usize) -> Pmx {
    let n = a.bones.len() as i32;
    let at = |i: i32| if i < 0 { i } else { i + n };
    let mut out = a.clone();
    for (i, bone) in b.bones.iter().enumerate() {
        let mut bone = bone.clone();
        bone.name = format!("{}{SUFFIX}", bone.name);
        bone.parent = if i == follower {
            followed as i32
        } else {
            at(bone.parent)
        };
        if let BoneTail::Bone(t) = &mut bone.tail {
            *t = at(*t);
        }
        if let Some(append) = &mut bone.append {
            append.parent = at(append.parent);
        }
        if let Some(ik) = &mut bone.ik {
            ik.target = at(ik.target);
            ik.links.iter_mut().for_each(|l| l.bone = at(l.bone));
        }
        out.bones.push(bone);
    }
    let morphs = a.morphs.len() as i32;
    for morph in &b.morphs {
        let mut morph = morph.clone();
        morph.name = format!("{}{SUFFIX}", morph.name);
        match &mut morph.offsets {
            MorphOffsets::Bone(o) => o.iter_mut().for_each(|o| o.bone = at(o.bone)),
            MorphOffsets::Group(o) => o.iter_mut().for_each(|o| o.morph += morphs),
            _ => panic!("the rig has bone and group morphs only"),
        }
        out.morphs.push(morph);
    }
    out
}

/// Both motions in one, B's tracks renamed as its bones and morphs are.
fn merged_motion(a: &Vmd, b: &Vmd) -> Vmd {
    let mut out = a.clone();
    out.bones.extend(b.bones.iter().map(|k| {
        let mut k = k.clone();
        k.name = renamed(&k.name);
        k
    }));
    out.morphs.extend(b.morphs.iter().map(|k| {
        let mut k = k.clone();
        k.name = renamed(&k.name);
        k
    }));
    out
}

/// Over the dance's frames: B with `follower` following A's `followed` equals the merged
/// model's B part within 1e-4, A equals its part, and the follow moved B (so the comparison
/// could fail).
fn check(follower: usize, followed: usize) {
    let rig = common::rig();
    let (dance_a, dance_b) = (common::dance(), shifted(&common::dance(), 15));
    let model = Model::from_pmx(&rig).unwrap();
    let (motion_a, motion_b) = (
        Motion::from_vmd(&model, &dance_a),
        Motion::from_vmd(&model, &dance_b),
    );
    let (mut a, mut b) = (
        Instance::new(&model, &motion_a),
        Instance::new(&model, &motion_b),
    );
    let mut alone = Instance::new(&model, &motion_b);

    let one = Model::from_pmx(&merged(&rig, &rig, follower, followed)).unwrap();
    let both = Motion::from_vmd(&one, &merged_motion(&dance_a, &dance_b));
    assert!(both.unbound().is_empty(), "{:?}", both.unbound());
    let mut joined = Instance::new(&one, &both);

    let n = model.bone_count();
    let mut moved = 0.0f32;
    for frame in 0..=75 {
        let frame = frame as f32;
        a.evaluate(&model, &motion_a, frame).unwrap();
        b.set_outside_parent(follower, Some(a.skinning()[followed]));
        b.evaluate(&model, &motion_b, frame).unwrap();
        alone.evaluate(&model, &motion_b, frame).unwrap();
        joined.evaluate(&one, &both, frame).unwrap();
        for x in 0..n {
            for (got, want, what) in [
                (a.world(x), joined.world(x), "A"),
                (b.world(x), joined.world(n + x), "B"),
            ] {
                let d = (got.translation - want.translation).length();
                let r = (got.matrix3 - want.matrix3).abs().to_cols_array();
                let r = r.iter().copied().fold(0.0f32, f32::max);
                assert!(
                    d < 1e-4 && r < 1e-4,
                    "frame {frame}, {what}'s bone {x} ({}): {d} units, {r} in rotation",
                    rig.bones[x].name
                );
            }
            let apart = b.world(x).translation - alone.world(x).translation;
            moved = moved.max(apart.length());
        }
    }
    assert!(moved > 1.0, "the follow moved B by at most {moved}");
}

/// B's root, 全ての親, follows A's elbow: the whole of B hangs on A's forearm.
#[test]
fn a_root_follows_another_models_bone_as_its_child_would() {
    check(0, 11);
}

/// B's センター (whose own parent is 全ての親) follows A's twist bone, an append bone: B's
/// legs and B's own twist bone come along, while the legs' IK targets stay with B's
/// 全ての親, so B's solvers reach across from the moved legs to them.
#[test]
fn a_bone_with_a_parent_follows_another_models_append_bone() {
    check(1, common::TWIST);
}

/// B's 左足, the top of its leg solver's chain, follows A's elbow: the solver composes its
/// chain onto the followed bone.
#[test]
fn the_top_of_an_ik_chain_follows_another_models_bone() {
    check(3, 11);
}
