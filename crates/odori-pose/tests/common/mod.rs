//! A small MMD rig built in code: legs with IK (knee limits, toe IK), an append twist bone,
//! a bone morph inside a group morph, and a motion for it. Tests that must run without
//! `../shared` use it.

#![allow(dead_code)]

use odori_format::pmx::*;
use odori_format::sjis::SjisName;
use odori_format::vmd::{BoneKey, MorphKey, Vmd};

fn bone(name: &str, position: [f32; 3], parent: i32) -> Bone {
    Bone {
        name: name.into(),
        name_en: String::new(),
        position,
        parent,
        layer: 0,
        flags: bone_flags::ROTATABLE | bone_flags::VISIBLE | bone_flags::ENABLED,
        tail: BoneTail::Offset([0.0, 0.0, 0.0]),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

fn ik_bone(name: &str, position: [f32; 3], parent: i32, target: i32, links: Vec<IkLink>) -> Bone {
    let mut b = bone(name, position, parent);
    b.flags |= bone_flags::IK | bone_flags::TRANSLATABLE;
    b.ik = Some(Ik {
        target,
        loop_count: 40,
        limit_angle: 2.0,
        links,
    });
    b
}

pub const KNEE: usize = 4;
pub const ANKLE: usize = 5;
pub const TOE: usize = 6;
pub const LEG_IK: usize = 7;
pub const TOE_IK: usize = 8;
pub const TWIST: usize = 12;

/// The rig: 0 全ての親, 1 センター, 2 下半身, 3 左足, 4 左ひざ, 5 左足首, 6 左つま先,
/// 7 左足ＩＫ, 8 左つま先ＩＫ, 9 上半身, 10 左腕, 11 左ひじ, 12 左腕捩 (append 0.5 of 左腕).
pub fn rig() -> Pmx {
    let knee = IkLimits {
        min: [-std::f32::consts::PI, 0.0, 0.0],
        max: [-0.008727, 0.0, 0.0],
    };
    let mut bones = vec![
        bone("全ての親", [0.0, 0.0, 0.0], -1),
        bone("センター", [0.0, 8.0, 0.0], 0),
        bone("下半身", [0.0, 10.0, 0.0], 1),
        bone("左足", [1.0, 9.5, 0.0], 2),
        bone("左ひざ", [1.0, 5.0, -0.2], 3),
        bone("左足首", [1.0, 1.0, 0.2], 4),
        bone("左つま先", [1.0, 0.0, -1.5], 5),
        ik_bone(
            "左足ＩＫ",
            [1.0, 1.0, 0.2],
            0,
            5,
            vec![
                IkLink {
                    bone: 4,
                    limits: Some(knee),
                },
                IkLink {
                    bone: 3,
                    limits: None,
                },
            ],
        ),
        ik_bone(
            "左つま先ＩＫ",
            [1.0, 0.0, -1.5],
            7,
            6,
            vec![IkLink {
                bone: 5,
                limits: None,
            }],
        ),
        bone("上半身", [0.0, 10.5, 0.0], 1),
        bone("左腕", [2.0, 14.0, 0.0], 9),
        bone("左ひじ", [4.5, 12.5, 0.0], 10),
        bone("左腕捩", [3.2, 13.3, 0.0], 10),
    ];
    bones[TOE_IK].ik.as_mut().unwrap().loop_count = 3;
    bones[TOE_IK].ik.as_mut().unwrap().limit_angle = 4.0;
    bones[TWIST].flags |= bone_flags::APPEND_ROTATE;
    bones[TWIST].append = Some(Append {
        parent: 10,
        ratio: 0.5,
    });
    let morphs = vec![
        Morph {
            name: "腕上げ".into(),
            name_en: String::new(),
            panel: 4,
            offsets: MorphOffsets::Bone(vec![BoneOffset {
                bone: 10,
                translation: [0.0, 0.0, 0.0],
                rotation: [0.0, 0.0, 0.258819, 0.9659258],
            }]),
        },
        Morph {
            name: "グループ".into(),
            name_en: String::new(),
            panel: 4,
            offsets: MorphOffsets::Group(vec![GroupOffset {
                morph: 0,
                ratio: 0.5,
            }]),
        },
    ];
    Pmx {
        header: Header {
            version: 2.0,
            encoding: TextEncoding::Utf16Le,
            additional_uvs: 0,
            vertex_index_size: 2,
            texture_index_size: 1,
            material_index_size: 1,
            bone_index_size: 1,
            morph_index_size: 1,
            rigid_body_index_size: 1,
            extra_globals: Vec::new(),
        },
        info: ModelInfo {
            name: "rig".into(),
            ..Default::default()
        },
        vertices: Vec::new(),
        indices: Vec::new(),
        textures: Vec::new(),
        materials: Vec::new(),
        bones,
        morphs,
        display_frames: Vec::new(),
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    }
}

/// [`rig`] with a right leg mirroring the left (bones 13–18: 右足, 右ひざ, 右足首, 右つま先,
/// 右足ＩＫ, 右つま先ＩＫ), so that its two leg solvers and two toe solvers are independent.
pub fn two_legged_rig() -> Pmx {
    let mut pmx = rig();
    let n = pmx.bones.len() as i32;
    let mirror = |i: usize, name: &str, parent: i32| {
        let mut b = pmx.bones[i].clone();
        b.name = name.into();
        b.position[0] = -b.position[0];
        b.parent = parent;
        b
    };
    let (thigh, knee, ankle, toe, leg_ik) = (n, n + 1, n + 2, n + 3, n + 4);
    let mut right = vec![
        mirror(3, "右足", 2),
        mirror(KNEE, "右ひざ", thigh),
        mirror(ANKLE, "右足首", knee),
        mirror(TOE, "右つま先", ankle),
        mirror(LEG_IK, "右足ＩＫ", 0),
        mirror(TOE_IK, "右つま先ＩＫ", leg_ik),
    ];
    let ik = right[4].ik.as_mut().unwrap();
    ik.target = ankle;
    ik.links[0].bone = knee;
    ik.links[1].bone = thigh;
    let ik = right[5].ik.as_mut().unwrap();
    ik.target = toe;
    ik.links[0].bone = ankle;
    pmx.bones.extend(right);
    pmx
}

/// [`dance`] with the right foot stepping too, out of reach at frame 20, and each ankle (an
/// effector) turning while the other stays at rest: the left one until frame 35, the right one
/// after it.
pub fn two_legged_dance() -> Vmd {
    let mut vmd = dance();
    let flat = [20, 20, 107, 107];
    vmd.bones.extend([
        key("左足首", 0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], flat),
        key("左足首", 20, [0.0, 0.0, 0.0], [0.2, 0.0, 0.05, 0.978], flat),
        key("左足首", 35, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], flat),
        key("右足首", 35, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], flat),
        key(
            "右足首",
            50,
            [0.0, 0.0, 0.0],
            [-0.15, 0.05, 0.0, 0.987],
            flat,
        ),
        key("右足ＩＫ", 0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], flat),
        key(
            "右足ＩＫ",
            20,
            [-0.5, 3.0, 4.0],
            [0.0, 0.2, 0.0, 0.98],
            [30, 0, 90, 127],
        ),
        key("右足ＩＫ", 45, [0.2, 1.0, -0.5], [0.0, 0.0, 0.0, 1.0], flat),
        key("下半身", 0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], flat),
        key("下半身", 35, [0.0, 0.0, 0.0], [0.0, 0.1, 0.05, 0.99], flat),
    ]);
    vmd
}

/// Property keys switching the right leg's IK off for frames 25–34 (the left stays on): a
/// pair of leg solvers then runs one solver alone.
pub fn right_leg_ik_off_from_25_to_34(vmd: &mut Vmd) {
    let ik = |name: &str, enabled: u8| odori_format::vmd::IkState {
        name: SjisName::new(name),
        enabled,
    };
    vmd.properties = vec![
        odori_format::vmd::PropertyKey {
            frame: 25,
            visible: 1,
            ik: vec![ik("左足ＩＫ", 1), ik("右足ＩＫ", 0)],
        },
        odori_format::vmd::PropertyKey {
            frame: 35,
            visible: 1,
            ik: vec![ik("左足ＩＫ", 1), ik("右足ＩＫ", 1)],
        },
    ];
}

/// A bone key at `frame` with one Bezier curve (bytes x1, y1, x2, y2) for every channel.
pub fn key(name: &str, frame: u32, t: [f32; 3], r: [f32; 4], curve: [u8; 4]) -> BoneKey {
    let c = odori_format::vmd::Bezier::from_bytes(curve[0], curve[1], curve[2], curve[3]);
    let curves = odori_format::vmd::BoneCurves {
        x: c,
        y: c,
        z: c,
        rotation: c,
    };
    BoneKey {
        name: SjisName::new(name),
        frame,
        translation: t,
        rotation: r,
        interpolation: BoneKey::encode_curves(&curves, false),
    }
}

/// A motion of these bone keys only.
pub fn motion_of(bones: Vec<BoneKey>) -> Vmd {
    Vmd {
        bones,
        morphs: Vec::new(),
        ..dance()
    }
}

/// A 60-frame motion: the centre bobs, the foot IK steps, the arm swings, the group morph
/// rises and falls.
pub fn dance() -> Vmd {
    let (s, c) = (0.3f32.sin(), 0.3f32.cos());
    Vmd {
        magic: {
            let mut m = [0u8; 30];
            m[..25].copy_from_slice(odori_format::vmd::MAGIC_V2);
            m
        },
        model_name: SjisName::new("rig"),
        bones: vec![
            key(
                "センター",
                0,
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [20, 20, 107, 107],
            ),
            key(
                "センター",
                30,
                [0.0, -1.5, 0.5],
                [0.0, 0.0, 0.0, 1.0],
                [64, 0, 64, 127],
            ),
            key(
                "センター",
                60,
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [20, 20, 107, 107],
            ),
            key(
                "左足ＩＫ",
                0,
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [20, 20, 107, 107],
            ),
            key(
                "左足ＩＫ",
                30,
                [0.3, 2.0, -1.0],
                [s, 0.0, 0.0, c],
                [10, 90, 40, 120],
            ),
            key(
                "左足ＩＫ",
                60,
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [20, 20, 107, 107],
            ),
            key(
                "左腕",
                0,
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [20, 20, 107, 107],
            ),
            key(
                "左腕",
                40,
                [0.0, 0.0, 0.0],
                [0.2, 0.3, -0.4, 0.84],
                [40, 10, 90, 120],
            ),
        ],
        morphs: vec![
            MorphKey {
                name: SjisName::new("グループ"),
                frame: 0,
                weight: 0.0,
            },
            MorphKey {
                name: SjisName::new("グループ"),
                frame: 20,
                weight: 1.0,
            },
            MorphKey {
                name: SjisName::new("グループ"),
                frame: 50,
                weight: 0.0,
            },
        ],
        cameras: Vec::new(),
        lights: Vec::new(),
        self_shadows: Vec::new(),
        properties: Vec::new(),
        sections_present: 2,
    }
}

/// The shared real models with legs (Gene as PMX and PMD, Miku v2 as PMD), each compiled,
/// with wavefile_v2 bound to it: `None` (after the skip notice) without `../shared`.
pub fn real_dancers() -> Option<Vec<(std::path::PathBuf, odori_pose::Model, odori_pose::Motion)>> {
    let vmd = Vmd::read(odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?).unwrap();
    let mut out = Vec::new();
    for rel in [
        "assets/gene/Gene_light.pmx",
        "assets/gene/Gene_light.pmd",
        "assets/miku_v2/miku_v2.pmd",
    ] {
        let path = odori_testkit::shared(rel)?;
        let model = if path.extension().unwrap() == "pmx" {
            odori_pose::Model::from_pmx(&odori_format::Pmx::read(&path).unwrap()).unwrap()
        } else {
            odori_pose::Model::from_pmd(&odori_format::Pmd::read(&path).unwrap()).unwrap()
        };
        let motion = odori_pose::Motion::from_vmd(&model, &vmd);
        out.push((path, model, motion));
    }
    Some(out)
}

/// Every bone's world and skinning matrix of `a` and `b` (instances of `model`) match bit for
/// bit; `at` names the case in the failure message.
pub fn assert_same_matrices(
    model: &odori_pose::Model,
    a: &odori_pose::Instance,
    b: &odori_pose::Instance,
    at: &dyn std::fmt::Display,
) {
    let bits = |m: glam::Affine3A| m.to_cols_array().map(f32::to_bits);
    for bone in 0..model.bone_count() {
        assert_eq!(
            (bits(a.world(bone)), bits(a.skinning()[bone])),
            (bits(b.world(bone)), bits(b.skinning()[bone])),
            "{}: bone {bone} ({}) {at}",
            model.name(),
            model.bone_names()[bone]
        );
    }
}
