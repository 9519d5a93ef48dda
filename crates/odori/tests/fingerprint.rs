//! Fingerprints: a hash of every bit the engine hands out, held to values recorded before the
//! playback library was built, so "not one bit moved" is a test, not a claim.
//!
//! Evidence: the expected hashes below were recorded on commit 91255b4 (the last commit
//! before the refactor), with this file's hashing. A change of any world or skinning matrix,
//! morph weight, material-morph result, visibility flag, physics result or deformed vertex
//! changes its hash. A change that is meant to move results must re-record them here and say
//! why in its commit.
//!
//! Each hash is FNV-1a (64 bit, `odori_playback::digest::Fnv`) over the raw bits, in a fixed
//! order; it does not depend on the platform's hasher. Deformed vertices depend on the CPU
//! kernel that ran (AVX2 sums in another order than the portable one), so they are recorded
//! per kernel.
//!
//! Re-recorded since only on purpose, each time with its evidence (CHANGELOG.md says when
//! and why). The portable-kernel vertex hashes were recorded with
//! `ODORI_DEFORM_SIMD=0`.

use odori_deform::{Deformed, Mesh};
use odori_format::{Document, Pmd, Pmx, Vmd};
use odori_physics::{PhysicsConfig, PhysicsModel, PhysicsWorld};
use odori_playback::digest::Fnv;
use odori_pose::motion::Source;
use odori_pose::{Instance, Model, Motion};
use std::path::Path;

/// One model file read, in either format.
enum File {
    Pmx(Box<Pmx>),
    Pmd(Box<Pmd>),
}

impl File {
    fn read(path: &Path) -> File {
        match odori_format::read_path(path).expect("reads").0 {
            Document::Pmx(p) => File::Pmx(p),
            Document::Pmd(p) => File::Pmd(p),
            _ => panic!("{} is not a model", path.display()),
        }
    }
    fn model(&self) -> Model {
        match self {
            File::Pmx(p) => Model::from_pmx(p),
            File::Pmd(p) => Model::from_pmd(p),
        }
        .expect("compiles")
    }
    fn mesh(&self) -> Mesh {
        match self {
            File::Pmx(p) => Mesh::from_pmx(p),
            File::Pmd(p) => Mesh::from_pmd(p),
        }
    }
    fn rig(&self, model: &Model) -> PhysicsModel {
        match self {
            File::Pmx(p) => PhysicsModel::from_pmx(p, model),
            File::Pmd(p) => PhysicsModel::from_pmd(p, model),
        }
    }
}

/// Everything an evaluated instance hands out, in a fixed order: per bone the world matrix
/// (rotation columns and position) and the skinning matrix; the sampled and effective morph
/// weights; every material's morph state; visibility.
fn hash_pose(h: &mut Fnv, model: &Model, inst: &Instance) {
    for b in 0..model.bone_count() {
        let w = inst.world(b);
        h.f32s(&w.matrix3.to_cols_array());
        h.f32s(&w.translation.to_array());
        let s = inst.skinning()[b];
        h.f32s(&s.matrix3.to_cols_array());
        h.f32s(&s.translation.to_array());
    }
    h.f32s(inst.morph_weights());
    h.f32s(inst.effective_morph_weights());
    for m in inst.materials() {
        // Debug prints every f32 as the shortest text that reads back to the same bits.
        h.bytes(format!("{m:?}").as_bytes());
    }
    h.bytes(&[inst.visible() as u8]);
}

fn hash_vertices(h: &mut Fnv, d: &Deformed) {
    for p in &d.positions {
        h.f32s(p);
    }
    for n in &d.normals {
        h.f32s(n);
    }
    for t in &d.uvs {
        h.f32s(t);
    }
    for a in &d.additional_uvs {
        for c in a {
            h.f32s(c);
        }
    }
}

/// Frames `0..=end` in order (IK history and physics carry from frame to frame), then a
/// second pass at quarter frames over the first 120, which exercises interpolation between
/// keys and the backwards jump.
fn frames(end: f32) -> Vec<f32> {
    let mut out: Vec<f32> = (0..=end as u32).map(|f| f as f32).collect();
    out.extend((0..480).map(|k| k as f32 * 0.25));
    out
}

/// Pose hash over every frame, and deformed-vertex hash over every 97th frame.
fn pose_and_vertices(model: &Model, motion: &Motion, mesh: &Mesh) -> (u64, u64) {
    let mut inst = Instance::new(model, motion);
    let (mut pose, mut verts) = (Fnv::new(), Fnv::new());
    let mut deformed = Deformed::new(mesh);
    for (k, f) in frames(motion.end_frame()).into_iter().enumerate() {
        inst.evaluate(model, motion, f).unwrap();
        hash_pose(&mut pose, model, &inst);
        if k % 97 == 0 {
            odori_deform::deform(
                mesh,
                inst.skinning(),
                inst.effective_morph_weights(),
                &mut deformed,
            );
            hash_vertices(&mut verts, &deformed);
        }
    }
    (pose.value(), verts.value())
}

/// The expected deformed-vertex hash for the kernel this process runs, or `None` (with a
/// notice) for a kernel none was recorded for.
fn vertex_expectation(avx2: u64, portable: u64) -> Option<u64> {
    let kernel = odori_deform::kernel();
    if kernel.starts_with("AVX2") {
        Some(avx2)
    } else if kernel.starts_with("portable") {
        Some(portable)
    } else {
        panic!("deform kernel `{kernel}` has no recorded fingerprint: record one");
    }
}

fn check(name: &str, got: u64, want: u64) {
    println!("fingerprint {name} = {got}");
    assert_eq!(got, want, "{name}: fingerprint moved");
}

struct Expected {
    pose: u64,
    vertices_avx2: u64,
    vertices_portable: u64,
}

/// Model file `rel` of `../shared` compiled, with wavefile_v2 bound to it (`None` after a
/// skip notice without the shared folder).
fn with_wavefile(rel: &str) -> Option<(File, Model, Motion)> {
    let model_path = odori_testkit::shared(rel)?;
    let motion_path = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    let file = File::read(&model_path);
    let model = file.model();
    let vmd = Vmd::read(&motion_path).expect("reads");
    let motion = Motion::bind(&model, &[Source::Vmd(&vmd)]);
    Some((file, model, motion))
}

fn check_file(rel: &str, expected: Expected) {
    let Some((file, model, motion)) = with_wavefile(rel) else {
        return;
    };
    let (pose, verts) = pose_and_vertices(&model, &motion, &file.mesh());
    check(&format!("{rel} pose"), pose, expected.pose);
    if let Some(want) = vertex_expectation(expected.vertices_avx2, expected.vertices_portable) {
        check(&format!("{rel} vertices"), verts, want);
    }
}

#[test]
fn demo_built_in_code() {
    let demo = odori_render::demo::Demo::new();
    let model = Model::from_pmx(&demo.pmx).expect("compiles");
    let motion = Motion::bind(&model, &[Source::Vmd(&demo.vmd)]);
    let (pose, verts) = pose_and_vertices(&model, &motion, &Mesh::from_pmx(&demo.pmx));
    check("demo pose", pose, 8307893255354151960);
    if let Some(want) = vertex_expectation(2653638959175969150, 1217821375090586652) {
        check("demo vertices", verts, want);
    }
}

#[test]
fn gene_pmx_wavefile() {
    check_file(
        "assets/gene/Gene_light.pmx",
        Expected {
            pose: 1481415414156348815,
            vertices_avx2: 6357826857870851514,
            vertices_portable: 13624036906608992154,
        },
    );
}

#[test]
fn gene_pmd_wavefile() {
    check_file(
        "assets/gene/Gene_light.pmd",
        Expected {
            pose: 710681715977273053,
            vertices_avx2: 8519906156964835815,
            vertices_portable: 14332801486001005100,
        },
    );
}

#[test]
fn miku_v2_wavefile() {
    check_file(
        "assets/miku_v2/miku_v2.pmd",
        Expected {
            pose: 15228979596569901506,
            vertices_avx2: 1378533826278544144,
            vertices_portable: 7919075059117124647,
        },
    );
}

/// Gene × wavefile_v2 with physics, frames 0–300 in order at 30 fps, from a fresh world (so
/// the first frame resets and settles it by today's rule).
#[test]
fn gene_physics_frames_0_to_300() {
    let Some((file, model, motion)) = with_wavefile("assets/gene/Gene_light.pmx") else {
        return;
    };
    let rig = file.rig(&model);
    let mut world = match PhysicsWorld::new(&rig, &model, PhysicsConfig::default()) {
        Ok(w) => w,
        Err(e) => {
            if std::env::var("ODORI_REQUIRE_PHYSICS").is_ok_and(|v| v == "1") {
                panic!("{e}, and ODORI_REQUIRE_PHYSICS=1 forbids skipping");
            }
            eprintln!("SKIPPED: {e}");
            return;
        }
    };
    let mut inst = Instance::new(&model, &motion);
    let mut h = Fnv::new();
    for f in 0..=300 {
        world
            .evaluate(&model, &motion, &mut inst, f as f32)
            .unwrap();
        hash_pose(&mut h, &model, &inst);
    }
    // Evidence for this value (re-recorded twice: Bullet's maths moved to `libm`, then the
    // broadphase became sweep and prune; CHANGELOG.md): odori-physics tests/peers.rs gives the
    // same distances to babylon-mmd and mmd-anim over frames 0–299 as before each change
    // (0.088 / 0.186 / 0.319 worst per 100 frames, median 0), and tests/wasm.rs holds the
    // wasm build to these bits.
    check("gene physics 0..=300", h.value(), 4606771669191565367);
}
