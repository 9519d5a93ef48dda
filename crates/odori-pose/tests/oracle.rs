//! odori against the peer runtimes' pose dumps in `../shared/oracle-ref`.
//!
//! For every dump (babylon-mmd JS/WASM, mmd-anim), evaluate the same model, motion and frames
//! and compare world matrices bone by bone. Bones outside IK chains (by the dump's
//! `*.ikset.json`) must match within 1e-3 (translation and rotation element). IK-affected bones
//! are reported (worst, 99th percentile) and checked against the bounds in
//! `leg_ik_within_bounds`.

use odori_format::{Pmd, Pmx, Vmd, Vpd};
use odori_pose::motion::Source;
use odori_pose::{Instance, Model, Motion};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

struct Dump {
    file: String,
    names: Vec<String>,
    skip: HashSet<String>,
    frames: Vec<(f32, Vec<[f32; 16]>)>,
}

fn load_dump(path: &Path) -> Dump {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let bones = v["bones"].as_array().unwrap();
    let names = bones
        .iter()
        .map(|b| {
            b.get("name")
                .and_then(Value::as_str)
                .or(b.as_str())
                .unwrap()
                .to_owned()
        })
        .collect();
    let skip = bones
        .iter()
        .filter(|b| b.get("orderDependent").and_then(Value::as_bool) == Some(true))
        .map(|b| b["name"].as_str().unwrap().to_owned())
        .collect();
    let frames = v["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let world = f["world"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let mut a = [0f32; 16];
                    for (i, x) in m.as_array().unwrap().iter().enumerate() {
                        a[i] = x.as_f64().unwrap() as f32;
                    }
                    a
                })
                .collect();
            (f["frame"].as_f64().unwrap() as f32, world)
        })
        .collect();
    Dump {
        file: path.file_name().unwrap().to_string_lossy().into_owned(),
        names,
        skip,
        frames,
    }
}

/// Model path, motion paths and IK switch for a dump file name `{model}__{motion}__{peer}`.
fn inputs(shared: &Path, file: &str) -> Option<(PathBuf, Vec<PathBuf>, bool, PathBuf)> {
    let parts: Vec<&str> = file.trim_end_matches(".json").split("__").collect();
    let [model, motion, _peer] = parts[..] else {
        return None;
    };
    let a = shared.join("assets");
    let model_path = match model {
        "gene_light_pmx" => a.join("gene/Gene_light.pmx"),
        "gene_light_pmd" => a.join("gene/Gene_light.pmd"),
        "miku_v2" => a.join("miku_v2/miku_v2.pmd"),
        other => a.join(format!("babylon-mmd-fixtures/{other}.pmx")),
    };
    let ikset = shared.join(format!("oracle-ref/{model}.ikset.json"));
    let (motions, ik) = match motion {
        "rest" => (vec![], true),
        "wavefile_v2" => (vec![a.join("wavefile/wavefile_v2.vmd")], true),
        "stand" => (vec![a.join("gene/motion/stand.vmd")], true),
        "26_mortifying" => (vec![a.join("gene/motion/26_mortifying.vmd")], true),
        m if m.starts_with("vpd_") => {
            let n = &m[4..6];
            (vec![a.join(format!("vpd/{n}.vpd"))], !m.ends_with("_noik"))
        }
        _ => return None,
    };
    Some((model_path, motions, ik, ikset))
}

/// The compiled model and, for PMD, the bones whose babylon-mmd reference is known wrong.
fn compile(path: &Path) -> (Model, HashSet<String>) {
    if path.extension().unwrap() == "pmx" {
        (
            Model::from_pmx(&Pmx::read(path).unwrap()).unwrap(),
            HashSet::new(),
        )
    } else {
        let pmd = Pmd::read(path).unwrap();
        (Model::from_pmd(&pmd).unwrap(), pmd_follow_bones(&pmd))
    }
}

enum MotionFile {
    Vmd(Vmd),
    Vpd(Vpd),
}

/// Per-bone-frame errors of one dump: (bone name, frame, translation error, rotation error,
/// IK-affected).
struct Comparison {
    rows: Vec<(String, f32, f32, f32, bool)>,
    /// Bones babylon-mmd evaluates differently from MMD by design (see
    /// [`pmd_follow_bones`]); reported, not held to 1e-3.
    deviating: HashSet<String>,
}

/// PMD bones of kind 5 (回転影響下: full rotation of the bone in the IK field, e.g. miku's eyes
/// following 両目) and kind 9 (回転連動: IK-field % of the tail bone's rotation, e.g. 腕捩1..3),
/// with their descendants. babylon-mmd 1.3.0 reads kind 5 with kind 9's layout (source = tail,
/// ratio = IK field / 100: the eyes then follow their own unanimated tip) and ignores kind 9,
/// so its dumps leave these bones on their parents. odori follows MMD (and MMDAgent).
fn pmd_follow_bones(pmd: &Pmd) -> HashSet<String> {
    let n = pmd.bones.len();
    let mut flagged: Vec<bool> = pmd
        .bones
        .iter()
        .map(|b| b.kind == 5 || b.kind == 9)
        .collect();
    loop {
        let mut changed = false;
        for i in 0..n {
            let p = pmd.bones[i].parent as usize;
            if !flagged[i] && p < n && flagged[p] {
                flagged[i] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (0..n)
        .filter(|&i| flagged[i])
        .map(|i| pmd.bones[i].name.text())
        .collect()
}

fn compare(shared: &Path, dump_path: &Path) -> Option<Comparison> {
    let dump = load_dump(dump_path);
    let (model_path, motion_paths, ik, ikset_path) = inputs(shared, &dump.file)?;
    let ikset: HashSet<String> = std::fs::read_to_string(&ikset_path)
        .ok()
        .map(|s| {
            serde_json::from_str::<Vec<String>>(&s)
                .unwrap()
                .into_iter()
                .collect()
        })
        .unwrap_or_default();
    let (model, pmd_follow) = compile(&model_path);
    let deviating = if dump.file.contains("__js") || dump.file.contains("__wasm") {
        pmd_follow
    } else {
        HashSet::new()
    };
    let files: Vec<MotionFile> = motion_paths
        .iter()
        .map(|p| {
            if p.extension().unwrap() == "vpd" {
                MotionFile::Vpd(Vpd::read(p).unwrap())
            } else {
                MotionFile::Vmd(Vmd::read(p).unwrap())
            }
        })
        .collect();
    let sources: Vec<Source<'_>> = files
        .iter()
        .map(|f| match f {
            MotionFile::Vmd(v) => Source::Vmd(v),
            MotionFile::Vpd(v) => Source::Vpd(v),
        })
        .collect();
    let motion = Motion::bind(&model, &sources);
    let mut inst = Instance::new(&model, &motion);
    inst.options.ik = ik;
    let by_name: HashMap<&str, usize> = model
        .bone_names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut rows = Vec::new();
    for (frame, world) in &dump.frames {
        inst.evaluate(&model, &motion, *frame);
        for (i, name) in dump.names.iter().enumerate() {
            if dump.skip.contains(name) {
                continue;
            }
            let Some(&b) = by_name.get(name.as_str()) else {
                continue;
            };
            if model.order_dependent[b] {
                continue;
            }
            let ours = inst.world_matrix(b).to_cols_array();
            let theirs = &world[i];
            let dt = [12, 13, 14]
                .iter()
                .map(|&k| (ours[k] - theirs[k]).abs())
                .fold(0.0, f32::max);
            let dr = [0, 1, 2, 4, 5, 6, 8, 9, 10]
                .iter()
                .map(|&k| (ours[k] - theirs[k]).abs())
                .fold(0.0, f32::max);
            rows.push((name.clone(), *frame, dt, dr, ikset.contains(name)));
        }
    }
    Some(Comparison { rows, deviating })
}

fn dumps(shared: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(shared.join("oracle-ref"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.ends_with(".json")
                && n.contains("__")
                && !n.contains("physics")
                && !n.starts_with("wavefile_camera")
        })
        .collect();
    v.sort();
    v
}

#[test]
fn bones_outside_ik_chains_match_every_peer_dump() {
    let Some(root) = odori_testkit::shared("oracle-ref") else {
        return;
    };
    let shared = root.parent().unwrap();
    let mut failures = Vec::new();
    for path in dumps(shared) {
        let Some(c) = compare(shared, &path) else {
            continue;
        };
        let (mut wt, mut wr, mut n, mut worst_at) = (0f32, 0f32, 0, String::new());
        let mut deviation = 0f32;
        for (name, frame, dt, dr, in_ik) in &c.rows {
            if *in_ik {
                continue;
            }
            if c.deviating.contains(name) {
                deviation = deviation.max(dt.max(*dr));
                continue;
            }
            n += 1;
            if dt.max(*dr) > wt.max(wr) {
                worst_at = format!("{name}@{frame}");
            }
            wt = wt.max(*dt);
            wr = wr.max(*dr);
        }
        let file = path.file_name().unwrap().to_string_lossy();
        println!("{file:<48} other bones: n={n:6} worstT={wt:.2e} worstR={wr:.2e} ({worst_at})");
        if !c.deviating.is_empty() {
            println!(
                "{:<48} PMD follow bones (babylon-mmd misreads kinds 5/9): {} bones, worst {deviation:.2e}",
                "",
                c.deviating.len()
            );
        }
        if wt > 1e-3 || wr > 1e-3 {
            failures.push(format!(
                "{file}: worstT={wt:.2e} worstR={wr:.2e} at {worst_at}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "bones outside IK chains differ:\n{}",
        failures.join("\n")
    );
}

/// Gene_light.pmd is a conversion of Gene_light.pmx: its kind-9 follow bones (tail = source,
/// IK field = signed ratio in %) must land where mmd-anim puts the PMX's append bones. This is
/// the evidence for odori's reading of PMD kind 9 against babylon-mmd's.
#[test]
fn pmd_follow_bones_match_the_pmx_append_bones_they_were_converted_from() {
    let Some(root) = odori_testkit::shared("oracle-ref") else {
        return;
    };
    let shared = root.parent().unwrap();
    let pmd = Pmd::read(shared.join("assets/gene/Gene_light.pmd")).unwrap();
    let follow = pmd_follow_bones(&pmd);
    let dump = load_dump(&root.join("gene_light_pmx__wavefile_v2__mmdanim.json"));
    let ikset: HashSet<String> = serde_json::from_str::<Vec<String>>(
        &std::fs::read_to_string(root.join("gene_light_pmx.ikset.json")).unwrap(),
    )
    .unwrap()
    .into_iter()
    .collect();
    let model = Model::from_pmd(&pmd).unwrap();
    let vmd = Vmd::read(shared.join("assets/wavefile/wavefile_v2.vmd")).unwrap();
    let motion = Motion::from_vmd(&model, &vmd);
    let mut inst = Instance::new(&model, &motion);
    let (mut worst, mut n) = (0f32, 0);
    for (frame, world) in dump.frames.iter().step_by(3) {
        inst.evaluate(&model, &motion, *frame);
        for (i, name) in dump.names.iter().enumerate() {
            if !follow.contains(name) || ikset.contains(name) {
                continue;
            }
            let b = model.find_bone(name).unwrap();
            let ours = inst.world_matrix(b).to_cols_array();
            for k in [0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14] {
                worst = worst.max((ours[k] - world[i][k]).abs());
            }
            n += 1;
        }
    }
    println!("PMD follow bones vs mmd-anim's PMX append bones: {n} bone-frames, worst {worst:.2e}");
    assert!(n > 100 && worst < 1e-3, "{n} bone-frames, worst {worst}");
}
