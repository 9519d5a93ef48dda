//! `odori extract` and `odori info` on MikuMikuDance's sample project: the VMD files written
//! pose every model exactly as the project's keys converted in memory do, and info lists
//! every model found and every accessory missing.

use odori_format::{Pmd, Vmd};
use odori_playback::project::Project;
use odori_pose::{Instance, Model, Motion};
use std::path::PathBuf;
use std::process::Command;

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";

fn odori() -> Command {
    Command::new(env!("CARGO_BIN_EXE_odori"))
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("odori-extract-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Evidence: the project's own keys, converted in memory by the same library, posed by the
/// pose runtime; the extracted file must give the same world matrix bits for every bone of
/// every model at every 5th frame of its motion (and the file must hold the same keys).
#[test]
fn extracted_vmds_pose_every_model_as_the_project_does() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let out = temp_dir("pose");
    let run = odori()
        .args(["extract"])
        .arg(&file)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let project = Project::load(&file, &[]).unwrap();
    let mut compared_models = 0;
    for m in &project.models {
        let vmd_path = out.join(format!(
            "{:02}_{}.vmd",
            m.slot,
            m.name
                .replace(['/', '\\', ':', '*', '?', '"', '<', '>', '|'], "_")
        ));
        let from_file = Vmd::read(&vmd_path).unwrap();
        assert_eq!(from_file, m.motion, "{}", vmd_path.display());
        let pmd = Pmd::read(m.file.path().expect("the sample's models are beside it")).unwrap();
        let model = Model::from_pmd(&pmd).unwrap();
        let in_memory = Motion::from_vmd(&model, &m.motion);
        let extracted = Motion::from_vmd(&model, &from_file);
        let mut a = Instance::new(&model, &in_memory);
        let mut b = Instance::new(&model, &extracted);
        let end = in_memory.end_frame() as u32;
        assert!(end > 0, "{}: no motion", m.name);
        for frame in (0..=end).step_by(5) {
            a.evaluate(&model, &in_memory, frame as f32).unwrap();
            b.evaluate(&model, &extracted, frame as f32).unwrap();
            for bone in 0..model.bone_count() {
                let bits = |i: &Instance| i.world_matrix(bone).to_cols_array().map(f32::to_bits);
                assert_eq!(bits(&a), bits(&b), "{} bone {bone} frame {frame}", m.name);
            }
        }
        compared_models += 1;
    }
    assert_eq!(compared_models, 11);
    let camera = Vmd::read(out.join("camera.vmd")).unwrap();
    assert_eq!(camera, project.camera);
    std::fs::remove_dir_all(&out).unwrap();
}

/// `odori info PROJECT --json` lists the eleven models found and the 29 accessories missing
/// (the sample's folder has no accessories: SOURCE.md).
#[test]
fn info_lists_models_found_and_accessories_missing() {
    let Some(file) = odori_testkit::shared(SAMPLE) else {
        return;
    };
    let run = odori()
        .arg("info")
        .arg(&file)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(json["format"], "PMM");
    assert_eq!(json["output_size"], "512x288");
    let models = json["models"].as_array().unwrap();
    assert_eq!(models.len(), 11);
    assert!(
        models
            .iter()
            .all(|m| m.as_str().unwrap().contains("(found "))
    );
    let accessories = json["accessories"].as_array().unwrap();
    assert_eq!(accessories.len(), 29);
    assert!(
        accessories
            .iter()
            .all(|a| a.as_str().unwrap().contains("MISSING"))
    );
    assert!(json["camera_keys"].as_u64().unwrap() > 1);
}
