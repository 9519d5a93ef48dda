//! PMM reader and writer against MikuMikuDance's own sample project in `../shared`, a project
//! built in code (both versions), and hostile files: huge counts, cuts at every section
//! boundary and every byte, broken key links.

use odori_format::pmm::{
    self, Accessory, AccessoryKey, Audio, BackgroundImage, BackgroundVideo, BoneKey, BoneState,
    Camera, CameraKey, Display, Gravity, GravityKey, Header, KeyLink, Light, LightKey, LinkProblem,
    Linked, MAGIC_V1, MAGIC_V2, Model, ModelKey, ModelName, ModelSelection, ModelShape, MorphKey,
    OutsideParentState, ParentRef, Playback, Pmm, SelfShadow, SelfShadowKey, V2Tail, VarText,
};
use odori_format::{ErrorKind, Format, Pmd, SjisName};

const SAMPLE: &str = "assets/mmd-sample/UserFile/サンプル（きしめんAllStar).pmm";

fn sample() -> Option<Vec<u8>> {
    odori_testkit::shared(SAMPLE).map(|p| std::fs::read(p).unwrap())
}

/// What a second, independent reading of a version 2 file finds: counts, and where each
/// section starts. It is written from nanoem's published field list (`document.c`) with
/// record sizes summed by hand, and shares no code with the crate's reader.
#[derive(Debug, Default)]
struct Reading {
    /// Per model: bones, morphs, IK bones, outside-parent bones, linked bone keys, linked
    /// morph keys, linked model keys.
    models: Vec<[usize; 7]>,
    camera_keys: usize,
    light_keys: usize,
    /// Per accessory: linked keys.
    accessories: Vec<usize>,
    gravity_keys: usize,
    self_shadow_keys: usize,
    /// (what starts here, offset): every count field and section start.
    boundaries: Vec<(&'static str, usize)>,
    /// Where the selection flag sits (a file may end there).
    selection_flag_at: usize,
    end: usize,
}

fn independent_reading(d: &[u8]) -> Reading {
    let mut r = Reading::default();
    let mut p = 30 + 16 + 7;
    let u8_at = |p: usize| d[p] as usize;
    let i32_at = |p: usize| i32::from_le_bytes(d[p..p + 4].try_into().unwrap()) as usize;
    let mark = |r: &mut Reading, what, p| r.boundaries.push((what, p));
    mark(&mut r, "models", p);
    let models = u8_at(p + 1);
    p += 2;
    for _ in 0..models {
        mark(&mut r, "model", p);
        p += 1; // slot
        for _ in 0..2 {
            p += 1 + u8_at(p); // names
        }
        p += 256 + 1;
        mark(&mut r, "bone names", p);
        let bones = i32_at(p);
        p += 4;
        for _ in 0..bones {
            p += 1 + u8_at(p);
        }
        mark(&mut r, "morph names", p);
        let morphs = i32_at(p);
        p += 4;
        for _ in 0..morphs {
            p += 1 + u8_at(p);
        }
        mark(&mut r, "ik bones", p);
        let iks = i32_at(p);
        p += 4 + 4 * iks;
        mark(&mut r, "outside parent bones", p);
        let ops = i32_at(p);
        p += 4 + 4 * ops;
        p += 2 + 4 + 16;
        p += 1 + u8_at(p) + 8;
        mark(&mut r, "initial bone keys", p);
        p += bones * 58;
        mark(&mut r, "bone keys", p);
        let bone_keys = i32_at(p);
        p += 4 + bone_keys * 62;
        mark(&mut r, "initial morph keys", p);
        p += morphs * 17;
        mark(&mut r, "morph keys", p);
        let morph_keys = i32_at(p);
        p += 4 + morph_keys * 21;
        let model_key = 12 + 2 + iks + 8 * ops;
        mark(&mut r, "initial model key", p);
        p += model_key;
        mark(&mut r, "model keys", p);
        let model_keys = i32_at(p);
        p += 4 + model_keys * (4 + model_key);
        mark(&mut r, "model states", p);
        p += bones * 31 + morphs * 4 + iks + ops * 16 + 7;
        r.models
            .push([bones, morphs, iks, ops, bone_keys, morph_keys, model_keys]);
    }
    mark(&mut r, "camera", p);
    p += 78;
    mark(&mut r, "camera keys", p);
    r.camera_keys = i32_at(p);
    p += 4 + r.camera_keys * 82 + 37;
    mark(&mut r, "light", p);
    p += 37;
    mark(&mut r, "light keys", p);
    r.light_keys = i32_at(p);
    p += 4 + r.light_keys * 41 + 24;
    mark(&mut r, "accessories", p);
    let accessories = u8_at(p + 5);
    p += 6 + 100 * accessories;
    for _ in 0..accessories {
        mark(&mut r, "accessory", p);
        p += 1 + 100 + 256 + 1 + 51;
        mark(&mut r, "accessory keys", p);
        let keys = i32_at(p);
        p += 4 + keys * 55 + 39;
        r.accessories.push(keys);
    }
    mark(&mut r, "playback", p);
    p += 16 + 4 + 8;
    mark(&mut r, "audio", p);
    p += 1 + 256;
    mark(&mut r, "background video", p);
    p += 12 + 256 + 4;
    mark(&mut r, "background image", p);
    p += 12 + 256 + 1;
    mark(&mut r, "display", p);
    p += 3 + 16;
    mark(&mut r, "physics", p);
    p += 2;
    mark(&mut r, "gravity", p);
    p += 21 + 34;
    mark(&mut r, "gravity keys", p);
    r.gravity_keys = i32_at(p);
    p += 4 + r.gravity_keys * 38;
    mark(&mut r, "self shadow", p);
    p += 5 + 18;
    mark(&mut r, "self shadow keys", p);
    r.self_shadow_keys = i32_at(p);
    p += 4 + r.self_shadow_keys * 22;
    mark(&mut r, "view", p);
    p += 12 + 1 + 8 + 64 + 3 + 4;
    r.selection_flag_at = p;
    if p < d.len() && d[p] != 0 {
        p += 1 + 5 * models;
    } else if p < d.len() {
        p += 1;
    }
    r.end = p;
    r
}

/// Holds the reader to the sample's length: every byte belongs to a field, and the writer gives
/// the same bytes back (MMD's stale bytes after NULs included).
#[test]
fn sample_reads_to_the_last_byte_and_writes_back_byte_for_byte() {
    let Some(bytes) = sample() else { return };
    let (pmm, diagnostics) = pmm::parse_with_diagnostics(&bytes).unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert!(
        pmm.trailing.is_empty(),
        "{} bytes unread",
        pmm.trailing.len()
    );
    assert!(!pmm.is_version1());
    let written = pmm::write(&pmm).unwrap();
    assert_eq!(written.len(), bytes.len());
    let first_difference = written.iter().zip(&bytes).position(|(a, b)| a != b);
    assert_eq!(first_difference, None, "written bytes differ");
    // The stale bytes after a path's NUL are part of what comes back.
    let stale = pmm
        .models
        .iter()
        .map(|m| &m.path.0)
        .chain(pmm.accessories.iter().map(|a| &a.path.0))
        .filter(|p| {
            let nul = p.iter().position(|&b| b == 0).unwrap_or(p.len());
            p[nul..].iter().any(|&b| b != 0)
        })
        .count();
    eprintln!("paths with bytes after their NUL: {stale}");
}

/// Holds the counts to the independent reading above, and to what the issue states about the
/// sample (nine dancers and two dummy-bone models, 29 accessories).
#[test]
fn sample_counts_match_an_independent_reading() {
    let Some(bytes) = sample() else { return };
    let pmm = pmm::parse(&bytes).unwrap();
    let r = independent_reading(&bytes);
    assert_eq!(r.end, bytes.len(), "the independent reading ends elsewhere");
    assert_eq!(pmm.models.len(), 11);
    assert_eq!(pmm.accessories.len(), 29);
    let dummies = pmm
        .models
        .iter()
        .filter(|m| m.path.text().ends_with("ダミーボーン.pmd"))
        .count();
    assert_eq!(dummies, 2);
    assert_eq!(r.models.len(), pmm.models.len());
    for (m, counts) in pmm.models.iter().zip(&r.models) {
        let ours = [
            m.bone_names.len(),
            m.morph_names.len(),
            m.ik_bones.len(),
            m.outside_parent_bones.len(),
            m.bone_keys.len(),
            m.morph_keys.len(),
            m.model_keys.len(),
        ];
        assert_eq!(&ours, counts, "{}", m.name.text());
        assert_eq!(m.initial_bone_keys.len(), m.bone_names.len());
        eprintln!("{}: {ours:?}", m.name.text());
    }
    assert_eq!(pmm.camera.keys.len(), r.camera_keys);
    assert_eq!(pmm.light.keys.len(), r.light_keys);
    let keys: Vec<usize> = pmm.accessories.iter().map(|a| a.keys.len()).collect();
    assert_eq!(keys, r.accessories);
    let tail = pmm.v2.as_ref().unwrap();
    assert_eq!(tail.gravity.keys.len(), r.gravity_keys);
    assert_eq!(tail.self_shadow.keys.len(), r.self_shadow_keys);
    // Every linked key belongs to exactly one track: walking the links finds them all.
    for m in &pmm.models {
        let tracks = pmm::track(&m.initial_bone_keys, &m.bone_keys);
        assert!(tracks.iter().all(|t| t.problem.is_none()));
        let walked: usize = tracks.iter().map(|t| t.keys.len() - 1).sum();
        assert_eq!(walked, m.bone_keys.len(), "{}", m.name.text());
        let tracks = pmm::track(&m.initial_morph_keys, &m.morph_keys);
        let walked: usize = tracks.iter().map(|t| t.keys.len() - 1).sum();
        assert_eq!(walked, m.morph_keys.len(), "{}", m.name.text());
        for t in &tracks {
            assert!(t.keys.windows(2).all(|w| w[0].link.frame < w[1].link.frame));
        }
    }
}

/// Holds every model's bone and morph name tables to the model files themselves (read with
/// the PMD reader): same names, same order (PMD's base morph included).
#[test]
fn sample_name_tables_match_the_models() {
    let Some(bytes) = sample() else { return };
    let Some(root) = odori_testkit::shared("assets/mmd-sample") else {
        return;
    };
    let pmm = pmm::parse(&bytes).unwrap();
    let mut compared = 0;
    for m in &pmm.models {
        let rel = m.path.text().replace('\\', "/");
        let pmd = Pmd::read(root.join(&rel)).unwrap();
        let names: Vec<&[u8]> = pmd.bones.iter().map(|b| b.name.bytes()).collect();
        let ours: Vec<&[u8]> = m.bone_names.iter().map(|n| n.0.as_slice()).collect();
        assert_eq!(ours, names, "{rel}");
        let morphs: Vec<&[u8]> = pmd.morphs.iter().map(|x| x.name.bytes()).collect();
        let ours: Vec<&[u8]> = m.morph_names.iter().map(|n| n.0.as_slice()).collect();
        assert_eq!(ours, morphs, "{rel}");
        let iks: Vec<i32> = pmd.iks.iter().map(|ik| i32::from(ik.bone)).collect();
        assert_eq!(m.ik_bones, iks, "{rel}");
        compared += 1;
    }
    assert_eq!(compared, 11);
}

fn link(frame: i32, previous: i32, next: i32) -> KeyLink {
    KeyLink {
        frame,
        previous,
        next,
    }
}

fn bone_key(l: KeyLink, x: f32, v2: bool) -> BoneKey {
    BoneKey {
        link: l,
        curves: [
            [20, 20, 107, 107],
            [1, 2, 3, 4],
            [5, 6, 7, 8],
            [9, 10, 11, 12],
        ],
        translation: [x, 2.0, -3.0],
        rotation: [0.0, 0.5f32.sin(), 0.0, 0.5f32.cos()],
        selected: 0,
        physics_disabled: u8::from(v2 && x > 1.0),
    }
}

fn model_key(l: KeyLink, v2: bool) -> ModelKey {
    ModelKey {
        link: l,
        visible: 1,
        ik_enabled: vec![u8::from(l.frame == 0)],
        outside_parents: if v2 {
            vec![ParentRef { model: 0, bone: 1 }]
        } else {
            Vec::new()
        },
        selected: 0,
    }
}

fn accessory_key(l: KeyLink) -> AccessoryKey {
    AccessoryKey {
        link: l,
        opacity_visible: 0x15,
        parent: ParentRef { model: 0, bone: 1 },
        translation: [1.0, 2.0, 3.0],
        rotation: [0.1, 0.2, 0.3],
        scale: 10.0,
        shadow: 1,
        selected: 0,
    }
}

fn camera_key(l: KeyLink, v2: bool) -> CameraKey {
    CameraKey {
        link: l,
        distance: -45.0,
        target: [0.0, 10.0, 0.0],
        rotation: [0.1, 0.2, 0.0],
        parent: if v2 {
            ParentRef { model: 0, bone: 0 }
        } else {
            ParentRef::NONE
        },
        curves: [[20, 20, 107, 107]; 6],
        perspective_off: 0,
        fov: 30,
        selected: 0,
    }
}

fn name<const N: usize>(text: &str, stale: u8) -> SjisName<N> {
    let mut n = SjisName::<N>::new(text);
    n.0[N - 1] = stale;
    n
}

/// A project using every section: one model (two bones, one morph, one IK bone, one
/// outside-parent bone, linked keys on each list), one accessory with keys, camera, light,
/// gravity and self-shadow keys; stale bytes after NULs.
fn built(v2: bool) -> Pmm {
    let model = Model {
        index: 0,
        name: if v2 {
            ModelName::V2 {
                japanese: VarText(b"\x83~\x83N".to_vec()),
                english: VarText(b"Miku".to_vec()),
            }
        } else {
            ModelName::V1(name("ミク", 0x55))
        },
        path: name("UserFile\\Model\\初音ミク.pmd", 0xAA),
        fixed_tracks: if v2 { 3 } else { 0 },
        bone_names: if v2 {
            vec![VarText(b"root".to_vec()), VarText(b"arm".to_vec())]
        } else {
            Vec::new()
        },
        morph_names: if v2 {
            vec![VarText(b"smile".to_vec())]
        } else {
            Vec::new()
        },
        ik_bones: if v2 { vec![1] } else { Vec::new() },
        outside_parent_bones: if v2 { vec![0] } else { Vec::new() },
        draw_order: 1,
        visible: 1,
        selected_bone: 1,
        selected_morphs: [0, -1, -1, -1],
        expanded: vec![1, 0, 1],
        vertical_scroll: 0,
        last_frame: 60,
        initial_bone_keys: vec![
            bone_key(link(0, 0, 2), 0.0, v2),
            bone_key(link(0, 0, 0), 0.5, v2),
        ],
        bone_keys: vec![
            Linked {
                index: 2,
                key: bone_key(link(10, 0, 3), 1.5, v2),
            },
            Linked {
                index: 3,
                key: bone_key(link(30, 2, 0), 2.5, v2),
            },
        ],
        initial_morph_keys: vec![MorphKey {
            link: link(0, 0, 1),
            weight: 0.0,
            selected: 0,
        }],
        morph_keys: vec![Linked {
            index: 1,
            key: MorphKey {
                link: link(20, 0, 0),
                weight: 1.0,
                selected: 1,
            },
        }],
        initial_model_key: model_key(link(0, 0, 1), v2),
        model_keys: vec![Linked {
            index: 1,
            key: model_key(link(15, 0, 0), v2),
        }],
        bone_states: vec![
            BoneState {
                translation: [0.0; 3],
                rotation: [0.0, 0.0, 0.0, 1.0],
                v1_unknown: if v2 { 0 } else { 7 },
                dirty: 0,
                physics_disabled: 0,
                tracks_selected: 1,
            };
            2
        ],
        morph_states: vec![0.25],
        ik_states: vec![1],
        outside_parent_states: if v2 {
            vec![OutsideParentState {
                begin: -1,
                end: -1,
                parent: ParentRef::NONE,
            }]
        } else {
            Vec::new()
        },
        add_blend: 0,
        edge_width: if v2 { 1.5 } else { 0.0 },
        self_shadow: u8::from(v2),
        evaluation_order: u8::from(v2),
    };
    let accessory = Accessory {
        index: 0,
        name: name("ステージ", 0x11),
        path: name("UserFile\\Accessory\\stage01.x", 0x22),
        draw_order: 0,
        initial_key: accessory_key(link(0, 0, 1)),
        keys: vec![Linked {
            index: 1,
            key: accessory_key(link(40, 0, 0)),
        }],
        opacity_visible: 1,
        parent: ParentRef::NONE,
        translation: [0.0; 3],
        scale: 10.0,
        rotation: [0.0; 3],
        shadow: 1,
        add_blend: u8::from(v2),
    };
    let mut magic = [0u8; 30];
    magic[..24].copy_from_slice(if v2 { MAGIC_V2 } else { MAGIC_V1 });
    magic[27] = 0xCC;
    Pmm {
        magic,
        header: Header {
            output_width: 1280,
            output_height: 720,
            timeline_width: 300,
            view_fov: 30.0,
            camera_mode: 1,
            panels_expanded: [1, 1, 0, 1, 1, u8::from(v2)],
        },
        selected_model: 0,
        v1_model_names: if v2 {
            Vec::new()
        } else {
            vec![name("ミク", 0x66)]
        },
        models: vec![model],
        camera: Camera {
            initial_key: camera_key(link(0, 0, 1), v2),
            keys: vec![Linked {
                index: 1,
                key: camera_key(link(50, 0, 0), v2),
            }],
            target: [0.0, 10.0, 0.0],
            position: [0.0, 10.0, 45.0],
            rotation: [0.0; 3],
            perspective_off: 0,
        },
        light: Light {
            initial_key: LightKey {
                link: link(0, 0, 1),
                color: [0.6; 3],
                direction: [-0.5, -1.0, 0.5],
                selected: 0,
            },
            keys: vec![Linked {
                index: 1,
                key: LightKey {
                    link: link(25, 0, 0),
                    color: [1.0, 0.5, 0.25],
                    direction: [0.0, -1.0, 0.0],
                    selected: 0,
                },
            }],
            color: [0.6; 3],
            direction: [-0.5, -1.0, 0.5],
        },
        selected_accessory: 0,
        accessory_scroll: 0,
        accessory_names: vec![name("ステージ", 0x33)],
        accessories: vec![accessory],
        playback: Playback {
            current_frame: 5,
            horizontal_scroll: 0,
            horizontal_scroll_thumb: 100,
            editing_mode: 2,
            camera_look_mode: 0,
            repeat: 1,
            begin_enabled: 1,
            end_enabled: 1,
            begin_frame: 0,
            end_frame: 60,
        },
        audio: Audio {
            enabled: 1,
            path: name("C:\\music\\song.wav", 0x44),
        },
        background_video: BackgroundVideo {
            offset: [0, 0],
            scale: 1.0,
            path: SjisName::default(),
            enabled: 0,
        },
        background_image: BackgroundImage {
            offset: [1, 2],
            scale: 1.0,
            path: name("bg.png", 0),
            enabled: 1,
        },
        display: Display {
            info_shown: 1,
            grid_shown: 1,
            ground_shadow_shown: 1,
            fps: 30.0,
            screen_capture_mode: 0,
            accessories_before_models: 1,
            ground_shadow_brightness: 1.0,
        },
        v2: v2.then(|| V2Tail {
            translucent_ground_shadow: 0,
            physics_mode: 1,
            gravity: Gravity {
                acceleration: 9.8,
                noise: 10,
                direction: [0.0, -1.0, 0.0],
                noise_enabled: 0,
                initial_key: GravityKey {
                    link: link(0, 0, 1),
                    noise_enabled: 0,
                    noise: 10,
                    acceleration: 9.8,
                    direction: [0.0, -1.0, 0.0],
                    selected: 0,
                },
                keys: vec![Linked {
                    index: 1,
                    key: GravityKey {
                        link: link(30, 0, 0),
                        noise_enabled: 1,
                        noise: 5,
                        acceleration: 20.0,
                        direction: [1.0, -1.0, 0.0],
                        selected: 0,
                    },
                }],
            },
            self_shadow: SelfShadow {
                enabled: 1,
                distance: 0.00981,
                initial_key: SelfShadowKey {
                    link: link(0, 0, 1),
                    mode: 1,
                    distance: 0.00981,
                    selected: 0,
                },
                keys: vec![Linked {
                    index: 1,
                    key: SelfShadowKey {
                        link: link(45, 0, 0),
                        mode: 2,
                        distance: 0.005,
                        selected: 0,
                    },
                }],
            },
            edge_color: [0, 0, 255],
            black_background: 0,
            camera_look_at: ParentRef { model: -1, bone: 0 },
            unknown_matrix: [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
            ],
            follow_look_at: 0,
            unknown_flag: 0,
            physics_ground: 1,
            frame_in_text_field: 5,
            selection_flag: Some(1),
            selections: vec![ModelSelection {
                model: 0,
                selection: 3,
            }],
        }),
        trailing: if v2 { Vec::new() } else { vec![9, 8, 7] },
    }
}

fn v1_shape(_slot: usize, path: &SjisName<256>) -> Option<ModelShape> {
    path.text().ends_with(".pmd").then_some(ModelShape {
        bones: 2,
        morphs: 1,
        iks: 1,
    })
}

/// Holds the writer to the reader on values built here (every field, both versions): what is
/// written reads back equal, and writes the same bytes again.
#[test]
fn built_projects_write_and_read_back_equal() {
    let p = built(true);
    let bytes = pmm::write(&p).unwrap();
    let back = pmm::parse(&bytes).unwrap();
    assert_eq!(back, p);
    assert_eq!(pmm::write(&back).unwrap(), bytes);

    let p1 = built(false);
    let bytes = pmm::write(&p1).unwrap();
    let (back, _) = pmm::parse_v1(&bytes, &mut v1_shape).unwrap();
    assert_eq!(back, p1);
    // Without the model's counts a version 1 file cannot be sized: a clear error, not a guess.
    let e = pmm::parse(&bytes).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Unsupported(_)), "{e}");
    assert_eq!(e.location.format, Format::Pmm);
    let e = pmm::parse_v1(&bytes, &mut |_, _| None).unwrap_err();
    assert_eq!(e.location.field, "path");
    assert!(e.to_string().contains("初音ミク.pmd"), "{e}");
}

/// The writer refuses values its reader could not read back the same.
#[test]
fn writer_refuses_inconsistent_values() {
    let mut p = built(true);
    p.models[0].bone_states.pop();
    let e = pmm::write(&p).unwrap_err();
    assert_eq!(e.location.field, "bone state");
    let mut p = built(true);
    p.models[0].model_keys[0].key.ik_enabled.clear();
    assert_eq!(pmm::write(&p).unwrap_err().location.field, "ik enabled");
    let mut p = built(true);
    p.v2 = None;
    assert!(pmm::write(&p).is_err());
}

/// Every cut of a built project fails with a located error at or before the cut (never a
/// panic), except the one place where version 2 files may end: before the selection flag.
#[test]
fn built_project_cut_at_every_byte_fails_located() {
    let bytes = pmm::write(&built(true)).unwrap();
    let flag_at = bytes.len() - 1 - 5;
    for cut in 0..bytes.len() {
        match pmm::parse(&bytes[..cut]) {
            Ok(p) => {
                assert_eq!(cut, flag_at, "a file cut at {cut} read as complete");
                assert_eq!(p.v2.unwrap().selection_flag, None);
            }
            Err(e) => {
                assert!(e.location.offset as usize <= cut, "cut {cut}: {e}");
                assert_eq!(e.location.format, Format::Pmm);
            }
        }
    }
}

/// The sample cut at each section boundary the independent reading found (and one byte either
/// side): an error naming an offset at or before the cut.
#[test]
fn sample_cut_at_every_section_boundary_fails_located() {
    let Some(bytes) = sample() else { return };
    let r = independent_reading(&bytes);
    assert!(
        r.boundaries.len() > 11 * 12,
        "{} boundaries",
        r.boundaries.len()
    );
    let mut tried = 0;
    for &(what, at) in &r.boundaries {
        for cut in [at.saturating_sub(1), at, at + 1] {
            let e = pmm::parse(&bytes[..cut]).unwrap_err();
            assert!(e.location.offset as usize <= cut, "{what} cut {cut}: {e}");
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
                ),
                "{what} cut {cut}: {e}"
            );
            tried += 1;
        }
    }
    assert_eq!(tried, 3 * r.boundaries.len());
    // The one legal early end: the file stops before the selection flag.
    let p = pmm::parse(&bytes[..r.selection_flag_at]).unwrap();
    assert_eq!(p.v2.unwrap().selection_flag, None);
}

/// Counts near 2^31 (and negative ones) are refused before anything is allocated, at the
/// count's own offset.
#[test]
fn huge_counts_are_refused_at_their_offset() {
    let Some(bytes) = sample() else { return };
    let r = independent_reading(&bytes);
    for what in [
        "bone names",
        "morph names",
        "ik bones",
        "outside parent bones",
        "bone keys",
        "morph keys",
        "model keys",
        "camera keys",
        "light keys",
        "accessory keys",
        "gravity keys",
        "self shadow keys",
    ] {
        let at = r.boundaries.iter().find(|b| b.0 == what).unwrap().1;
        for count in [0x7FFF_FFFFu32, 0x7FFF_FFF0, 0x8000_0000, 0xFFFF_FFFF] {
            let mut hostile = bytes.clone();
            hostile[at..at + 4].copy_from_slice(&count.to_le_bytes());
            let e = pmm::parse(&hostile).unwrap_err();
            assert_eq!(e.location.offset as usize, at, "{what} {count:#x}: {e}");
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::CountTooLarge { .. } | ErrorKind::NegativeCount(_)
                ),
                "{what} {count:#x}: {e}"
            );
        }
    }
}

/// Broken links end a track's walk with the problem named, never a loop: a cycle, a link out
/// of range, a link back to an initial key, a key claimed by two tracks.
#[test]
fn broken_key_links_end_the_walk() {
    let p = built(true);
    let m = &p.models[0];
    let walk = |keys: &[Linked<BoneKey>]| {
        pmm::track(&m.initial_bone_keys, keys)
            .into_iter()
            .map(|t| (t.keys.len(), t.problem))
            .collect::<Vec<_>>()
    };
    assert_eq!(walk(&m.bone_keys), vec![(3, None), (1, None)]);
    let mut cyclic = m.bone_keys.clone();
    cyclic[1].key.link.next = 2;
    assert_eq!(
        walk(&cyclic),
        vec![(3, Some(LinkProblem::Revisited { next: 2 })), (1, None)]
    );
    let mut self_loop = m.bone_keys.clone();
    self_loop[0].key.link.next = 2;
    assert_eq!(
        walk(&self_loop)[0].1,
        Some(LinkProblem::Revisited { next: 2 })
    );
    let mut out = m.bone_keys.clone();
    out[1].key.link.next = 1 << 30;
    assert_eq!(
        walk(&out)[0].1,
        Some(LinkProblem::OutOfRange { next: 1 << 30 })
    );
    out[1].key.link.next = -5;
    assert_eq!(walk(&out)[0].1, Some(LinkProblem::OutOfRange { next: -5 }));
    let mut back = m.bone_keys.clone();
    back[1].key.link.next = 1;
    assert_eq!(walk(&back)[0].1, Some(LinkProblem::ToInitial { next: 1 }));
    // Both tracks claim key 2: the second is stopped.
    let mut initial = m.initial_bone_keys.clone();
    initial[1].link.next = 2;
    let tracks = pmm::track(&initial, &m.bone_keys);
    assert_eq!(tracks[0].keys.len(), 3);
    assert_eq!(tracks[1].problem, Some(LinkProblem::Revisited { next: 2 }));
    // A long cycle through a big list ends after one pass over it.
    let many: Vec<Linked<BoneKey>> = (0..10_000)
        .map(|i| Linked {
            index: i + 2,
            key: bone_key(link(i + 1, 0, (i + 1) % 10_000 + 2), 0.0, true),
        })
        .collect();
    let tracks = pmm::track(&m.initial_bone_keys, &many);
    assert_eq!(tracks[0].keys.len(), 10_001);
    assert_eq!(tracks[0].problem, Some(LinkProblem::Revisited { next: 2 }));
}

/// A file that is not a PMM, and a PMM read through the any-format entry point, say so.
#[test]
fn wrong_magic_and_project_through_parse_any_are_named() {
    let e = pmm::parse(b"Vocaloid Motion Data 0002\0\0\0\0\0").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
    let bytes = pmm::write(&built(true)).unwrap();
    assert_eq!(odori_format::detect(&bytes), Some(Format::Pmm));
    let e = odori_format::parse_any(&bytes).unwrap_err();
    assert!(e.to_string().contains("project"), "{e}");
}

/// Holds the VMD conversion to the project's keys: every key of every track lands in the VMD
/// (initial keys included) with the same values, and the curves VMD's reader decodes equal the
/// project's curve bytes; the VMD writes and reads back equal.
#[test]
fn models_convert_to_vmd_key_for_key() {
    let p = built(true);
    let m = &p.models[0];
    let (v, warnings) = pmm::model_motion(m);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(v.bones.len(), 4);
    assert_eq!(v.morphs.len(), 2);
    assert_eq!(v.properties.len(), 2);
    let pmm_keys: Vec<&BoneKey> = pmm::track(&m.initial_bone_keys, &m.bone_keys)
        .into_iter()
        .flat_map(|t| t.keys)
        .collect();
    for (k, pk) in v.bones.iter().zip(&pmm_keys) {
        assert_eq!(k.frame as i32, pk.link.frame);
        assert_eq!(k.translation, pk.translation);
        assert_eq!(k.rotation, pk.rotation);
        let c = k.curves();
        let bytes = |b: odori_format::vmd::Bezier| {
            [b.x1, b.y1, b.x2, b.y2].map(|v| (v * 127.0).round() as u8)
        };
        assert_eq!(
            [bytes(c.x), bytes(c.y), bytes(c.z), bytes(c.rotation)],
            pk.curves
        );
        assert_eq!(k.physics_disabled(), pk.physics_disabled != 0);
    }
    assert_eq!(v.bones[0].name.bytes(), b"root");
    assert_eq!(v.properties[0].ik[0].name.bytes(), b"arm");
    assert_eq!(v.properties[0].ik[0].enabled, 1);
    assert_eq!(v.properties[1].ik[0].enabled, 0);
    let written = odori_format::vmd::write(&v).unwrap();
    assert_eq!(odori_format::vmd::parse(&written).unwrap(), v);

    let (cam, warnings) = pmm::camera_motion(&p);
    assert_eq!(cam.cameras.len(), 2);
    assert_eq!(cam.lights.len(), 2);
    assert_eq!(cam.self_shadows.len(), 2);
    assert_eq!(cam.cameras[1].frame, 50);
    assert_eq!(cam.cameras[1].fov, 30);
    assert_eq!(cam.cameras[1].distance, -45.0);
    assert_eq!(cam.self_shadows[1].mode, 2);
    assert_eq!(cam.model_name.bytes(), pmm::CAMERA_MODEL_NAME);
    assert_eq!(cam.model_name.text(), "カメラ・照明");
    // The built camera keys follow model 0's bone 0: VMD cannot, and says so where the VMD
    // is kept on its own; the motion itself is undamaged.
    assert!(warnings.is_empty(), "{warnings:?}");
    let lost = pmm::camera_follow_warnings(&p);
    assert_eq!(lost.len(), 1, "{lost:?}");
    assert!(lost[0].to_string().contains("2 keys follow"), "{}", lost[0]);

    // A cycle in the links ends the track with a warning naming the bone.
    let mut cyclic = m.clone();
    cyclic.bone_keys[1].key.link.next = 2;
    let (v, warnings) = pmm::model_motion(&cyclic);
    assert_eq!(v.bones.len(), 4);
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].to_string().starts_with("bone root"),
        "{}",
        warnings[0]
    );
}

/// The sample's motions: every key walked lands in its model's VMD, which writes and reads
/// back equal.
#[test]
fn sample_models_convert_to_vmd() {
    let Some(bytes) = sample() else { return };
    let pmm = pmm::parse(&bytes).unwrap();
    for m in &pmm.models {
        let (v, warnings) = pmm::model_motion(m);
        // Luka's long hair and skirt bone names share their first 15 bytes in pairs.
        for w in &warnings {
            assert!(w.message.contains("15 bytes"), "{}: {w}", m.name.text());
            eprintln!("{}: {w}", m.name.text());
        }
        assert_eq!(v.bones.len(), m.bone_names.len() + m.bone_keys.len());
        assert_eq!(v.morphs.len(), m.morph_names.len() + m.morph_keys.len());
        assert_eq!(v.properties.len(), 1 + m.model_keys.len());
        let written = odori_format::vmd::write(&v).unwrap();
        assert_eq!(odori_format::vmd::parse(&written).unwrap(), v);
    }
    let (cam, warnings) = pmm::camera_motion(&pmm);
    assert_eq!(cam.cameras.len(), 1 + pmm.camera.keys.len());
    assert_eq!(cam.lights.len(), 1 + pmm.light.keys.len());
    eprintln!("camera warnings: {warnings:?}");
}
