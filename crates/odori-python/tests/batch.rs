//! The batch evaluation under the Python module, held to the pose runtime itself: frames
//! spread over threads give the bits of one fresh instance evaluating them in order (what
//! `odori pose` does), and physics frames asked for with gaps give the bits of playing
//! every frame. (The Python tests hold the module to the `odori pose` binary.)

use odori_playback::{ModelAsset, MotionFile};
use odori_pose::{Instance, Motion};
use odori_python::{Options, Product, fill};
use std::path::Path;
use std::sync::Arc;

fn load(model: &Path, motion: &Path) -> (Arc<ModelAsset>, Arc<Motion>) {
    let asset = ModelAsset::load(model).unwrap();
    let (file, _) = MotionFile::read(motion).unwrap();
    let motion = Motion::bind(asset.pose(), &[file.source()]);
    (Arc::new(asset), Arc::new(motion))
}

/// What one fresh instance writes for `frames` in order, built here from the pose runtime's
/// accessors rather than through `batch`.
fn reference(asset: &ModelAsset, motion: &Motion, frames: &[f32], product: Product) -> Vec<f32> {
    let model = asset.pose();
    let mut inst = Instance::new(model, motion);
    let mut out = Vec::new();
    for &f in frames {
        inst.evaluate(model, motion, f).unwrap();
        match product {
            Product::World => {
                for b in 0..model.bone_count() {
                    let cols = inst.world_matrix(b).to_cols_array();
                    // Row-major: element (r, c) is column c's row r.
                    for r in 0..4 {
                        for c in 0..4 {
                            out.push(cols[c * 4 + r]);
                        }
                    }
                }
            }
            Product::Positions => {
                for p in inst.world_positions() {
                    out.extend_from_slice(&[p.x, p.y, p.z]);
                }
            }
            Product::MorphWeights => out.extend_from_slice(inst.effective_morph_weights()),
        }
    }
    out
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn threads_give_the_bits_of_one_instance_in_order() {
    let Some(dance) = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd") else {
        return;
    };
    let models = [
        "gene/Gene_light.pmx",
        "gene/Gene_light.pmd",
        "miku_v2/miku_v2.pmd",
        "babylon-mmd-fixtures/bone_hierarchy_test.pmx",
        "babylon-mmd-fixtures/bone_flag_test.pmx",
        "babylon-mmd-fixtures/constraint_test.pmx",
    ];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    let mut split = 0;
    for rel in models {
        let Some(path) = odori_testkit::shared(&format!("assets/{rel}")) else {
            return;
        };
        let (asset, motion) = load(&path, &dance);
        // Every frame of the dance and the half frames of its first second: 4 runs of ~720.
        let mut frames: Vec<f32> = (0..=motion.end_frame() as u32).map(|f| f as f32).collect();
        frames.extend((0..60).map(|h| h as f32 * 0.5));
        if !asset.pose().carries_state() {
            split += 1;
        }
        for product in [Product::World, Product::Positions, Product::MorphWeights] {
            let want = reference(&asset, &motion, &frames, product);
            let mut got = vec![f32::NAN; want.len()];
            pool.install(|| {
                fill(
                    &asset,
                    &motion,
                    &frames,
                    product,
                    Options::default(),
                    &mut got,
                )
            })
            .unwrap();
            assert_eq!(want.len(), frames.len() * product.row_len(asset.pose()));
            assert!(
                bits(&got) == bits(&want),
                "{rel} {product:?}: threaded batch differs"
            );
        }
        println!(
            "{rel}: {} frames compared; carries state between frames: {}",
            frames.len(),
            asset.pose().carries_state()
        );
    }
    // The threaded path was taken for at least one model, else nothing was compared.
    assert!(
        split > 0,
        "every model carries state: the threaded path was never compared"
    );
}

#[test]
fn physics_frames_with_gaps_match_playing_every_frame() {
    let (Some(model), Some(dance)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let (asset, motion) = load(&model, &dance);
    let options = Options {
        physics: true,
        ..Options::default()
    };
    let row = Product::World.row_len(asset.pose());
    let in_order: Vec<f32> = (0..=120).map(|f| f as f32).collect();
    let mut played = vec![0.0; in_order.len() * row];
    match fill(
        &asset,
        &motion,
        &in_order,
        Product::World,
        options,
        &mut played,
    ) {
        Err(odori_python::BatchError::NoPhysics(why)) => {
            if std::env::var("ODORI_REQUIRE_PHYSICS").is_ok_and(|v| v == "1") {
                panic!("{why}, and ODORI_REQUIRE_PHYSICS=1 forbids skipping");
            }
            eprintln!("SKIPPED: no physics engine in this build ({why})");
            return;
        }
        r => r.unwrap(),
    }
    // Ascending, with jumps the player steps through one frame at a time.
    let asked = [0.0f32, 30.0, 90.0, 91.0, 120.0];
    let mut got = vec![0.0; asked.len() * row];
    fill(&asset, &motion, &asked, Product::World, options, &mut got).unwrap();
    for (i, &f) in asked.iter().enumerate() {
        let want = &played[f as usize * row..][..row];
        assert!(
            bits(&got[i * row..][..row]) == bits(want),
            "frame {f} (asked {i}th) differs"
        );
    }
    // Physics moved something: the simulated frames are not the no-physics pose.
    let mut still = vec![0.0; row];
    fill(
        &asset,
        &motion,
        &[120.0],
        Product::World,
        Options::default(),
        &mut still,
    )
    .unwrap();
    assert!(
        bits(&still) != bits(&played[120 * row..]),
        "physics changed no bone at frame 120"
    );
}

#[test]
fn a_motion_bound_to_another_model_is_refused_with_both_files() {
    let (Some(gene), Some(miku), Some(dance)) = (
        odori_testkit::shared("assets/gene/Gene_light.pmx"),
        odori_testkit::shared("assets/miku_v2/miku_v2.pmd"),
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
    ) else {
        return;
    };
    let (gene, _) = load(&gene, &dance);
    let (_, miku_motion) = load(&miku, &dance);
    let e = odori_python::check_pair(&gene, &miku_motion, "wavefile_v2.vmd").unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("wavefile_v2.vmd") && text.contains("Gene_light.pmx"),
        "{text}"
    );
    let mut out = vec![0.0; Product::Positions.row_len(gene.pose())];
    assert!(
        fill(
            &gene,
            &miku_motion,
            &[0.0],
            Product::Positions,
            Options::default(),
            &mut out
        )
        .is_err()
    );
}
