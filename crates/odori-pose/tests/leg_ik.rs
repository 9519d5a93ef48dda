//! Leg IK against the peers, where they disagree with each other (up to 0.14 units).
//!
//! Reports, per dump: odori's worst and 99th-percentile distance to each peer over IK-affected
//! bones, and the effector-to-goal distance per frame (median, worst) of odori and of each
//! peer. Checks these bounds: knees never leave their limits (every frame of every
//! motion); 99 % of IK-affected bone-frames within 0.05 units of the nearer peer; and where a
//! knee is within 0.01 units of mmd-anim's, the ankle within 0.02 (rotation element) of it.
//!
//! Nothing passes by comparing nothing: a dump naming a bone the model lacks, a dump with a
//! frame no case evaluates or with no IK-affected bone-frame compared, and a pose dump of a
//! VMD motion in `oracle-ref` that no case lists each fail the test.

use glam::{Mat4, Quat};
mod peers;

use odori_format::Vmd;
use odori_pose::{Instance, Model, Motion};
use peers::{compile, load_dump};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A dump's frames keyed by frame number.
struct Dump {
    names: Vec<String>,
    frames: HashMap<u32, Vec<Mat4>>,
}

fn load(path: &Path) -> Dump {
    let d = load_dump(path);
    let frames = d
        .frames
        .into_iter()
        .map(|(f, w)| (f as u32, w.iter().map(Mat4::from_cols_array).collect()))
        .collect();
    Dump {
        names: d.names,
        frames,
    }
}

fn percentile(v: &mut [f32], p: f32) -> f32 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f32::total_cmp);
    v[((v.len() - 1) as f32 * p).round() as usize]
}

fn rot_elem(a: &Mat4, b: &Mat4) -> f32 {
    let (a, b) = (a.to_cols_array(), b.to_cols_array());
    [0, 1, 2, 4, 5, 6, 8, 9, 10]
        .iter()
        .map(|&k| (a[k] - b[k]).abs())
        .fold(0.0, f32::max)
}

struct Case {
    /// Share of IK-affected bone-frames that must lie within 0.05 of the nearer peer (99 %). For PMD the only peer is babylon-mmd, whose two IK rules PMD models
    /// follow (`IkRules::PMD`).
    required: f32,
    model: &'static str,
    motion: &'static str,
    dumps: &'static [&'static str],
    ikset: &'static str,
}

const CASES: &[Case] = &[
    Case {
        required: 0.99,
        model: "assets/gene/Gene_light.pmx",
        motion: "assets/wavefile/wavefile_v2.vmd",
        dumps: &[
            "gene_light_pmx__wavefile_v2__mmdanim",
            "gene_light_pmx__wavefile_v2__js",
            "gene_light_pmx__wavefile_v2__wasm",
        ],
        ikset: "gene_light_pmx.ikset.json",
    },
    Case {
        required: 0.99,
        model: "assets/gene/Gene_light.pmx",
        motion: "assets/gene/motion/stand.vmd",
        dumps: &[
            "gene_light_pmx__stand__mmdanim",
            "gene_light_pmx__stand__js",
        ],
        ikset: "gene_light_pmx.ikset.json",
    },
    Case {
        required: 0.99,
        model: "assets/gene/Gene_light.pmx",
        motion: "assets/gene/motion/26_mortifying.vmd",
        dumps: &[
            "gene_light_pmx__26_mortifying__mmdanim",
            "gene_light_pmx__26_mortifying__js",
        ],
        ikset: "gene_light_pmx.ikset.json",
    },
    Case {
        required: 0.99,
        model: "assets/gene/Gene_light.pmd",
        motion: "assets/wavefile/wavefile_v2.vmd",
        dumps: &["gene_light_pmd__wavefile_v2__js"],
        ikset: "gene_light_pmd.ikset.json",
    },
    Case {
        required: 0.99,
        model: "assets/miku_v2/miku_v2.pmd",
        motion: "assets/wavefile/wavefile_v2.vmd",
        dumps: &["miku_v2__wavefile_v2__js", "miku_v2__wavefile_v2__wasm"],
        ikset: "miku_v2.ikset.json",
    },
];

/// Knee links (single-axis limited links) and their limits' X range.
fn knees(model: &Model) -> Vec<(usize, f32, f32)> {
    let single_x = |l: &odori_pose::model::LinkLimits| {
        l.min.y == 0.0
            && l.max.y == 0.0
            && l.min.z == 0.0
            && l.max.z == 0.0
            && (l.min.x != 0.0 || l.max.x != 0.0)
    };
    model
        .solvers()
        .iter()
        .flat_map(|s| s.links.iter())
        .filter_map(|l| {
            l.limits
                .filter(single_x)
                .map(|lim| (l.bone as usize, lim.min.x, lim.max.x))
        })
        .collect()
}

#[test]
fn leg_ik_against_peers() {
    let Some(root) = odori_testkit::shared("oracle-ref") else {
        return;
    };
    let shared = root.parent().unwrap();
    let mut failures = Vec::new();
    let mut compared = HashSet::new();
    for case in CASES {
        let (model, babylon_misread) = compile(&shared.join(case.model));
        let motion = Motion::from_vmd(&model, &Vmd::read(shared.join(case.motion)).unwrap());
        let ikset: HashSet<String> = serde_json::from_str::<Vec<String>>(
            &std::fs::read_to_string(root.join(case.ikset)).unwrap(),
        )
        .unwrap()
        .into_iter()
        .collect();
        let dumps: Vec<(&str, Dump)> = case
            .dumps
            .iter()
            .map(|d| (*d, load(&root.join(format!("{d}.json")))))
            .collect();
        for (name, d) in &dumps {
            let missing: Vec<&String> = d
                .names
                .iter()
                .filter(|n| model.find_bone(n).is_none())
                .collect();
            if !missing.is_empty() {
                failures.push(format!("{name}: bones the model lacks: {missing:?}"));
            }
        }
        let mut inst = Instance::new(&model, &motion);
        let knee_list = knees(&model);

        // Knees inside their limits on every frame, in playback order.
        let mut worst_knee = 0f32;
        for f in 0..=motion.end_frame() as u32 {
            inst.evaluate(&model, &motion, f as f32).unwrap();
            for &(b, lo, hi) in &knee_list {
                // q and −q are one rotation: take the one with w ≥ 0, whose angle is ≤ π.
                let q: Quat = inst.local_rotations()[b];
                let q = if q.w < 0.0 { -q } else { q };
                let (axis, angle) = q.to_axis_angle();
                let x = axis.x * angle;
                let off_axis = (axis.y * angle).abs().max((axis.z * angle).abs());
                let outside = (lo - x).max(x - hi).max(0.0).max(off_axis);
                worst_knee = worst_knee.max(outside);
            }
        }
        println!(
            "{} × {}: knees outside limits by at most {worst_knee:.2e} rad",
            case.model, case.motion
        );
        if worst_knee > 1e-3 {
            failures.push(format!(
                "{}: knee outside its limit by {worst_knee}",
                case.model
            ));
        }

        // Distances to each peer on IK-affected bones, and effector-to-goal distances.
        let frames: Vec<u32> = {
            let mut f: Vec<u32> = dumps[0].1.frames.keys().copied().collect();
            f.sort();
            f
        };
        let mut per_peer: Vec<Vec<f32>> = vec![Vec::new(); dumps.len()];
        let mut nearer: Vec<f32> = Vec::new();
        let mut goal_ours: Vec<f32> = Vec::new();
        let mut goal_peer: Vec<Vec<f32>> = vec![Vec::new(); dumps.len()];
        let mut knee_ankle_worst = 0f32;
        let mut knee_ankle_pairs = 0;
        let idx: Vec<HashMap<&str, usize>> = dumps
            .iter()
            .map(|(_, d)| {
                d.names
                    .iter()
                    .enumerate()
                    .map(|(i, n)| (n.as_str(), i))
                    .collect()
            })
            .collect();
        for &f in &frames {
            inst.evaluate(&model, &motion, f as f32).unwrap();
            for b in 0..model.bone_count() {
                let name = model.bone_names()[b].as_str();
                if !ikset.contains(name)
                    || model.order_dependent()[b]
                    || babylon_misread.contains(name)
                {
                    continue;
                }
                let ours = inst.world_matrix(b);
                let mut best = f32::MAX;
                for (p, (_, d)) in dumps.iter().enumerate() {
                    let (Some(w), Some(&i)) = (d.frames.get(&f), idx[p].get(name)) else {
                        continue;
                    };
                    let dist = ours.w_axis.truncate().distance(w[i].w_axis.truncate());
                    per_peer[p].push(dist);
                    best = best.min(dist);
                }
                if best < f32::MAX {
                    nearer.push(best);
                }
            }
            for s in model.solvers() {
                let (g, t) = (s.bone as usize, s.target as usize);
                goal_ours.push(
                    inst.world(g)
                        .translation
                        .distance(inst.world_positions()[t]),
                );
                for (p, (_, d)) in dumps.iter().enumerate() {
                    let names = (&model.bone_names()[g], &model.bone_names()[t]);
                    let (Some(w), Some(&gi), Some(&ti)) = (
                        d.frames.get(&f),
                        idx[p].get(names.0.as_str()),
                        idx[p].get(names.1.as_str()),
                    ) else {
                        continue;
                    };
                    goal_peer[p].push(w[gi].w_axis.truncate().distance(w[ti].w_axis.truncate()));
                }
            }
            // Knee close to mmd-anim's → ankle close too.
            if let Some(p) = dumps.iter().position(|(n, _)| n.ends_with("mmdanim")) {
                for side in ["左", "右"] {
                    let (knee, ankle) = (format!("{side}ひざ"), format!("{side}足首"));
                    let (Some(kb), Some(ab)) = (model.find_bone(&knee), model.find_bone(&ankle))
                    else {
                        continue;
                    };
                    let (Some(w), Some(&ki), Some(&ai)) = (
                        dumps[p].1.frames.get(&f),
                        idx[p].get(knee.as_str()),
                        idx[p].get(ankle.as_str()),
                    ) else {
                        continue;
                    };
                    let kd = inst
                        .world_matrix(kb)
                        .w_axis
                        .truncate()
                        .distance(w[ki].w_axis.truncate());
                    if kd < 0.01 {
                        knee_ankle_pairs += 1;
                        knee_ankle_worst =
                            knee_ankle_worst.max(rot_elem(&inst.world_matrix(ab), &w[ai]));
                    }
                }
            }
        }
        for (p, (name, d)) in dumps.iter().enumerate() {
            if per_peer[p].is_empty() {
                failures.push(format!("{name}: no IK-affected bone-frame compared"));
            } else {
                compared.insert(format!("{name}.json"));
            }
            let unmatched = d.frames.keys().filter(|f| !frames.contains(f)).count();
            if unmatched > 0 {
                failures.push(format!("{name}: {unmatched} frames no case evaluates"));
            }
            let worst = per_peer[p].iter().copied().fold(0.0, f32::max);
            let p99 = percentile(&mut per_peer[p], 0.99);
            let g_med = percentile(&mut goal_peer[p], 0.5);
            let g_max = goal_peer[p].iter().copied().fold(0.0, f32::max);
            println!(
                "  vs {name:<42} IK bones: worst {worst:.3} p99 {p99:.4}; peer effector→goal median {g_med:.4} worst {g_max:.3}"
            );
        }
        let within =
            nearer.iter().filter(|&&d| d <= 0.05).count() as f32 / nearer.len().max(1) as f32;
        let g_med = percentile(&mut goal_ours, 0.5);
        let g_max = goal_ours.iter().copied().fold(0.0, f32::max);
        println!(
            "  odori effector→goal median {g_med:.4} worst {g_max:.3}; {:.2}% of {} IK bone-frames within 0.05 of the nearer peer",
            within * 100.0,
            nearer.len()
        );
        if knee_ankle_pairs > 0 {
            println!(
                "  knees within 0.01 of mmd-anim: {knee_ankle_pairs}; their ankles' worst rotation element {knee_ankle_worst:.4}"
            );
            if knee_ankle_worst > 0.02 {
                failures.push(format!(
                    "{}: ankle {knee_ankle_worst} from mmd-anim's where the knee agrees",
                    case.motion
                ));
            }
        }
        if within < case.required {
            failures.push(format!(
                "{} × {}: only {:.2}% within 0.05 of the nearer peer",
                case.model,
                case.motion,
                within * 100.0
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // This family: the pose dumps of a VMD motion (no rest pose, no VPD).
    let family: Vec<_> = odori_testkit::oracle_files(odori_testkit::OracleFamily::Pose)
        .unwrap()
        .into_iter()
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            !n.contains("__rest__") && !n.contains("__vpd_")
        })
        .collect();
    odori_testkit::assert_all_compared("leg IK", &family, &compared);
}
