//! The demo dance: eight seconds at 120 BPM (a beat every 15 frames) — a bouncing side step
//! on IK feet, hips and chest swaying against each other, waving arms, head bobs, blinks, a
//! blush (material morph), and a camera that orbits slowly with one cut to a close-up.

use super::model::b;
use glam::{EulerRot, Quat};
use odori_format::SjisName;
use odori_format::vmd::{self, Bezier, BoneCurves, BoneKey, CameraKey, MorphKey, Vmd};

/// Frames in the dance (8 s at 30 fps).
pub const FRAMES: u32 = 240;
const BEAT: u32 = 15;

/// Bone names by index, as the model names them.
fn bone_name(i: i32) -> &'static str {
    const NAMES: [&str; 20] = [
        "センター",
        "下半身",
        "上半身",
        "上半身2",
        "首",
        "頭",
        "左腕",
        "左ひじ",
        "左手首",
        "右腕",
        "右ひじ",
        "右手首",
        "左足",
        "左ひざ",
        "左足首",
        "右足",
        "右ひざ",
        "右足首",
        "左足ＩＫ",
        "右足ＩＫ",
    ];
    NAMES[i as usize]
}

/// Ease in and out (MMD's common "soft" curve).
const EASE: Bezier = Bezier {
    x1: 40.0 / 127.0,
    y1: 0.0,
    x2: 87.0 / 127.0,
    y2: 1.0,
};

fn key(bone: i32, frame: u32, t: [f32; 3], euler_deg: [f32; 3]) -> BoneKey {
    let [x, y, z] = euler_deg.map(f32::to_radians);
    let q = Quat::from_euler(EulerRot::YXZ, y, x, z);
    let curves = BoneCurves {
        x: EASE,
        y: EASE,
        z: EASE,
        rotation: EASE,
    };
    BoneKey {
        name: SjisName::new(bone_name(bone)),
        frame,
        translation: t,
        rotation: q.to_array(),
        interpolation: BoneKey::encode_curves(&curves, false),
    }
}

/// The keys of the dance.
pub fn dance() -> Vmd {
    let mut bones = Vec::new();
    let beats = FRAMES / BEAT;
    for beat in 0..=beats {
        let f = beat * BEAT;
        let even = beat % 2 == 0;
        let side = if (beat / 2) % 2 == 0 { 1.0 } else { -1.0 };
        let bar_start = beat == 0 || beat == beats;
        // Centre: dip on every beat, sway a step to the side every two beats.
        let dip = if bar_start {
            0.0
        } else if even {
            -0.7
        } else {
            -0.2
        };
        let sway = if bar_start { 0.0 } else { 0.9 * side };
        bones.push(key(b::CENTER, f, [sway, dip, 0.0], [0.0, 0.0, 0.0]));
        // Feet follow the step; the trailing foot lifts on the off-beat.
        for (i, s) in [1.0f32, -1.0].into_iter().enumerate() {
            let lift = if !even && (s > 0.0) == (side < 0.0) && !bar_start {
                0.9
            } else {
                0.0
            };
            let x = if bar_start { 0.0 } else { sway * 0.8 };
            bones.push(key(
                b::IK[i],
                f,
                [x, lift, if lift > 0.0 { -0.4 } else { 0.0 }],
                [0.0, 0.0, 0.0],
            ));
        }
        let sw = if bar_start { 0.0 } else { side };
        bones.push(key(b::LOWER, f, [0.0; 3], [0.0, 12.0 * sw, 0.0]));
        bones.push(key(
            b::UPPER,
            f,
            [0.0; 3],
            [if even { 6.0 } else { 0.0 }, -14.0 * sw, -5.0 * sw],
        ));
        bones.push(key(
            b::HEAD,
            f,
            [0.0; 3],
            [if even { 10.0 } else { -4.0 }, 10.0 * sw, 6.0 * sw],
        ));
        // Arms: alternate raising; elbows bend on the raised side.
        for (i, s) in [1.0f32, -1.0].into_iter().enumerate() {
            let up = !bar_start && ((beat / 2) % 2 == 0) == (i == 0);
            let z = if bar_start {
                0.0
            } else if up {
                75.0
            } else {
                -10.0
            };
            let swing = if even { 15.0 } else { -15.0 };
            bones.push(key(b::ARM[i], f, [0.0; 3], [0.0, swing * s * 0.5, z * s]));
            let bend = if up { 40.0 } else { 25.0 };
            bones.push(key(b::ELBOW[i], f, [0.0; 3], [0.0, -bend * s, 0.0]));
            bones.push(key(
                b::WRIST[i],
                f,
                [0.0; 3],
                [0.0, 0.0, if even { 20.0 } else { -20.0 } * s],
            ));
        }
    }
    let mut morphs = Vec::new();
    for start in [40u32, 118, 196] {
        for (df, w) in [(0, 0.0), (3, 1.0), (5, 1.0), (8, 0.0)] {
            morphs.push(MorphKey {
                name: SjisName::new("まばたき"),
                frame: start + df,
                weight: w,
            });
        }
    }
    // Blush through the middle of the dance (after the camera's cut to the close-up).
    for (frame, w) in [(110u32, 0.0), (130, 1.0), (170, 1.0), (190, 0.0)] {
        morphs.push(MorphKey {
            name: SjisName::new("照れ"),
            frame,
            weight: w,
        });
    }
    let mut magic = [0u8; 30];
    magic[..vmd::MAGIC_V2.len()].copy_from_slice(vmd::MAGIC_V2);
    Vmd {
        magic,
        model_name: SjisName::new("odori demo"),
        bones,
        morphs,
        cameras: camera(),
        lights: Vec::new(),
        self_shadows: Vec::new(),
        properties: Vec::new(),
        sections_present: 5,
    }
}

/// Camera curve bytes: six groups (x1, x2, y1, y2) of a gentle ease.
fn camera_interp() -> [u8; 24] {
    let mut b = [0u8; 24];
    for g in 0..6 {
        b[g * 4..g * 4 + 4].copy_from_slice(&[30, 97, 10, 117]);
    }
    b
}

fn camera() -> Vec<CameraKey> {
    let cam = |frame, target: [f32; 3], rot_deg: [f32; 3], distance, fov| CameraKey {
        frame,
        distance,
        target,
        rotation: rot_deg.map(f32::to_radians),
        interpolation: camera_interp(),
        fov,
        perspective_off: 0,
    };
    vec![
        cam(0, [0.0, 9.0, 0.0], [-4.0, -25.0, 0.0], -42.0, 30),
        cam(119, [0.0, 9.5, 0.0], [-8.0, 20.0, 0.0], -38.0, 30),
        // A cut: keys one frame apart jump.
        cam(120, [0.0, 12.0, 0.0], [-10.0, 0.0, 0.0], -22.0, 28),
        cam(180, [0.0, 11.0, 0.0], [-5.0, -15.0, 0.0], -26.0, 30),
        cam(FRAMES, [0.0, 9.0, 0.0], [-3.0, 10.0, 0.0], -42.0, 30),
    ]
}
