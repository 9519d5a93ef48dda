//! The CPU rasteriser's per-frame path allocates nothing once warm: a counting global
//! allocator around frames of the embedded demo character (vertices uploaded, light maps,
//! set-up on every thread, bands, resolve) at MSAA 1 and 4. Rayon's pool and the renderer's
//! buffers are made by the first frames; the counted frames must reuse them.

use odori_render::{CpuRenderer, FrameView, Light, RenderModel, RenderOptions};
use odori_testkit::alloc::{Counting, allocations};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn cpu_frames_allocate_nothing() {
    let demo = odori_render::demo::Demo::new();
    let model = RenderModel::from_pmx(&demo.pmx);
    let positions: Vec<[f32; 3]> = demo.pmx.vertices.iter().map(|v| v.position).collect();
    let normals: Vec<[f32; 3]> = demo.pmx.vertices.iter().map(|v| v.normal).collect();
    let uvs: Vec<[f32; 2]> = demo.pmx.vertices.iter().map(|v| v.uv).collect();
    let view = FrameView {
        camera: odori_render::camera::framing(model.bounds.0, model.bounds.1, 16.0 / 9.0),
        light: Light::DEFAULT,
        bounds: model.bounds,
    };
    for msaa in [1, 4] {
        let options = RenderOptions {
            width: 320,
            height: 180,
            msaa,
            ..RenderOptions::default()
        };
        let mut r = CpuRenderer::new(model.clone(), &demo.textures, options);
        for slot in 0..3 {
            r.upload_vertices(0, &positions, &normals, &uvs);
            r.render(&view, slot);
        }
        let before = allocations();
        for slot in 0..6 {
            r.upload_vertices(0, &positions, &normals, &uvs);
            r.render(&view, slot);
        }
        let counted = allocations() - before;
        assert_eq!(counted, 0, "MSAA {msaa}: {counted} allocations in 6 frames");
        let mut px = Vec::new();
        r.read(0, &mut px);
        assert!(px.chunks_exact(4).any(|p| p != [255; 4]), "nothing drawn");
    }
}
