//! PMD specifics on a model built in code: BDEF2 weights in percent, the edge flag as an edge
//! scale, and vertex morphs resolved through the base morph, indexed as odori-pose indexes them
//! (the base morph left out).

mod common;

use glam::{Affine3A, Quat, Vec3};
use odori_deform::{Deformed, Mesh, deform, deform_reference};
use odori_format::pmd::*;
use odori_format::sjis::SjisName;

fn vertex(p: [f32; 3], bones: [u16; 2], weight: u8, edge_off: u8) -> Vertex {
    Vertex {
        position: p,
        normal: [0.0, 1.0, 0.0],
        uv: [0.5, 0.5],
        bones,
        weight,
        edge_off,
    }
}

fn bone(name: &str, parent: u16, position: [f32; 3]) -> Bone {
    Bone {
        name: SjisName::new(name),
        parent,
        tail: 0,
        kind: 0,
        ik_parent: 0,
        position,
    }
}

fn morph(name: &str, panel: u8, vertices: Vec<(u32, [f32; 3])>) -> Morph {
    Morph {
        name: SjisName::new(name),
        panel,
        vertices,
    }
}

fn model() -> Pmd {
    Pmd {
        header: Header {
            version: 1.0,
            name: SjisName::new("pmd"),
            comment: SjisName::new(""),
        },
        vertices: vec![
            vertex([0.0, 0.0, 0.0], [0, 1], 100, 0),
            vertex([1.0, 0.0, 0.0], [0, 1], 25, 1),
            vertex([2.0, 0.0, 0.0], [1, 0], 100, 0),
            vertex([3.0, 0.0, 0.0], [0, 0xFFFF], 60, 0), // bone past the end: bone 0
        ],
        indices: vec![0, 1, 2, 1, 3, 2],
        materials: vec![Material {
            diffuse: [1.0; 4],
            specular_power: 5.0,
            specular: [0.0; 3],
            ambient: [0.5; 3],
            toon_index: 255,
            edge_flag: 1,
            index_count: 6,
            texture: SjisName::new(""),
        }],
        bones: vec![
            bone("root", 0xFFFF, [0.0; 3]),
            bone("arm", 0, [1.0, 0.0, 0.0]),
        ],
        iks: Vec::new(),
        morphs: vec![
            morph("eye", 2, vec![(1, [0.0, 0.0, 1.0])]), // base index 1 = vertex 3
            // The base morph lists (model vertex, rest position); others index into it.
            morph("base", 0, vec![(1, [1.0, 0.0, 0.0]), (3, [3.0, 0.0, 0.0])]),
            morph(
                "mouth",
                3,
                vec![(0, [0.0, 1.0, 0.0]), (1, [0.0, 2.0, 0.0]), (9, [5.0; 3])],
            ),
        ],
        morph_display: Vec::new(),
        bone_display_names: Vec::new(),
        bone_display: Vec::new(),
        english: None,
        english_flag_present: false,
        toon_textures: None,
        rigid_bodies: None,
        joints: None,
    }
}

#[test]
fn pmd_weights_edges_and_morphs() {
    let pmd = model();
    let mesh = Mesh::from_pmd(&pmd);
    assert_eq!(mesh.vertex_count(), 4);
    assert_eq!(mesh.indices(), &[0, 1, 2, 1, 3, 2]);
    assert_eq!(mesh.morph_count(), 2);
    println!("diagnostics: {:?}", mesh.diagnostics());
    assert_eq!(
        mesh.diagnostics().len(),
        2,
        "a bad bone and a bad base index"
    );

    // Morph order as odori-pose has it: the base morph left out.
    let pose = odori_pose::Model::from_pmd(&pmd).unwrap();
    let names: Vec<&str> = pose.morphs().iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["eye", "mouth"]);

    let out = |skinning: &[Affine3A], weights: &[f32]| {
        let mut d = Deformed::new(&mesh);
        deform(&mesh, skinning, weights, &mut d);
        let mut r = Deformed::new(&mesh);
        deform_reference(&mesh, skinning, weights, &mut r);
        assert!(common::max_diff(&d.positions, &r.positions) < 1e-6);
        d
    };
    let rest = [Affine3A::IDENTITY; 2];
    let d = out(&rest, &[0.0, 0.0]);
    assert_eq!(d.edge_scale, [1.0, 0.0, 1.0, 1.0]);
    assert_eq!(d.positions[1], [1.0, 0.0, 0.0]);

    // "eye" moves vertex 3 (base entry 1) by +Z; "mouth" moves vertices 1 and 3.
    let d = out(&rest, &[1.0, 0.5]);
    assert_eq!(d.positions[3], [3.0, 1.0, 1.0]);
    assert_eq!(d.positions[1], [1.0, 0.5, 0.0]);
    assert_eq!(d.positions[0], [0.0, 0.0, 0.0]);

    // Weight 25 (percent) on bone 0: vertex 1 follows bone 1 by three quarters.
    let lift = Affine3A::from_translation(Vec3::new(0.0, 4.0, 0.0));
    let d = out(&[Affine3A::IDENTITY, lift], &[0.0, 0.0]);
    assert!(
        (d.positions[1][1] - 3.0).abs() < 1e-6,
        "{:?}",
        d.positions[1]
    );
    assert_eq!(d.positions[0][1], 0.0);
    assert_eq!(d.positions[2][1], 4.0);
    assert_eq!(d.positions[3][1], 0.0, "bone 0xFFFF reads as bone 0");
    // Normals turn with the bone.
    let turn = Affine3A::from_quat(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
    let d = out(&[turn, turn], &[0.0, 0.0]);
    assert!((Vec3::from(d.normals[0]) - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-6);
}
