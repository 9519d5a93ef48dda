//! SIMD shading against scalar shading: the CPU rasteriser's frames of the nine goldens (the
//! demo at frames 0, 45 and 130; Gene_light.pmx and miku_v2.pmd dancing wavefile_v2 under its
//! camera at 200, 900 and 1700) drawn with quads shaded in SIMD lanes and one value at a time,
//! at 256×256 with the goldens' options (shadow map 1024) at MSAA 4 (their default) and MSAA 1.
//! The two paths make the same float operations in the same order, so the evidence held is
//! exact: every byte of every frame equal, and each renderer's counter showing that its path
//! (and only it) shaded the quads. The frames' hashes are printed: the same 18 were recorded
//! from the renderer as it was before its module was split and the lanes were added.
//! The dancers are skipped without ../shared (see odori-testkit); the test counts the frames it
//! compared and fails if that is not three per scene found.

use odori_playback::offline::renderer_for;
use odori_playback::{Frame, ModelAsset, MotionFile, Player, PlayerOptions, Scene};
use odori_render::cpu::ShadedQuads;
use odori_render::{AnyRenderer, Device, RenderOptions};
use std::sync::Arc;

/// The demo, and each dancer whose files `../shared` has, with their golden frames.
fn scenes() -> Vec<(&'static str, Arc<Scene>, [f64; 3])> {
    let mut out = vec![("demo", Arc::new(Scene::demo()), [0.0, 45.0, 130.0])];
    for (tag, model) in [
        ("gene_light", "assets/gene/Gene_light.pmx"),
        ("miku_v2", "assets/miku_v2/miku_v2.pmd"),
    ] {
        let (Some(model), Some(motion), Some(camera)) = (
            odori_testkit::shared(model),
            odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
            odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
        ) else {
            continue;
        };
        let mut scene = Scene::new();
        let asset = Arc::new(ModelAsset::load(&model).unwrap());
        scene.add_model_files(asset, &[MotionFile::read(&motion).unwrap().0]);
        scene.set_camera(&odori_playback::load::camera_file(&camera).unwrap());
        out.push((tag, Arc::new(scene), [200.0, 900.0, 1700.0]));
    }
    out
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// `frames` of `scene` drawn on the CPU rasteriser with `options`, shaded in lanes or not, and
/// the renderer's count of quads by path.
fn render(
    scene: &Arc<Scene>,
    frames: &[f64],
    options: RenderOptions,
    lanes: bool,
) -> (Vec<Vec<u8>>, ShadedQuads) {
    let mut r = renderer_for(scene, Device::Cpu { why: None }, options);
    let AnyRenderer::Cpu(cpu) = &mut r else {
        panic!("Device::Cpu made a wgpu renderer");
    };
    cpu.set_simd_shading(lanes);
    let no_physics = PlayerOptions {
        physics: false,
        deform: true,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), no_physics);
    let mut frame = Frame::default();
    let images = (frames.iter())
        .map(|&at| {
            player.evaluate_at(at, &mut frame);
            frame.prepare(&mut r, true);
            r.render_image(&frame.view(scene.framing_camera(1.0)))
                .into_raw()
        })
        .collect();
    let AnyRenderer::Cpu(cpu) = &r else {
        unreachable!()
    };
    (images, cpu.shaded_quads())
}

fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

#[test]
fn simd_shading_draws_the_scalar_pixels() {
    let scenes = scenes();
    let mut compared = 0;
    for (tag, scene, frames) in &scenes {
        for msaa in [4, 1] {
            let options = RenderOptions {
                width: 256,
                height: 256,
                shadow_map_size: 1024,
                msaa,
                ..Default::default()
            };
            let (simd, simd_count) = render(scene, frames, options.clone(), true);
            let (scalar, scalar_count) = render(scene, frames, options, false);
            assert!(
                simd_count.lanes > 0 && simd_count.scalar == 0,
                "{tag} MSAA {msaa}: the SIMD renderer shaded {simd_count:?}"
            );
            assert!(
                scalar_count.scalar > 0 && scalar_count.lanes == 0,
                "{tag} MSAA {msaa}: the scalar renderer shaded {scalar_count:?}"
            );
            assert_eq!(simd_count.lanes, scalar_count.scalar, "{tag} MSAA {msaa}");
            // Four samples a pixel are tested in AVX2 lanes where the CPU has AVX2.
            assert_eq!(
                simd_count.avx2_tested > 0,
                msaa == 4 && avx2(),
                "{tag} MSAA {msaa}: {simd_count:?}"
            );
            assert_eq!(scalar_count.avx2_tested, 0, "{tag} MSAA {msaa}");
            for ((at, a), b) in frames.iter().zip(&simd).zip(&scalar) {
                let differ = a.chunks_exact(4).zip(b.chunks_exact(4));
                let differ = differ.filter(|(p, q)| p != q).count();
                assert_eq!(differ, 0, "{tag}_{at:04} MSAA {msaa}: pixels differ");
                assert_eq!(a.len(), 256 * 256 * 4);
                println!("HASH {tag}_{at:04} 256 msaa{msaa} {:016x}", fnv(a));
                if msaa == 4 {
                    compared += 1;
                }
            }
            println!("{tag} MSAA {msaa}: {simd_count:?}");
        }
    }
    assert_eq!(compared, 3 * scenes.len());
}
