//! The `odori` binary end to end: `info` and `pose` on real files, and the error a user sees
//! for a damaged file.

use std::path::PathBuf;
use std::process::Command;

fn odori() -> Command {
    Command::new(env!("CARGO_BIN_EXE_odori"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("odori-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn info_reports_counts_for_every_format() {
    for (rel, needle) in [
        ("assets/gene/Gene_light.pmx", "\"bones\": 224"),
        ("assets/miku_v2/miku_v2.pmd", "\"bones\": 140"),
        ("assets/wavefile/wavefile_v2.vmd", "\"bone keys\": 14160"),
        ("assets/vpd/01.vpd", "\"format\": \"VPD\""),
    ] {
        let Some(path) = odori_testkit::shared(rel) else {
            return;
        };
        let out = odori()
            .args(["info", "--json"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{rel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(needle), "{rel}: {needle} not in\n{text}");
        serde_json::from_str::<serde_json::Value>(&text).unwrap();
    }
}

#[test]
fn truncated_file_error_names_file_section_and_offset() {
    let Some(path) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let cut = tmp("cut.pmx");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = odori().arg("info").arg(&cut).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cut.pmx"), "{err}");
    assert!(err.contains("PMX section"), "{err}");
    assert!(err.contains("byte offset"), "{err}");
}

#[test]
fn bad_magic_is_reported() {
    let bad = tmp("bad.vmd");
    std::fs::write(&bad, b"not an MMD file at all").unwrap();
    let out = odori().arg("info").arg(&bad).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad magic"));
}

#[test]
fn pose_writes_pose_json() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/gene/motion/stand.vmd"),
    ) else {
        return;
    };
    let out_path = tmp("pose.json");
    let out = odori()
        .arg("pose")
        .arg(&model)
        .arg(&motion)
        .args(["--frames", "0:60:30", "--morphs", "-o"])
        .arg(&out_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out_path).unwrap()).unwrap();
    assert_eq!(v["bones"].as_array().unwrap().len(), 224);
    assert_eq!(v["frames"].as_array().unwrap().len(), 3);
    assert_eq!(v["frames"][1]["frame"], 30.0);
    assert_eq!(v["frames"][0]["world"][0].as_array().unwrap().len(), 16);
    assert_eq!(
        v["morphNames"].as_array().unwrap().len(),
        v["frames"][0]["morphWeights"].as_array().unwrap().len()
    );
}
