//! The command lines that README.md and the docs/ pages show must still run.
//!
//! Every line of every fenced `sh` block is classified: an `odori` command (or `cargo run
//! --release -p odori -- …`) is run by this test on the embedded demo and the real files of
//! `../shared`, with small frame ranges and small sizes; a syntax summary (`[OPTIONAL]`,
//! `A|B`, `MODEL`-style placeholders) is only parsed; any other command must be one this file
//! names, with the test or CI step that runs it instead. A line that fits none of these fails
//! the test, so a new example cannot go unchecked silently. The evidence is the binary
//! itself: each command must exit successfully and write the file its `-o` names.
//!
//! File names resolve to `../shared` by base name (`Gene_light.pmx` …); `song.wav` is a WAV
//! this test writes. Without `../shared` the commands that need it print SKIPPED (unless
//! `ODORI_REQUIRE_SHARED=1`), and `odori play` runs only under Xvfb (unless
//! `ODORI_REQUIRE_DISPLAY=1`, when a missing Xvfb fails).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The pages whose `sh` blocks are checked, relative to the workspace root.
fn pages() -> Vec<PathBuf> {
    let root = root();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Commands other than `odori` that the pages show, and where each is run instead.
const ELSEWHERE: &[(&str, &str)] = &[
    ("cargo test", ".ci/run runs the workspace's tests"),
    ("cargo build", ".ci/run builds the workspace"),
    (
        "cargo bench",
        "benches are run by hand; docs/performance.md",
    ),
    ("cargo install cargo-fuzz", ".ci/run installs cargo-fuzz"),
    (
        "RUSTC_BOOTSTRAP=1 cargo fuzz run",
        ".ci/run's fuzz smoke run",
    ),
    ("cd fuzz", ".ci/run's fuzz smoke run"),
    (
        "crates/odori-web/build.sh --package",
        "odori-web/tests/npm.rs builds and packs the npm package",
    ),
    (
        "crates/odori-web/build.sh",
        "odori-web/tests/browser.rs builds the page",
    ),
    (
        "npm install ./target/npm/odori-",
        "odori-web/tests/npm.rs installs the packed package into a fresh project",
    ),
    (
        "python3 -m http.server",
        "odori-web/tests/browser.rs serves the page",
    ),
    (
        "pip install",
        "crates/odori-python/ci.sh installs the module",
    ),
    (
        "python crates/odori-python/examples/ray_poses.py",
        "crates/odori-python/ci.sh runs the Ray example",
    ),
    (
        "python crates/odori-python/examples/ray_render.py",
        "crates/odori-python/ci.sh runs the chunked Ray example (tests/test_ray_render.py)",
    ),
    ("apt-get install", ".ci/run installs the system packages"),
    (
        "tools/soak_window.sh",
        "a half-hour soak run by hand, not in CI; the drift it found is held by odori-playback/tests/restart.rs",
    ),
    (
        "python tools/soak_evaluate.py",
        "a soak run by hand, not in CI; the module's calls are tested by crates/odori-python/tests",
    ),
    (
        "tools/soak_render.sh",
        "a half-hour soak run by hand, not in CI; renders are tested by odori-playback's and odori's tests",
    ),
    (
        "node tools/soak_page.mjs",
        "a half-hour soak run by hand, not in CI; the page is tested by odori-web/tests/browser.rs",
    ),
];

/// Real files the pages name, by base name, under `../shared`.
const SHARED: &[(&str, &str)] = &[
    ("Gene_light.pmx", "assets/gene/Gene_light.pmx"),
    ("Gene_light.pmd", "assets/gene/Gene_light.pmd"),
    ("miku_v2.pmd", "assets/miku_v2/miku_v2.pmd"),
    ("wavefile_v2.vmd", "assets/wavefile/wavefile_v2.vmd"),
    ("wavefile_camera.vmd", "assets/wavefile/wavefile_camera.vmd"),
    (
        "サンプル（きしめんAllStar).pmm",
        "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm",
    ),
];

enum Line {
    Odori(Vec<String>),
    Syntax,
    Elsewhere,
}

/// The lines of the fenced `sh` blocks of `text`, with their line numbers, comments removed.
fn sh_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(info) = t.strip_prefix("```") {
            in_sh = !in_sh && info.trim() == "sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = match t.find(" #") {
            Some(at) => &t[..at],
            None => t,
        };
        let code = code.trim();
        if !code.is_empty() && !code.starts_with('#') {
            out.push((i + 1, code.to_string()));
        }
    }
    out
}

fn is_placeholder(word: &str) -> bool {
    let stem = word.split('.').next().unwrap_or(word);
    word.contains(['[', ']', '|', '…'])
        || word == "..."
        || (stem.len() > 1 && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
}

fn classify(code: &str) -> Option<Line> {
    let rest = code
        .strip_prefix("cargo run --release -p odori -- ")
        .or_else(|| code.strip_prefix("odori "));
    if let Some(rest) = rest {
        let words: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
        return Some(if words.iter().any(|w| is_placeholder(w)) {
            Line::Syntax
        } else {
            Line::Odori(words)
        });
    }
    (ELSEWHERE.iter())
        .any(|(prefix, _)| code.starts_with(prefix) || code.starts_with(&format!("({prefix}")))
        .then_some(Line::Elsewhere)
}

/// A one-second silent 16-bit mono WAV at 44.1 kHz.
fn write_wav(path: &Path) {
    let samples = 44_100u32;
    let data = samples * 2;
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&1u16.to_le_bytes()); // mono
    b.extend_from_slice(&44_100u32.to_le_bytes());
    b.extend_from_slice(&88_200u32.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&data.to_le_bytes());
    b.resize(b.len() + data as usize, 0);
    std::fs::write(path, b).unwrap();
}

/// The arguments to run for a page's `words`, or `None` (after a SKIPPED notice) when a file
/// it needs is missing. Files resolve to `../shared` or `dir`; outputs go to `dir`; renders
/// and exports get a small range and size unless they give their own.
fn resolve(words: &[String], dir: &Path, at: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut it = words.iter().peekable();
    while let Some(w) = it.next() {
        if w == "-o" {
            let target = it
                .next()
                .unwrap_or_else(|| panic!("{at}: -o without a path"));
            out.push(w.clone());
            out.push(dir.join(target).to_string_lossy().into_owned());
        } else if let Some(&(_, rel)) = SHARED.iter().find(|(name, _)| name == w) {
            out.push(odori_testkit::shared(rel)?.to_string_lossy().into_owned());
        } else if w == "song.wav" {
            let path = dir.join("song.wav");
            write_wav(&path);
            out.push(path.to_string_lossy().into_owned());
        } else if w.contains('.')
            && !w.starts_with('-')
            && !w.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            panic!(
                "{at}: the test cannot provide the file `{w}`; name one of {SHARED:?} or song.wav"
            );
        } else {
            out.push(w.clone());
        }
    }
    let has = |flag: &str| words.iter().any(|w| w == flag);
    match words[0].as_str() {
        "render" => {
            if !has("--range") {
                out.extend(["--range".into(), "0:2".into()]);
            }
            if !has("--size") {
                out.extend(["--size".into(), "160x90".into()]);
            }
        }
        "export" if !has("--range") => out.extend(["--range".into(), "0:10".into()]),
        _ => {}
    }
    Some(out)
}

/// Run `odori args`; panics with its output when it fails.
fn run(args: &[String], display: Option<&str>, at: &str) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_odori"));
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(d) = display {
        cmd.env("DISPLAY", d)
            .env_remove("WAYLAND_DISPLAY")
            .env("ODORI_AUDIO_DEVICE", "null");
    }
    let out = cmd.output().expect("odori runs");
    assert!(
        out.status.success(),
        "{at}: `odori {}` failed ({:?}):\n{}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(i) = args.iter().position(|a| a == "-o") {
        let written = Path::new(&args[i + 1]);
        let size = std::fs::metadata(written).map(|m| m.len()).unwrap_or(0);
        assert!(
            size > 0,
            "{at}: `odori {}` wrote no {written:?}",
            args.join(" ")
        );
    }
}

#[test]
fn every_command_line_on_the_pages_runs() {
    let dir = std::env::temp_dir().join(format!("odori-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut xvfb = None;
    let (mut ran, mut skipped, mut syntax) = (0, 0, 0);
    let mut readme_commands = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page
            .strip_prefix(root())
            .unwrap_or(&page)
            .display()
            .to_string();
        for (n, code) in sh_lines(&text) {
            let at = format!("{name}:{n}");
            let Some(line) = classify(&code) else {
                panic!(
                    "{at}: `{code}` is neither an odori command nor one this test knows is run \
                     elsewhere; run it here or name it in ELSEWHERE"
                );
            };
            let words = match line {
                Line::Odori(words) => words,
                Line::Syntax => {
                    assert!(
                        name != "README.md",
                        "{at}: the README shows only runnable commands, not `{code}`"
                    );
                    syntax += 1;
                    continue;
                }
                Line::Elsewhere => continue,
            };
            if name == "README.md" {
                readme_commands += 1;
            }
            let Some(mut args) = resolve(&words, &dir, &at) else {
                skipped += 1;
                continue;
            };
            let mut display = None;
            if args[0] == "play" {
                if xvfb.is_none() {
                    xvfb = odori_testkit::xvfb::start("docs' odori play");
                }
                let Some(x) = &xvfb else {
                    skipped += 1;
                    continue;
                };
                let script = dir.join("quit.txt");
                std::fs::write(&script, "wait 2\nquit\n").unwrap();
                args.extend(["--size".into(), "320x240".into(), "--script".into()]);
                args.push(script.to_string_lossy().into_owned());
                display = Some(x.display().to_string());
            }
            eprintln!("{at}: odori {}", args.join(" "));
            run(&args, display.as_deref(), &at);
            ran += 1;
        }
    }
    eprintln!("ran {ran} command lines, skipped {skipped}, parsed {syntax} syntax summaries");
    // The README shows the main job and an example for each front end that has a command.
    assert!(
        readme_commands >= 7,
        "README.md shows only {readme_commands} odori commands"
    );
    assert!(ran + skipped >= readme_commands);
    let _ = std::fs::remove_dir_all(&dir);
}
