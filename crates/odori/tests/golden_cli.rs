//! A golden image of the command line's own path: `odori render` of Gene_light.pmx dancing
//! wavefile_v2 under its camera (wavefile_camera.vmd), physics on (the default), frame 900 at
//! 256×256, once with CPU skinning and once with GPU skinning, both held to the one golden
//! (`tests/golden/cli_gene_light_0900.png`, blessed from the CPU render) by
//! `odori_testkit::golden`'s rule over covered pixels. Skipped without ../shared, a GPU adapter
//! or Bullet unless `ODORI_REQUIRE_SHARED`, `ODORI_REQUIRE_GPU`, `ODORI_REQUIRE_PHYSICS` are 1.
//! Multisampling is pinned off (`--msaa 1`, the default on software rasterisers) so that a
//! GPU machine renders what the golden holds.

use std::path::{Path, PathBuf};
use std::process::Command;

const NAME: &str = "cli_gene_light_0900";

fn render(model: &Path, motion: &Path, camera: &Path, skinning: &str) -> image::RgbaImage {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join(format!("{skinning}.png"));
    let _ = std::fs::remove_file(&png);
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .arg("render")
        .arg(model)
        .arg(motion)
        .arg("--camera")
        .arg(camera)
        .args(["--range", "900:900", "--size", "256x256", "--msaa", "1"])
        .args(["--skinning", skinning, "-o"])
        .arg(&png)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "odori render --skinning {skinning}:\n{err}"
    );
    assert!(
        !err.contains("without physics"),
        "--skinning {skinning} ran without physics:\n{err}"
    );
    image::open(&png).unwrap().to_rgba8()
}

#[test]
fn gene_light_frame_900_cpu_and_gpu_skinning() {
    let (Some(model), Some(motion), Some(camera)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    if odori_render::gpu::for_tests().is_none() {
        return;
    }
    if !odori_physics::AVAILABLE {
        if std::env::var("ODORI_REQUIRE_PHYSICS").is_ok_and(|v| v == "1") {
            panic!("odori built without Bullet, and ODORI_REQUIRE_PHYSICS=1 forbids skipping");
        }
        eprintln!("SKIPPED: odori built without Bullet (physics), so no golden of its render");
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let limits = odori_testkit::golden::LIMITS;
    let cpu = render(&model, &motion, &camera, "cpu");
    odori_testkit::golden::check(&dir, NAME, &cpu, out, limits);
    let gpu = render(&model, &motion, &camera, "gpu");
    eprintln!("--skinning gpu against the same golden:");
    odori_testkit::golden::verify(&dir, NAME, &gpu, out, limits);
}
