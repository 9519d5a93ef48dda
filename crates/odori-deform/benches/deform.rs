//! Deformation speed.
//!
//! - `gene_light_frame`: Gene_light.pmx (28,646 vertices; BDEF1/2/4) at a frame of
//!   wavefile_v2.vmd with morphs active: skinning plus morphs for one frame (skipped, with a
//!   notice, when `../shared` is absent).
//! - `synthetic_1m_bdef4` beside `memcpy_1m_same_bytes`: a 1,000,000-vertex mesh, every vertex
//!   BDEF4 on four of 64 bones, against one memcpy of as many bytes as a deform frame reads
//!   and writes (`Mesh::frame_bytes`: 57 + 24 bytes a vertex).

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Affine3A, Quat, Vec3};
use odori_deform::{Deformed, Mesh, deform};
use odori_format::pmx::{self, Pmx, Weights};
use odori_format::{Vmd, pmx::Vertex};
use odori_pose::{Instance, Model, Motion};
use std::hint::black_box;

/// Frame of wavefile_v2 used for Gene: mid-song, three morphs active (blink and mouth).
const GENE_FRAME: f32 = 150.0;

fn gene_light_frame(c: &mut Criterion) {
    let (Some(pmx_path), Some(vmd_path)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let pmx = Pmx::read(pmx_path).expect("Gene_light.pmx");
    let model = Model::from_pmx(&pmx).expect("Gene_light.pmx compiles");
    let motion = Motion::from_vmd(&model, &Vmd::read(vmd_path).expect("wavefile_v2.vmd"));
    let mut inst = Instance::new(&model, &motion);
    inst.evaluate(&model, &motion, GENE_FRAME).unwrap();
    let mesh = Mesh::from_pmx(&pmx);
    let active = inst
        .effective_morph_weights()
        .iter()
        .filter(|&&w| w != 0.0)
        .count();
    eprintln!(
        "gene_light_frame: {} vertices, frame {GENE_FRAME}, {active} morphs active",
        mesh.vertex_count()
    );
    let mut out = Deformed::new(&mesh);
    c.bench_function("gene_light_frame", |b| {
        b.iter(|| {
            deform(
                &mesh,
                black_box(inst.skinning()),
                black_box(inst.effective_morph_weights()),
                &mut out,
            );
            black_box(&out.positions);
        })
    });
}

/// A tiny deterministic generator, so the bench needs no extra crate.
fn next(state: &mut u64) -> f32 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state >> 40) as f32 / (1u64 << 24) as f32
}

const SYNTHETIC_VERTICES: usize = 1_000_000;
const SYNTHETIC_BONES: usize = 64;

fn synthetic_mesh() -> Mesh {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let bones = (0..SYNTHETIC_BONES)
        .map(|i| pmx::Bone {
            name: format!("b{i}"),
            name_en: String::new(),
            position: [0.0, i as f32 * 0.25, 0.0],
            parent: i as i32 - 1,
            layer: 0,
            flags: pmx::bone_flags::ROTATABLE,
            tail: pmx::BoneTail::Offset([0.0; 3]),
            append: None,
            fixed_axis: None,
            local_axes: None,
            external_parent: None,
            ik: None,
        })
        .collect();
    let vertices = (0..SYNTHETIC_VERTICES)
        .map(|v| {
            // Neighbouring vertices share bones, as in real meshes.
            let b = (v * SYNTHETIC_BONES / SYNTHETIC_VERTICES) as i32;
            let w = [next(&mut s) + 0.1, next(&mut s), next(&mut s), next(&mut s)];
            let sum: f32 = w.iter().sum();
            Vertex {
                position: [next(&mut s), b as f32 * 0.25 + next(&mut s), next(&mut s)],
                normal: [next(&mut s) - 0.5, 1.0, next(&mut s) - 0.5],
                uv: [next(&mut s), next(&mut s)],
                additional_uvs: [[0.0; 4]; 4],
                weights: Weights::Bdef4 {
                    bones: [
                        b,
                        (b + 1) % SYNTHETIC_BONES as i32,
                        (b + 2) % SYNTHETIC_BONES as i32,
                        (b + 5) % SYNTHETIC_BONES as i32,
                    ],
                    weights: w.map(|x| x / sum),
                },
                edge_scale: 1.0,
            }
        })
        .collect();
    let pmx = Pmx {
        header: pmx::Header {
            version: 2.0,
            encoding: pmx::TextEncoding::Utf8,
            additional_uvs: 0,
            vertex_index_size: 4,
            texture_index_size: 1,
            material_index_size: 1,
            bone_index_size: 2,
            morph_index_size: 1,
            rigid_body_index_size: 1,
            extra_globals: Vec::new(),
        },
        info: Default::default(),
        vertices,
        indices: Vec::new(),
        textures: Vec::new(),
        materials: Vec::new(),
        bones,
        morphs: Vec::new(),
        display_frames: Vec::new(),
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    };
    Mesh::from_pmx(&pmx)
}

fn synthetic(c: &mut Criterion) {
    let mesh = synthetic_mesh();
    let mut s = 7u64;
    let pose: Vec<Affine3A> = (0..SYNTHETIC_BONES)
        .map(|_| {
            let axis = Vec3::new(next(&mut s) - 0.5, next(&mut s) - 0.5, 0.3).normalize();
            Affine3A::from_rotation_translation(
                Quat::from_axis_angle(axis, next(&mut s) * 2.0),
                Vec3::new(next(&mut s), next(&mut s), next(&mut s)),
            )
        })
        .collect();
    let mut out = Deformed::new(&mesh);
    let (read, written) = mesh.frame_bytes();
    eprintln!(
        "synthetic_1m_bdef4: {} vertices, {:.1} MB read + {:.1} MB written per frame; \
         memcpy_1m_same_bytes copies {:.1} MB",
        mesh.vertex_count(),
        read as f64 / 1e6,
        written as f64 / 1e6,
        (read + written) as f64 / 1e6
    );
    let mut g = c.benchmark_group("million");
    g.sample_size(30);
    g.bench_function("synthetic_1m_bdef4", |b| {
        b.iter(|| {
            deform(&mesh, black_box(&pose), &[], &mut out);
            black_box(&out.positions);
        })
    });
    let src = vec![1u8; read + written];
    let mut dst = vec![0u8; read + written];
    g.bench_function("memcpy_1m_same_bytes", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&dst);
        })
    });
    g.finish();
}

criterion_group!(benches, gene_light_frame, synthetic);
criterion_main!(benches);
