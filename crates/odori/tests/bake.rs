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
        assert!(err.contains("apt-get install libbullet-dev"), "{err}");
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

