//! VMD camera sampling against babylon-mmd's camera for wavefile_camera.vmd, every frame
//! (`oracle-ref/wavefile_camera__js.json`: target, rotation, distance, fov, eye).
//!
//! Tolerance: 0.02 units on target and eye, 0.02 on distance, 1e-3 rad on rotation and FOV.
//! babylon-mmd solves the Bezier curves by bisection (≈1e-5 in the eased weight), which over
//! camera moves of ~100 units is ≈1e-3 units; the margin above that absorbs f32 rounding.

use glam::Vec3;
use odori_format::Vmd;
use odori_pose::camera::CameraMotion;

#[test]
fn wavefile_camera_matches_babylon_mmd() {
    let (Some(vmd), Some(oracle), Some(family)) = (
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
        odori_testkit::shared("oracle-ref/wavefile_camera__js.json"),
        odori_testkit::oracle_files(odori_testkit::OracleFamily::Camera),
    ) else {
        return;
    };
    // The one camera dump in oracle-ref is this one: any other would go uncompared.
    let compared = std::collections::HashSet::from(["wavefile_camera__js.json".to_string()]);
    odori_testkit::assert_all_compared("camera dumps", &family, &compared);
    let vmd = Vmd::read(vmd).unwrap();
    let cam = CameraMotion::from_keys(&vmd.cameras).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(oracle).unwrap()).unwrap();
    let v3 = |v: &serde_json::Value| {
        Vec3::new(
            v[0].as_f64().unwrap() as f32,
            v[1].as_f64().unwrap() as f32,
            v[2].as_f64().unwrap() as f32,
        )
    };
    let mut worst = [0.0f32; 5];
    let frames = json["frames"].as_array().unwrap();
    assert!(frames.len() > 2000);
    for f in frames {
        let frame = f["frame"].as_f64().unwrap() as f32;
        let p = cam.sample(frame);
        let errs = [
            (p.target - v3(&f["target"])).length(),
            (p.eye() - v3(&f["eye"])).length(),
            (p.rotation - v3(&f["rotation"])).abs().max_element(),
            (p.distance - f["distance"].as_f64().unwrap() as f32).abs(),
            (p.fov - f["fov"].as_f64().unwrap() as f32).abs(),
        ];
        for (w, e) in worst.iter_mut().zip(errs) {
            *w = w.max(e);
        }
        assert!(
            errs[0] < 0.02 && errs[1] < 0.02 && errs[2] < 1e-3 && errs[3] < 0.02 && errs[4] < 1e-3,
            "frame {frame}: errors (target, eye, rotation, distance, fov) = {errs:?}"
        );
    }
    eprintln!(
        "{} frames; worst target {:.5}, eye {:.5}, rotation {:.6}, distance {:.5}, fov {:.6}",
        frames.len(),
        worst[0],
        worst[1],
        worst[2],
        worst[3],
        worst[4]
    );
}
