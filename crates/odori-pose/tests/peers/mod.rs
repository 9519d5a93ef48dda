//! Shared by the peer-comparison tests: reading the reference pose dumps, and compiling a
//! model together with the bones whose babylon-mmd reference is known to differ from MMD.

#![allow(dead_code)] // each test binary uses part of it

use odori_format::{Pmd, Pmx};
use odori_pose::Model;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// One reference dump (`shared/docs/pose-json.md`).
pub struct Dump {
    pub file: String,
    pub names: Vec<String>,
    /// Bones marked `orderDependent`: comparisons skip them.
    pub skip: HashSet<String>,
    /// (frame, world matrices in dump bone order, column-major).
    pub frames: Vec<(f32, Vec<[f32; 16]>)>,
}

pub fn load_dump(path: &Path) -> Dump {
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

/// The compiled model and, for PMD, the bones whose babylon-mmd reference is known wrong.
pub fn compile(path: &Path) -> (Model, HashSet<String>) {
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

/// PMD bones of kind 5 (回転影響下: full rotation of the bone in the IK field, e.g. miku's eyes
/// following 両目) and kind 9 (回転連動: IK-field % of the tail bone's rotation, e.g. 腕捩1..3),
/// with their descendants. babylon-mmd 1.3.0 reads kind 5 with kind 9's layout (source = tail,
/// ratio = IK field / 100: the eyes then follow their own unanimated tip) and ignores kind 9,
/// so its dumps leave these bones on their parents. odori follows MMD (and MMDAgent).
pub fn pmd_follow_bones(pmd: &Pmd) -> HashSet<String> {
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
