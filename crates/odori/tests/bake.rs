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
    let bake = |name: &str, tolerance: &str| {
        let out_path = dir.join(name);
        let out = Command::new(env!("CARGO_BIN_EXE_odori"))
            .arg("bake")
            .arg(&model)
            .arg(&motion)
            .args(["--tolerance", tolerance, "-o"])
            .arg(&out_path)
            .output()
            .unwrap();
        (out_path, out)
    };
    let (full_path, out) = bake("full.vmd", "0");
    let err = String::from_utf8_lossy(&out.stderr);
    if !odori_physics::AVAILABLE {
        assert!(!out.status.success());
        assert!(err.contains("built with ODORI_NO_BULLET=1"), "{err}");
        return;
    }
    assert!(out.status.success(), "{err}");
    assert!(err.contains("baked 23 bones × 2810 frames"), "{err}");
    let original = odori_format::Vmd::read(&motion).unwrap();
    let full = odori_format::Vmd::read(&full_path).unwrap();
    let off = full.bones.iter().filter(|k| k.physics_disabled()).count();
    assert_eq!(
        off,
        23 * 2810,
        "--tolerance 0: one physics-off key per baked bone and frame"
    );
    assert_eq!(full.morphs, original.morphs);
    assert_eq!(full.cameras, original.cameras);

    // The default bake drops keys, and its replay stays within 1e-3 units of the
    // every-frame bake's replay (checked here by the pose runtime on every bone and frame:
    // its origin and the points a unit along its axes, independently of the reduction's own
    // check).
    let (reduced_path, out) = bake("reduced.vmd", "0.001");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    eprintln!("{err}");
    let reduced = odori_format::Vmd::read(&reduced_path).unwrap();
    let kept = reduced
        .bones
        .iter()
        .filter(|k| k.physics_disabled())
        .count();
    // Simulated hair and skirts turn by 0.02–0.07 rad a frame in changing directions, so a
    // key between two others is rarely within 1e-3 of their interpolation: few keys go, but
    // some must (the still stretches of the dance).
    assert!(kept < off, "{kept} of {off} keys kept");
    assert_eq!(reduced.morphs, original.morphs);
    let sizes = (
        std::fs::metadata(&full_path).unwrap().len(),
        std::fs::metadata(&reduced_path).unwrap().len(),
    );
    eprintln!(
        "baked VMD: {} bytes every frame, {} reduced",
        sizes.0, sizes.1
    );
    let pmd = odori_format::Pmd::read(&model).unwrap();
    let compiled = odori_pose::Model::from_pmd(&pmd).unwrap();
    let play = |vmd: &odori_format::Vmd| {
        let motion = odori_pose::Motion::from_vmd(&compiled, vmd);
        let mut inst = odori_pose::Instance::new(&compiled, &motion);
        let mut out = Vec::new();
        for frame in 0..2810 {
            inst.evaluate(&compiled, &motion, frame as f32).unwrap();
            for m in inst.world_transforms() {
                let o = m.translation;
                out.extend([
                    o,
                    o + m.matrix3.x_axis,
                    o + m.matrix3.y_axis,
                    o + m.matrix3.z_axis,
                ]);
            }
        }
        out
    };
    let (a, b) = (play(&full), play(&reduced));
    assert_eq!(a.len(), b.len());
    assert_eq!(
        a.len(),
        4 * 2810 * compiled.bone_count(),
        "every bone of every frame compared"
    );
    let worst = a
        .iter()
        .zip(&b)
        .map(|(p, q)| p.distance(*q))
        .fold(0.0f32, f32::max);
    assert!(worst <= 1e-3, "replay differs by {worst}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A model with no rigid bodies has nothing to bake: an error, and no file (it
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
