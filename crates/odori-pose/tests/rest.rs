//! With no motion, every bone outside IK chains sits at its rest position (within 1e-5) and
//! keeps an identity rotation, on the real models.

use odori_format::{Pmd, Pmx};
use odori_pose::{Instance, Model, Motion};
use std::collections::HashSet;

fn check(model: &Model, ikset: &HashSet<String>) -> (usize, f32) {
    let motion = Motion::empty(model);
    let mut inst = Instance::new(model, &motion);
    inst.evaluate(model, &motion, 0.0).unwrap();
    let (mut n, mut worst) = (0, 0f32);
    for b in 0..model.bone_count() {
        if ikset.contains(&model.bone_names()[b]) {
            continue;
        }
        let w = inst.world_matrix(b);
        let pos = (w.w_axis.truncate() - glam::Vec3::from(model.rest_positions()[b]))
            .abs()
            .max_element();
        let rot = (glam::Mat3::from_mat4(w) - glam::Mat3::IDENTITY)
            .to_cols_array()
            .iter()
            .fold(0f32, |a, x| a.max(x.abs()));
        worst = worst.max(pos).max(rot);
        n += 1;
    }
    (n, worst)
}

fn ikset(name: &str) -> Option<HashSet<String>> {
    let path = odori_testkit::shared(&format!("oracle-ref/{name}.ikset.json"))?;
    Some(
        serde_json::from_str::<Vec<String>>(&std::fs::read_to_string(path).unwrap())
            .unwrap()
            .into_iter()
            .collect(),
    )
}

#[test]
fn real_models_rest_at_rest() {
    let (Some(gene), Some(gene_pmd), Some(miku)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/gene/Gene_light.pmd"),
        odori_testkit::shared("assets/miku_v2/miku_v2.pmd"),
    ) else {
        return;
    };
    let cases = [
        (
            Model::from_pmx(&Pmx::read(gene).unwrap()).unwrap(),
            ikset("gene_light_pmx"),
        ),
        (
            Model::from_pmd(&Pmd::read(gene_pmd).unwrap()).unwrap(),
            ikset("gene_light_pmd"),
        ),
        (
            Model::from_pmd(&Pmd::read(miku).unwrap()).unwrap(),
            ikset("miku_v2"),
        ),
    ];
    for (model, ik) in cases {
        let (n, worst) = check(&model, &ik.unwrap_or_default());
        println!(
            "{}: {n} bones outside IK chains, worst deviation from rest {worst:.1e}",
            model.name()
        );
        assert!(n > 50 && worst <= 1e-5, "{}: {worst}", model.name());
    }
}
