//! `odori bake` end to end: a VMD MikuMikuDance can load, with a physics-off key per frame
//! for every simulated bone; or, in a build without Bullet, an error that says what to
//! install.

use std::process::Command;

#[test]
fn bake_writes_physics_keys_or_says_what_to_install() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/miku_v2/miku_v2.pmd"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("odori-bake-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_path = dir.join("baked.vmd");
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .arg("bake")
        .arg(&model)
        .arg(&motion)
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if !odori_physics::AVAILABLE {
        assert!(!out.status.success());
        assert!(err.contains("built with ODORI_NO_BULLET=1"), "{err}");
        return;
    }
    assert!(out.status.success(), "{err}");
    assert!(err.contains("baked 23 bones × 2810 frames"), "{err}");
    let original = odori_format::Vmd::read(&motion).unwrap();
    let baked = odori_format::Vmd::read(&out_path).unwrap();
    let off = baked.bones.iter().filter(|k| k.physics_disabled()).count();
    assert_eq!(
        off,
        23 * 2810,
        "one physics-off key per baked bone and frame"
    );
    assert_eq!(baked.morphs, original.morphs);
    assert_eq!(baked.cameras, original.cameras);
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 20: a model with no rigid bodies has nothing to bake: an error, and no file (it
/// used to write "baked 0 bones" and a copy of the motion).
#[test]
fn a_model_without_rigid_bodies_has_nothing_to_bake() {
    let (Some(motion),) = (odori_testkit::shared("assets/gene/motion/stand.vmd"),) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("odori-bake-none-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // The smallest model: one bone, no mesh, no rigid bodies.
    use odori_format::pmx::*;
    let pmx = Pmx {
        header: Header {
            version: 2.0,
            encoding: TextEncoding::Utf16Le,
            additional_uvs: 0,
            vertex_index_size: 1,
            texture_index_size: 1,
            material_index_size: 1,
            bone_index_size: 1,
            morph_index_size: 1,
            rigid_body_index_size: 1,
            extra_globals: Vec::new(),
        },
        info: ModelInfo {
            name: "no physics".into(),
            ..Default::default()
        },
        vertices: Vec::new(),
        indices: Vec::new(),
        textures: Vec::new(),
        materials: Vec::new(),
        bones: vec![Bone {
            name: "センター".into(),
            name_en: String::new(),
            position: [0.0; 3],
            parent: -1,
            layer: 0,
            flags: bone_flags::ROTATABLE | bone_flags::TRANSLATABLE,
            tail: BoneTail::Offset([0.0; 3]),
            append: None,
            fixed_axis: None,
            local_axes: None,
            external_parent: None,
            ik: None,
        }],
        morphs: Vec::new(),
        display_frames: Vec::new(),
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    };
    let model = dir.join("no_physics.pmx");
    std::fs::write(&model, write(&pmx).unwrap()).unwrap();
    let out_path = dir.join("baked.vmd");
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .arg("bake")
        .arg(&model)
        .arg(&motion)
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no_physics.pmx: nothing to bake"), "{err}");
    assert!(!out_path.exists());
    std::fs::remove_dir_all(&dir).ok();
}
