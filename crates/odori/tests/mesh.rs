//! `odori mesh` end to end: a small model built in code and written as PMX, exported as OBJ
//! and PLY and read back; then Gene_light.pmx dancing wavefile_v2.vmd (when `../shared` is
//! there).

use odori_format::pmx::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn odori() -> Command {
    Command::new(env!("CARGO_BIN_EXE_odori"))
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("odori-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn bone(name: &str, position: [f32; 3], parent: i32) -> Bone {
    Bone {
        name: name.into(),
        name_en: String::new(),
        position,
        parent,
        layer: 0,
        flags: bone_flags::ROTATABLE | bone_flags::VISIBLE | bone_flags::ENABLED,
        tail: BoneTail::Offset([0.0; 3]),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

fn material(name: &str, texture: i32, index_count: i32) -> Material {
    Material {
        diffuse: [0.5, 0.25, 1.0, 0.75],
        specular: [0.1; 3],
        specular_power: 8.0,
        ambient: [0.2; 3],
        texture,
        ..Material::new(name, index_count)
    }
}

/// Two quads (four triangles) on one bone, two materials, one textured.
fn quads() -> Pmx {
    let vertex = |p: [f32; 3], uv: [f32; 2]| Vertex {
        position: p,
        normal: [0.0, 0.0, -1.0],
        uv,
        additional_uvs: [[0.0; 4]; 4],
        weights: Weights::Bdef1 { bone: 0 },
        edge_scale: 1.0,
    };
    let mut vertices = Vec::new();
    for q in 0..2 {
        let x = q as f32 * 2.0;
        vertices.push(vertex([x, 0.0, 0.5], [0.0, 1.0]));
        vertices.push(vertex([x + 1.0, 0.0, 0.5], [1.0, 1.0]));
        vertices.push(vertex([x + 1.0, 1.0, 0.5], [1.0, 0.0]));
        vertices.push(vertex([x, 1.0, 0.5], [0.0, 0.25]));
    }
    Pmx {
        header: Header {
            version: 2.0,
            encoding: TextEncoding::Utf16Le,
            additional_uvs: 0,
            vertex_index_size: 1,
            texture_index_size: 1,
            material_index_size: 1,
            bone_index_size: 1,
            morph_index_size: 1,
            rigid_body_index_size: 1,
            extra_globals: Vec::new(),
        },
        info: ModelInfo {
            name: "quads".into(),
            ..Default::default()
        },
        vertices,
        indices: vec![0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7],
        textures: vec!["tex\\skin.png".into()],
        materials: vec![material("skin", 0, 6), material("cloth two", -1, 6)],
        bones: vec![bone("センター", [0.0; 3], -1)],
        morphs: Vec::new(),
        display_frames: Vec::new(),
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    }
}

fn run(args: &[&std::ffi::OsStr]) {
    let out = odori().arg("mesh").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "odori mesh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Counts of each OBJ statement, and the parsed `v` lines.
fn parse_obj(path: &Path) -> (std::collections::HashMap<String, usize>, Vec<[f32; 3]>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut counts = std::collections::HashMap::new();
    let mut v = Vec::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        let Some(tag) = it.next() else { continue };
        *counts.entry(tag.to_string()).or_insert(0) += 1;
        if tag == "v" {
            let x: Vec<f32> = it.map(|s| s.parse().unwrap()).collect();
            v.push([x[0], x[1], x[2]]);
        }
    }
    (counts, v)
}

#[test]
fn obj_of_a_model_built_in_code_reads_back() {
    let model = tmp("quads.pmx");
    std::fs::write(&model, odori_format::pmx::write(&quads()).unwrap()).unwrap();
    let obj = tmp("quads.obj");
    run(&[model.as_os_str(), "-o".as_ref(), obj.as_os_str()]);
    let (counts, v) = parse_obj(&obj);
    assert_eq!(counts["v"], 8);
    assert_eq!(counts["vt"], 8);
    assert_eq!(counts["vn"], 8);
    assert_eq!(counts["f"], 4);
    assert_eq!(counts["usemtl"], 2);
    assert_eq!(counts["mtllib"], 1);
    // At rest, vertex 2 is where the file put it, Z negated into the right-handed frame.
    assert_eq!(v[2], [1.0, 1.0, -0.5]);
    let text = std::fs::read_to_string(&obj).unwrap();
    assert!(text.contains("vt 0 0.75"), "V flipped: 1 − 0.25");
    assert!(text.contains("f 1/1/1 3/3/3 2/2/2"), "winding reversed");
    let mtl = std::fs::read_to_string(obj.with_extension("mtl")).unwrap();
    assert!(mtl.contains("newmtl 000_skin"));
    assert!(mtl.contains("newmtl 001_cloth_two"));
    assert!(mtl.contains("Kd 0.5 0.25 1"));
    assert!(mtl.contains("map_Kd tex/skin.png"), "{mtl}");
}

#[test]
fn ply_of_a_model_built_in_code_reads_back() {
    let model = tmp("quads_ply.pmx");
    std::fs::write(&model, odori_format::pmx::write(&quads()).unwrap()).unwrap();
    let ply = tmp("quads.ply");
    run(&[model.as_os_str(), "-o".as_ref(), ply.as_os_str()]);
    let bytes = std::fs::read(&ply).unwrap();
    let end = b"end_header\n";
    let at = bytes.windows(end.len()).position(|w| w == end).unwrap() + end.len();
    let header = std::str::from_utf8(&bytes[..at]).unwrap();
    assert!(header.contains("format binary_little_endian 1.0"));
    assert!(header.contains("element vertex 8"));
    assert!(header.contains("element face 4"));
    let f = |o: usize| f32::from_le_bytes(bytes[at + o..at + o + 4].try_into().unwrap());
    // Vertex 2: 8 floats a vertex.
    assert_eq!([f(64), f(68), f(72)], [1.0, 1.0, -0.5]);
    assert_eq!(bytes.len(), at + 8 * 32 + 4 * (1 + 12 + 4));
}

#[test]
fn unknown_extension_is_refused() {
    let model = tmp("quads_ext.pmx");
    std::fs::write(&model, odori_format::pmx::write(&quads()).unwrap()).unwrap();
    let out = odori()
        .arg("mesh")
        .arg(&model)
        .arg("-o")
        .arg(tmp("x.stl"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(".obj or .ply"));
}

#[test]
fn gene_light_dancing_exports_every_vertex() {
    let (Some(pmx), Some(vmd)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let obj = tmp("gene.obj");
    run(&[
        pmx.as_os_str(),
        vmd.as_os_str(),
        "--frame".as_ref(),
        "600".as_ref(),
        "-o".as_ref(),
        obj.as_os_str(),
    ]);
    let (counts, v) = parse_obj(&obj);
    assert_eq!(counts["v"], 28_646);
    assert_eq!(counts["vt"], 28_646);
    let doc = odori_format::Pmx::read(&pmx).unwrap();
    assert_eq!(counts["f"], doc.indices.len() / 3);
    assert_eq!(
        counts["usemtl"],
        doc.materials.iter().filter(|m| m.index_count > 0).count()
    );
    // Dancing: the mesh is not at rest.
    let moved = v
        .iter()
        .zip(&doc.vertices)
        .map(|(a, b)| (a[0] - b.position[0]).abs() + (a[1] - b.position[1]).abs())
        .fold(0.0, f32::max);
    assert!(moved > 0.5, "{moved}");
}
