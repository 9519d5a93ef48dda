//! Golden images of real models dancing wavefile_v2 under its own camera (wavefile_camera),
//! 256×256, at fixed frames: Gene_light.pmx (PNG textures, PMX materials) and miku_v2.pmd
//! (PMD materials, BMP texture, toon list). Skipped without ../shared (see odori-testkit).

mod common;

use odori_format::{Pmd, Pmx, Vmd};
use odori_render::gpu;
use odori_render::scene::{ModelFile, Posed, Scene};
use odori_render::{RenderOptions, Renderer, TextureSource};
use std::path::Path;

const FRAMES: [f32; 3] = [200.0, 900.0, 1700.0];

fn render(name: &str, file: ModelFile<'_>, folder: &Path) {
    let (Some(motion), Some(camera)) = (
        odori_testkit::shared("assets/wavefile/wavefile_v2.vmd"),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    let Some(gpu) = gpu::for_tests() else { return };
    let motion = Vmd::read(motion).unwrap();
    let camera = Vmd::read(camera).unwrap();
    let scene = Scene::new(file, &[&motion], Some(&camera)).unwrap();
    let options = RenderOptions {
        width: 256,
        height: 256,
        shadow_map_size: 1024,
        ..Default::default()
    };
    let textures = TextureSource::Folder(folder.to_path_buf());
    let mut r = Renderer::new(gpu, scene.render.clone(), &textures, options);
    for w in r.warnings() {
        eprintln!("{name}: warning: {w}");
    }
    let mut inst = scene.instance();
    let mut posed = Posed::default();
    for frame in FRAMES {
        scene.evaluate(&mut inst, frame, &mut posed);
        let v = &posed.vertices;
        r.upload_vertices(&v.positions, &v.normals, &v.uvs);
        let img = r.render_image(&posed.input(scene.framing_camera(1.0)));
        common::check(&format!("{name}_{frame:04}"), &img);
    }
}

#[test]
fn gene_light_wavefile() {
    let Some(path) = odori_testkit::shared("assets/gene/Gene_light.pmx") else {
        return;
    };
    let pmx = Pmx::read(&path).unwrap();
    render("gene_light", ModelFile::Pmx(&pmx), path.parent().unwrap());
}

#[test]
fn miku_v2_wavefile() {
    let Some(path) = odori_testkit::shared("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let pmd = Pmd::read(&path).unwrap();
    render("miku_v2", ModelFile::Pmd(&pmd), path.parent().unwrap());
}
