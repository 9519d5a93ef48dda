//! `odori play` in a real window under Xvfb (CI has no screen), driven by `--script`, whose
//! commands go through the code paths keys and drops take. Every test runs the window twice
//! ([`Way`]): on odori's CPU rasteriser with every Vulkan and GL driver hidden (the backend
//! left to auto, which must pick the CPU rasteriser and a software surface by itself), and
//! on wgpu (`--backend gpu`: Mesa's lavapipe in CI; skipped without an adapter unless
//! `ODORI_REQUIRE_GPU=1`).
//!
//! - A scripted screenshot of frame N equals the offline renderer's frame N on the same
//!   renderer (the playback library's player and odori-render, drawn headless in this test)
//!   within the golden tolerance (`odori_testkit::golden::LIMITS`): the demo, and Gene_light ×
//!   wavefile_v2 with physics after both were dropped on the window.
//! - Space pauses: the frame shown stops, and moves again after a second Space.
//! - A dropped model and motion load (the status line names the model), and a dropped file
//!   that is no model leaves the player running with an error message, printed once
//!   (the window once reprinted its whole message history on every drop).
//!
//! - The morph panel's `morph NAME WEIGHT` (the slider's action) draws what the offline
//!   renderer draws with that weight keyed in a VMD (a separate path: the motion's own
//!   morph track), and visibly differs from the picture without it; `bone NAME` is reported
//!   by `status` at the bone's place on the picture.
//! - A motion dropped at a pixel goes to the model drawn there (two Genes side by side; the
//!   pixel is computed here from the framing camera's own matrices); dropped where no model
//!   is, to the last one; a double-click on a model refocuses the orbit camera on its skin.
//!
//! - MikuMikuDance's sample project opened with `odori play PROJECT.pmm` draws what the offline
//!   renderer draws of the same project scene.
//!
//! - A stage and a microphone in Gene's right hand given on the command line (`--stage`,
//!   `--accessory`) draw what the offline renderer draws of the scene the playback library's
//!   loader builds from the same options, as for `odori render`.
//!
//! - A lost GPU device (the script's `lose-gpu` destroys it, as a driver reset would): the
//!   window goes on on odori's CPU rasteriser and a software surface, says so once, and its
//!   frame 300 is then the offline CPU rasteriser's, as before the loss it was wgpu's.
//!
//! Without Xvfb these print SKIPPED; `ODORI_REQUIRE_DISPLAY=1` (CI) makes that a failure.

use odori_playback::offline::renderer_for;
use odori_playback::{Frame, MotionFile, Player, PlayerOptions, Preroll, Scene};
use odori_render::Device;
use odori_render::RenderOptions;
use odori_testkit::golden;
use odori_testkit::xvfb::Xvfb;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const W: u32 = 320;
const H: u32 = 240;

/// How the window draws in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// No graphics driver to be found: auto must choose odori's CPU rasteriser.
    Cpu,
    /// wgpu on whatever adapter there is.
    Wgpu,
}

/// Both ways; wgpu's only when an adapter opens here (`ODORI_REQUIRE_GPU=1` makes a missing
/// one a failure).
fn ways() -> Vec<Way> {
    let mut ways = vec![Way::Cpu];
    if odori_render::gpu::for_tests().is_some() {
        ways.push(Way::Wgpu);
    }
    ways
}

/// Variables that point every Vulkan loader, GL/EGL/GLX dispatcher and Mesa driver search
/// at nothing, as on a machine with no graphics driver installed.
const NO_DRIVERS: [(&str, &str); 8] = [
    ("VK_ICD_FILENAMES", "/nonexistent"),
    ("VK_DRIVER_FILES", "/nonexistent"),
    ("VK_ADD_DRIVER_FILES", "/nonexistent"),
    ("LIBGL_DRIVERS_PATH", "/nonexistent"),
    ("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent"),
    ("__EGL_VENDOR_LIBRARY_DIRS", "/nonexistent"),
    ("__GLX_VENDOR_LIBRARY_NAME", "nonexistent"),
    ("GBM_BACKENDS_PATH", "/nonexistent"),
];

impl Way {
    fn name(self) -> &'static str {
        match self {
            Way::Cpu => "cpu",
            Way::Wgpu => "wgpu",
        }
    }

    /// The run's environment and flags.
    fn apply(self, cmd: &mut Command) {
        cmd.env_remove("WGPU_BACKEND");
        match self {
            Way::Cpu => {
                for (k, v) in NO_DRIVERS {
                    cmd.env(k, v);
                }
            }
            Way::Wgpu => {
                cmd.args(["--backend", "gpu"]);
            }
        }
    }

    /// How the frame reaches the window (the status line's `surface`): wgpu copies it onto
    /// the surface (BGRA8 on X11, read back RGBA for a screenshot), not drawing it through a
    /// shader; the CPU path writes it into a software surface.
    fn surface(self) -> &'static str {
        match self {
            Way::Cpu => "soft",
            Way::Wgpu => "copy",
        }
    }

    /// The offline renderer's device for the reference frame: the same renderer.
    fn device(self) -> Option<Device> {
        match self {
            Way::Cpu => Some(Device::Cpu { why: None }),
            Way::Wgpu => odori_render::gpu::for_tests().map(Device::Gpu),
        }
    }
}

/// A private X server for the window (`odori_testkit::xvfb`).
fn xvfb() -> Option<Xvfb> {
    odori_testkit::xvfb::start("window test")
}

/// Run `odori play` with `script` on `x`; its standard output and error. Fails the test if
/// it does not exit by itself, or exits with an error.
/// On the CPU way, its start-up line must say the CPU rasteriser draws and why.
fn play(way: Way, x: &Xvfb, dir: &Path, script: &str, files: &[&Path]) -> (String, String) {
    let path = dir.join("script.txt");
    std::fs::write(&path, script).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_odori"));
    cmd.arg("play");
    way.apply(&mut cmd);
    cmd.args(files)
        .args(["--size", &format!("{W}x{H}"), "--script"])
        .arg(&path)
        .env("DISPLAY", x.display())
        .env_remove("WAYLAND_DISPLAY")
        .env("ODORI_AUDIO_DEVICE", "null")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().expect("odori runs");
    let pid = child.id();
    let started = Instant::now();
    // A watchdog: a player that never quits fails the test instead of hanging it.
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = done.clone();
    std::thread::spawn(move || {
        while !flag.load(std::sync::atomic::Ordering::Relaxed) {
            if started.elapsed() > Duration::from_secs(300) {
                let _ = Command::new("kill").arg(pid.to_string()).status();
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let out = child.wait_with_output().expect("odori finishes");
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "odori play failed ({:?}):\n{stdout}\n{stderr}",
        out.status
    );
    let start = (stderr.lines()).find(|l| l.starts_with("odori play: "));
    println!("{:?} way: {start:?}", way);
    let start = start.unwrap_or_else(|| panic!("no start-up line: {stderr}"));
    match way {
        Way::Cpu => assert!(
            start.contains("odori's CPU rasteriser") && start.contains("no GPU adapter"),
            "with every driver hidden, auto chose: {start}"
        ),
        Way::Wgpu => assert!(start.contains("wgpu on"), "{start}"),
    }
    (stdout, stderr)
}

/// The `status` lines' fields.
fn statuses(stdout: &str) -> Vec<std::collections::HashMap<String, String>> {
    (stdout.lines())
        .filter(|l| l.starts_with("frame="))
        .map(|l| {
            l.split(' ')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn frame_of(s: &std::collections::HashMap<String, String>) -> f64 {
    s["frame"].parse().unwrap()
}

/// The offline renderer's frame `frame` of `scene` at the window's size: a fresh player with
/// the window's options (physics restarted settled where a seek lands, as MMD does).
/// A scene of `model` dancing `motion` (as the window makes it when both are dropped).
fn dancer(model: &Path, motion: &Path) -> Scene {
    let mut scene = Scene::new();
    let asset = Arc::new(odori_playback::ModelAsset::load(model).unwrap());
    scene.add_model_files(asset, &[MotionFile::read(motion).unwrap().0]);
    scene
}

fn offline_frame(way: Way, scene: Scene, frame: f64) -> Option<image::RgbaImage> {
    let camera = scene.framing_camera(W as f32 / H as f32);
    let device = way.device()?;
    let scene = Arc::new(scene);
    let options = PlayerOptions {
        preroll: Preroll::Off,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), options);
    let mut f = Frame::default();
    player.evaluate_at(frame, &mut f);
    let mut renderer = renderer_for(
        &scene,
        device,
        RenderOptions {
            width: W,
            height: H,
            ..RenderOptions::default()
        },
    );
    f.prepare(&mut renderer, true);
    Some(renderer.render_image(&f.view(camera)))
}

fn assert_same(name: &str, shot: &Path, reference: &image::RgbaImage, dir: &Path) {
    let shot = image::open(shot)
        .unwrap_or_else(|e| panic!("{name}: no screenshot: {e}"))
        .to_rgba8();
    assert_eq!(shot.dimensions(), reference.dimensions(), "{name}");
    let (fig, diff) = golden::compare(reference, &shot);
    println!(
        "{name}: {} covered pixels, {} differ, mean {:.3}, worst {}",
        fig.covered, fig.differing, fig.mean, fig.worst
    );
    if !fig.pass(golden::LIMITS) {
        let _ = diff.save(dir.join(format!("{name}-diff.png")));
        let _ = reference.save(dir.join(format!("{name}-offline.png")));
        panic!(
            "{name}: the window's frame is not the offline renderer's: {fig:?} (files in {})",
            dir.display()
        );
    }
    // A blank picture would match a blank reference: the model must be there.
    assert!(
        fig.covered > (W * H / 50) as usize,
        "{name}: almost nothing drawn"
    );
}

fn temp_dir(way: Way, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "odori-play-{name}-{}-{}",
        way.name(),
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn demo_screenshot_is_the_offline_frame_and_space_pauses() {
    let Some(x) = xvfb() else { return };
    for way in ways() {
        let dir = temp_dir(way, "demo");
        let script = "pause\nseek 60\nwait 3\nscreenshot shot60.png\nstatus\n\
                      play\nwait 0.6s\nstatus\nkey Space\nwait 2\nstatus\nwait 0.6s\nstatus\n\
                      key Space\nwait 0.6s\nstatus\nquit\n";
        let (stdout, stderr) = play(way, &x, &dir, script, &[]);
        let s = statuses(&stdout);
        assert_eq!(s.len(), 5, "{stdout}\n{stderr}");
        // The way's fast path ran (see `Way::surface`).
        assert_eq!(s[0]["surface"], way.surface(), "{stdout}");
        assert_eq!(frame_of(&s[0]), 60.0, "the seek");
        assert_eq!(s[0]["playing"], "false");
        // Playing: the frame moves on.
        assert_eq!(s[1]["playing"], "true");
        assert!(frame_of(&s[1]) > 60.0 + 5.0, "{stdout}");
        // Space paused: the frame counter stops.
        assert_eq!(s[2]["playing"], "false");
        assert_eq!(
            frame_of(&s[2]),
            frame_of(&s[3]),
            "paused, yet the frame moved: {stdout}"
        );
        // Space again: it plays on.
        assert_eq!(s[4]["playing"], "true");
        assert!(frame_of(&s[4]) > frame_of(&s[3]) + 5.0, "{stdout}");

        let Some(reference) = offline_frame(way, Scene::demo(), 60.0) else {
            continue;
        };
        assert_same(
            &format!("demo-60-{}", way.name()),
            &dir.join("shot60.png"),
            &reference,
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn dropped_files_load_and_gene_frame_is_the_offline_frame() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let Some(x) = xvfb() else { return };
    for way in ways() {
        let dir = temp_dir(way, "gene");
        let not_a_model = dir.join("notes.txt");
        std::fs::write(&not_a_model, "not a model").unwrap();
        let script = format!(
            // Physics off and on (P twice) makes a fresh player, as the reference's: a seek after
            // playing keeps the pose's history (IK), which moves some hair by a few pixels.
            // The bad file first: a window that reprinted its messages on each drop would
            // print its error three times.
            "status\ndrop {}\ndrop {}\ndrop {}\nwait 2\nstatus\npause\nkey p\nkey p\nseek 300\nwait 3\n\
             screenshot shot300.png\nstatus\nquit\n",
            not_a_model.display(),
            model.display(),
            motion.display(),
        );
        let (stdout, stderr) = play(way, &x, &dir, &script, &[]);
        let s = statuses(&stdout);
        assert_eq!(s.len(), 3, "{stdout}\n{stderr}");
        assert!(!s[0]["models"].contains("Gene"), "{stdout}");
        assert!(
            s[1]["models"].contains("Gene_light"),
            "the dropped model: {stdout}"
        );
        assert_eq!(s[1]["physics"], "true", "{stdout}");
        assert_eq!(
            stderr.matches("notes.txt: not a file odori plays").count(),
            1,
            "the bad drop is reported, once: {stderr}"
        );
        assert_eq!(
            stderr.matches("loaded ").count(),
            2,
            "each file loaded is said once: {stderr}"
        );
        assert_eq!(frame_of(&s[2]), 300.0);

        let Some(reference) = offline_frame(way, dancer(&model, &motion), 300.0) else {
            continue;
        };
        assert_same(
            &format!("gene-300-{}", way.name()),
            &dir.join("shot300.png"),
            &reference,
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[path = "../../odori-playback/tests/common/props.rs"]
mod props;

/// Gene_light.pmx and wavefile_v2.vmd from `../shared`.
fn gene_and_dance() -> Option<(PathBuf, PathBuf)> {
    Some((
        odori_testkit::shared("assets/gene/Gene_light.pmx")?,
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?,
    ))
}

/// The test stage (`props::stage`) written into `dir`.
fn write_stage(dir: &Path) -> PathBuf {
    let stage = dir.join("stage.pmx");
    std::fs::write(&stage, odori_format::pmx::write(&props::stage()).unwrap()).unwrap();
    stage
}

/// The offline frame of `model` dancing `motion` with `stage` and `accessories`, the scene
/// built by the render's loader.
fn staged_frame(
    way: Way,
    (model, motion): (&Path, &Path),
    stage: &Path,
    accessories: Vec<odori_playback::accessory::AccessorySpec>,
    frame: f64,
) -> Option<image::RgbaImage> {
    use odori_playback::load::{ModelInput, SceneOptions, scene_from_models};
    let options = SceneOptions {
        stages: vec![ModelInput::Path(stage.to_path_buf())],
        accessories,
        side_by_side: false,
    };
    let models = [(
        ModelInput::Path(model.to_path_buf()),
        vec![motion.to_path_buf()],
    )];
    let (scene, _) = scene_from_models(&models, None, &options).unwrap();
    assert_eq!(
        scene.models().len(),
        2 + options.accessories.len(),
        "stage, Gene, props"
    );
    offline_frame(way, scene, frame)
}

#[test]
fn a_stage_and_a_prop_from_the_command_line_draw_as_a_render_does() {
    use odori_playback::accessory::AccessorySpec;
    let Some((model, motion)) = gene_and_dance() else {
        return;
    };
    let Some(x) = xvfb() else { return };
    for way in ways() {
        let dir = temp_dir(way, "stage");
        let stage = write_stage(&dir);
        let mic = dir.join("mic.pmx");
        std::fs::write(
            &mic,
            odori_format::pmx::write(&props::microphone()).unwrap(),
        )
        .unwrap();
        let held = format!("{}@0:右手首", mic.display());
        // A fresh player at frame 300 (P twice), as the reference's.
        let script =
            "pause\nkey p\nkey p\nseek 300\nwait 3\nscreenshot shot300.png\nstatus\nquit\n";
        let stage_flag = Path::new("--stage");
        let prop_flag = Path::new("--accessory");
        let (stdout, stderr) = play(
            way,
            &x,
            &dir,
            script,
            &[
                &model,
                &motion,
                stage_flag,
                &stage,
                prop_flag,
                Path::new(&held),
            ],
        );
        let s = statuses(&stdout);
        assert_eq!(s.len(), 1, "{stdout}\n{stderr}");
        assert_eq!(frame_of(&s[0]), 300.0);

        let props = vec![AccessorySpec::parse(&held).unwrap()];
        let Some(reference) = staged_frame(way, (&model, &motion), &stage, props, 300.0) else {
            continue;
        };
        // Gene alone differs from the stage scene: the stage and the prop are in the frame.
        let alone = offline_frame(way, dancer(&model, &motion), 300.0).unwrap();
        assert!(
            differing(&alone, &reference) > (W * H / 10) as usize,
            "the stage should fill much of the frame"
        );
        assert_same(
            &format!("stage-300-{}", way.name()),
            &dir.join("shot300.png"),
            &reference,
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A model dropped on the window and made the stage (the model window's "make it the stage",
/// the script's `stage`) draws as `--stage` renders it: the screenshot of frame 300 equals the
/// offline renderer's frame of Gene with that stage (scene built by the render's loader), and
/// the status line lists the stage first (drawn first). A model with a motion is refused.
#[test]
fn a_dropped_model_made_the_stage_draws_as_a_render_does() {
    let Some((model, motion)) = gene_and_dance() else {
        return;
    };
    let Some(x) = xvfb() else { return };
    for way in ways() {
        let dir = temp_dir(way, "made-stage");
        write_stage(&dir);
        // Model 0 (Gene) has a motion: refused. Then the dropped model 1 becomes the stage.
        let script = "model 0\nstage\ndrop stage.pmx\nmodel 1\nstage\npause\nkey p\nkey p\nseek 300\nwait 3\nscreenshot shot300.png\nstatus\nquit\n";
        let (stdout, stderr) = play(way, &x, &dir, script, &[&model, &motion]);
        assert!(
            stderr.contains("a stage stands still"),
            "a model with a motion is refused: {stderr}"
        );
        let s = statuses(&stdout);
        assert_eq!(s.len(), 1, "{stdout}\n{stderr}");
        assert_eq!(frame_of(&s[0]), 300.0);
        let models = &s[0]["models"];
        let names: Vec<&str> = models.split(',').collect();
        assert_eq!(names.len(), 2, "{models}");
        assert!(
            names[0].ends_with("stage.pmx") && names[1].ends_with("Gene_light.pmx"),
            "the stage is drawn first: {models}"
        );
        let stage = dir.join("stage.pmx");
        let Some(reference) = staged_frame(way, (&model, &motion), &stage, vec![], 300.0) else {
            continue;
        };
        assert_same(
            &format!("made-stage-300-{}", way.name()),
            &dir.join("shot300.png"),
            &reference,
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A VMD holding one morph key: `name` at `weight` on frame 0 (written byte by byte as the
/// format lays it out: header, no bone keys, one morph key, empty camera, light and shadow
/// sections).
fn morph_vmd(path: &Path, name: &str, weight: f32) {
    let mut b = Vec::new();
    let fixed = |b: &mut Vec<u8>, bytes: &[u8], n: usize| {
        let mut f = bytes.to_vec();
        f.resize(n, 0);
        b.extend_from_slice(&f);
    };
    fixed(&mut b, b"Vocaloid Motion Data 0002", 30);
    fixed(&mut b, b"test", 20);
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    fixed(&mut b, &odori_format::sjis::encode_sjis(name), 15);
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(&weight.to_le_bytes());
    for _ in 0..3 {
        b.extend_from_slice(&0u32.to_le_bytes());
    }
    std::fs::write(path, b).unwrap();
}

/// Pixels that differ at all between two pictures of one size.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count()
}

#[test]
fn morph_slider_and_bone_pick_show_on_the_picture() {
    let Some(model) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let Some(x) = xvfb() else { return };
    for way in ways() {
        let dir = temp_dir(way, "morph");
        // 笑顔(総, the whole smiling face (a group morph: eyes, brows, mouth).
        let morph = "笑顔(総";
        let script = format!(
            "pause\nwait 2\nscreenshot plain.png\nmorph {morph} 1\nwait 2\nscreenshot morph.png\n\
             bone 頭\nwait 1\nstatus\nmorph reset\nbone none\nwait 1\nstatus\nquit\n"
        );
        let (stdout, stderr) = play(way, &x, &dir, &script, &[&model]);
        let s = statuses(&stdout);
        assert_eq!(s.len(), 2, "{stdout}\n{stderr}");
        assert_eq!(s[0]["morphs"], format!("0:{morph}:1.00"), "{stdout}");
        assert_eq!(s[1]["morphs"], "none", "{stdout}");
        assert_eq!(s[1]["bone"], "none", "{stdout}");
        // The head bone: on the picture, in its upper fifth (Gene stands framed full length).
        let (name, at) = s[0]["bone"].split_once('@').expect("bone=NAME@X,Y");
        assert_eq!(name, "頭");
        let (bx, by) = at.split_once(',').unwrap();
        let (bx, by): (f32, f32) = (bx.parse().unwrap(), by.parse().unwrap());
        assert!(
            (0.0..W as f32).contains(&bx) && by > 0.0 && by < H as f32 * 0.3,
            "the head at {bx},{by}"
        );

        let plain = image::open(dir.join("plain.png")).unwrap().to_rgba8();
        let morphed = image::open(dir.join("morph.png")).unwrap().to_rgba8();
        let changed = differing(&plain, &morphed);
        println!("{morph} at 1 changes {changed} pixels");
        assert!(changed > 20, "the morph did not show: {changed} pixels");

        let vmd = dir.join("morph.vmd");
        morph_vmd(&vmd, morph, 1.0);
        let Some(reference) = offline_frame(way, dancer(&model, &vmd), 0.0) else {
            continue;
        };
        assert_same(
            &format!("gene-morph-{}", way.name()),
            &dir.join("morph.png"),
            &reference,
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Window pixel of scene point `p` under `camera` (the renderer's view and projection).
fn pixel_of(camera: &odori_render::CameraPose, p: glam::Vec3) -> (f32, f32) {
    let clip = camera.projection(W as f32 / H as f32) * camera.view() * p.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    (
        (ndc.x + 1.0) * 0.5 * W as f32,
        (1.0 - ndc.y) * 0.5 * H as f32,
    )
}

#[test]
fn drops_go_to_the_model_under_the_cursor_and_double_click_refocuses() {
    let (Some(model), Some(motion)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let Some(x) = xvfb() else { return };
    for way in ways() {
        let dir = temp_dir(way, "drop-at");
        // The scene the window builds from two models on the command line with
        // `--side-by-side` (without it both stand at the origin, as in MMD), and its first
        // camera.
        let asset = Arc::new(odori_playback::ModelAsset::load(&model).unwrap());
        let mut scene = Scene::new();
        scene.add_model_files(asset.clone(), &[]);
        scene.add_model_files(asset, &[]);
        scene.arrange_side_by_side();
        let scene = Arc::new(scene);
        let camera = scene.framing_camera(W as f32 / H as f32);
        let body = |i: usize| scene.models()[i].placement() + glam::Vec3::new(0.0, 10.0, 0.0);
        let (p0, p1) = (pixel_of(&camera, body(0)), pixel_of(&camera, body(1)));
        // Model 1's head bone at rest (the pose library's own evaluation), and a point one unit
        // above it: the face.
        let head = {
            let mut player = Player::new(scene.clone(), PlayerOptions::default());
            player.evaluate_at(0.0, &mut Frame::default());
            let b = scene.models()[1].asset().pose().find_bone("頭").unwrap();
            glam::Vec3::from(player.instance(1).world_positions()[b])
                + scene.models()[1].placement()
        };
        let face = pixel_of(&camera, head + glam::Vec3::Y);
        let script = format!(
            // Where no model is first, while both stand at rest in their boxes.
            "pause\nwait 2\ndrop {m} at 1 1\nwait 2\nstatus\ndrop {m} at {} {}\nwait 2\nstatus\n\
             drop {m} at {} {}\nwait 2\nstatus\ndoubleclick {} {}\nwait 2\nstatus\nquit\n",
            p0.0,
            p0.1,
            p1.0,
            p1.1,
            face.0,
            face.1,
            m = motion.display(),
        );
        let side_by_side = Path::new("--side-by-side");
        let (stdout, stderr) = play(way, &x, &dir, &script, &[&model, &model, side_by_side]);
        let s = statuses(&stdout);
        assert_eq!(s.len(), 4, "{stdout}\n{stderr}");
        assert_eq!(
            s[0]["motions"], "0,1",
            "dropped on no model: the last: {stdout}"
        );
        assert_eq!(s[1]["motions"], "1,1", "dropped on model 0: {stdout}");
        assert_eq!(s[2]["motions"], "1,2", "dropped on model 1: {stdout}");
        assert_eq!(s[3]["camera"], "orbit");
        let t: Vec<f32> = (s[3]["target"].split(','))
            .map(|v| v.parse().unwrap())
            .collect();
        println!(
            "double-click on model 1's face ({face:?}) refocused on {t:?}; its head bone at {head}"
        );
        // On model 1's face: beside the head bone, at the face's height, in front of the bone (the
        // camera looks along +Z from in front, so the front is the lower Z side).
        assert!((t[0] - head.x).abs() < 2.0, "{t:?}");
        assert!(t[1] > head.y && t[1] < head.y + 2.5, "{t:?}");
        assert!(
            t[2] < head.z,
            "the ray met the back of the head, not the face: {t:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// MikuMikuDance's sample project opened in the window (`odori play PROJECT.pmm`): its eleven
/// models load, its missing accessories are warned about, and frame 450 through the project's
/// camera is the offline renderer's frame of the same project scene (the playback library's
/// `project::scene`, as `odori render PROJECT.pmm` draws it).
#[test]
fn a_project_plays_in_the_window_as_the_offline_renderer_draws_it() {
    let Some(project_file) =
        odori_testkit::shared("assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm")
    else {
        return;
    };
    let Some(x) = xvfb() else { return };
    for way in ways() {
        let dir = temp_dir(way, "project");
        let script = "pause\nseek 450\nwait 3\nscreenshot shot450.png\nstatus\nquit\n";
        let (stdout, stderr) = play(way, &x, &dir, script, &[&project_file]);
        let s = statuses(&stdout);
        assert_eq!(s.len(), 1, "{stdout}\n{stderr}");
        assert_eq!(frame_of(&s[0]), 450.0);
        assert!(s[0]["models"].contains("ダミーボーン"), "{stdout}");
        assert_eq!(s[0]["camera"], "motion", "the project's camera: {stdout}");
        assert_eq!(
            stderr.matches("stage01.x not found").count(),
            1,
            "the missing stage is said once: {stderr}"
        );
        let project = odori_playback::project::Project::load(&project_file, &[]).unwrap();
        let (scene, _) = odori_playback::project::scene(&project);
        let Some(reference) = offline_frame(way, scene, 450.0) else {
            continue;
        };
        assert_same(
            &format!("project-450-{}", way.name()),
            &dir.join("shot450.png"),
            &reference,
            &dir,
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A model dropped while the view is still the framing one reframes it on the grown scene
/// (two Genes stood side by side: the window's orbit camera moves back to the framing
/// camera's distance for the two, computed here from the same scene); once the user has moved
/// the view (a double-click refocus on the first Gene's chest), a model dropped after leaves
/// the view where the user put it.
#[test]
fn a_dropped_model_reframes_unless_the_view_was_moved() {
    let Some(model) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let Some(x) = xvfb() else { return };
    let asset = Arc::new(odori_playback::ModelAsset::load(&model).unwrap());
    let scene_of = |n: usize| {
        let mut scene = Scene::new();
        for _ in 0..n {
            scene.add_model_files(asset.clone(), &[]);
        }
        scene.arrange_side_by_side();
        scene
    };
    let aspect = W as f32 / H as f32;
    let one = scene_of(1).framing_camera(aspect);
    let pair = scene_of(2);
    let two = pair.framing_camera(aspect);
    let chest = pixel_of(
        &two,
        pair.models()[0].placement() + glam::Vec3::new(0.0, 12.0, 0.0),
    );
    // The two framings differ, so a reframe shows.
    assert!((one.distance - two.distance).abs() > 1.0, "{one:?} {two:?}");
    for way in ways() {
        let dir = temp_dir(way, "reframe");
        let script = format!(
            "pause\nwait 2\nstatus\ndrop {m}\nwait 2\nstatus\ndoubleclick {} {}\nwait 2\nstatus\n\
             drop {m}\nwait 2\nstatus\nquit\n",
            chest.0,
            chest.1,
            m = model.display(),
        );
        let side_by_side = Path::new("--side-by-side");
        let (stdout, stderr) = play(way, &x, &dir, &script, &[&model, side_by_side]);
        let s = statuses(&stdout);
        assert_eq!(s.len(), 4, "{stdout}\n{stderr}");
        let view = |i: usize| -> (glam::Vec3, f32) {
            let v: Vec<f32> = (s[i]["target"].split(','))
                .map(|v| v.parse().unwrap())
                .collect();
            (
                glam::Vec3::new(v[0], v[1], v[2]),
                s[i]["distance"].parse().unwrap(),
            )
        };
        let near = |(t, d): (glam::Vec3, f32), c: &odori_render::CameraPose| {
            (t - c.target).length() < 0.05 && (d - c.distance).abs() < 0.05
        };
        assert!(near(view(0), &one), "{:?} against {one:?}", view(0));
        assert!(
            near(view(1), &two),
            "the drop did not reframe: {:?} against {two:?}",
            view(1)
        );
        assert!(
            view(2) != view(1),
            "the double-click moved nothing: {stdout}"
        );
        assert!(
            view(3) == view(2),
            "a drop after the user moved the view reframed it: {stdout}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The GPU device lost while the window plays (wgpu's way only: the CPU rasteriser has no
/// device to lose): frame 300 before the loss is wgpu's offline frame, after it the CPU
/// rasteriser's, the surface is the software one, and the loss is said once.
#[test]
fn a_lost_gpu_device_goes_on_on_the_cpu_rasteriser() {
    let Some((model, motion)) = gene_and_dance() else {
        return;
    };
    let Some(x) = xvfb() else { return };
    if !ways().contains(&Way::Wgpu) {
        return;
    }
    let dir = temp_dir(Way::Wgpu, "lost-gpu");
    let script = "pause\nkey p\nkey p\nseek 300\nwait 3\nscreenshot before.png\nstatus\n\
                  lose-gpu\nwait 3\nscreenshot after.png\nstatus\nquit\n";
    let (stdout, stderr) = play(Way::Wgpu, &x, &dir, script, &[&model, &motion]);
    let s = statuses(&stdout);
    assert_eq!(s.len(), 2, "{stdout}\n{stderr}");
    assert_eq!(s[0]["surface"], "copy", "wgpu drew first: {stdout}");
    assert_eq!(
        s[1]["surface"], "soft",
        "the CPU rasteriser after: {stdout}"
    );
    assert_eq!(frame_of(&s[1]), 300.0);
    assert_eq!(
        stderr.matches("the GPU device was lost").count(),
        1,
        "the loss is said once: {stderr}"
    );
    for (way, shot) in [(Way::Wgpu, "before"), (Way::Cpu, "after")] {
        let reference = offline_frame(way, dancer(&model, &motion), 300.0).unwrap();
        assert_same(
            &format!("lost-gpu-{shot}"),
            &dir.join(format!("{shot}.png")),
            &reference,
            &dir,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
