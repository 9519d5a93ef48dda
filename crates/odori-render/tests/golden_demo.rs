//! Golden images of the embedded demo (no assets needed): three frames at 256×256, one after
//! the camera cut. See `common` for the tolerance.

mod common;

use odori_render::demo::Demo;
use odori_render::gpu;
use odori_render::scene::{ModelFile, Posed, Scene};
use odori_render::{RenderOptions, Renderer};

#[test]
fn demo_frames() {
    let Some(gpu) = gpu::for_tests() else { return };
    eprintln!("adapter: {}", gpu.describe());
    let demo = Demo::new();
    let scene = Scene::new(ModelFile::Pmx(&demo.pmx), &[&demo.vmd], None).unwrap();
    let options = RenderOptions {
        width: 256,
        height: 256,
        shadow_map_size: 1024,
        ..Default::default()
    };
    let mut r = Renderer::new(gpu, scene.render.clone(), &demo.textures, options);
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let mut inst = scene.instance();
    let mut posed = Posed::default();
    for frame in [0.0, 45.0, 130.0] {
        scene.evaluate(&mut inst, frame, &mut posed);
        let v = &posed.vertices;
        r.upload_vertices(&v.positions, &v.normals, &v.uvs);
        let img = r.render_image(&posed.input(scene.framing_camera(1.0)));
        common::check(&format!("demo_{frame:03}"), &img);
    }
}
