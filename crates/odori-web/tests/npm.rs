//! The npm package as a web developer gets it: `build.sh --package` packs it, the tarball is
//! installed into a fresh project with npm, and
//! - Node (no DOM, no browser) drives its public API (`tests/npm/pose.mjs`);
//! - headless Chromium draws with three.js through its adapter (`tests/browser/three.mjs`).
//!
//! Evidence in Node: Gene_light.pmx × wavefile_v2.vmd, frames 0..2810 in order, read through
//! the package's typed-array views:
//! - without physics, every bone's world matrix equals, bit for bit, what the pose runtime
//!   gives natively through the path `odori pose` takes (`Instance::evaluate`,
//!   `world_matrix`);
//! - with physics, every skinning matrix, morph weight and the visibility equal the native
//!   player's with the package's options (the page's, CPU deformation off), the same seeks,
//!   bit for bit: the same Rust compiled for wasm32 moves no bit;
//! - the same model read from its bytes with a resolver is asked for every texture the PMX
//!   names and warns of none missing, and each material's texture odori decodes has the size
//!   the PNG's header gives (read here with the `image` crate) either way;
//! - a PMX cut short throws an `OdoriError` naming the file, the section and the byte offset;
//!   a motion bound to another model is refused with an `OdoriError`.
//!
//! Every frame is compared: the files' sizes are checked against the frame count first.
//!
//! The declarations: `tsc --noEmit --strict` (TypeScript 5.9, three's types 0.187) accepts the
//! package's example module (`npm/example/main.ts`, the README's example) against the installed
//! package's `index.d.ts` and `three.d.ts`, and refuses a copy of it that misuses the API (so
//! the check is not vacuous).
//!
//! Evidence in Chromium (three.js r187, WebGL2 on SwiftShader): the package's one-file
//! example plays the embedded demo with no files and draws it; Gene × wavefile_v2 with physics
//! played to frame [`THREE_FRAME`] through `Dancer`: the bone matrices three.js uploads equal
//! the native player's skinning matrices mirrored into three.js's frame (`odori_pose::space`)
//! bit for bit, its morph targets carry odori's weights, and the picture three.js draws through
//! the wavefile camera covers the pixels odori's own renderer covers at that frame (overlap
//! of the covered pixels, intersection over union, at least [`MIN_OVERLAP`]).
//!
//! Needs node, npm, clang and llvm-ar (Bullet for wasm32), the wasm32 target, ../shared, and
//! for Chromium `/usr/bin/chromium` and `npm ci` in tests/browser (playwright-core, three);
//! without them it prints SKIPPED, unless `ODORI_REQUIRE_BROWSER=1` / `ODORI_REQUIRE_SHARED=1`.

use glam::Mat4;
use odori_playback::render::renderer_for;
use odori_playback::{Frame, ModelAsset, MotionFile, Player, PlayerOptions, Scene};
use odori_render::{RenderOptions, device_for_tests};
use odori_testkit::browser::need;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

const FRAMES: usize = 2810;
/// The frame three.js draws (the camera is close on Gene there).
const THREE_FRAME: usize = 300;
/// Least share of covered pixels the two pictures have in common (intersection over union).
const MIN_OVERLAP: f64 = 0.9;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn runs(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The package installed once for this file's tests ([`install`]).
fn installed_package() -> PathBuf {
    static PROJECT: OnceLock<PathBuf> = OnceLock::new();
    PROJECT.get_or_init(install).clone()
}

/// Build and pack the package into `target/npm-test`, install the tarball into a fresh
/// project there, and return the project's folder.
fn install() -> PathBuf {
    let out = root().join("target/npm-test");
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(root().join("crates/odori-web/build.sh"))
        .arg("--package")
        .arg(&out)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "crates/odori-web/build.sh --package failed"
    );
    let tarball = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "tgz"))
        .expect("build.sh --package left a tarball");
    let project = out.join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("package.json"),
        r#"{ "name": "odori-npm-test", "private": true, "type": "module" }"#,
    )
    .unwrap();
    let status = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--offline"])
        .arg(&tarball)
        .current_dir(&project)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "npm install of {} failed",
        tarball.display()
    );
    project
}

fn floats(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// The first index where `got` and `want` differ in bits, for the message.
fn first_difference(got: &[f32], want: &[f32]) -> Option<usize> {
    (got.iter().zip(want)).position(|(a, b)| a.to_bits() != b.to_bits())
}

#[test]
fn the_packed_package_poses_in_node_as_native_does() {
    let ok = runs("node") && runs("npm") && runs("clang");
    if need(ok, "node, npm or clang").is_none() {
        return;
    }
    let (Some(gene), Some(vmd)) = (
        odori_testkit::shared("assets/gene"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let project = installed_package();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/npm/pose.mjs"),
        project.join("pose.mjs"),
    )
    .unwrap();
    let out = project.join("node-out");
    std::fs::create_dir_all(&out).unwrap();
    let output = Command::new("node")
        .arg("pose.mjs")
        .arg(&gene)
        .arg(&vmd)
        .arg(&out)
        .arg(FRAMES.to_string())
        .arg(FRAMES.to_string())
        .current_dir(&project)
        .output()
        .unwrap();
    eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "node pose.mjs failed");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let result: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    eprintln!("{result:#}");

    // Native: the same model and motion files.
    let asset = Arc::new(ModelAsset::load(&gene.join("Gene_light.pmx")).unwrap());
    let model = asset.pose();
    let (file, _) = MotionFile::read(&vmd).unwrap();
    let motion = Arc::new(odori_pose::Motion::bind(model, &[file.source()]));
    let bones = model.bone_count();
    let morphs = model.morph_count();
    assert_eq!(result["bones"].as_u64(), Some(bones as u64));
    assert_eq!(result["morphs"].as_u64(), Some(morphs as u64));
    assert_eq!(result["fps"].as_f64(), Some(30.0));
    assert_eq!(
        result["endFrame"].as_f64(),
        Some(f64::from(motion.end_frame()))
    );
    assert!(
        FRAMES as f32 > motion.end_frame(),
        "the frames cover the dance"
    );

    // Without physics: world matrices as `odori pose` computes them.
    let world = floats(&out.join("world.f32"));
    assert_eq!(world.len(), FRAMES * bones * 16, "every frame was written");
    let mut inst = odori_pose::Instance::new(model, &motion);
    for f in 0..FRAMES {
        inst.evaluate(model, &motion, f as f32).unwrap();
        let want: Vec<f32> = (0..bones)
            .flat_map(|b| inst.world_matrix(b).to_cols_array())
            .collect();
        let got = &world[f * bones * 16..(f + 1) * bones * 16];
        if let Some(i) = first_difference(got, &want) {
            panic!(
                "frame {f}: bone {} world matrix element {}: package {} native {}",
                i / 16,
                i % 16,
                got[i],
                want[i]
            );
        }
    }

    // With physics: the package's player, natively.
    assert_eq!(result["hasPhysics"], serde_json::json!(true));
    let data = floats(&out.join("physics.f32"));
    let per = bones * 16 + morphs + 1;
    assert_eq!(data.len(), FRAMES * per, "every frame was written");
    let mut scene = Scene::new();
    scene.add_bound(asset.clone(), motion.clone());
    let mut player = Player::new(
        Arc::new(scene),
        PlayerOptions {
            deform: false,
            ..odori_web::options::player_options(true)
        },
    );
    let mut frame = Frame::default();
    for f in 0..FRAMES {
        player.seek(f as f64);
        player.evaluate(&mut frame);
        let m = &frame.models()[0];
        let mut want: Vec<f32> = (m.skinning().iter())
            .flat_map(|s| Mat4::from(*s).to_cols_array())
            .collect();
        want.extend_from_slice(m.morph_weights());
        want.push(if m.visible() { 1.0 } else { 0.0 });
        let got = &data[f * per..(f + 1) * per];
        if let Some(i) = first_difference(got, &want) {
            panic!(
                "physics frame {f}: value {i} (bones × 16, then morphs, then visibility): \
                 package {} native {}",
                got[i], want[i]
            );
        }
    }

    // A resolver, and the decoded textures.
    let resolver = &result["resolver"];
    let asked: Vec<&str> = (resolver["asked"].as_array().unwrap().iter())
        .map(|v| v.as_str().unwrap())
        .collect();
    let named = odori_format::read_path(gene.join("Gene_light.pmx"))
        .unwrap()
        .0;
    let odori_format::Document::Pmx(pmx) = named else {
        panic!("Gene_light.pmx is a PMX")
    };
    for t in &pmx.textures {
        assert!(
            asked.contains(&t.as_str()),
            "{t} was not asked for: {asked:?}"
        );
    }
    assert!(
        !(resolver["warnings"].as_array().unwrap().iter())
            .any(|w| w.as_str().unwrap().contains("texture")),
        "{resolver}"
    );
    let names = resolver["textureNames"].as_array().unwrap();
    let mut checked = 0;
    for key in ["decoded", "decodedFromFiles"] {
        for (name, got) in names.iter().zip(resolver[key].as_array().unwrap()) {
            let Some(name) = name.as_str() else { continue };
            let path = gene.join(name.replace('\\', "/"));
            let (w, h) = image::image_dimensions(&path).unwrap();
            assert_eq!(got, &serde_json::json!([w, h, w * h * 4]), "{key}: {name}");
            checked += 1;
        }
    }
    assert!(checked >= 2 * 12, "textured materials checked: {checked}");

    // Bad bytes: an OdoriError naming the file, the section and the byte offset.
    let cut = &result["truncated"];
    assert_eq!(cut["odoriError"], serde_json::json!(true), "{cut}");
    let message = cut["message"].as_str().unwrap();
    assert!(
        message.contains("cut.pmx") && message.contains("section") && message.contains("byte"),
        "{message}"
    );
    let other = &result["otherModel"];
    assert_eq!(other["odoriError"], serde_json::json!(true), "{other}");
    assert!(
        other["message"]
            .as_str()
            .unwrap()
            .contains("loaded for another model"),
        "{other}"
    );
}

#[test]
fn the_declarations_type_check_the_example() {
    let browser = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let tsc = browser.join("node_modules/typescript/bin/tsc");
    let types = browser.join("node_modules/@types/three");
    let ok = runs("node") && runs("npm") && runs("clang") && tsc.exists() && types.is_dir();
    if need(
        ok,
        "node, npm, clang or tests/browser/node_modules (npm ci)",
    )
    .is_none()
    {
        return;
    }
    let project = installed_package();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("npm/example/main.ts");
    let source = std::fs::read_to_string(&example).unwrap();
    // `NAME.ts` with its own tsconfig, in the project (where `odori` resolves to the installed
    // package; `three` to three's types beside the browser harness).
    let check = |name: &str, source: &str| {
        std::fs::write(project.join(format!("{name}.ts")), source).unwrap();
        let config = serde_json::json!({
            "compilerOptions": {
                "target": "es2022",
                "module": "esnext",
                "moduleResolution": "bundler",
                "lib": ["es2022", "dom"],
                "strict": true,
                "noEmit": true,
                "types": [],
                "paths": { "three": [types.display().to_string()] },
            },
            "files": [format!("{name}.ts")],
        });
        let config_file = format!("tsconfig.{name}.json");
        std::fs::write(project.join(&config_file), config.to_string()).unwrap();
        Command::new("node")
            .arg(&tsc)
            .args(["-p", &config_file])
            .current_dir(&project)
            .output()
            .unwrap()
    };
    let good = check("example", &source);
    assert!(
        good.status.success(),
        "tsc refused the example:\n{}",
        String::from_utf8_lossy(&good.stdout)
    );
    // A misuse the declarations must catch: a frame number where a Motion belongs.
    let bad = source.replace(
        "new Dancer(model, motion, { physics: true })",
        "new Dancer(model, 30, { physics: true })",
    );
    assert_ne!(
        bad, source,
        "the example still has the line the misuse replaces"
    );
    let refused = check("misuse", &bad);
    let said = String::from_utf8_lossy(&refused.stdout);
    assert!(
        !refused.status.success() && said.contains("misuse.ts"),
        "tsc accepted a Dancer made with a number for its motion:\n{said}"
    );
}

/// Copy three.js's package (its `package.json` and `build/`) from the browser harness's
/// `node_modules` into the project, as `npm install three` would put it.
fn add_three(project: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/node_modules/three");
    let to = project.join("node_modules/three");
    std::fs::create_dir_all(to.join("build")).unwrap();
    std::fs::copy(from.join("package.json"), to.join("package.json")).unwrap();
    for e in std::fs::read_dir(from.join("build")).unwrap().flatten() {
        std::fs::copy(e.path(), to.join("build").join(e.file_name())).unwrap();
    }
}

/// Pixels that are not the white background.
fn covered(img: &image::RgbaImage) -> Vec<bool> {
    img.pixels()
        .map(|p| p.0[..3].iter().any(|&c| c < 250))
        .collect()
}

#[test]
fn three_js_draws_gene_through_the_package_as_odori_does() {
    let browser = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let ok = runs("node")
        && runs("npm")
        && runs("clang")
        && Path::new("/usr/bin/chromium").exists()
        && browser.join("node_modules/playwright-core").is_dir()
        && browser.join("node_modules/three").is_dir();
    if need(
        ok,
        "node, npm, clang, /usr/bin/chromium or tests/browser/node_modules (npm ci)",
    )
    .is_none()
    {
        return;
    }
    let (Some(gene), Some(vmd), Some(camera)) = (
        odori_testkit::shared("assets/gene"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    let project = installed_package();
    add_three(&project);
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        here.join("npm/example/index.html"),
        project.join("example.html"),
    )
    .unwrap();
    std::fs::copy(browser.join("three.html"), project.join("three.html")).unwrap();
    let out = project.join("three-out");
    std::fs::create_dir_all(&out).unwrap();
    let status = Command::new("node")
        .arg(browser.join("three.mjs"))
        .arg(&project)
        .arg(&out)
        .arg(&gene)
        .arg(&vmd)
        .arg(&camera)
        .arg(THREE_FRAME.to_string())
        .status()
        .unwrap();
    assert!(status.success(), "node three.mjs failed");
    let result: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("result.json")).unwrap()).unwrap();
    let log = &result["log"];
    assert!(result["error"].is_null(), "{}\n{log:#}", result["error"]);
    eprintln!(
        "three.js page: example at frame {}, pose {} ms, pose + physics {} ms, adapter {} ms a frame; log {log}",
        result["exampleFrame"], result["poseMs"], result["posePhysicsMs"], result["applyMs"]
    );
    assert!(
        !log.as_array()
            .unwrap()
            .iter()
            .any(|l| l.as_str().unwrap().starts_with("pageerror")),
        "{log:#}"
    );

    // The example drew the demo (a dancer on the white page).
    let example = image::open(out.join("example.png")).unwrap().to_rgba8();
    let drawn = covered(&example).iter().filter(|&&c| c).count();
    let share = drawn as f64 / f64::from(example.width() * example.height());
    assert!(
        (0.01..0.9).contains(&share),
        "the example covers {share:.3} of its canvas"
    );

    // Natively: the same scene played frame by frame with the adapter's player options.
    let asset = Arc::new(ModelAsset::load(&gene.join("Gene_light.pmx")).unwrap());
    let (file, _) = MotionFile::read(&vmd).unwrap();
    let camera_vmd = odori_playback::load::camera_file(&camera).unwrap();
    let mut scene = Scene::new();
    scene.add_model_files(asset.clone(), &[file]);
    scene.set_camera(&camera_vmd);
    let scene = Arc::new(scene);
    let mut player = Player::new(
        scene.clone(),
        PlayerOptions {
            deform: false,
            ..odori_web::options::player_options(true)
        },
    );
    let mut frame = Frame::default();
    for f in 0..=THREE_FRAME {
        player.seek(f as f64);
        player.evaluate(&mut frame);
    }
    let want: Vec<f32> = (frame.models()[0].skinning().iter())
        .flat_map(|s| Mat4::from(odori_pose::space::affine(*s)).to_cols_array())
        .collect();
    let got: Vec<f32> = (result["boneMatrices"].as_array().unwrap().iter())
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    // three.js pads the array to its bone texture's size.
    assert!(got.len() >= want.len(), "a matrix per bone: {}", got.len());
    // Equal values (JSON, which carries them, writes −0 as 0; nothing else is lost).
    let got = &got[..want.len()];
    if let Some(i) = (got.iter().zip(&want)).position(|(a, b)| a != b) {
        panic!(
            "three.js bone matrix {} element {}: {} where odori has {}",
            i / 16,
            i % 16,
            got[i],
            want[i]
        );
    }
    let weights = frame.models()[0].morph_weights();
    let indices = result["morphIndices"].as_array().unwrap();
    let influences = result["morphInfluences"].as_array().unwrap();
    assert_eq!(indices.len(), influences.len());
    assert!(!indices.is_empty(), "Gene has vertex morphs");
    for (k, i) in indices.iter().enumerate() {
        let w = weights[i.as_u64().unwrap() as usize];
        assert_eq!(
            influences[k].as_f64().unwrap() as f32,
            w,
            "morph target {k}"
        );
    }

    // odori's own picture of that frame, without the ground shadow three.js does not draw.
    let (w, h) = (640, 360);
    let mut renderer = renderer_for(
        &scene,
        device_for_tests(),
        RenderOptions {
            width: w,
            height: h,
            msaa: 1,
            ground_shadow: false,
            ..RenderOptions::default()
        },
    );
    let mut deformed = Player::new(scene.clone(), odori_web::options::player_options(true));
    for f in 0..=THREE_FRAME {
        deformed.seek(f as f64);
        deformed.evaluate(&mut frame);
    }
    frame.prepare(&mut renderer, true);
    let native = renderer.render_image(&frame.view(scene.framing_camera(w as f32 / h as f32)));
    native.save(out.join("gene_native.png")).unwrap();
    let three = image::open(out.join("gene_three.png")).unwrap().to_rgba8();
    assert_eq!(three.dimensions(), (w, h));
    let (a, b) = (covered(&native), covered(&three));
    let both = a.iter().zip(&b).filter(|(x, y)| **x && **y).count();
    let either = a.iter().zip(&b).filter(|(x, y)| **x || **y).count();
    let overlap = both as f64 / either.max(1) as f64;
    eprintln!(
        "covered pixels: odori {}, three.js {}, overlap {overlap:.3}",
        a.iter().filter(|&&c| c).count(),
        b.iter().filter(|&&c| c).count()
    );
    assert!(
        either > 5000,
        "the frame shows Gene ({either} covered pixels)"
    );
    assert!(
        overlap >= MIN_OVERLAP,
        "overlap {overlap:.3} < {MIN_OVERLAP}"
    );
}
