//! A video joined from chunks (`odori render --chunks`) plays in Chromium as a person opening
//! the file would: Chromium reads its size and duration, plays it through to the end and
//! shows a drawn frame at one second. Evidence: a browser's own MP4 demuxer and H.264
//! decoder, not odori's (driven by `crates/odori-web/tests/browser/play_video.mjs`).
//!
//! Needs node, Chromium and the browser test's `npm ci`; without them it prints SKIPPED,
//! unless `ODORI_REQUIRE_BROWSER=1` (CI), when a missing piece fails it.

use odori_testkit::browser::need;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn a_chunked_video_plays_to_its_end_in_chromium() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let harness = root().join("crates/odori-web/tests/browser");
    let node_ok = Command::new("node").arg("--version").output().is_ok();
    if need(node_ok, "node").is_none()
        || need(Path::new("/usr/bin/chromium").exists(), "/usr/bin/chromium").is_none()
        || need(
            harness.join("node_modules/playwright-core").exists(),
            "playwright-core (npm ci in crates/odori-web/tests/browser)",
        )
        .is_none()
    {
        return;
    }
    let dir = std::env::temp_dir().join(format!("odori-chunks-chromium-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let video = dir.join("chunked.mp4");
    // 60 frames in three chunks of 20: two joins inside two seconds.
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .arg("render")
        .args([&model, &motion])
        .args([
            "--range", "0:59", "--size", "160x90", "--fast", "--chunks", "3", "-o",
        ])
        .arg(&video)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let played = Command::new("node")
        .arg(harness.join("play_video.mjs"))
        .arg(&video)
        .current_dir(&harness)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&played.stdout);
    assert!(
        played.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&played.stderr)
    );
    let line = stdout.lines().last().unwrap_or("");
    let r: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    println!("Chromium: {r}");
    assert!(r.get("error").is_none(), "Chromium could not play it: {r}");
    assert_eq!(
        (r["width"].as_u64(), r["height"].as_u64()),
        (Some(160), Some(90))
    );
    // 60 frames at 30 fps.
    let duration = r["duration"].as_f64().unwrap();
    assert!((duration - 2.0).abs() < 0.05, "duration {duration}");
    assert_eq!(r["ended"].as_bool(), Some(true), "{r}");
    // It decoded the whole video playing it (seeks decode a few more).
    assert!(r["decodedFrames"].as_u64().unwrap() >= 60, "{r}");
    // A picture, not a blank frame: the dancer darkens the white ground.
    let mean = r["meanAtOneSecond"].as_f64().unwrap();
    assert!((100.0..252.0).contains(&mean), "mean brightness {mean}");
    let _ = std::fs::remove_dir_all(&dir);
}
