// TEMP: render a PMX at rest to PNG.
use odori_format::Pmx;
use odori_render::scene::{ModelFile, Posed, Scene};
use odori_render::{Gpu, RenderOptions, Renderer, TextureSource};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(&args[1]);
    let pmx = Pmx::read(path).unwrap();
    let scene = Scene::new(ModelFile::Pmx(&pmx), &[], None).unwrap();
    let opts = RenderOptions {
        width: 512,
        height: 512,
        ..Default::default()
    };
    let mut r = Renderer::new(
        Gpu::new().unwrap(),
        scene.render.clone(),
        &TextureSource::Folder(path.parent().unwrap().into()),
        opts,
    );
    for w in r.warnings() {
        eprintln!("warning: {w}");
    }
    for m in &scene.render.materials {
        eprintln!(
            "{:?} tex={:?} sph={:?} {:?} toon={:?} edge={} {}",
            m.name, m.texture, m.sphere, m.sphere_mode, m.toon, m.edge, m.edge_size
        );
    }
    let mut inst = scene.instance();
    let mut p = Posed::default();
    scene.evaluate(&mut inst, 0.0, &mut p);
    r.upload_vertices(&p.vertices.positions, &p.vertices.normals, &p.vertices.uvs);
    let img = r.render_image(&p.input(scene.framing_camera(1.0)));
    img.save(&args[2]).unwrap();
}
