//! A scene from dropped files (`odori_web::files`), natively: Gene_light.pmx with its folder of
//! textures and wavefile_v2.vmd, handed over as a dropped folder gives them
//! (`Gene/light/arm.png`) and as a file picker gives them (bare names). Evidence: every
//! texture name the PMX itself lists resolves among the files (read from the PMX with
//! odori-format, not from what the loader kept), the motion binds (the model has the dance's
//! bones), the camera of a camera VMD becomes the scene's; bad input is refused with the
//! file's name. Needs ../shared (SKIPPED without it).

use odori_web::files::{Kind, kind_of, scene_from_files};
use std::path::Path;

fn read_gene(folder_style: bool) -> Option<Vec<(String, Vec<u8>)>> {
    let gene = odori_testkit::shared("assets/gene")?;
    let vmd = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    let name = |p: &str| {
        if folder_style {
            format!("Gene/{p}")
        } else {
            Path::new(p)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        }
    };
    let mut files = vec![
        (
            name("Gene_light.pmx"),
            std::fs::read(gene.join("Gene_light.pmx")).unwrap(),
        ),
        ("wavefile_v2.vmd".to_string(), std::fs::read(&vmd).unwrap()),
    ];
    for e in std::fs::read_dir(gene.join("light")).unwrap().flatten() {
        let rel = format!("light/{}", e.file_name().to_string_lossy());
        files.push((name(&rel), std::fs::read(e.path()).unwrap()));
    }
    Some(files)
}

#[test]
fn gene_with_its_textures_loads_from_a_folder_and_from_picked_files() {
    for folder_style in [true, false] {
        let Some(files) = read_gene(folder_style) else {
            return;
        };
        let pmx_bytes = &files[0].1;
        let pmx = match odori_format::parse_any(pmx_bytes).unwrap().0 {
            odori_format::Document::Pmx(p) => p,
            _ => panic!("Gene_light.pmx is a PMX"),
        };
        assert!(pmx.textures.len() >= 10, "{:?}", pmx.textures);
        let loaded = scene_from_files(files).unwrap();
        let models = loaded.scene.models();
        assert_eq!(models.len(), 1);
        let textures = models[0].asset().textures();
        for t in &pmx.textures {
            assert!(
                textures.exists(t),
                "{t} not found (folder style {folder_style})"
            );
            textures.load(t).unwrap();
        }
        // The dance binds: far more tracks match than the 74 facial ones that do not.
        assert!(models[0].motion().end_frame() > 2000.0);
        assert!(
            !(loaded.warnings.iter()).any(|w| w.contains("not among")),
            "{:?}",
            loaded.warnings
        );
    }
}

#[test]
fn a_camera_vmd_becomes_the_camera() {
    let (Some(mut files), Some(cam)) = (
        read_gene(true),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    assert!(
        scene_from_files(files.clone())
            .unwrap()
            .scene
            .camera()
            .is_none()
    );
    files.push(("wavefile_camera.vmd".into(), std::fs::read(cam).unwrap()));
    assert!(scene_from_files(files).unwrap().scene.camera().is_some());
}

#[test]
fn bad_input_is_refused_naming_the_file() {
    let Some(files) = read_gene(true) else {
        return;
    };
    let mut truncated = files.clone();
    truncated[0].1.truncate(100_000);
    let e = scene_from_files(truncated).err().unwrap();
    assert!(e.starts_with("Gene/Gene_light.pmx: PMX section"), "{e}");
    // A motion alone: no model to play it on.
    let e = scene_from_files(vec![files[1].clone()]).err().unwrap();
    assert!(
        e.contains("no model among the files given (wavefile_v2.vmd)"),
        "{e}"
    );
    // A text file named .vmd.
    let mut bad = files.clone();
    bad[1].1 = b"not a motion".to_vec();
    let e = scene_from_files(bad).err().unwrap();
    assert!(e.starts_with("wavefile_v2.vmd:"), "{e}");
    assert_eq!(kind_of("a/B.PMD"), Kind::Model);
    assert_eq!(kind_of("song.Mp3"), Kind::Audio);
    assert_eq!(kind_of("t.png"), Kind::Other);
}
