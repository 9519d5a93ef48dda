//! The GPU path against the CPU path (≤ 1e-4) on models built in code. Skips, with a notice,
//! where wgpu finds no adapter (unless `ODORI_REQUIRE_GPU=1`).

#![cfg(feature = "gpu")]

mod common;

use common::{arm, gpu, max_diff, random_pose};
use glam::Affine3A;
use odori_deform::gpu::GpuSkinner;
use odori_deform::{Deformed, Mesh, deform};

/// Largest difference over every attribute, printed.
fn compare(gpu: &Deformed, cpu: &Deformed, what: &str) -> f32 {
    let extra = gpu
        .additional_uvs
        .iter()
        .zip(&cpu.additional_uvs)
        .map(|(a, b)| max_diff(a, b))
        .fold(0.0, f32::max);
    assert_eq!(gpu.additional_uvs.len(), cpu.additional_uvs.len());
    let edge = gpu
        .edge_scale
        .iter()
        .zip(&cpu.edge_scale)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    let d = [
        max_diff(&gpu.positions, &cpu.positions),
        max_diff(&gpu.normals, &cpu.normals),
        max_diff(&gpu.uvs, &cpu.uvs),
        extra,
        edge,
    ];
    println!("{what}: max |GPU − CPU| position, normal, uv, additional uv, edge = {d:?}");
    d.into_iter().fold(0.0, f32::max)
}

#[test]
fn gpu_matches_cpu_for_every_weight_type() {
    let Some((device, queue)) = gpu::device() else {
        return;
    };
    let mesh = Mesh::from_pmx(&common::every_weight_type());
    let skinner = GpuSkinner::new(&device, &mesh);
    let weight_sets: [&[f32]; 3] = [&[0.0; 6], &[0.3, -0.7, 1.0, 0.6, 0.8, 0.25], &[1.0]];
    for seed in 0..4 {
        let pose = random_pose(common::BONES, seed);
        for (k, w) in weight_sets.iter().enumerate() {
            let mut cpu = Deformed::new(&mesh);
            deform(&mesh, &pose, w, &mut cpu);
            let got = gpu::deform(&device, &queue, &skinner, &mesh, &pose, w);
            let d = compare(&got, &cpu, &format!("pose {seed}, weights {k}"));
            assert!(d <= 1e-4, "pose {seed}, weights {k}: {d}");
        }
    }
}

#[test]
fn gpu_rest_pose_reproduces_the_input_mesh() {
    let Some((device, queue)) = gpu::device() else {
        return;
    };
    let pmx = common::every_weight_type();
    let mesh = Mesh::from_pmx(&pmx);
    let skinner = GpuSkinner::new(&device, &mesh);
    let identity = vec![Affine3A::IDENTITY; common::BONES];
    let got = gpu::deform(&device, &queue, &skinner, &mesh, &identity, &[]);
    let rest: Vec<[f32; 3]> = pmx.vertices.iter().map(|v| v.position).collect();
    let d = max_diff(&got.positions, &rest);
    println!("GPU rest pose: max |deformed − input| = {d}");
    assert!(d <= 1e-5, "{d}");
}

#[test]
fn gpu_matches_cpu_on_the_sdef_arm() {
    let Some((device, queue)) = gpu::device() else {
        return;
    };
    for elbow in [
        arm::Elbow::Bdef2,
        arm::Elbow::Sdef { spread: 0.0 },
        arm::Elbow::Sdef { spread: arm::BLEND },
    ] {
        let mesh = Mesh::from_pmx(&arm::arm(elbow));
        let skinner = GpuSkinner::new(&device, &mesh);
        for degrees in [30.0, 90.0, 150.0] {
            let pose = arm::bend(degrees);
            let mut cpu = Deformed::new(&mesh);
            deform(&mesh, &pose, &[], &mut cpu);
            let got = gpu::deform(&device, &queue, &skinner, &mesh, &pose, &[]);
            let d = compare(&got, &cpu, &format!("arm {elbow:?} {degrees}°"));
            assert!(d <= 1e-4, "{d}");
        }
    }
}

#[test]
fn vertex_layout_matches_the_documented_offsets() {
    let l = GpuSkinner::vertex_layout();
    assert_eq!(l.array_stride, 48);
    let offsets: Vec<u64> = l.attributes.iter().map(|a| a.offset).collect();
    assert_eq!(offsets, [0, 16, 32]);
}

/// No bone limit: 3,000 bones in a storage buffer (a uniform array would stop at a few
/// hundred).
#[test]
fn gpu_handles_thousands_of_bones() {
    let Some((device, queue)) = gpu::device() else {
        return;
    };
    const BONES: usize = 3000;
    let mut rng = common::Rng::new(11);
    let bones = (0..BONES)
        .map(|i| common::bone(&format!("b{i}"), rng.vec3(5.0), -1))
        .collect();
    let vertices = (0..20_000)
        .map(|_| {
            let mut b = || (rng.next_u32() as usize % BONES) as i32;
            let bones = [b(), b(), b(), b()];
            let w = [
                rng.range(0.1, 1.0),
                rng.range(0.0, 1.0),
                rng.range(0.0, 1.0),
                0.2,
            ];
            common::vertex(
                rng.vec3(5.0),
                rng.unit(),
                [0.0, 0.0],
                odori_format::pmx::Weights::Bdef4 { bones, weights: w },
            )
        })
        .collect();
    let mesh = Mesh::from_pmx(&common::pmx(
        bones,
        vertices,
        Vec::new(),
        Vec::new(),
        Vec::new(),
        0,
    ));
    let pose = random_pose(BONES, 5);
    let skinner = GpuSkinner::new(&device, &mesh);
    let mut cpu = Deformed::new(&mesh);
    deform(&mesh, &pose, &[], &mut cpu);
    let got = gpu::deform(&device, &queue, &skinner, &mesh, &pose, &[]);
    let d = compare(&got, &cpu, "3,000 bones");
    assert!(d <= 1e-4, "{d}");
}

#[test]
fn mesh_and_skinner_are_shareable() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Mesh>();
    shareable::<GpuSkinner>();
}

/// Meshes past the workgroup limit of one dimension run as rows of a 2D dispatch: here the
/// limit is lowered to 16 workgroups (1,024 vertices) so 10,000 vertices need ten rows.
#[test]
fn gpu_splits_large_meshes_into_rows() {
    let Some((device, queue)) = gpu::device_with(|l| l.max_compute_workgroups_per_dimension = 16)
    else {
        return;
    };
    assert_eq!(device.limits().max_compute_workgroups_per_dimension, 16);
    let mesh = Mesh::from_pmx(&common::every_weight_type());
    let skinner = GpuSkinner::new(&device, &mesh);
    let pose = random_pose(common::BONES, 9);
    let mut cpu = Deformed::new(&mesh);
    deform(&mesh, &pose, &[0.5; 6], &mut cpu);
    let got = gpu::deform(&device, &queue, &skinner, &mesh, &pose, &[0.5; 6]);
    let d = compare(&got, &cpu, "2D dispatch");
    assert!(d <= 1e-4, "{d}");
}
