//! The portable kernel (what runs without AVX2) against the reference. The kernel is chosen
//! once per process, so this file holds one test that turns the AVX2 kernel off first.

mod common;

use common::{max_diff, random_pose};
use odori_deform::{Deformed, Mesh, deform, deform_reference};

#[test]
fn portable_kernel_matches_reference() {
    // SAFETY: the only test in this binary, run before any other thread reads the variable.
    unsafe { std::env::set_var(odori_deform::SIMD_VAR, "0") };
    assert!(odori_deform::kernel().starts_with("portable"));
    let mesh = Mesh::from_pmx(&common::every_weight_type());
    for seed in 0..4 {
        let pose = random_pose(common::BONES, seed);
        let w = [0.3, -0.7, 1.0, 0.6, 0.8, 0.25];
        let mut fast = Deformed::new(&mesh);
        let mut slow = Deformed::new(&mesh);
        deform(&mesh, &pose, &w, &mut fast);
        deform_reference(&mesh, &pose, &w, &mut slow);
        let d = [
            max_diff(&fast.positions, &slow.positions),
            max_diff(&fast.normals, &slow.normals),
            max_diff(&fast.uvs, &slow.uvs),
        ];
        println!("portable, pose {seed}: {d:?}");
        assert!(d.iter().all(|&x| x <= 1e-5), "{d:?}");
    }
}
