//! A scene from dropped files (`odori_web::files`), natively: Gene_light.pmx with its folder of
//! textures and wavefile_v2.vmd, handed over as a dropped folder gives them
//! (`Gene/light/arm.png`) and as a file picker gives them (bare names). Evidence: every
//! texture name the PMX itself lists resolves among the files (read from the PMX with
//! odori-format, not from what the loader kept), the motion binds (the model has the dance's
//! bones), the camera of a camera VMD becomes the scene's; bad input is refused with the
//! file's name. Needs ../shared (SKIPPED without it).

use odori_playback::Scene;
use odori_web::files::{Added, Cast, Kind, kind_of};
use std::path::Path;

/// What one drop made: the scene, and every warning met (each naming its file).
struct Loaded {
    scene: Scene,
    warnings: Vec<String>,
}

/// One drop on a fresh page, as `App::load` takes it: the cast's scene and its warnings.
fn scene_from_files(files: Vec<(String, Vec<u8>)>) -> Result<Loaded, String> {
    let mut cast = Cast::new();
    let (_, mut warnings) = cast.add(files)?;
    let (scene, unbound) = cast.scene();
    warnings.extend(unbound);
    Ok(Loaded { scene, warnings })
}

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
    assert!(e.starts_with("no model to dance wavefile_v2.vmd"), "{e}");
    // Nothing MMD at all.
    let e = scene_from_files(vec![("notes.txt".into(), b"hi".to_vec())])
        .err()
        .unwrap();
    assert!(
        e.contains("no model among the files given (notes.txt)"),
        "{e}"
    );
    // A text file named .vmd.
    let mut bad = files.clone();
    bad[1].1 = b"not a motion".to_vec();
    let e = scene_from_files(bad.clone()).err().unwrap();
    assert!(e.starts_with("wavefile_v2.vmd:"), "{e}");
    // Several bad files: each is named, a line each.
    bad[0].1.truncate(100_000);
    bad.push((
        "poses/broken.vpd".into(),
        b"Vocaloid Pose Data file\n".to_vec(),
    ));
    let e = scene_from_files(bad).err().unwrap();
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 3, "{e}");
    for name in [
        "Gene/Gene_light.pmx:",
        "poses/broken.vpd:",
        "wavefile_v2.vmd:",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(name)), "{name} in {e}");
    }
    assert_eq!(kind_of("a/B.PMD"), Kind::Model);
    assert_eq!(kind_of("song.Mp3"), Kind::Audio);
    assert_eq!(kind_of("t.png"), Kind::Other);
}

/// MikuMikuDance's order of work: a model first, then its motion, then a camera, each dropped
/// on its own. Evidence: the scene after the motion drop binds the dance (the model's motion
/// reaches the dance's last frame, 2,810 frames in wavefile_v2 — not 0 as with no motion);
/// the camera drop gives the scene a camera and keeps the dance; a failed drop leaves the
/// cast as it was.
#[test]
fn motions_dropped_later_go_to_the_model_already_there() {
    let (Some(files), Some(cam)) = (
        read_gene(true),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    let (motion, model): (Vec<_>, Vec<_>) = files
        .into_iter()
        .partition(|f| kind_of(&f.0) == Kind::Motion);
    let mut cast = Cast::new();
    assert_eq!(cast.add(model).unwrap().0, Added::Models);
    assert_eq!(cast.scene().0.models()[0].motion().end_frame(), 0.0);
    assert_eq!(cast.add(motion.clone()).unwrap().0, Added::Motions);
    let end = cast.scene().0.models()[0].motion().end_frame();
    assert!(end > 2000.0, "{end}");
    let e = cast
        .add(vec![(
            "broken.vmd".into(),
            b"Vocaloid Motion Data 0002".to_vec(),
        )])
        .err()
        .unwrap();
    assert!(e.starts_with("broken.vmd:"), "{e}");
    assert_eq!(cast.scene().0.models()[0].motion().end_frame(), end);
    assert!(cast.scene().0.camera().is_none());
    let camera = (
        "wavefile_camera.vmd".to_string(),
        std::fs::read(cam).unwrap(),
    );
    assert_eq!(cast.add(vec![camera]).unwrap().0, Added::Motions);
    let (scene, _) = cast.scene();
    assert!(scene.camera().is_some());
    assert_eq!(scene.models().len(), 1);
    assert_eq!(scene.models()[0].motion().end_frame(), end);
}

/// A zipped model as Japanese tools make them: names in Shift_JIS without the UTF-8 flag,
/// stored and deflated entries, a `__MACOSX/` fork. The PMX is Gene_light with one texture
/// renamed to `light\顔.png` (written back with odori-format), so that texture resolves only
/// when the entry's Shift_JIS name is decoded as Shift_JIS: read as UTF-8 or CP437 (what
/// zip readers do without the flag) it is not found. Evidence: every texture the PMX lists
/// resolves and decodes, and the dance in the same zip binds.
#[test]
fn a_zipped_model_with_shift_jis_names_loads() {
    let Some(files) = read_gene(true) else {
        return;
    };
    let mut pmx = match odori_format::parse_any(&files[0].1).unwrap().0 {
        odori_format::Document::Pmx(p) => p,
        _ => panic!("Gene_light.pmx is a PMX"),
    };
    let face = pmx
        .textures
        .iter()
        .position(|t| t.to_ascii_lowercase().ends_with("face.png"))
        .expect("Gene names light\\face.png");
    pmx.textures[face] = "light\\顔.png".into();
    let mut entries: Vec<(Vec<u8>, Vec<u8>, bool)> = Vec::new();
    let sjis = |s: &str| odori_format::sjis::encode_sjis(s);
    for (path, bytes) in &files {
        let path = path.replacen("Gene/", "ジーン/", 1);
        let (path, bytes) = if path.ends_with(".pmx") {
            (path, odori_format::pmx::write(&pmx).unwrap())
        } else if path.to_ascii_lowercase().ends_with("light/face.png") {
            (path.replace("face.png", "顔.png"), bytes.clone())
        } else {
            (path, bytes.clone())
        };
        let deflate = entries.len().is_multiple_of(2);
        entries.push((sjis(&path), bytes, deflate));
    }
    entries.push((b"__MACOSX/._junk".to_vec(), vec![0; 10], false));
    assert!(
        entries.iter().any(|e| std::str::from_utf8(&e.0).is_err()),
        "the names must hold bytes that are not UTF-8"
    );
    let zip = ("ジーン.zip".to_string(), zip_file(&entries));
    let loaded = scene_from_files(vec![zip]).unwrap();
    let models = loaded.scene.models();
    assert_eq!(models.len(), 1);
    let textures = models[0].asset().textures();
    for t in &pmx.textures {
        assert!(textures.exists(t), "{t} not found in the zip");
        textures.load(t).unwrap();
    }
    assert!(models[0].motion().end_frame() > 2000.0);
    // A damaged zip is refused by name.
    let mut bad = zip_file(&entries);
    bad.truncate(bad.len() / 2);
    let e = scene_from_files(vec![("ジーン.zip".into(), bad)])
        .err()
        .unwrap();
    assert!(e.starts_with("ジーン.zip:"), "{e}");
}

/// A song inside a zip goes back to the page (the browser decodes audio), the first by name
/// when there are several (the others warned about, by name): alone in a zip it changes
/// nothing else (the demo, or the dance on the page, goes on); with a model it comes with the
/// new scene; a drop that fails keeps no song. Evidence: the bytes taken are the entry's.
#[test]
fn a_song_inside_a_zip_goes_back_to_the_page() {
    let song = b"RIFF, a song's bytes".to_vec();
    let mut cast = Cast::new();
    let zip = zip_file(&[(b"music/song.wav".to_vec(), song.clone(), true)]);
    assert_eq!(
        cast.add(vec![("music.zip".into(), zip)]).unwrap(),
        (Added::Motions, vec![])
    );
    assert_eq!(
        cast.take_song(),
        Some(("music/song.wav".into(), song.clone()))
    );
    assert_eq!(cast.take_song(), None, "taken once");
    assert!(cast.scene().0.models().is_empty(), "the demo plays on");
    // A failed drop holds no song.
    let bad = zip_file(&[
        (b"x/song.wav".to_vec(), song.clone(), false),
        (
            b"x/broken.vmd".to_vec(),
            b"Vocaloid Motion Data 0002".to_vec(),
            false,
        ),
    ]);
    assert!(cast.add(vec![("x.zip".into(), bad)]).is_err());
    assert_eq!(cast.take_song(), None);

    let Some(files) = read_gene(true) else {
        return;
    };
    let mut entries: Vec<(Vec<u8>, Vec<u8>, bool)> = (files.iter())
        .map(|(p, b)| (p.as_bytes().to_vec(), b.clone(), false))
        .collect();
    entries.push((b"Gene/song.wav".to_vec(), song.clone(), false));
    entries.push((b"Gene/song2.mp3".to_vec(), b"ID3".to_vec(), false));
    let (added, warnings) = cast
        .add(vec![("Gene.zip".into(), zip_file(&entries))])
        .unwrap();
    assert_eq!(added, Added::Models);
    assert_eq!(cast.take_song(), Some(("Gene/song.wav".into(), song)));
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("Gene/song2.mp3: a second song; Gene/song.wav plays")),
        "{warnings:?}"
    );
    let (scene, _) = cast.scene();
    assert_eq!(scene.models().len(), 1);
    assert!(scene.models()[0].motion().end_frame() > 2000.0);
}

/// A zip archive (PKWARE APPNOTE 6.3: local headers, central directory, end record) with raw
/// name bytes and no UTF-8 flag (bit 11 clear); `true` entries deflated, others stored.
fn zip_file(entries: &[(Vec<u8>, Vec<u8>, bool)]) -> Vec<u8> {
    use std::io::Write;
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data, deflate) in entries {
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let body = if *deflate {
            let mut e =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        } else {
            data.clone()
        };
        let method: u16 = if *deflate { 8 } else { 0 };
        let offset = out.len() as u32;
        let fields = |v: &mut Vec<u8>| {
            v.extend(20u16.to_le_bytes()); // version needed
            v.extend(0u16.to_le_bytes()); // flags: no UTF-8 bit
            v.extend(method.to_le_bytes());
            v.extend([0u8; 4]); // time, date
            v.extend(crc.sum().to_le_bytes());
            v.extend((body.len() as u32).to_le_bytes());
            v.extend((data.len() as u32).to_le_bytes());
            v.extend((name.len() as u16).to_le_bytes());
            v.extend(0u16.to_le_bytes()); // extra length
        };
        out.extend(0x0403_4b50u32.to_le_bytes());
        fields(&mut out);
        out.extend(name);
        out.extend(&body);
        central.extend(0x0201_4b50u32.to_le_bytes());
        central.extend(20u16.to_le_bytes()); // version made by
        fields(&mut central);
        central.extend([0u8; 8]); // comment length, disk, internal and external attributes
        central.extend([0u8; 2]);
        central.extend(offset.to_le_bytes());
        central.extend(name);
    }
    let at = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]); // disk numbers
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

/// A drop with several models (Gene's folder holds a PMX and a PMD of her; users drop more
/// than one model): the PMD twin of a PMX in the same folder is left out with a
/// warning naming it, and each motion goes to the model it matches best. Evidence: the
/// makers' own pairing: Gene's expression VMD (in her folder, made for her morphs) goes to
/// Gene and not to Miku; wavefile_v2, made for miku_v2 (it leaves 1 track unmatched there,
/// 74 in Gene), goes to Miku; two copies of one model tie and both dance.
#[test]
fn a_drop_of_several_models_gives_each_the_motions_made_for_it() {
    let (Some(mut files), Some(gene), Some(miku)) = (
        read_gene(true),
        odori_testkit::shared("assets/gene"),
        odori_testkit::shared("assets/miku_v2"),
    ) else {
        return;
    };
    let pmd = std::fs::read(gene.join("Gene_light.pmd")).unwrap();
    files.push(("Gene/Gene_light.pmd".into(), pmd));
    for f in ["miku_v2.pmd", "eyeM2.bmp"] {
        files.push((format!("miku_v2/{f}"), std::fs::read(miku.join(f)).unwrap()));
    }
    let happy = std::fs::read(gene.join("motion/01_happy.vmd")).unwrap();
    files.push(("01_happy.vmd".into(), happy));
    let loaded = scene_from_files(files.clone()).unwrap();
    let labels: Vec<&str> = (loaded.scene.models().iter())
        .map(|m| m.asset().label())
        .collect();
    assert_eq!(labels, ["Gene/Gene_light.pmx", "miku_v2/miku_v2.pmd"]);
    assert!(
        (loaded.warnings.iter())
            .any(|w| w.starts_with("Gene/Gene_light.pmd: the same model as Gene/Gene_light.pmx")),
        "{:#?}",
        loaded.warnings
    );
    // Gene's expression (300 frames) alone on Gene; the dance (2,809) alone on Miku.
    let ends: Vec<f32> = (loaded.scene.models().iter())
        .map(|m| m.motion().end_frame())
        .collect();
    assert_eq!(ends, [300.0, 2809.0]);

    // Two copies of Gene and the dance: a tie, so both dance it.
    let mut twins: Vec<(String, Vec<u8>)> = files
        .iter()
        .filter(|f| f.0.starts_with("Gene/") && !f.0.ends_with(".pmd"))
        .cloned()
        .collect();
    let copies: Vec<_> = (twins.iter())
        .map(|(p, b)| (p.replacen("Gene/", "Gene copy/", 1), b.clone()))
        .collect();
    twins.extend(copies);
    twins.extend(files.iter().filter(|f| f.0 == "wavefile_v2.vmd").cloned());
    let loaded = scene_from_files(twins).unwrap();
    let ends: Vec<f32> = (loaded.scene.models().iter())
        .map(|m| m.motion().end_frame())
        .collect();
    assert_eq!(ends, [2809.0, 2809.0]);
}

/// The drop rule the page shares with the window (`odori_playback::cast`, MikuMikuDance's
/// model loading): a model dropped on a playing scene joins it. Gene with her dance, then
/// Gene again without it (another folder): two models, the first still dancing (its motion
/// reaches the dance's last frame) and the second at rest; a camera dropped after them keeps
/// both; `clear` starts over with no model. Before the shared rule the second drop replaced
/// the first here, while the window kept both.
#[test]
fn a_model_dropped_later_joins_and_clear_starts_over() {
    let (Some(files), Some(cam)) = (
        read_gene(true),
        odori_testkit::shared("assets/wavefile/wavefile_camera.vmd"),
    ) else {
        return;
    };
    let mut cast = Cast::new();
    assert_eq!(cast.add(files.clone()).unwrap().0, Added::Models);
    let again: Vec<(String, Vec<u8>)> = (files.iter())
        .filter(|f| kind_of(&f.0) != Kind::Motion)
        .map(|(p, b)| (p.replacen("Gene/", "Gene again/", 1), b.clone()))
        .collect();
    assert_eq!(cast.add(again).unwrap().0, Added::Models);
    let camera = vec![(
        "wavefile_camera.vmd".to_string(),
        std::fs::read(cam).unwrap(),
    )];
    assert_eq!(cast.add(camera).unwrap().0, Added::Motions);
    let (scene, _) = cast.scene();
    let ends: Vec<f32> = (scene.models().iter())
        .map(|m| m.motion().end_frame())
        .collect();
    assert_eq!(ends.len(), 2, "the second model joined the first");
    assert!(ends[0] > 2000.0 && ends[1] == 0.0, "{ends:?}");
    assert!(scene.models()[1].asset().label().starts_with("Gene again/"));
    assert!(scene.camera().is_some());
    cast.clear();
    assert!(cast.is_empty());
    assert!(cast.scene().0.models().is_empty());
}
