//! The 48 IK results captured from MikuMikuDance 9.32 (`shared/docs/mmd-ik-captures.json`,
//! fixtures in `shared/ik-captures/`), each reproduced within its tolerance on the bones the
//! case marks as MMD output.

use glam::{Mat4, Quat, Vec3};
use odori_format::{Pmx, Vmd};
use odori_pose::{Instance, Model, Motion};
use serde_json::Value;
use std::path::Path;

/// Run one case: `Ok` gives the worst error as a fraction of the case's tolerance (the
/// margin left), `Err` says what differs.
fn run_case(dir: &Path, case: &str) -> Result<f32, String> {
    let pmx = Pmx::read(dir.join(format!("{case}.pmx"))).map_err(|e| e.to_string())?;
    let vmd = Vmd::read(dir.join(format!("{case}.vmd"))).map_err(|e| e.to_string())?;
    let exp: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{case}.expected.json"))).unwrap(),
    )
    .unwrap();
    let model = Model::from_pmx(&pmx).map_err(|e| e.to_string())?;
    let motion = Motion::from_vmd(&model, &vmd);
    let mut inst = Instance::new(&model, &motion);
    for _ in 0..exp["evaluations"].as_u64().unwrap_or(1) {
        inst.evaluate(&model, &motion, 0.0).unwrap();
    }
    let tol = exp["tolerance"].as_f64().unwrap() as f32;
    let bone = |name: &str| {
        model
            .find_bone(name)
            .ok_or_else(|| format!("no bone `{name}`"))
    };
    let world = |b: usize| inst.world_matrix(b);
    let vec = |v: &Value| -> Vec<f32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as f32)
            .collect()
    };
    let mut errors = Vec::new();
    let mut worst = 0f32;
    let mut check = |what: String, err: f32| {
        worst = worst.max(err / tol);
        if err.is_nan() || err > tol {
            errors.push(format!("{what}: error {err:.3e} > {tol:.0e}"));
        }
    };
    if let Some(m) = exp["world_rotations"].as_object() {
        for (name, q) in m {
            let q = vec(q);
            let want = Quat::from_xyzw(q[0], q[1], q[2], q[3]);
            let got = Quat::from_mat4(&world(bone(name)?));
            let err = (got - want).length().min((got + want).length());
            check(format!("{name} world rotation {got:?} want {want:?}"), err);
        }
    }
    if let Some(m) = exp["positions"].as_object() {
        for (name, p) in m {
            let want = Vec3::from_slice(&vec(p));
            let got = world(bone(name)?).w_axis.truncate();
            check(
                format!("{name} position {got} want {want}"),
                (got - want).abs().max_element(),
            );
        }
    }
    if let Some(m) = exp["world_matrices"].as_object() {
        for (name, mat) in m {
            let want = Mat4::from_cols_slice(&vec(mat));
            let got = world(bone(name)?);
            let err = (got - want)
                .to_cols_array()
                .iter()
                .fold(0f32, |a, x| a.max(x.abs()));
            check(format!("{name} world matrix"), err);
        }
    }
    if let Some(m) = exp["axes"].as_object() {
        for (name, ax) in m {
            let want = Vec3::from_slice(&vec(&ax["x"]));
            let got = world(bone(name)?).x_axis.truncate();
            check(
                format!("{name} world X axis {got} want {want}"),
                (got - want).abs().max_element(),
            );
        }
    }
    if let Some(m) = exp["local_rotation_angles"].as_object() {
        let axis = Vec3::from_slice(&vec(&exp["rotation_axis"])).normalize();
        for (name, a) in m {
            let b = bone(name)?;
            let p = model.parents()[b];
            let parent = if p == odori_pose::model::NONE {
                Mat4::IDENTITY
            } else {
                world(p as usize)
            };
            let local = Quat::from_mat4(&(parent.inverse() * world(b)));
            // Sign-invariant: q and −q are one rotation; w ≥ 0 gives an angle ≤ π.
            let local = if local.w < 0.0 { -local } else { local };
            let (ax, angle) = local.to_axis_angle();
            let signed = ax.dot(axis) * angle;
            let want = a.as_f64().unwrap() as f32;
            check(
                format!("{name} local angle {signed} want {want}"),
                (signed - want).abs(),
            );
        }
    }
    if errors.is_empty() {
        Ok(worst)
    } else {
        Err(errors.join("; "))
    }
}

#[test]
fn every_mmd_capture_is_reproduced() {
    let Some(dir) = odori_testkit::shared("ik-captures") else {
        return;
    };
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let mut failed = Vec::new();
    let cases = index["cases"].as_array().unwrap();
    for c in cases {
        let case = c["case"].as_str().unwrap();
        match run_case(&dir, case) {
            Ok(worst) => println!(
                "ok   {case} (worst error {:.0}% of tolerance)",
                worst * 100.0
            ),
            Err(e) => {
                println!("FAIL {case}: {e}");
                failed.push(case.to_owned());
            }
        }
    }
    println!(
        "{} of {} MMD captures reproduced",
        cases.len() - failed.len(),
        cases.len()
    );
    assert!(failed.is_empty(), "captures not reproduced: {failed:?}");
}
