//! Missing, corrupt and escaping texture names are warnings, never panics: the material draws
//! without that texture.

use odori_render::demo::Demo;
use odori_render::gpu;
use odori_render::scene::{ModelFile, Posed, Scene};
use odori_render::{RenderOptions, Renderer, TextureSource};

#[test]
fn broken_textures_warn_and_render() {
    let Some(gpu) = gpu::for_tests() else { return };
    let dir = std::env::temp_dir().join(format!("odori-bad-tex-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut demo = Demo::new();
    // skirt.png: corrupt; gloss_add.png: absent; soft_mul.png: outside the folder;
    // own_toon.png: a truncated PNG.
    std::fs::write(dir.join("SKIRT.PNG"), b"not a png at all").unwrap();
    std::fs::write(dir.join("own_toon.png"), b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    demo.pmx.textures[2] = "..\\soft_mul.png".into();
    let scene = Scene::new(ModelFile::Pmx(&demo.pmx), &[&demo.vmd], None).unwrap();
    let options = RenderOptions {
        width: 64,
        height: 64,
        ..Default::default()
    };
    let mut r = Renderer::new(
        gpu,
        scene.render.clone(),
        &TextureSource::Folder(dir),
        options,
    );
    let w = r.warnings().join("\n");
    eprintln!("{w}");
    assert!(
        w.contains("skirt.png") && w.contains("gloss_add.png: not found"),
        "{w}"
    );
    assert!(
        w.contains("outside the model's folder") && w.contains("own_toon.png"),
        "{w}"
    );
    let mut inst = scene.instance();
    let mut posed = Posed::default();
    scene.evaluate(&mut inst, 0.0, &mut posed);
    let v = &posed.vertices;
    r.upload_vertices(&v.positions, &v.normals, &v.uvs);
    let img = r.render_image(&posed.input(scene.framing_camera(1.0)));
    // Still drawn: something other than the white background in the middle column.
    assert!((0..64).any(|y| img.get_pixel(32, y).0[0] < 200));
}
