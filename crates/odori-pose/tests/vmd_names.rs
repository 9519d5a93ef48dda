//! Bone and morph names longer than a VMD holds. A VMD key keeps 15 bytes of the Shift-JIS
//! name (the format's field; MikuMikuDance cuts there, mid-character if need be: MMD's own
//! sample project has Luka's 右前スカート裾先, 16 bytes, and 右外枝後髪後列３ and ４, which share
//! their first 15). Evidence: the field's size, and MikuMikuDance reading back what it wrote,
//! so a key must bind to the model's name that starts with those 15 bytes; of two names that
//! share them, to the first in the model.

mod common;

use glam::Quat;
use odori_format::sjis::{SjisName, encode_sjis};
use odori_pose::{Instance, Model, Motion};

/// The first 15 bytes of `name` in Shift-JIS, cut as MMD cuts them.
fn cut(name: &str) -> SjisName<15> {
    let bytes = encode_sjis(name);
    let mut field = [0u8; 15];
    let n = bytes.len().min(15);
    field[..n].copy_from_slice(&bytes[..n]);
    SjisName(field)
}

#[test]
fn keys_bind_to_names_longer_than_the_vmd_holds() {
    // 左ひじ and 左腕捩 renamed to two 20-byte names sharing their first 15 bytes
    // (ながいながいボー is 16 bytes: the cut splits ー).
    let (first, second) = ("ながいながいボーン１", "ながいながいボーン２");
    assert!(encode_sjis(first).len() > 15 && encode_sjis(first)[..15] == encode_sjis(second)[..15]);
    let mut rig = common::rig();
    rig.bones[11].name = first.into();
    rig.bones[12].name = second.into();
    let morph = "うでをあげるモーフです";
    rig.morphs[0].name = morph.into();
    let model = Model::from_pmx(&rig).unwrap();

    let turn = [0.0, 0.0, 0.258819, 0.9659258];
    let mut vmd = common::motion_of(vec![common::key(
        "x",
        0,
        [0.0; 3],
        turn,
        [20, 20, 107, 107],
    )]);
    vmd.bones[0].name = cut(first);
    vmd.morphs = vec![odori_format::vmd::MorphKey {
        name: cut(morph),
        frame: 0,
        weight: 0.75,
    }];
    let motion = Motion::from_vmd(&model, &vmd);
    assert!(motion.unbound().is_empty(), "{:?}", motion.unbound());

    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 0.0).unwrap();
    let q = Quat::from_array(turn);
    assert!(
        inst.pose_rotations()[11].abs_diff_eq(q, 1e-6),
        "the first name takes the track"
    );
    assert_eq!(
        inst.pose_rotations()[12],
        Quat::IDENTITY,
        "the second does not"
    );
    assert_eq!(inst.morph_weights()[0], 0.75);
}
