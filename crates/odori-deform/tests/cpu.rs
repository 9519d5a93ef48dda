//! The fast CPU path against the scalar reference, known answers for each weight type, and the
//! rest pose, on models built in code.

mod common;

use common::{max_diff, random_pose};
use glam::{Affine3A, Quat, Vec3};
use odori_deform::{Deformed, Mesh, deform, deform_reference};
use odori_format::pmx::Weights;

type Run = fn(&Mesh, &[Affine3A], &[f32], &mut Deformed);

fn both(mesh: &Mesh, skinning: &[Affine3A], weights: &[f32]) -> (Deformed, Deformed) {
    let mut fast = Deformed::new(mesh);
    let mut slow = Deformed::new(mesh);
    deform(mesh, skinning, weights, &mut fast);
    deform_reference(mesh, skinning, weights, &mut slow);
    (fast, slow)
}

fn assert_close(fast: &Deformed, slow: &Deformed, tol: f32, what: &str) {
    let d = [
        max_diff(&fast.positions, &slow.positions),
        max_diff(&fast.normals, &slow.normals),
        max_diff(&fast.uvs, &slow.uvs),
        fast.additional_uvs
            .iter()
            .zip(&slow.additional_uvs)
            .map(|(a, b)| max_diff(a, b))
            .fold(0.0, f32::max),
        max_diff(
            &fast.edge_scale.iter().map(|&e| [e]).collect::<Vec<_>>(),
            &slow.edge_scale.iter().map(|&e| [e]).collect::<Vec<_>>(),
        ),
    ];
    println!("{what}: max |fast − reference| position, normal, uv, additional uv, edge = {d:?}");
    assert!(d.iter().all(|&x| x <= tol), "{what}: {d:?} > {tol}");
}

#[test]
fn fast_path_matches_reference_for_every_weight_type() {
    let pmx = common::every_weight_type();
    let mesh = Mesh::from_pmx(&pmx);
    assert_eq!(
        mesh.weight_type_counts().iter().sum::<usize>(),
        pmx.vertices.len()
    );
    assert!(mesh.weight_type_counts().iter().all(|&c| c > 0));
    println!("diagnostics: {:#?}", mesh.diagnostics());
    let weight_sets: [&[f32]; 4] = [
        &[0.0; 6],
        &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        &[0.3, -0.7, 1.0, 0.6, 0.8, 0.25],
        &[0.5, 1.0], // shorter than the morph count: the rest count as 0
    ];
    for seed in 0..6 {
        let pose = random_pose(common::BONES, seed);
        for (k, w) in weight_sets.iter().enumerate() {
            let (fast, slow) = both(&mesh, &pose, w);
            assert_close(&fast, &slow, 1e-5, &format!("pose {seed}, weights {k}"));
        }
    }
}

#[test]
fn rest_pose_reproduces_the_input_mesh() {
    let pmx = common::every_weight_type();
    let mesh = Mesh::from_pmx(&pmx);
    let identity = vec![Affine3A::IDENTITY; common::BONES];
    // The fast path reproduces the input exactly (weights summing to exactly 1, SDEF written as
    // a displacement); the textbook reference within rounding of the coordinates (up to 14).
    for (run, tol) in [(deform as Run, 1e-6), (deform_reference as Run, 4e-6)] {
        let mut out = Deformed::new(&mesh);
        // Dirty the buffers first, so the rest frame has to rewrite them.
        run(&mesh, &random_pose(common::BONES, 1), &[1.0; 6], &mut out);
        run(&mesh, &identity, &[], &mut out);
        for (v, x) in pmx.vertices.iter().enumerate() {
            let n = Vec3::from(x.normal).normalize();
            for k in 0..3 {
                assert!(
                    (out.positions[v][k] - x.position[k]).abs() <= tol,
                    "vertex {v}"
                );
                assert!((out.normals[v][k] - n[k]).abs() <= 1e-6, "normal {v}");
            }
            assert_eq!(out.uvs[v], x.uv);
            assert_eq!(out.additional_uvs[v][..2], x.additional_uvs[..2]);
            assert_eq!(out.edge_scale[v], x.edge_scale);
        }
    }
}

#[test]
fn rest_pose_through_the_pose_runtime_reproduces_the_input_mesh() {
    let pmx = common::every_weight_type();
    let model = odori_pose::Model::from_pmx(&pmx).unwrap();
    let motion = odori_pose::Motion::empty(&model);
    let mut inst = odori_pose::Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, 0.0).unwrap();
    let mesh = Mesh::from_pmx(&pmx);
    let mut out = Deformed::new(&mesh);
    deform(
        &mesh,
        inst.skinning(),
        inst.effective_morph_weights(),
        &mut out,
    );
    let rest: Vec<[f32; 3]> = pmx.vertices.iter().map(|v| v.position).collect();
    let d = max_diff(&out.positions, &rest);
    assert!(d <= 1e-6, "{d}");
}

/// Known answers: a vertex per weight type on two bones, bone 1 turned 90° about Z around
/// (0, 1, 0).
#[test]
fn each_weight_type_lands_where_it_should() {
    let pivot = Vec3::new(0.0, 1.0, 0.0);
    let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let m1 = Affine3A::from_translation(pivot)
        * Affine3A::from_quat(q)
        * Affine3A::from_translation(-pivot);
    let pose = [Affine3A::IDENTITY, m1];
    let p = [1.0, 1.0, 0.0];
    let cases = [
        Weights::Bdef1 { bone: 1 },
        Weights::Bdef2 {
            bones: [0, 1],
            weight: 0.5,
        },
        Weights::Bdef4 {
            bones: [0, 1, -1, -1],
            weights: [1.0, 1.0, 0.0, 0.0], // renormalised to ½, ½
        },
        Weights::Sdef {
            bones: [0, 1],
            weight: 0.5,
            c: [0.0, 1.0, 0.0],
            r0: [0.0, 0.5, 0.0],
            r1: [0.0, 1.5, 0.0],
        },
        Weights::Qdef {
            bones: [0, 1, -1, -1],
            weights: [0.5, 0.5, 0.0, 0.0],
        },
    ];
    let vertices = cases
        .iter()
        .map(|&w| common::vertex(p, [1.0, 0.0, 0.0], [0.0, 0.0], w))
        .collect();
    let pmx = common::pmx(
        vec![
            common::bone("a", [0.0; 3], -1),
            common::bone("b", pivot.into(), 0),
        ],
        vertices,
        Vec::new(),
        Vec::new(),
        Vec::new(),
        0,
    );
    let mesh = Mesh::from_pmx(&pmx);
    let (fast, slow) = both(&mesh, &pose, &[]);
    assert_close(&fast, &slow, 1e-6, "known answers");
    let out = fast;
    let close = |a: [f32; 3], b: Vec3| (Vec3::from(a) - b).length() < 1e-5;
    let full = m1.transform_point3(p.into());
    assert!(
        close(out.positions[0], full),
        "BDEF1 {:?}",
        out.positions[0]
    );
    assert!(close(out.normals[0], Vec3::Y));
    let mid = (Vec3::from(p) + full) / 2.0;
    assert!(close(out.positions[1], mid), "BDEF2 {:?}", out.positions[1]);
    assert!(close(out.positions[2], mid), "BDEF4 {:?}", out.positions[2]);
    // Linear blending pulls the point towards the pivot; QDEF turns it by 45° about the pivot.
    let half = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
    let turned = pivot + half * (Vec3::from(p) - pivot);
    assert!(
        close(out.positions[4], turned),
        "QDEF {:?}",
        out.positions[4]
    );
    // SDEF, worked by hand: rw = (0, 1, 0), so cr0 = (0, 0.75, 0) and cr1 = (0, 1.25, 0); the
    // point turns 45° about C and C moves to ½·M0·cr0 + ½·M1·cr1.
    let centre =
        0.5 * Vec3::new(0.0, 0.75, 0.0) + 0.5 * m1.transform_point3(Vec3::new(0.0, 1.25, 0.0));
    let sdef = centre + half * (Vec3::from(p) - pivot);
    assert!(close(out.positions[3], sdef), "SDEF {:?}", out.positions[3]);
    for v in [1, 2, 3, 4] {
        assert!(close(out.normals[v], half * Vec3::X), "normal {v}");
    }
}

#[test]
fn vertex_morphs_apply_before_skinning_and_uv_morphs_after() {
    let pmx = common::every_weight_type();
    let mesh = Mesh::from_pmx(&pmx);
    let mut weights = [0.0f32; 6];
    weights[common::MORPH_FACE] = 0.5;
    weights[common::MORPH_UV] = 1.0;
    let pose = vec![Affine3A::from_rotation_y(1.0); common::BONES];
    let mut out = Deformed::new(&mesh);
    deform(&mesh, &pose, &weights, &mut out);
    // Vertex 300 is BDEF4 on one bone rotated by the same matrix as every other: the offset
    // is rotated with the point.
    let odori_format::pmx::MorphOffsets::Vertex(face) = &pmx.morphs[0].offsets else {
        unreachable!()
    };
    let o = face.iter().find(|o| o.vertex == 300).unwrap();
    let morphed = Vec3::from(pmx.vertices[300].position) + 0.5 * Vec3::from(o.offset);
    let want = pose[0].transform_point3(morphed);
    assert!((Vec3::from(out.positions[300]) - want).length() < 1e-5);
    // Vertex 17 is listed twice: both offsets add.
    let twice: Vec3 = face
        .iter()
        .filter(|o| o.vertex == 17)
        .map(|o| Vec3::from(o.offset))
        .sum();
    let want = pose[0].transform_point3(Vec3::from(pmx.vertices[17].position) + 0.5 * twice);
    assert!((Vec3::from(out.positions[17]) - want).length() < 1e-5);
    // UV morph on every 7th vertex; the others keep their UV.
    let odori_format::pmx::MorphOffsets::Uv { offsets, .. } = &pmx.morphs[3].offsets else {
        unreachable!()
    };
    for o in offsets.iter().take(20) {
        let v = o.vertex as usize;
        let rest = pmx.vertices[v].uv;
        assert_eq!(out.uvs[v], [rest[0] + o.offset[0], rest[1] + o.offset[1]]);
    }
    assert_eq!(out.uvs[1], pmx.vertices[1].uv);
    // Turning the UV morph off restores every UV on the next frame.
    deform(&mesh, &pose, &[0.0; 6], &mut out);
    assert!(out.uvs.iter().zip(&pmx.vertices).all(|(a, v)| *a == v.uv));
}

#[test]
fn a_deformed_sized_by_default_is_filled_on_first_use() {
    let mesh = Mesh::from_pmx(&common::every_weight_type());
    let mut out = Deformed::default();
    let pose = random_pose(common::BONES, 3);
    deform(&mesh, &pose, &[0.2; 6], &mut out);
    let mut want = Deformed::new(&mesh);
    deform_reference(&mesh, &pose, &[0.2; 6], &mut want);
    assert_close(&out, &want, 1e-5, "default-constructed output");
}

#[test]
fn faces_and_material_ranges_follow_the_file() {
    let pmx = common::every_weight_type();
    let mesh = Mesh::from_pmx(&pmx);
    assert_eq!(mesh.indices(), pmx.indices.as_slice());
    let r = mesh.material_ranges();
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].start, 0);
    assert_eq!(r[0].end, r[1].start);
    assert_eq!(r[1].end as usize, pmx.indices.len());
}

#[test]
#[should_panic(expected = "skinning matrices")]
fn too_few_matrices_is_a_clear_panic() {
    let mesh = Mesh::from_pmx(&common::every_weight_type());
    deform(&mesh, &[Affine3A::IDENTITY], &[], &mut Deformed::new(&mesh));
}
