//! Real models from `../shared` (skipped with a notice when absent): Gene_light.pmx and
//! miku_v2.pmd dancing wavefile_v2.vmd. The fast CPU path against the scalar reference
//! (≤ 1e-5), the GPU path against the CPU path (≤ 1e-4), and the rest pose against the file.

mod common;

use common::max_diff;
use odori_deform::{Deformed, Mesh, deform, deform_reference};
use odori_format::{Pmd, Pmx, Vmd};
use odori_pose::{Instance, Model, Motion};

/// Frames of wavefile_v2 to check: the start, mid-song poses, and near the end.
const FRAMES: [f32; 6] = [0.0, 150.0, 600.5, 1200.0, 2000.0, 2700.0];

struct Asset {
    name: &'static str,
    model: Model,
    mesh: Mesh,
    rest: Vec<[f32; 3]>,
}

fn gene() -> Option<Asset> {
    let p = Pmx::read(odori_testkit::shared("assets/gene/Gene_light.pmx")?).unwrap();
    Some(Asset {
        name: "Gene_light.pmx",
        model: Model::from_pmx(&p).unwrap(),
        mesh: Mesh::from_pmx(&p),
        rest: p.vertices.iter().map(|v| v.position).collect(),
    })
}

fn miku() -> Option<Asset> {
    let p = Pmd::read(odori_testkit::shared("assets/miku_v2/miku_v2.pmd")?).unwrap();
    Some(Asset {
        name: "miku_v2.pmd",
        model: Model::from_pmd(&p).unwrap(),
        mesh: Mesh::from_pmd(&p),
        rest: p.vertices.iter().map(|v| v.position).collect(),
    })
}

fn wavefile() -> Option<Vmd> {
    Some(Vmd::read(odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?).unwrap())
}

/// Skinning matrices and effective morph weights of `asset` at each frame.
fn frames(asset: &Asset, vmd: &Vmd) -> Vec<(f32, Vec<glam::Affine3A>, Vec<f32>)> {
    let motion = Motion::from_vmd(&asset.model, vmd);
    let mut inst = Instance::new(&asset.model, &motion);
    FRAMES
        .iter()
        .map(|&f| {
            inst.evaluate(&asset.model, &motion, f).unwrap();
            (
                f,
                inst.skinning().to_vec(),
                inst.effective_morph_weights().to_vec(),
            )
        })
        .collect()
}

fn check_cpu(asset: Asset, vmd: &Vmd) {
    let mesh = &asset.mesh;
    println!(
        "{}: {} vertices, weight types (BDEF1, BDEF2, BDEF4, SDEF, QDEF) {:?}, {} morphs, \
         diagnostics {:?}",
        asset.name,
        mesh.vertex_count(),
        mesh.weight_type_counts(),
        mesh.morph_count(),
        mesh.diagnostics()
    );
    let mut fast = Deformed::new(mesh);
    let mut slow = Deformed::new(mesh);
    let mut moved_any = false;
    for (f, skinning, weights) in frames(&asset, vmd) {
        deform(mesh, &skinning, &weights, &mut fast);
        deform_reference(mesh, &skinning, &weights, &mut slow);
        let active = weights.iter().filter(|&&w| w != 0.0).count();
        let d = [
            max_diff(&fast.positions, &slow.positions),
            max_diff(&fast.normals, &slow.normals),
            max_diff(&fast.uvs, &slow.uvs),
        ];
        let moved = max_diff(&fast.positions, &asset.rest);
        moved_any |= moved > 0.1;
        println!(
            "{} frame {f}: {active} morphs active, max vertex displacement {moved:.3}, \
             max |fast − reference| position, normal, uv = {d:?}",
            asset.name
        );
        assert!(
            d.iter().all(|&x| x <= 1e-5),
            "{} frame {f}: {d:?}",
            asset.name
        );
    }
    assert!(moved_any, "{}: the motion should move the mesh", asset.name);
}

/// The rest pose: identity skinning matrices and no morph weights give back the file's mesh
/// exactly; so does the pose runtime with no motion and IK off. (With IK on, MMD's knee limit
/// of at least 0.5° bends the knees of a model standing at rest, as in MMD itself.)
fn check_rest(asset: Asset) {
    let mut out = Deformed::new(&asset.mesh);
    let identity = vec![glam::Affine3A::IDENTITY; asset.model.bone_count()];
    deform(&asset.mesh, &identity, &[], &mut out);
    let d = max_diff(&out.positions, &asset.rest);
    println!(
        "{} with identity matrices: max |deformed − input| = {d}",
        asset.name
    );
    assert!(d <= 1e-6, "{}: {d}", asset.name);

    let motion = Motion::empty(&asset.model);
    let mut inst = Instance::new(&asset.model, &motion);
    inst.options_mut().ik = false;
    inst.evaluate(&asset.model, &motion, 0.0).unwrap();
    deform(
        &asset.mesh,
        inst.skinning(),
        inst.effective_morph_weights(),
        &mut out,
    );
    let d = max_diff(&out.positions, &asset.rest);
    println!(
        "{} posed at rest by odori-pose (IK off): max |deformed − input| = {d}",
        asset.name
    );
    assert!(d <= 1e-6, "{}: {d}", asset.name);
}

#[test]
fn gene_light_cpu_matches_reference_over_wavefile() {
    let (Some(asset), Some(vmd)) = (gene(), wavefile()) else {
        return;
    };
    check_cpu(asset, &vmd);
}

#[test]
fn miku_v2_cpu_matches_reference_over_wavefile() {
    let (Some(asset), Some(vmd)) = (miku(), wavefile()) else {
        return;
    };
    check_cpu(asset, &vmd);
}

#[test]
fn real_models_at_rest_reproduce_their_meshes() {
    for asset in [gene(), miku()].into_iter().flatten() {
        check_rest(asset);
    }
}

#[cfg(feature = "gpu")]
#[test]
fn real_models_gpu_matches_cpu_over_wavefile() {
    let Some(vmd) = wavefile() else {
        return;
    };
    let assets: Vec<Asset> = [gene(), miku()].into_iter().flatten().collect();
    if assets.is_empty() {
        return;
    }
    let Some((device, queue)) = common::gpu::device() else {
        return;
    };
    for asset in assets {
        let skinner = odori_deform::gpu::GpuSkinner::new(&device, &asset.mesh);
        let mut cpu = Deformed::new(&asset.mesh);
        for (f, skinning, weights) in frames(&asset, &vmd) {
            deform(&asset.mesh, &skinning, &weights, &mut cpu);
            let got =
                common::gpu::deform(&device, &queue, &skinner, &asset.mesh, &skinning, &weights);
            let d = [
                max_diff(&got.positions, &cpu.positions),
                max_diff(&got.normals, &cpu.normals),
                max_diff(&got.uvs, &cpu.uvs),
                max_diff(
                    &got.edge_scale.iter().map(|&e| [e]).collect::<Vec<_>>(),
                    &cpu.edge_scale.iter().map(|&e| [e]).collect::<Vec<_>>(),
                ),
            ];
            println!(
                "{} frame {f}: max |GPU − CPU| position, normal, uv, edge = {d:?}",
                asset.name
            );
            assert!(
                d.iter().all(|&x| x <= 1e-4),
                "{} frame {f}: {d:?}",
                asset.name
            );
        }
    }
}
