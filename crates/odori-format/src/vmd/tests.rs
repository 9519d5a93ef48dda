//! Interpolation decoding, on bytes copied from real keys.

use super::{Bezier, BoneCurves, BoneKey, CameraKey};
use crate::sjis::SjisName;

/// wavefile_v2.vmd, bone key 0 (older MMD: rows shifted by one byte, a 1 where each runs out).
const WAVEFILE_KEY0: [u8; 64] = [
    20, 64, 64, 20, 20, 0, 0, 20, 107, 64, 64, 107, 107, 127, 127, 107, //
    64, 64, 20, 20, 0, 0, 20, 107, 64, 64, 107, 107, 127, 127, 107, 1, //
    64, 20, 20, 0, 0, 20, 107, 64, 64, 107, 107, 127, 127, 107, 1, 0, //
    20, 20, 0, 0, 20, 107, 64, 64, 107, 107, 127, 127, 107, 1, 0, 0,
];

/// physics_toggle_test_v2_yyb10th.vmd, bone key 2 (MMD 9, physics off from this key).
const PHYSICS_OFF_KEY: [u8; 64] = [
    0, 0, 99, 15, 127, 93, 0, 17, 127, 33, 127, 127, 0, 127, 52, 117, //
    0, 90, 0, 127, 93, 0, 17, 127, 33, 127, 127, 0, 127, 52, 117, 0, //
    90, 0, 127, 93, 0, 17, 127, 33, 127, 127, 0, 127, 52, 117, 0, 0, //
    0, 127, 93, 0, 17, 127, 33, 127, 127, 0, 127, 52, 117, 0, 0, 0,
];

fn key(interpolation: [u8; 64]) -> BoneKey {
    BoneKey {
        name: SjisName::new("センター"),
        frame: 0,
        translation: [0.0; 3],
        rotation: [0.0, 0.0, 0.0, 1.0],
        interpolation,
    }
}

fn bytes(b: Bezier) -> [u8; 4] {
    [b.x1, b.y1, b.x2, b.y2].map(|v| (v * 127.0).round() as u8)
}

#[test]
fn curves_come_from_the_row_diagonals() {
    let c = key(WAVEFILE_KEY0).curves();
    assert_eq!(bytes(c.x), [20, 20, 107, 107]);
    assert_eq!(bytes(c.y), [64, 0, 64, 127]);
    assert_eq!(bytes(c.z), [64, 0, 64, 127]);
    assert_eq!(bytes(c.rotation), [20, 20, 107, 107]);
    assert!(c.x.is_linear() && c.rotation.is_linear() && !c.y.is_linear());
    assert!(!key(WAVEFILE_KEY0).physics_disabled());
}

#[test]
fn physics_flag_does_not_disturb_the_curves() {
    let k = key(PHYSICS_OFF_KEY);
    assert!(k.physics_disabled());
    let c = k.curves();
    // Bytes 2 and 3 hold the flag; the Z and rotation curves are read from rows 2 and 3.
    assert_eq!(bytes(c.x), [0, 127, 127, 0]);
    assert_eq!(bytes(c.y), [0, 93, 33, 127]);
    assert_eq!(bytes(c.z), [90, 0, 127, 52]); // byte 2 would say 99
    assert_eq!(k.interpolation[2], 99);
    assert_eq!(bytes(c.rotation), [0, 17, 127, 117]);
    let mut on = PHYSICS_OFF_KEY;
    on[2..4].copy_from_slice(&[0, 0]);
    assert!(
        !key(on).physics_disabled(),
        "MMD 9 writes 00 00 for physics on"
    );
    on[2..4].copy_from_slice(&[0x63, 0x00]);
    assert!(!key(on).physics_disabled(), "both bytes must match");
}

#[test]
fn encoding_reproduces_older_mmd_bytes() {
    let k = key(WAVEFILE_KEY0);
    assert_eq!(BoneKey::encode_curves(&k.curves(), false), WAVEFILE_KEY0);
    let flagged = BoneKey::encode_curves(&k.curves(), true);
    assert!(key(flagged).physics_disabled());
    assert_eq!(key(flagged).curves(), k.curves());
}

#[test]
fn linear_curves_encode_as_mmds_default_key() {
    let linear = BoneCurves {
        x: Bezier::LINEAR,
        y: Bezier::LINEAR,
        z: Bezier::LINEAR,
        rotation: Bezier::LINEAR,
    };
    let b = BoneKey::encode_curves(&linear, false);
    assert_eq!(
        b[..16],
        [
            20, 20, 20, 20, 20, 20, 20, 20, 107, 107, 107, 107, 107, 107, 107, 107
        ]
    );
    assert_eq!(key(b).curves(), linear);
}

#[test]
fn camera_groups_read_x1_x2_y1_y2() {
    let mut interpolation = [0u8; 24];
    interpolation[..4].copy_from_slice(&[10, 20, 30, 40]);
    let k = CameraKey {
        frame: 0,
        distance: -45.0,
        target: [0.0; 3],
        rotation: [0.0; 3],
        interpolation,
        fov: 30,
        perspective_off: 0,
    };
    assert_eq!(bytes(k.curves().x), [10, 30, 20, 40]);
}
