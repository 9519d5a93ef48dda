//! Shared helpers for the PMX tests: a small model built in code that uses every feature, and
//! the round-trip check.
#![allow(dead_code)] // Each test binary uses its own subset.

use odori_format::FormatError;
use odori_format::pmx::{self, bone_flags as bf, *};

/// A small model using every part of the format: all weight types (QDEF only in 2.1), all
/// morph types (flip and impulse only in 2.1), every optional bone block, texture and shared
/// toons, and (2.1) soft bodies. All index sizes are `size`.
pub fn sample(v21: bool, encoding: TextEncoding, size: u8) -> Pmx {
    let header = Header {
        version: if v21 { 2.1 } else { 2.0 },
        encoding,
        additional_uvs: if v21 { 2 } else { 0 },
        vertex_index_size: size,
        texture_index_size: size,
        material_index_size: size,
        bone_index_size: size,
        morph_index_size: size,
        rigid_body_index_size: size,
        extra_globals: Vec::new(),
    };
    let uvs = |k: f32| {
        if v21 {
            [[k, 0.5, 0.0, 1.0], [0.25, k, 0.0, 0.0], [0.0; 4], [0.0; 4]]
        } else {
            [[0.0; 4]; 4]
        }
    };
    let vertex = |i: usize, weights| Vertex {
        position: [i as f32, 1.5, -2.0],
        normal: [0.0, 1.0, 0.0],
        uv: [0.25 * i as f32, 0.75],
        additional_uvs: uvs(i as f32),
        weights,
        edge_scale: 1.0,
    };
    let mut vertices = vec![
        vertex(0, Weights::Bdef1 { bone: 0 }),
        vertex(
            1,
            Weights::Bdef2 {
                bones: [0, 1],
                weight: 0.25,
            },
        ),
        vertex(
            2,
            Weights::Bdef4 {
                bones: [0, 1, 2, -1],
                weights: [0.5, 0.25, 0.25, 0.0],
            },
        ),
        vertex(
            3,
            Weights::Sdef {
                bones: [1, 2],
                weight: 0.75,
                c: [0.0, 1.0, 0.0],
                r0: [0.0, 1.5, 0.0],
                r1: [0.0, 0.5, 0.0],
            },
        ),
    ];
    if v21 {
        vertices.push(vertex(
            4,
            Weights::Qdef {
                bones: [0, 1, -1, -1],
                weights: [0.5, 0.5, 0.0, 0.0],
            },
        ));
    }
    let material = |name: &str, toon, index_count| Material {
        name: name.into(),
        name_en: "body".into(),
        diffuse: [1.0, 0.8, 0.6, 1.0],
        specular: [0.1, 0.1, 0.1],
        specular_power: 5.0,
        ambient: [0.5, 0.4, 0.3],
        flags: material_flags::DOUBLE_SIDED | material_flags::EDGE,
        edge_color: [0.0, 0.0, 0.0, 1.0],
        edge_size: 1.0,
        texture: 0,
        sphere_texture: if index_count > 0 { 1 } else { -1 },
        sphere_mode: 1,
        toon,
        memo: "メモ".into(),
        index_count,
    };
    let bone = |name: &str, parent, flags, tail| Bone {
        name: name.into(),
        name_en: String::new(),
        position: [0.0, 1.0, 0.0],
        parent,
        layer: 0,
        flags,
        tail,
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    };
    let mut child = bone(
        "センター",
        0,
        bf::ROTATABLE
            | bf::TAIL_IS_BONE
            | bf::APPEND_ROTATE
            | bf::FIXED_AXIS
            | bf::LOCAL_AXES
            | bf::EXTERNAL_PARENT,
        BoneTail::Bone(2),
    );
    child.append = Some(Append {
        parent: 0,
        ratio: 0.5,
    });
    child.fixed_axis = Some([0.0, 0.0, 1.0]);
    child.local_axes = Some(LocalAxes {
        x: [1.0, 0.0, 0.0],
        z: [0.0, 0.0, 1.0],
    });
    child.external_parent = Some(7);
    let mut ik = bone(
        "足ＩＫ",
        0,
        bf::ROTATABLE | bf::TRANSLATABLE | bf::IK,
        BoneTail::Offset([0.0; 3]),
    );
    ik.ik = Some(Ik {
        target: 1,
        loop_count: 40,
        limit_angle: 2.0,
        links: vec![
            IkLink {
                bone: 1,
                limits: Some(IkLimits {
                    min: [-3.0, 0.0, 0.0],
                    max: [-0.01, 0.0, 0.0],
                }),
            },
            IkLink {
                bone: 0,
                limits: None,
            },
        ],
    });
    let bones = vec![
        bone(
            "全ての親",
            -1,
            bf::ROTATABLE | bf::TRANSLATABLE,
            BoneTail::Offset([0.0, 1.0, 0.0]),
        ),
        child,
        ik,
    ];
    let morph = |name: &str, offsets| Morph {
        name: name.into(),
        name_en: String::new(),
        panel: 4,
        offsets,
    };
    let mut morphs = vec![
        morph(
            "v",
            MorphOffsets::Vertex(vec![VertexOffset {
                vertex: 2,
                offset: [0.0, 0.1, 0.0],
            }]),
        ),
        morph(
            "グループ",
            MorphOffsets::Group(vec![GroupOffset {
                morph: 0,
                ratio: 0.5,
            }]),
        ),
        morph(
            "bone",
            MorphOffsets::Bone(vec![BoneOffset {
                bone: 1,
                translation: [0.0, 0.5, 0.0],
                rotation: [0.0, 0.0, 0.0, 1.0],
            }]),
        ),
        morph(
            "uv",
            MorphOffsets::Uv {
                channel: 0,
                offsets: vec![UvOffset {
                    vertex: 1,
                    offset: [0.0, 0.5, 0.0, 0.0],
                }],
            },
        ),
        morph(
            "material",
            MorphOffsets::Material(vec![MaterialOffset {
                diffuse: [1.0, 1.0, 1.0, 0.0],
                ..MaterialOffset::multiply(-1)
            }]),
        ),
    ];
    if v21 {
        morphs.push(morph(
            "uv2",
            MorphOffsets::Uv {
                channel: 2,
                offsets: vec![UvOffset {
                    vertex: 3,
                    offset: [0.5; 4],
                }],
            },
        ));
        morphs.push(morph(
            "flip",
            MorphOffsets::Flip(vec![GroupOffset {
                morph: 1,
                ratio: 1.0,
            }]),
        ));
        morphs.push(morph(
            "impulse",
            MorphOffsets::Impulse(vec![ImpulseOffset {
                rigid_body: 1,
                local: 1,
                velocity: [0.0, 1.0, 0.0],
                torque: [0.0; 3],
            }]),
        ));
    }
    let body = |name: &str, bone, mode| RigidBody {
        name: name.into(),
        name_en: String::new(),
        bone,
        group: 2,
        collision_mask: 0xFFFB,
        shape: 2,
        size: [0.5, 1.0, 0.0],
        position: [0.0, 1.0, 0.0],
        rotation: [0.0, 0.0, 0.1],
        mass: 1.0,
        linear_damping: 0.5,
        angular_damping: 0.5,
        restitution: 0.0,
        friction: 0.5,
        mode,
    };
    let soft_bodies = if v21 {
        vec![SoftBody {
            name: "スカート".into(),
            name_en: "skirt".into(),
            shape: 0,
            material: 0,
            group: 3,
            collision_mask: 0xFFFF,
            flags: 0x03,
            b_link_distance: 2,
            cluster_count: 4,
            total_mass: 1.0,
            collision_margin: 0.05,
            aero_model: 1,
            config: [0.5; 12],
            cluster: [0.25; 6],
            iterations: [1, 2, 3, 4],
            material_coefficients: [1.0, 1.0, 1.0],
            anchors: vec![SoftBodyAnchor {
                rigid_body: 0,
                vertex: 3,
                near_mode: 1,
            }],
            pins: vec![0, 2],
        }]
    } else {
        Vec::new()
    };
    Pmx {
        header,
        info: ModelInfo {
            name: "サンプル".into(),
            name_en: "sample".into(),
            comment: "テスト\r\nmodel 😀".into(),
            comment_en: String::new(),
        },
        vertices,
        indices: vec![0, 1, 2, 1, 2, 3],
        textures: vec!["tex.png".into(), "sphere.spa".into()],
        materials: vec![
            material("体", Toon::Shared(3), 6),
            material("髪", Toon::Texture(0), 0),
        ],
        bones,
        morphs,
        display_frames: vec![
            DisplayFrame {
                name: "Root".into(),
                name_en: "Root".into(),
                special: 1,
                items: vec![DisplayItem::Bone(0)],
            },
            DisplayFrame {
                name: "表情".into(),
                name_en: "Exp".into(),
                special: 1,
                items: vec![DisplayItem::Morph(0), DisplayItem::Morph(1)],
            },
            DisplayFrame {
                name: "足".into(),
                name_en: String::new(),
                special: 0,
                items: vec![DisplayItem::Bone(2), DisplayItem::Bone(1)],
            },
        ],
        rigid_bodies: vec![body("頭", 1, 0), body("髪", -1, 1)],
        joints: vec![Joint {
            name: "joint".into(),
            name_en: String::new(),
            kind: 0,
            body_a: 0,
            body_b: 1,
            position: [0.0, 1.0, 0.0],
            rotation: [0.0; 3],
            translation_min: [0.0; 3],
            translation_max: [0.0; 3],
            rotation_min: [-0.5; 3],
            rotation_max: [0.5; 3],
            spring_translation: [0.0; 3],
            spring_rotation: [10.0; 3],
        }],
        soft_bodies,
    }
}

/// Parse, write and re-parse `bytes`: the written bytes must equal the input when `identical`
/// is set, and the re-parsed model must equal the first (compared through `Debug`, which
/// prints every float exactly and treats NaN normals, which real files have, as equal).
pub fn round_trip(bytes: &[u8]) -> Result<bool, String> {
    let model = pmx::parse(bytes).map_err(|e| format!("parse: {e}"))?;
    let written = pmx::write(&model).map_err(|e| format!("write: {e}"))?;
    let again = pmx::parse(&written).map_err(|e| format!("re-parse: {e}"))?;
    if format!("{model:?}") != format!("{again:?}") {
        return Err("re-parsed model differs".into());
    }
    let rewritten = pmx::write(&again).map_err(|e| format!("re-write: {e}"))?;
    if rewritten != written {
        return Err("second write differs from the first".into());
    }
    Ok(written == bytes)
}

// Finding and patching bytes.

pub fn shared_pmx_files() -> Vec<std::path::PathBuf> {
    let mut files = odori_testkit::shared_files("assets", &["pmx"]);
    files.extend(odori_testkit::shared_files("ik-captures", &["pmx"]));
    files
}

pub fn gene() -> Option<Vec<u8>> {
    odori_testkit::shared("assets/gene/Gene_light.pmx").map(|p| std::fs::read(p).unwrap())
}

pub fn offset_of(bytes: &[u8], section: &str) -> usize {
    pmx::section_offsets(bytes)
        .unwrap()
        .into_iter()
        .find(|(name, _)| *name == section)
        .unwrap_or_else(|| panic!("no section {section}"))
        .1
}

/// The section a byte offset falls in: the last one starting at or before it.
pub fn section_at(sections: &[(&'static str, usize)], at: usize) -> &'static str {
    sections
        .iter()
        .rev()
        .find(|(_, start)| *start <= at)
        .unwrap()
        .0
}

pub fn patch(bytes: &mut [u8], at: usize, with: &[u8]) {
    bytes[at..at + with.len()].copy_from_slice(with);
}

pub fn err(bytes: &[u8]) -> FormatError {
    match pmx::parse(bytes) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

pub fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count() * 2
}
