//! A scripted session of the commands a new user tries in the first
//! hour, run as the user would (the built binary, a shell for the pipe), leaves no 0-byte or
//! partial file, prints no backtrace, and every error names the file that is wrong. Each step
//! also has its own test; this one holds them together, so that a fix to one cannot quietly
//! undo another.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Step {
    args: Vec<String>,
    out: Output,
}

impl Step {
    fn err(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }

    fn code(&self) -> Option<i32> {
        self.out.status.code()
    }
}

fn odori(dir: &Path, args: &[&str]) -> Step {
    let out = Command::new(env!("CARGO_BIN_EXE_odori"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    Step {
        args: args.iter().map(|s| s.to_string()).collect(),
        out,
    }
}

/// No step may panic or print a backtrace, whatever its exit status.
fn no_backtrace(step: &Step) {
    let err = step.err();
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE") && step.code() != Some(101),
        "odori {:?}: {err}",
        step.args
    );
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_new_users_first_hour() {
    let (Some(gene), Some(dance), Some(vpd)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/vpd/01.vpd"),
    ) else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("new-user-session");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("cover.png"), b"\x89PNG\r\n\x1a\n an image").unwrap();
    std::fs::write(dir.join("empty.vmd"), b"").unwrap();
    std::fs::write(dir.join("picture.pmx"), b"\x89PNG\r\n\x1a\n an image").unwrap();
    let (gene, dance, vpd) = (
        gene.to_str().unwrap(),
        dance.to_str().unwrap(),
        vpd.to_str().unwrap(),
    );
    let mut steps = Vec::new();

    // 1. What is in the model? Piped into head: a closed pipe ends quietly.
    let piped = Command::new("sh")
        .current_dir(&dir)
        .arg("-c")
        .arg(format!(
            "'{}' info '{gene}' | head -1",
            env!("CARGO_BIN_EXE_odori")
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(!err.contains("panicked"), "info | head: {err}");
    assert!(String::from_utf8_lossy(&piped.stdout).starts_with("file: "));

    // 2. Files that are not what their names say.
    let s = odori(&dir, &["info", "empty.vmd"]);
    assert!(
        s.err()
            .contains("empty.vmd: not a VMD file: the file is empty"),
        "{}",
        s.err()
    );
    steps.push(s);
    let s = odori(&dir, &["info", "picture.pmx"]);
    assert!(
        s.err()
            .contains("picture.pmx: not a PMX file (it looks like a PNG image)"),
        "{}",
        s.err()
    );
    steps.push(s);

    // 3. Outputs refused before anything loads.
    let s = odori(&dir, &["render", gene, dance, "-o", "clip.avi"]);
    assert_eq!(s.code(), Some(1));
    assert!(s.err().contains("clip.avi"), "{}", s.err());
    steps.push(s);
    let s = odori(
        &dir,
        &["render", gene, dance, "-o", "no/such/folder/clip.mp4"],
    );
    assert_eq!(s.code(), Some(1));
    assert!(s.err().contains("no/such/folder"), "{}", s.err());
    steps.push(s);

    // 4. A soundtrack that is an image: named, once, and nothing written.
    let s = odori(
        &dir,
        &[
            "render",
            gene,
            dance,
            "--audio",
            "cover.png",
            "-o",
            "clip.mp4",
        ],
    );
    assert_eq!(s.code(), Some(1));
    assert_eq!(
        s.err().matches("cover.png: not a soundtrack").count(),
        1,
        "{}",
        s.err()
    );
    assert!(!s.err().contains("clip.mp4"), "{}", s.err());
    steps.push(s);

    // 5. A negative range start is an error about the range, not an unknown flag.
    let s = odori(
        &dir,
        &["render", gene, dance, "--range", "-5:3", "-o", "neg.png"],
    );
    assert_eq!(s.code(), Some(2), "an argument error: {}", s.err());
    assert!(
        s.err().contains("--range") && !s.err().contains("unexpected argument"),
        "{}",
        s.err()
    );
    steps.push(s);

    // 6. Bad option values stop at argument parsing.
    for (flag, value) in [("--fps", "45"), ("--msaa", "3"), ("--encoder", "x264")] {
        let s = odori(&dir, &["render", gene, flag, value]);
        assert_eq!(s.code(), Some(2), "{flag} {value}: {}", s.err());
        steps.push(s);
    }

    // 7. pose with a motion made for this model: no wall of notes.
    let s = odori(
        &dir,
        &[
            "pose",
            gene,
            dance,
            "--frames",
            "0:30:30",
            "-o",
            "pose.json",
        ],
    );
    assert!(s.out.status.success(), "{}", s.err());
    assert!(
        s.err()
            .lines()
            .filter(|l| l.contains("matches nothing"))
            .count()
            <= 1,
        "{}",
        s.err()
    );
    steps.push(s);

    // The rendering steps need no adapter: without one, odori draws on its CPU rasteriser.
    // 8. A still past the end of the motion: a warning naming the frame, and the picture.
    let s = odori(
        &dir,
        &[
            "render", gene, dance, "--range", "5000", "--size", "64x64", "--fast", "-o", "late.png",
        ],
    );
    assert!(s.out.status.success(), "{}", s.err());
    assert!(s.err().contains("5000"), "{}", s.err());
    steps.push(s);
    // 9. A VPD pose renders as a still.
    let s = odori(
        &dir,
        &[
            "render", gene, vpd, "--size", "64x64", "--fast", "-o", "pose.png",
        ],
    );
    assert!(s.out.status.success(), "{}", s.err());
    steps.push(s);
    // 10. A short video with physics settled, and no stray files.
    let s = odori(
        &dir,
        &[
            "render",
            gene,
            dance,
            "--range",
            "0:5",
            "--size",
            "64x64",
            "--fast",
            "-o",
            "short.mp4",
        ],
    );
    assert!(s.out.status.success(), "{}", s.err());
    steps.push(s);

    for s in &steps {
        no_backtrace(s);
    }
    for f in files_under(&dir) {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !name.ends_with(".part"),
            "partial file left: {}",
            f.display()
        );
        if !["empty.vmd"].contains(&name.as_str()) {
            assert!(
                std::fs::metadata(&f).unwrap().len() > 0,
                "0-byte file: {}",
                f.display()
            );
        }
    }
    for absent in ["clip.avi", "clip.mp4", "neg.png"] {
        assert!(
            !dir.join(absent).exists(),
            "{absent} written by a failed command"
        );
    }
    for present in ["late.png", "pose.png", "short.mp4", "pose.json"] {
        assert!(dir.join(present).exists(), "{present} missing");
    }
}
