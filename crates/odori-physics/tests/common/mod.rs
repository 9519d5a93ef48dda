//! A small physics rig built in code (tests that must run without `../shared`): a head that
//! follows its bone, a two-body hair strand jointed below it, a tip bone with no body, and a
//! motion that sways the head left and right.

#![allow(dead_code)]

use odori_format::pmx::*;
use odori_format::sjis::SjisName;
use odori_format::vmd::{BoneCurves, BoneKey, Vmd};
use std::f32::consts::FRAC_PI_4;

pub const CENTER: usize = 0;
pub const HEAD: usize = 1;
pub const HAIR1: usize = 2;
pub const HAIR2: usize = 3;
pub const TIP: usize = 4;

fn bone(name: &str, position: [f32; 3], parent: i32) -> Bone {
    Bone {
        name: name.into(),
        name_en: String::new(),
        position,
        parent,
        layer: 0,
        flags: bone_flags::ROTATABLE
            | bone_flags::TRANSLATABLE
            | bone_flags::VISIBLE
            | bone_flags::ENABLED,
        tail: BoneTail::Offset([0.0, 0.0, 0.0]),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

pub fn body(
    name: &str,
    bone: i32,
    shape: u8,
    size: [f32; 3],
    position: [f32; 3],
    mode: u8,
) -> RigidBody {
    RigidBody {
        name: name.into(),
        name_en: String::new(),
        bone,
        group: if mode == 0 { 0 } else { 1 },
        // Hair (group 1) does not collide with itself or the head (group 0).
        collision_mask: if mode == 0 { 0xFFFF } else { 0xFFFC },
        shape,
        size,
        position,
        rotation: [0.0; 3],
        mass: 1.0,
        linear_damping: 0.5,
        angular_damping: 0.5,
        restitution: 0.0,
        friction: 0.5,
        mode,
    }
}

pub fn joint(name: &str, a: i32, b: i32, position: [f32; 3]) -> Joint {
    Joint {
        name: name.into(),
        name_en: String::new(),
        kind: 0,
        body_a: a,
        body_b: b,
        position,
        rotation: [0.0; 3],
        translation_min: [0.0; 3],
        translation_max: [0.0; 3],
        rotation_min: [-FRAC_PI_4; 3],
        rotation_max: [FRAC_PI_4; 3],
        spring_translation: [0.0; 3],
        spring_rotation: [0.0; 3],
    }
}

/// Bones 0 センター (root), 1 頭, 2 髪1, 3 髪2, 4 髪先 (no body). Bodies: 0 head (mode 0),
/// 1 hair 1 (mode 2), 2 hair 2 (mode 2, promoted to 1 by the mode-2 rule). Joints: head–hair 1
/// at the hair root, hair 1–hair 2 between them.
pub fn rig() -> Pmx {
    let bones = vec![
        bone("センター", [0.0, 10.0, 0.0], -1),
        bone("頭", [0.0, 12.0, 0.0], 0),
        bone("髪1", [0.0, 12.0, 1.0], 1),
        bone("髪2", [0.0, 10.0, 1.0], 2),
        bone("髪先", [0.0, 8.0, 1.0], 3),
    ];
    let rigid_bodies = vec![
        body("頭", 1, 0, [1.0, 0.0, 0.0], [0.0, 12.0, 0.0], 0),
        body("髪1", 2, 2, [0.2, 1.6, 0.0], [0.0, 11.0, 1.0], 2),
        body("髪2", 3, 2, [0.2, 1.6, 0.0], [0.0, 9.0, 1.0], 2),
    ];
    let joints = vec![
        joint("頭-髪1", 0, 1, [0.0, 12.0, 1.0]),
        joint("髪1-髪2", 1, 2, [0.0, 10.0, 1.0]),
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
            name: "physics rig".into(),
            ..Default::default()
        },
        vertices: Vec::new(),
        indices: Vec::new(),
        textures: Vec::new(),
        materials: Vec::new(),
        bones,
        morphs: Vec::new(),
        display_frames: Vec::new(),
        rigid_bodies,
        joints,
        soft_bodies: Vec::new(),
    }
}

pub fn key(name: &str, frame: u32, t: [f32; 3], physics_off: bool) -> BoneKey {
    let c = odori_format::vmd::Bezier::LINEAR;
    let curves = BoneCurves {
        x: c,
        y: c,
        z: c,
        rotation: c,
    };
    BoneKey {
        name: SjisName::new(name),
        frame,
        translation: t,
        rotation: [0.0, 0.0, 0.0, 1.0],
        interpolation: BoneKey::encode_curves(&curves, physics_off),
    }
}

pub fn vmd(bones: Vec<BoneKey>) -> Vmd {
    Vmd {
        magic: {
            let mut m = [0u8; 30];
            m[..25].copy_from_slice(odori_format::vmd::MAGIC_V2);
            m
        },
        model_name: SjisName::new("physics rig"),
        bones,
        morphs: Vec::new(),
        cameras: Vec::new(),
        lights: Vec::new(),
        self_shadows: Vec::new(),
        properties: Vec::new(),
        sections_present: 6,
    }
}

/// The centre sways 4 units to the side and back over 60 frames.
pub fn sway() -> Vmd {
    vmd(vec![
        key("センター", 0, [0.0, 0.0, 0.0], false),
        key("センター", 20, [4.0, 0.0, 0.0], false),
        key("センター", 40, [-4.0, 0.0, 0.0], false),
        key("センター", 60, [0.0, 0.0, 0.0], false),
    ])
}

/// Environment variable that makes a build without Bullet a test failure (set it in CI,
/// so physics tests cannot silently skip in a build made with `ODORI_NO_BULLET=1`).
pub const REQUIRE_PHYSICS: &str = "ODORI_REQUIRE_PHYSICS";

/// A physics world, or `None` after a skip notice when odori was built without Bullet
/// (a failure instead when `ODORI_REQUIRE_PHYSICS=1`).
pub fn world(
    rig: &odori_physics::PhysicsModel,
    model: &odori_pose::Model,
) -> Option<odori_physics::PhysicsWorld> {
    world_with(rig, model, odori_physics::PhysicsConfig::default())
}

pub fn world_with(
    rig: &odori_physics::PhysicsModel,
    model: &odori_pose::Model,
    config: odori_physics::PhysicsConfig,
) -> Option<odori_physics::PhysicsWorld> {
    match odori_physics::PhysicsWorld::new(rig, model, config) {
        Ok(w) => Some(w),
        Err(e) => {
            if std::env::var(REQUIRE_PHYSICS).is_ok_and(|v| v == "1") {
                panic!("{e}, and {REQUIRE_PHYSICS}=1 forbids skipping");
            }
            eprintln!("SKIPPED: {e}");
            None
        }
    }
}

/// A model of `../shared` compiled, with wavefile_v2 bound to it, and its physics rig.
pub struct Dancing {
    pub model: odori_pose::Model,
    pub motion: odori_pose::Motion,
    pub rig: odori_physics::PhysicsModel,
}

fn wavefile(
    model: odori_pose::Model,
    rig: impl FnOnce(&odori_pose::Model) -> odori_physics::PhysicsModel,
) -> Option<Dancing> {
    let vmd = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    let motion = odori_pose::Motion::from_vmd(&model, &Vmd::read(vmd).unwrap());
    let rig = rig(&model);
    Some(Dancing { model, motion, rig })
}

/// Gene_light.pmx × wavefile_v2, or `None` (after a skip notice) without `../shared`.
pub fn gene_wavefile() -> Option<Dancing> {
    let pmx = Pmx::read(odori_testkit::shared("assets/gene/Gene_light.pmx")?).unwrap();
    let model = odori_pose::Model::from_pmx(&pmx).unwrap();
    wavefile(model, |m| odori_physics::PhysicsModel::from_pmx(&pmx, m))
}

/// miku_v2.pmd × wavefile_v2, or `None` (after a skip notice) without `../shared`.
pub fn miku_wavefile() -> Option<Dancing> {
    let pmd =
        odori_format::Pmd::read(odori_testkit::shared("assets/miku_v2/miku_v2.pmd")?).unwrap();
    let model = odori_pose::Model::from_pmd(&pmd).unwrap();
    wavefile(model, |m| odori_physics::PhysicsModel::from_pmd(&pmd, m))
}
