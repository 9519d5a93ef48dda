//! Missing, corrupt and escaping texture names are warnings, never panics: the material draws
//! without that texture.

use odori_playback::offline::renderer_for;
use odori_playback::{Frame, ModelAsset, ModelFile, Player, PlayerOptions, Scene};
use odori_pose::motion::Source;
use odori_render::demo::Demo;
use odori_render::{RenderOptions, TextureSource};
use std::sync::Arc;

#[test]
fn broken_textures_warn_and_render() {
    let dir = std::env::temp_dir().join(format!("odori-bad-tex-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut demo = Demo::new();
    // skirt.png: corrupt; gloss_add.png: absent; soft_mul.png: outside the folder;
    // own_toon.png: a truncated PNG.
    std::fs::write(dir.join("SKIRT.PNG"), b"not a png at all").unwrap();
    std::fs::write(dir.join("own_toon.png"), b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    demo.pmx.textures[2] = "..\\soft_mul.png".into();
    let textures = TextureSource::Folder(dir);
    let asset = ModelAsset::compile(ModelFile::Pmx(&demo.pmx), textures, "demo").unwrap();
    let mut scene = Scene::new();
    scene.add_model(Arc::new(asset), &[Source::Vmd(&demo.vmd)]);
    let scene = Arc::new(scene);
    let options = RenderOptions {
        width: 64,
        height: 64,
        ..Default::default()
    };
    let mut r = renderer_for(&scene, odori_render::device_for_tests(), options);
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
    let mut player = Player::new(scene.clone(), PlayerOptions::default());
    let mut frame = Frame::default();
    player.evaluate(&mut frame);
    frame.prepare(&mut r, true);
    let img = r.render_image(&frame.view(scene.framing_camera(1.0)));
    // Still drawn: something other than the white background in the middle column.
    assert!((0..64).any(|y| img.get_pixel(32, y).0[0] < 200));
}
