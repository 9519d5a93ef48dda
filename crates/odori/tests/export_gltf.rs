//! `odori export` end to end, held to tools that are not ours:
//! - the Khronos glTF Validator (npm `gltf-validator`, run by `tests/gltf/validate.js`) must
//!   report zero errors and zero warnings on Gene_light.pmx, Gene_light.pmd and miku_v2.pmd ×
//!   wavefile_v2 with its camera;
//! - Blender's own glTF importer (Debian `blender`, headless, `tests/gltf/blender_sample.py`)
//!   must place every joint where `odori pose` puts it (within 1e-3 units) at ten frames, and
//!   the deformed mesh's bounding box where `odori mesh` has it (within 1e-2);
//! - three.js's GLTFLoader in headless Chromium must draw frame 900 where odori renders it;
//! - Babylon.js's glTF loader (npm `@babylonjs/loaders`, in Node) must give the camera each
//!   camera key's field of view, animated through `KHR_animation_pointer`.
//!
//! Missing tools print SKIPPED; with `ODORI_REQUIRE_TOOLS=1` (or `ODORI_REQUIRE_SHARED=1`, as
//! CI sets) they fail the test. `.ci/run` installs them (`npm ci` in `tests/gltf`, `apt-get
//! install blender python3-numpy`).

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn odori() -> Command {
    Command::new(env!("CARGO_BIN_EXE_odori"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("odori-gltf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn tools_required() -> bool {
    ["ODORI_REQUIRE_TOOLS", "ODORI_REQUIRE_SHARED"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|x| x == "1"))
}

/// `None` (after a SKIPPED line) when `what` is missing; a failure when tools are required.
fn tool(ok: bool, what: &str) -> Option<()> {
    if ok {
        return Some(());
    }
    if tools_required() {
        panic!("{what} is missing, and ODORI_REQUIRE_TOOLS/ODORI_REQUIRE_SHARED forbid skipping");
    }
    eprintln!("SKIPPED: {what} is missing");
    None
}

fn gltf_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gltf")
}

fn runs(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Run `odori` with `args`; panics with its standard error when it fails.
fn run(args: &[&std::ffi::OsStr]) -> String {
    let out = odori().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "odori {args:?} failed:\n{err}");
    err
}

fn assets() -> Option<(PathBuf, PathBuf, PathBuf, PathBuf, PathBuf)> {
    Some((
        odori_testkit::shared("assets/gene/Gene_light.pmx")?,
        odori_testkit::shared("assets/gene/Gene_light.pmd")?,
        odori_testkit::shared("assets/miku_v2/miku_v2.pmd")?,
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?,
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd")?,
    ))
}

/// The validator's report on `file`.
fn validate(file: &Path) -> Value {
    let out = Command::new("node")
        .arg(gltf_dir().join("validate.js"))
        .arg(file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "validator on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Five exports, each with wavefile_v2 and its camera: PMX and PMD as GLB, a PMD as
/// .gltf, a scene (Gene on Gene_light.pmd as a stage, miku_v2.pmd as a prop in her right
/// hand), and MikuMikuDance's sample project (frames 0–60): zero errors and zero warnings.
/// The report's own counts show what it looked at (one animation, a skin, morph targets,
/// textures), so an export that lost them cannot pass by being empty.
#[test]
fn validator_reports_nothing_on_the_five_exports() {
    let (Some((gene, gene_pmd, miku, dance, camera)), Some(project)) = (
        assets(),
        odori_testkit::shared("assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm"),
    ) else {
        return;
    };
    let have = runs("node", "--version") && gltf_dir().join("node_modules/gltf-validator").is_dir();
    if tool(
        have,
        "node with gltf-validator (run `npm ci` in crates/odori/tests/gltf)",
    )
    .is_none()
    {
        return;
    }
    let prop = format!("{}@0:右手首", miku.display());
    let with_dance = |model: &Path| -> Vec<std::ffi::OsString> {
        vec![
            model.into(),
            dance.clone().into(),
            "--camera".into(),
            camera.clone().into(),
        ]
    };
    let mut scene = with_dance(&gene);
    scene.extend(["--stage".into(), gene_pmd.clone().into()]);
    scene.extend(["--accessory".into(), prop.into()]);
    let exports: Vec<(Vec<std::ffi::OsString>, &str, usize)> = vec![
        (with_dance(&gene), "gene.glb", 1),
        (with_dance(&gene_pmd), "gene_pmd.glb", 1),
        (with_dance(&miku), "miku.gltf", 1),
        (scene, "scene.glb", 3),
        (
            vec![project.into(), "--range".into(), "0:60".into()],
            "project.glb",
            9,
        ),
    ];
    for (args, name, meshes) in exports {
        let out = tmp(name);
        let mut all: Vec<&std::ffi::OsStr> = vec!["export".as_ref()];
        all.extend(args.iter().map(|a| a.as_os_str()));
        all.extend(["-o".as_ref(), out.as_os_str()]);
        run(&all);
        let report = validate(&out);
        let issues = &report["issues"];
        eprintln!(
            "{name}: {} errors, {} warnings, {} infos, {} hints",
            issues["numErrors"], issues["numWarnings"], issues["numInfos"], issues["numHints"]
        );
        let messages: Vec<String> = (issues["messages"].as_array().unwrap().iter())
            .filter(|m| m["severity"].as_i64().unwrap() <= 1)
            .map(|m| format!("{} {} {}", m["code"], m["pointer"], m["message"]))
            .collect();
        assert_eq!(issues["numErrors"], 0, "{name}: {messages:#?}");
        assert_eq!(issues["numWarnings"], 0, "{name}: {messages:#?}");
        let info = &report["info"];
        assert_eq!(info["animationCount"], 1, "{name}: {info}");
        assert_eq!(info["hasSkins"], true, "{name}: {info}");
        assert_eq!(info["hasMorphTargets"], true, "{name}: {info}");
        assert_eq!(info["hasTextures"], true, "{name}: {info}");
        let json = read_json(&out);
        assert_eq!(
            json["meshes"].as_array().map(Vec::len),
            Some(meshes),
            "{name}: one mesh per model with a mesh"
        );
        let resources = info["resources"].as_array().unwrap();
        assert!(
            resources.iter().any(|r| r["mimeType"] == "image/png"),
            "{name}: no texture image was validated: {info}"
        );
    }
}

/// Where `odori pose` puts joint `b` at frame `f`, in Blender's frame: MMD (x, y, z) is glTF
/// (x, y, −z), which Blender's importer makes (x, z, y).
fn blender_point(m: &[Value]) -> [f64; 3] {
    let v = |i: usize| m[i].as_f64().unwrap();
    [v(12), v(14), v(13)]
}

/// The box around the vertices the faces of an OBJ use, in Blender's frame (the OBJ is in
/// glTF's: (x, y, z) → (x, −z, y)).
fn obj_box(path: &Path) -> ([f64; 3], [f64; 3]) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut v: Vec<[f64; 3]> = Vec::new();
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => {
                let p: Vec<f64> = it.map(|t| t.parse().unwrap()).collect();
                v.push([p[0], -p[2], p[1]]);
            }
            Some("f") => {
                for corner in it {
                    let i: usize = corner.split('/').next().unwrap().parse().unwrap();
                    for (k, x) in v[i - 1].iter().enumerate() {
                        lo[k] = lo[k].min(*x);
                        hi[k] = hi[k].max(*x);
                    }
                }
            }
            _ => {}
        }
    }
    (lo, hi)
}

/// Blender 3.4 imports the GLB of Gene_light.pmx × wavefile_v2 (frames 0–900, no physics:
/// `odori pose` has none) with its own importer and plays it; at ten frames every joint's
/// world position is within 1e-3 units of `odori pose` (the frames evaluated in order, as
/// the export plays them: IK carries state from frame to frame), and the deformed mesh's box
/// (skinning and morph targets, Blender's) within 1e-2 of `odori mesh`'s.
#[test]
fn blender_plays_the_export_as_odori_poses_it() {
    let Some((gene, _, _, dance, _)) = assets() else {
        return;
    };
    if tool(
        runs("blender", "--version"),
        "blender (apt-get install blender python3-numpy)",
    )
    .is_none()
    {
        return;
    }
    let glb = tmp("blender.glb");
    run(&[
        "export".as_ref(),
        gene.as_os_str(),
        dance.as_os_str(),
        "--range".as_ref(),
        "0:900".as_ref(),
        "--no-physics".as_ref(),
        "-o".as_ref(),
        glb.as_os_str(),
    ]);
    let pose_path = tmp("pose.json");
    run(&[
        "pose".as_ref(),
        gene.as_os_str(),
        dance.as_os_str(),
        "--frames".as_ref(),
        "0:900:1".as_ref(),
        "-o".as_ref(),
        pose_path.as_os_str(),
    ]);
    let pose: Value = serde_json::from_slice(&std::fs::read(&pose_path).unwrap()).unwrap();
    let frames: Vec<usize> = (0..10).map(|i| i * 100).collect();
    let list: Vec<String> = frames.iter().map(|f| f.to_string()).collect();
    let out = Command::new("blender")
        .args(["-b", "--factory-startup", "--python"])
        .arg(gltf_dir().join("blender_sample.py"))
        .arg("--")
        .arg(&glb)
        .arg("30")
        .arg(list.join(","))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let Some(line) = stdout
        .lines()
        .find_map(|l| l.strip_prefix("ODORI_SAMPLES "))
    else {
        panic!(
            "Blender gave no samples:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let blender: Value = serde_json::from_str(line).unwrap();
    let names: Vec<&str> = (pose["bones"].as_array().unwrap().iter())
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        blender["bones"].as_array().unwrap().len(),
        names.len(),
        "Blender's armature has another bone count"
    );
    let mut worst = (0.0f64, String::new());
    for (i, &f) in frames.iter().enumerate() {
        let b = &blender["frames"][i];
        let world = pose["frames"][f]["world"].as_array().unwrap();
        assert_eq!(pose["frames"][f]["frame"].as_f64().unwrap(), f as f64);
        for (j, name) in names.iter().enumerate() {
            let want = blender_point(world[j].as_array().unwrap());
            let got = &b["joints"][name];
            assert!(got.is_array(), "Blender has no bone {name}");
            let d = (0..3)
                .map(|k| (got[k].as_f64().unwrap() - want[k]).abs())
                .fold(0.0, f64::max);
            if d > worst.0 {
                worst = (d, format!("{name} at frame {f}"));
            }
        }
        let obj = tmp(&format!("mesh{f}.obj"));
        run(&[
            "mesh".as_ref(),
            gene.as_os_str(),
            dance.as_os_str(),
            "--frame".as_ref(),
            f.to_string().as_ref(),
            "-o".as_ref(),
            obj.as_os_str(),
        ]);
        let (lo, hi) = obj_box(&obj);
        for k in 0..3 {
            let (bl, bh) = (b["min"][k].as_f64().unwrap(), b["max"][k].as_f64().unwrap());
            assert!(
                (bl - lo[k]).abs() <= 1e-2 && (bh - hi[k]).abs() <= 1e-2,
                "frame {f}: Blender's mesh box {:?}–{:?}, odori mesh {lo:?}–{hi:?}",
                b["min"],
                b["max"]
            );
        }
    }
    eprintln!(
        "{} joints × {} frames: largest distance from odori pose {:.2e} ({})",
        names.len(),
        frames.len(),
        worst.0,
        worst.1
    );
    assert!(worst.0 <= 1e-3, "{} off by {}", worst.1, worst.0);
}

/// A model with no motion exports its rest pose: no animation, the nodes at the bones' rest
/// places (node translations add up to each bone's rest position, read back from the GLB's
/// JSON chunk and compared with `odori pose` at frame 0 of no motion).
#[test]
fn a_model_alone_exports_its_rest_pose() {
    let Some(gene) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let glb = tmp("rest.glb");
    run(&[
        "export".as_ref(),
        gene.as_os_str(),
        "-o".as_ref(),
        glb.as_os_str(),
    ]);
    let bytes = std::fs::read(&glb).unwrap();
    assert_eq!(&bytes[0..4], b"glTF");
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json: Value = serde_json::from_slice(&bytes[20..20 + len]).unwrap();
    assert!(
        json.get("animations").is_none(),
        "a rest pose has no animation"
    );
    let pose_path = tmp("rest.json");
    run(&[
        "pose".as_ref(),
        gene.as_os_str(),
        "-o".as_ref(),
        pose_path.as_os_str(),
    ]);
    let pose: Value = serde_json::from_slice(&std::fs::read(&pose_path).unwrap()).unwrap();
    let bones = pose["bones"].as_array().unwrap();
    let nodes = json["nodes"].as_array().unwrap();
    for b in 0..bones.len() {
        // Walk up the node tree summing translations (rest nodes carry no rotation).
        let mut at = b as i64;
        let mut sum = [0.0f64; 3];
        while at >= 0 {
            let t = &nodes[at as usize]["translation"];
            assert!(nodes[at as usize].get("rotation").is_none());
            for k in 0..3 {
                sum[k] += t[k].as_f64().unwrap();
            }
            at = bones[at as usize]["parent"].as_i64().unwrap();
        }
        let w = pose["frames"][0]["world"][b].as_array().unwrap();
        let want = [
            w[12].as_f64().unwrap(),
            w[13].as_f64().unwrap(),
            -w[14].as_f64().unwrap(),
        ];
        for k in 0..3 {
            assert!(
                (sum[k] - want[k]).abs() < 1e-4,
                "bone {b}: {sum:?} vs {want:?}"
            );
        }
    }
}

/// Bad input: a located error and no file (nor a `.part`) left behind.
#[test]
fn bad_input_leaves_no_file() {
    let out = tmp("bad.glb");
    let missing = tmp("no-such-model.pmx");
    let o = odori()
        .args([
            "export".as_ref(),
            missing.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("no-such-model.pmx"), "{err}");
    // A file that is no model: named, and refused before anything is written.
    let fake = tmp("fake.pmx");
    std::fs::write(&fake, b"\x89PNG\r\n\x1a\nnot a model").unwrap();
    let o = odori()
        .args([
            "export".as_ref(),
            fake.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("fake.pmx"), "{err}");
    let o = odori()
        .args([
            "export".as_ref(),
            fake.as_os_str(),
            "-o".as_ref(),
            tmp("x.obj").as_os_str(),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(".glb or .gltf"), "{err}");
    let dir = out.parent().unwrap();
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("bad") || n.ends_with(".part"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Pixels that are not the white background (the darkest channel below 235).
fn covered(path: &Path) -> (Vec<bool>, (u32, u32)) {
    let img = image::open(path).unwrap().to_rgb8();
    let mask = img
        .pixels()
        .map(|p| p.0.iter().min().unwrap() < &235)
        .collect();
    (mask, img.dimensions())
}

/// three.js's GLTFLoader (npm `three`, in headless Chromium through `playwright-core`, the
/// script `tests/gltf/three_shot.js`) plays the GLB of Gene_light.pmx × wavefile_v2 with its
/// camera and draws frame 900 through the file's camera node; odori's own render of that
/// frame (ground shadow off, which three.js does not draw) covers mostly the same pixels.
/// Measured: overlap (intersection over union) 0.78 at 640×360, the rest odori's outlines
/// and the two renderers' differing shading of near-white cloth at the background threshold.
/// A mirrored model, a wrong bone pose or a wrong camera puts the figure elsewhere (overlap
/// near 0); the limit is 0.6.
#[test]
fn three_js_draws_the_export_where_odori_renders_it() {
    let Some((gene, _, _, dance, camera)) = assets() else {
        return;
    };
    let have = runs("node", "--version")
        && gltf_dir().join("node_modules/three").is_dir()
        && gltf_dir().join("node_modules/playwright-core").is_dir()
        && Path::new("/usr/bin/chromium").exists();
    if tool(have, "node with three and playwright-core (`npm ci` in crates/odori/tests/gltf) and /usr/bin/chromium").is_none() {
        return;
    }
    let glb = tmp("three.glb");
    run(&[
        "export".as_ref(),
        gene.as_os_str(),
        dance.as_os_str(),
        "--camera".as_ref(),
        camera.as_os_str(),
        "--range".as_ref(),
        "0:900".as_ref(),
        "-o".as_ref(),
        glb.as_os_str(),
    ]);
    let shot = tmp("three900.png");
    let out = Command::new("node")
        .arg(gltf_dir().join("three_shot.js"))
        .arg(&glb)
        .arg("900")
        .arg(&shot)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "three.js: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = tmp("odori900.png");
    let o = odori()
        .args([
            "render".as_ref(),
            gene.as_os_str(),
            dance.as_os_str(),
            "--camera".as_ref(),
            camera.as_os_str(),
            "--range".as_ref(),
            "900".as_ref(),
            "--size".as_ref(),
            "640x360".as_ref(),
            "--no-ground-shadow".as_ref(),
            "-o".as_ref(),
            ours.as_os_str(),
        ])
        .output()
        .unwrap();
    let gpu_required = std::env::var("ODORI_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if !o.status.success() && !gpu_required && !tools_required() {
        eprintln!(
            "SKIPPED: odori render failed (no GPU adapter?): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        return;
    }
    assert!(
        o.status.success(),
        "odori render: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let (a, size_a) = covered(&shot);
    let (b, size_b) = covered(&ours);
    assert_eq!(size_a, size_b);
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(&b).filter(|(x, y)| **x || **y).count();
    let (na, nb) = (
        a.iter().filter(|x| **x).count(),
        b.iter().filter(|x| **x).count(),
    );
    assert!(
        na > 1000 && nb > 1000,
        "too little drawn: three.js {na}, odori {nb} pixels"
    );
    let overlap = both as f64 / either as f64;
    eprintln!("frame 900: three.js covers {na} pixels, odori {nb}, overlap {overlap:.3}");
    assert!(
        overlap >= 0.6,
        "overlap {overlap:.3}: three.js {}, odori {}",
        shot.display(),
        ours.display()
    );
}

/// The camera's field of view is animated through `KHR_animation_pointer`, read by a loader
/// that supports it: Babylon.js's glTF loader in Node (`tests/gltf/babylon_fov.mjs`, npm
/// `@babylonjs/loaders`) plays Gene_light.pmx × wavefile_v2 with its camera. Evidence: the
/// camera VMD's own keys (read here with odori-format, no sampling of ours involved): at a
/// key's frame MMD shows the key's field of view, whatever the curves, so Babylon's camera
/// must have each key's degrees there, within 1e-4 rad (0.006°). Not closer: at a cut (keys on
/// consecutive frames) a frame's time, stored as f32 seconds and multiplied back by 30, lands
/// a hair beside the key, and the jump of the cut shows in it (1.7e-5 rad measured at frame
/// 1235, a 17° cut). wavefile's keys go from 20° to 37°:
/// a camera left at the first frame's (what the file had before, and what a reader without
/// the extension shows) fails at every key that differs from the first.
#[test]
fn babylon_animates_the_camera_field_of_view_through_the_pointer_extension() {
    let Some((gene, _, _, dance, camera)) = assets() else {
        return;
    };
    let have =
        runs("node", "--version") && gltf_dir().join("node_modules/@babylonjs/loaders").is_dir();
    if tool(
        have,
        "node with @babylonjs/loaders (`npm ci` in crates/odori/tests/gltf)",
    )
    .is_none()
    {
        return;
    }
    let glb = tmp("babylon.glb");
    run(&[
        "export".as_ref(),
        gene.as_os_str(),
        dance.as_os_str(),
        "--camera".as_ref(),
        camera.as_os_str(),
        "--no-physics".as_ref(),
        "-o".as_ref(),
        glb.as_os_str(),
    ]);
    let bytes = std::fs::read(&camera).unwrap();
    let keys = odori_format::vmd::parse(&bytes).unwrap().cameras;
    let last = glb_last_frame(&glb);
    let keyed: Vec<(u32, f32)> = (keys.iter())
        .filter(|k| k.frame as f32 <= last)
        .map(|k| (k.frame, (k.fov as f32).to_radians()))
        .collect();
    let distinct = keyed.iter().filter(|k| k.1 != keyed[0].1).count();
    assert!(
        keyed.len() > 10 && distinct > 5,
        "the camera VMD should key several fields of view: {keyed:?}"
    );
    let out = Command::new("node")
        .arg(gltf_dir().join("babylon_fov.mjs"))
        .arg(&glb)
        .args(keyed.iter().map(|k| k.0.to_string()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "babylon: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .rfind(|l| l.starts_with('{'))
        .expect("a JSON line");
    let report: Value = serde_json::from_str(line).unwrap();
    assert_eq!(report["properties"], serde_json::json!(["fov"]), "{report}");
    let fov = report["fov"].as_array().unwrap();
    assert_eq!(fov.len(), keyed.len(), "a key was not compared");
    for (&(frame, want), got) in keyed.iter().zip(fov) {
        let got = got.as_f64().unwrap() as f32;
        assert!(
            (got - want).abs() < 1e-4,
            "frame {frame}: Babylon's camera has {:.3}°, the VMD key {:.3}°",
            got.to_degrees(),
            want.to_degrees()
        );
    }
    eprintln!(
        "{} camera keys compared ({} with another field of view than the first)",
        keyed.len(),
        distinct
    );
}

/// The JSON of a `.gltf`, or of a GLB's first chunk.
fn read_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    if !bytes.starts_with(b"glTF") {
        return serde_json::from_slice(&bytes).unwrap();
    }
    let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[20..20 + len]).unwrap()
}

/// The last MMD frame a GLB's animation covers, from the file's own `extras.mmd.animation`.
fn glb_last_frame(glb: &Path) -> f32 {
    read_json(glb)["extras"]["mmd"]["animation"]["lastFrame"]
        .as_f64()
        .unwrap() as f32
}
