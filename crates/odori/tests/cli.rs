//! The `odori` binary end to end: `info` and `pose` on real files, the error a user sees for
//! a damaged or foreign file, output to a closed pipe or a full disk, `--verbose`, `--help`.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

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
        ("assets/wavefile/wavefile_v2.vmd", "\"bone_keys\": 14160"),
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
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.vmd: not a VMD file (bad magic"), "{err}");
}

/// An empty `.vmd` is not reported as a PMX header; a PNG renamed `.pmx` says so.
#[test]
fn foreign_files_say_what_they_are() {
    let empty = tmp("empty.vmd");
    std::fs::write(&empty, b"").unwrap();
    let png = tmp("picture.pmx");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x10").unwrap();
    for (path, said) in [
        (&empty, "empty.vmd: not a VMD file: the file is empty"),
        (
            &png,
            "picture.pmx: not a PMX file (it looks like a PNG image)",
        ),
    ] {
        let out = odori().arg("info").arg(path).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{err}");
        assert!(!err.contains("section `header`"), "{err}");
    }
}

/// `info --json` puts file and format first, snake_case keys, numbers as numbers,
/// in a fixed order.
#[test]
fn info_json_is_ordered_snake_case_with_numbers() {
    let Some(path) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let out = odori()
        .args(["info", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  \"")) // top level only
        .filter_map(|l| l.trim().split('"').nth(1))
        .collect();
    assert_eq!(
        keys,
        [
            "file",
            "format",
            "version",
            "encoding",
            "name",
            "name_english",
            "additional_uvs",
            "index_sizes",
            "counts",
            "morph_kinds",
            "diagnostics"
        ]
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["format"], "PMX");
    assert_eq!(v["version"], 2.0);
    assert_eq!(v["index_sizes"]["vertex"], 2);
    assert_eq!(v["index_sizes"]["rigid_body"], 1);
    assert_eq!(v["counts"]["ik_bones"], 6);
    assert_eq!(v["counts"]["rigid_bodies"], 87);
    assert_eq!(v["morph_kinds"]["vertex"], 177);
    let snake = |k: &str| {
        k.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    fn walk(v: &serde_json::Value, ok: &dyn Fn(&str) -> bool) {
        if let Some(m) = v.as_object() {
            for (k, v) in m {
                assert!(ok(k), "key `{k}` is not snake_case");
                walk(v, ok);
            }
        }
    }
    walk(&v, &snake);
    // The same order every time, and in the text form.
    let out = odori().arg("info").arg(&path).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("file: "), "{text}");
    assert!(text.lines().nth(1).unwrap().starts_with("format: PMX"));
}

/// `odori info FILE | head -1` exits quietly when the reader goes away; a write
/// error (a full disk) is an error, not a panic. For every command that prints to stdout.
#[test]
fn closed_pipe_is_quiet_and_a_full_disk_is_an_error() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/gene/motion/stand.vmd"),
    ) else {
        return;
    };
    let model = model.to_str().unwrap();
    let motion = motion.to_str().unwrap();
    let commands: [&[&str]; 4] = [
        &["info", "--names", model],
        &["info", "--json", "--names", model],
        &["pose", model, motion, "--frames", "0:100"],
        &["bench", model, motion, "--instances", "16", "--passes", "1"],
    ];
    for args in commands {
        // The reader reads one line, then closes the pipe (as `head -1` does).
        let mut child = odori()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 1];
        let _ = stdout.read(&mut first);
        drop(stdout);
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(status.success(), "{args:?}: {status}: {err}");

        let full = std::fs::File::create("/dev/full").unwrap();
        let out = odori().args(args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains("error: writing to standard output: No space left on device"),
            "{args:?}: {err}"
        );
    }
}

/// One summary line for motion tracks the model lacks; `--verbose` lists them all.
#[test]
fn verbose_lists_every_unmatched_track() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let out_path = tmp("verbose.json");
    let run = |verbose: bool| {
        let mut c = odori();
        c.arg("pose")
            .arg(&model)
            .arg(&motion)
            .arg("-o")
            .arg(&out_path);
        if verbose {
            c.arg("--verbose");
        }
        let out = c.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let quiet = run(false);
    let summary: Vec<&str> = quiet
        .lines()
        .filter(|l| l.contains("match nothing"))
        .collect();
    assert_eq!(summary.len(), 1, "{quiet}");
    assert!(summary[0].contains("--verbose lists them all"), "{quiet}");
    let n: usize = summary[0]
        .strip_prefix("note: ")
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count in {quiet}"));
    assert!(n > 10, "{quiet}");
    let loud = run(true);
    let listed = loud
        .lines()
        .filter(|l| l.starts_with("note: motion track `") && l.contains("Gene_light.pmx"))
        .count();
    assert_eq!(listed, n, "{loud}");
    // Global: accepted before the command too, and by `mesh`.
    let obj = tmp("verbose.obj");
    let out = odori()
        .arg("-v")
        .arg("mesh")
        .arg(&model)
        .arg(&motion)
        .arg("-o")
        .arg(&obj)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("note: motion track `").count(), n, "{err}");
}

/// `--help` describes positional arguments, lists the values of `--fps`, `--msaa`,
/// `--encoder` and `--skinning`, and shows examples; a bad value stops argument parsing
/// before any file is read.
#[test]
fn help_lists_values_and_bad_values_fail_before_loading() {
    let out = odori().args(["render", "--help"]).output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "Each model (PMX or PMD) followed by its VMD motions",
        "- 24: film",
        "- 60: two video frames per motion frame",
        "- 1: off: fastest",
        "- 8: eight samples",
        "builtin: OpenH264",
        "cpu:  odori-deform",
        "Examples:\n  odori render",
    ] {
        assert!(help.contains(needle), "`{needle}` not in\n{help}");
    }
    for cmd in ["info", "pose", "bench", "mesh", "bake"] {
        let out = odori().args([cmd, "--help"]).output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(help.contains("Examples:"), "{cmd}: {help}");
        let args = help
            .split("Arguments:")
            .nth(1)
            .and_then(|a| a.split("Options:").next())
            .unwrap_or_else(|| panic!("{cmd}: no Arguments section in\n{help}"));
        // Each argument has a description: on its line (short help) or the next (long).
        let lines: Vec<&str> = args.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.trim_start().starts_with(['<', '[']) {
                continue;
            }
            let same_line = line.trim().split("  ").filter(|s| !s.is_empty()).count() > 1;
            let next_line = lines.get(i + 1).is_some_and(|n| {
                n.len() - n.trim_start().len() > line.len() - line.trim_start().len()
                    && !n.trim().is_empty()
            });
            assert!(
                same_line || next_line,
                "{cmd}: `{line}` has no description\n{help}"
            );
        }
    }
    for (flag, value) in [
        ("--fps", "45"),
        ("--msaa", "3"),
        ("--encoder", "x264"),
        ("--skinning", "fpga"),
        ("--size", "12x7"),
        ("--range", "b:a"),
    ] {
        let out = odori()
            .args(["render", "no-such-model.pmx", flag, value])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(err.contains(&format!("invalid value '{value}'")), "{err}");
        assert!(!err.contains("no-such-model"), "{err}");
    }
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

/// `odori pose --frames` follows the one rule for requested frames (as Python's
/// `Instance.evaluate` does): a frame before 0 or past any motion is refused, naming it,
/// before anything is written.
#[test]
fn pose_refuses_frames_no_motion_has() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/gene/motion/stand.vmd"),
    ) else {
        return;
    };
    for (frames, says) in [("-5", "count from 0"), ("0,1e30", "past any motion")] {
        let out_path = tmp(&format!("refused{}.json", frames.len()));
        let out = odori()
            .arg("pose")
            .arg(&model)
            .arg(&motion)
            .arg(format!("--frames={frames}"))
            .arg("-o")
            .arg(&out_path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{frames} was taken");
        assert!(stderr.contains(says), "{frames}: {stderr}");
        assert!(!out_path.exists(), "{frames}: a file was written");
    }
}
