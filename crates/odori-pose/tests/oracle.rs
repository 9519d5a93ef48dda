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

fn compile(path: &Path) -> Model {
    if path.extension().unwrap() == "pmx" {
        Model::from_pmx(&Pmx::read(path).unwrap()).unwrap()
    } else {
        Model::from_pmd(&Pmd::read(path).unwrap()).unwrap()
    }
}

enum MotionFile {
    Vmd(Vmd),
    Vpd(Vpd),
}

/// Per-bone-frame errors of one dump: (bone name, frame, translation error, rotation error).
struct Comparison {
    rows: Vec<(String, f32, f32, f32, bool)>,
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
    let model = compile(&model_path);
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
    Some(Comparison { rows })
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
        for (name, frame, dt, dr, in_ik) in &c.rows {
            if *in_ik {
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
