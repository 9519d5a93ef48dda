//! A crowd evaluated in groups has physics too: with each instance's world stepped between
//! `before_physics_group` and `after_physics_group`, every instance's matrices are bit for
//! bit those of `PhysicsWorld::evaluate` on that instance alone (the evidence: the one-by-one
//! path, which the fingerprint test holds to hashes recorded before groups had physics).

mod common;

use odori_format::{Pmx, Vmd};
use odori_physics::{PhysicsModel, PhysicsWorld};
use odori_pose::motion::Source;
use odori_pose::{Instance, Model, Motion, after_physics_group, before_physics_group};

#[test]
fn gene_crowd_in_groups_with_physics() {
    let (Some(model_path), Some(motion_path)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let pmx = Pmx::read(&model_path).unwrap();
    let model = Model::from_pmx(&pmx).unwrap();
    let vmd = Vmd::read(&motion_path).unwrap();
    let motion = Motion::bind(&model, &[Source::Vmd(&vmd)]);
    let rig = PhysicsModel::from_pmx(&pmx, &model);
    let Some(probe) = common::world(&rig, &model) else {
        return;
    };
    drop(probe);
    const N: usize = 5;
    let offsets: [f32; N] = [0.0, 400.0, 801.5, 1200.0, 2000.0];
    let new_worlds = || -> Vec<PhysicsWorld> {
        (0..N)
            .map(|_| common::world(&rig, &model).unwrap())
            .collect()
    };
    let (mut grouped_worlds, mut single_worlds) = (new_worlds(), new_worlds());
    let mut grouped: Vec<Instance> = (0..N).map(|_| Instance::new(&model, &motion)).collect();
    let mut single = grouped.clone();
    let mut compared = 0;
    for f in 0..90 {
        let frames: Vec<f32> = offsets.iter().map(|o| o + f as f32).collect();
        before_physics_group(&model, &motion, &mut grouped, &frames).unwrap();
        for ((w, inst), &at) in grouped_worlds.iter_mut().zip(&mut grouped).zip(&frames) {
            w.simulate(&model, inst, at);
        }
        after_physics_group(&model, &mut grouped);
        for ((w, inst), &at) in single_worlds.iter_mut().zip(&mut single).zip(&frames) {
            w.evaluate(&model, &motion, inst, at).unwrap();
        }
        for (g, s) in grouped.iter().zip(&single) {
            let bits = |i: &Instance| -> Vec<u32> {
                (i.skinning().iter())
                    .flat_map(|m| m.to_cols_array())
                    .map(f32::to_bits)
                    .collect()
            };
            assert_eq!(bits(g), bits(s), "frame {f}");
            compared += 1;
        }
    }
    assert_eq!(compared, 90 * N);
}
