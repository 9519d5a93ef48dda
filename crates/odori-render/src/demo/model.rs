//! The demo character as a PMX value: a stylised figure (head, hair, eyes, torso, skirt, arms,
//! legs, shoes) on an MMD-standard skeleton with IK legs (knee limits), an append bone, a
//! blink vertex morph, a blush material morph and seven materials using shared and own toon ramps, a main texture and
//! both sphere-map modes. About 16 units tall, facing −Z like every MMD model.

use super::mesh::{MeshBuilder, Weight};
use glam::Vec3;
use odori_format::pmx::{
    self, Bone, BoneTail, DisplayFrame, Header, Ik, IkLimits, IkLink, Material, MaterialOffset,
    ModelInfo, Morph, MorphOffsets, Pmx, TextEncoding, Toon, Vertex, VertexOffset, Weights,
    bone_flags as bf, material_flags as mf,
};

/// Bone indices.
pub mod b {
    pub const CENTER: i32 = 0;
    pub const LOWER: i32 = 1;
    pub const UPPER: i32 = 2;
    pub const UPPER2: i32 = 3;
    pub const NECK: i32 = 4;
    pub const HEAD: i32 = 5;
    /// Arms: left then right (arm, elbow, wrist).
    pub const ARM: [i32; 2] = [6, 9];
    pub const ELBOW: [i32; 2] = [7, 10];
    pub const WRIST: [i32; 2] = [8, 11];
    /// Legs: left then right (leg, knee, ankle, IK).
    pub const LEG: [i32; 2] = [12, 15];
    pub const KNEE: [i32; 2] = [13, 16];
    pub const ANKLE: [i32; 2] = [14, 17];
    pub const IK: [i32; 2] = [18, 19];
}

/// Texture table entries (names the demo's in-memory texture source provides).
pub const TEXTURES: [&str; 4] = ["skirt.png", "gloss_add.png", "soft_mul.png", "own_toon.png"];

/// Character's left is +X (it faces −Z).
const SIDES: [f32; 2] = [1.0, -1.0];

fn bone(name: &str, parent: i32, pos: [f32; 3], flags: u16) -> Bone {
    Bone {
        name: name.to_string(),
        name_en: String::new(),
        position: pos,
        parent,
        layer: 0,
        flags: flags | bf::ROTATABLE | bf::VISIBLE | bf::ENABLED,
        tail: BoneTail::Offset([0.0, 0.0, 0.0]),
        append: None,
        fixed_axis: None,
        local_axes: None,
        external_parent: None,
        ik: None,
    }
}

fn bones() -> Vec<Bone> {
    let mut v = vec![
        bone("センター", -1, [0.0, 8.0, 0.0], bf::TRANSLATABLE),
        bone("下半身", b::CENTER, [0.0, 9.2, 0.0], 0),
        bone("上半身", b::CENTER, [0.0, 9.2, 0.0], 0),
        // The append bone: the chest follows half of the waist's rotation again, spreading a
        // twist over the torso as rigs' 上半身2 does.
        {
            let mut u2 = bone("上半身2", b::UPPER, [0.0, 11.0, 0.0], bf::APPEND_ROTATE);
            u2.append = Some(pmx::Append {
                parent: b::UPPER,
                ratio: 0.5,
            });
            u2
        },
        bone("首", b::UPPER2, [0.0, 13.0, 0.0], 0),
        bone("頭", b::NECK, [0.0, 13.7, 0.0], 0),
    ];
    for (side, name) in [(1.0, "左"), (-1.0, "右")] {
        let arm = v.len() as i32;
        v.push(bone(
            &format!("{name}腕"),
            b::UPPER2,
            [1.5 * side, 12.6, 0.0],
            0,
        ));
        v.push(bone(
            &format!("{name}ひじ"),
            arm,
            [2.9 * side, 11.0, 0.0],
            0,
        ));
        v.push(bone(
            &format!("{name}手首"),
            arm + 1,
            [4.1 * side, 9.4, 0.0],
            0,
        ));
    }
    for (side, name) in [(1.0, "左"), (-1.0, "右")] {
        let leg = v.len() as i32;
        v.push(bone(
            &format!("{name}足"),
            b::LOWER,
            [0.9 * side, 8.4, 0.0],
            0,
        ));
        v.push(bone(&format!("{name}ひざ"), leg, [0.9 * side, 4.6, 0.0], 0));
        v.push(bone(
            &format!("{name}足首"),
            leg + 1,
            [0.9 * side, 0.9, 0.0],
            0,
        ));
    }
    for (i, name) in ["左足ＩＫ", "右足ＩＫ"].into_iter().enumerate() {
        let mut ik = bone(
            name,
            -1,
            [0.9 * SIDES[i], 0.9, 0.0],
            bf::TRANSLATABLE | bf::IK,
        );
        ik.ik = Some(Ik {
            target: b::ANKLE[i],
            loop_count: 40,
            limit_angle: 2.0,
            links: vec![
                IkLink {
                    bone: b::KNEE[i],
                    // Knees bend one way only: X in [−180°, −0.5°].
                    limits: Some(IkLimits {
                        min: [-std::f32::consts::PI, 0.0, 0.0],
                        max: [-0.5f32.to_radians(), 0.0, 0.0],
                    }),
                },
                IkLink {
                    bone: b::LEG[i],
                    limits: None,
                },
            ],
        });
        v.push(ik);
    }
    v
}

struct Part {
    material: usize,
    indices: usize,
}

/// Blend from bone `a` to bone `b` over the last part of a segment (joint at t = 1).
fn joint(a: i32, b: i32) -> impl Fn(f32) -> Weight {
    move |t| {
        let w = 1.0 - ((t - 0.75) / 0.25).clamp(0.0, 1.0) * 0.5;
        (a, b, w)
    }
}

/// Blend from the parent `p` (at t = 0) into bone `a`.
fn from_joint(p: i32, a: i32) -> impl Fn(f32) -> Weight {
    move |t| {
        let w = 0.5 + (t / 0.25).clamp(0.0, 1.0) * 0.5;
        (a, p, w)
    }
}

fn material(name: &str, diffuse: [f32; 4], ambient: [f32; 3], toon: Toon, flags: u8) -> Material {
    Material {
        diffuse,
        ambient,
        flags: flags | mf::GROUND_SHADOW | mf::CAST_SELF_SHADOW | mf::RECEIVE_SELF_SHADOW,
        edge_color: [0.12, 0.08, 0.1, 1.0],
        toon,
        ..Material::new(name, 0)
    }
}

/// Eye vertices closed by the blink morph: everything above the eye's middle moves down to it.
fn blink_offsets(
    m: &MeshBuilder,
    range: std::ops::Range<usize>,
    center_y: f32,
) -> Vec<VertexOffset> {
    range
        .filter(|&i| m.positions[i].y > center_y)
        .map(|i| VertexOffset {
            vertex: i as u32,
            offset: [0.0, (center_y - m.positions[i].y) * 0.9, 0.0],
        })
        .collect()
}

/// Build the character.
pub fn character() -> Pmx {
    let mut m = MeshBuilder::default();
    let mut parts: Vec<Part> = Vec::new();
    let add = |parts: &mut Vec<Part>, material: usize, indices: usize| {
        parts.push(Part { material, indices })
    };
    // Materials: 0 skin, 1 eyes, 2 hair, 3 shirt, 4 skirt, 5 legs, 6 shoes.
    let n = m.ellipsoid(
        Vec3::new(0.0, 15.2, 0.0),
        Vec3::new(1.55, 1.7, 1.5),
        b::HEAD,
        14,
    );
    add(&mut parts, 0, n);
    let n = m.limb(
        Vec3::new(0.0, 13.0, 0.0),
        Vec3::new(0.0, 14.0, 0.0),
        0.45,
        0.45,
        |_| (b::NECK, b::NECK, 1.0),
    );
    add(&mut parts, 0, n);
    for (i, &s) in SIDES.iter().enumerate() {
        let elbow = Vec3::new(2.9 * s, 11.0, 0.0);
        let wrist = Vec3::new(4.1 * s, 9.4, 0.0);
        let n = m.limb(elbow, wrist, 0.36, 0.3, from_joint(b::ARM[i], b::ELBOW[i]));
        add(&mut parts, 0, n);
        let n = m.ellipsoid(
            wrist + Vec3::new(0.35 * s, -0.45, 0.0),
            Vec3::new(0.32, 0.45, 0.25),
            b::WRIST[i],
            8,
        );
        add(&mut parts, 0, n);
    }
    let eye_start = m.positions.len();
    let mut eyes = Vec::new();
    for &s in &SIDES {
        let start = m.positions.len();
        let n = m.ellipsoid(
            Vec3::new(0.55 * s, 15.25, -1.3),
            Vec3::new(0.24, 0.36, 0.22),
            b::HEAD,
            8,
        );
        add(&mut parts, 1, n);
        eyes.push(start..m.positions.len());
    }
    let _ = eye_start;
    let n = m.ellipsoid(
        Vec3::new(0.0, 15.55, 0.3),
        Vec3::new(1.72, 1.62, 1.62),
        b::HEAD,
        14,
    );
    add(&mut parts, 2, n);
    // Twin tails.
    for &s in &SIDES {
        let n = m.limb(
            Vec3::new(1.5 * s, 16.2, 0.6),
            Vec3::new(2.3 * s, 11.0, 1.4),
            0.55,
            0.15,
            |_| (b::HEAD, b::HEAD, 1.0),
        );
        add(&mut parts, 2, n);
    }
    let torso = [
        (9.0, 0.0),
        (9.05, 1.05),
        (10.2, 1.0),
        (11.6, 1.25),
        (12.7, 1.35),
        (13.2, 0.7),
        (13.3, 0.0),
    ];
    let n = m.lathe(Vec3::ZERO, &torso, 0.7, |y| {
        let w = ((y - 10.6) / 1.4).clamp(0.0, 1.0);
        (b::UPPER2, b::UPPER, w)
    });
    add(&mut parts, 3, n);
    for (i, &s) in SIDES.iter().enumerate() {
        let n = m.limb(
            Vec3::new(1.35 * s, 12.65, 0.0),
            Vec3::new(2.9 * s, 11.0, 0.0),
            0.5,
            0.38,
            joint(b::ARM[i], b::ELBOW[i]),
        );
        add(&mut parts, 3, n);
    }
    let skirt = [
        (9.6, 0.0),
        (9.65, 1.1),
        (8.8, 1.5),
        (7.6, 1.95),
        (7.1, 2.2),
        (7.05, 0.0),
    ];
    let n = m.lathe(Vec3::ZERO, &skirt, 0.8, |_| (b::LOWER, b::LOWER, 1.0));
    add(&mut parts, 4, n);
    for (i, &s) in SIDES.iter().enumerate() {
        let x = 0.9 * s;
        let n = m.limb(
            Vec3::new(x, 8.4, 0.0),
            Vec3::new(x, 4.6, 0.0),
            0.52,
            0.45,
            joint(b::LEG[i], b::KNEE[i]),
        );
        add(&mut parts, 5, n);
        let n = m.limb(
            Vec3::new(x, 4.6, 0.0),
            Vec3::new(x, 1.0, 0.0),
            0.45,
            0.33,
            from_joint(b::LEG[i], b::KNEE[i]),
        );
        add(&mut parts, 5, n);
        let n = m.ellipsoid(
            Vec3::new(x, 0.55, -0.3),
            Vec3::new(0.42, 0.4, 0.85),
            b::ANKLE[i],
            8,
        );
        add(&mut parts, 6, n);
    }

    // Reorder indices by material (MMD draws materials as consecutive index ranges).
    let mut ranges = Vec::new();
    let mut at = 0;
    for p in &parts {
        ranges.push((p.material, at..at + p.indices));
        at += p.indices;
    }
    let mut indices = Vec::new();
    let mut counts = [0i32; 7];
    for (mat, count) in counts.iter_mut().enumerate() {
        for (pm, r) in &ranges {
            if *pm == mat {
                indices.extend_from_slice(&m.indices[r.clone()]);
                *count += r.len() as i32;
            }
        }
    }

    let mut materials = vec![
        material(
            "skin",
            [1.0, 0.87, 0.8, 1.0],
            [0.55, 0.45, 0.42],
            Toon::Shared(1),
            mf::EDGE,
        ),
        material(
            "eyes",
            [0.15, 0.1, 0.25, 1.0],
            [0.1, 0.08, 0.2],
            Toon::Shared(6),
            0,
        ),
        material(
            "hair",
            [0.25, 0.75, 0.72, 1.0],
            [0.12, 0.4, 0.38],
            Toon::Texture(3),
            mf::EDGE | mf::DOUBLE_SIDED,
        ),
        material(
            "shirt",
            [0.95, 0.95, 0.97, 1.0],
            [0.5, 0.5, 0.55],
            Toon::Shared(3),
            mf::EDGE,
        ),
        material(
            "skirt",
            [1.0, 1.0, 1.0, 1.0],
            [0.45, 0.45, 0.45],
            Toon::Shared(0),
            mf::EDGE | mf::DOUBLE_SIDED,
        ),
        material(
            "legs",
            [0.2, 0.2, 0.28, 1.0],
            [0.1, 0.1, 0.15],
            Toon::Shared(2),
            mf::EDGE,
        ),
        material(
            "shoes",
            [0.75, 0.2, 0.3, 1.0],
            [0.35, 0.08, 0.12],
            Toon::Shared(4),
            mf::EDGE,
        ),
    ];
    // Hair: glossy "add" sphere and specular; shirt: soft "multiply" sphere; skirt: texture.
    materials[2].sphere_texture = 1;
    materials[2].sphere_mode = 2;
    materials[2].specular = [0.3, 0.3, 0.3];
    materials[2].specular_power = 20.0;
    materials[3].sphere_texture = 2;
    materials[3].sphere_mode = 1;
    materials[4].texture = 0;
    materials[6].specular = [0.5, 0.5, 0.5];
    materials[6].specular_power = 40.0;
    materials[0].edge_size = 0.8;
    for (mat, c) in materials.iter_mut().zip(counts) {
        mat.index_count = c;
    }

    let vertices = (0..m.positions.len())
        .map(|i| {
            let (a, bb, w) = m.weights[i];
            Vertex {
                position: m.positions[i].to_array(),
                normal: m.normals[i].to_array(),
                uv: m.uvs[i].to_array(),
                additional_uvs: [[0.0; 4]; 4],
                weights: if a == bb || w >= 1.0 {
                    Weights::Bdef1 { bone: a }
                } else {
                    Weights::Bdef2 {
                        bones: [a, bb],
                        weight: w,
                    }
                },
                // Thinner edges on the hands' and eyes' neighbourhood are not needed: 1.
                edge_scale: 1.0,
            }
        })
        .collect();

    let mut blink = Vec::new();
    for r in eyes {
        blink.extend(blink_offsets(&m, r, 15.25));
    }
    Pmx {
        header: Header {
            version: 2.0,
            encoding: TextEncoding::Utf16Le,
            additional_uvs: 0,
            vertex_index_size: 4,
            texture_index_size: 1,
            material_index_size: 1,
            bone_index_size: 2,
            morph_index_size: 1,
            rigid_body_index_size: 1,
            extra_globals: Vec::new(),
        },
        info: ModelInfo {
            name: "odori demo".into(),
            name_en: "odori demo".into(),
            comment: "Generated by odori-render's demo module.".into(),
            comment_en: String::new(),
        },
        vertices,
        indices,
        textures: TEXTURES.iter().map(|s| s.to_string()).collect(),
        materials,
        bones: bones(),
        morphs: vec![
            Morph {
                name: "まばたき".into(),
                name_en: "blink".into(),
                panel: 2,
                offsets: MorphOffsets::Vertex(blink),
            },
            // A material morph: the skin blushes (diffuse multiplied towards pink) and the
            // shoes' edges thicken.
            Morph {
                name: "照れ".into(),
                name_en: "blush".into(),
                panel: 4,
                offsets: MorphOffsets::Material(vec![
                    MaterialOffset {
                        diffuse: [1.0, 0.72, 0.72, 1.0],
                        ambient: [1.0, 0.8, 0.8],
                        ..MaterialOffset::multiply(0)
                    },
                    MaterialOffset {
                        edge_size: 1.5,
                        ..MaterialOffset::add(6)
                    },
                ]),
            },
        ],
        display_frames: vec![DisplayFrame {
            name: "Root".into(),
            name_en: "Root".into(),
            special: 1,
            items: Vec::new(),
        }],
        rigid_bodies: Vec::new(),
        joints: Vec::new(),
        soft_bodies: Vec::new(),
    }
}
