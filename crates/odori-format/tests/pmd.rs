//! PMD reader and writer against the real models in `../shared`, hostile inputs built by
//! patching real bytes, and random round trips.

use odori_format::pmd::{
    self, Bone, BoneDisplay, English, Header, Ik, Joint, Material, Morph, Pmd, RigidBody, Vertex,
};
use odori_format::sjis::SjisName;
use odori_format::{ErrorKind, Format};
use proptest::collection::vec;
use proptest::prelude::*;

fn read(rel: &str) -> Option<Vec<u8>> {
    odori_testkit::shared(rel).map(|p| std::fs::read(p).unwrap())
}

/// Each section present in the file: (name, start, end, optional), from the parsed value.
fn sections(p: &Pmd) -> Vec<(&'static str, usize, usize, bool)> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut push = |name, size: usize, optional| {
        out.push((name, at, at + size, optional));
        at += size;
    };
    push("header", 283, false);
    push("vertices", 4 + 38 * p.vertices.len(), false);
    push("faces", 4 + 2 * p.indices.len(), false);
    push("materials", 4 + 70 * p.materials.len(), false);
    push("bones", 2 + 39 * p.bones.len(), false);
    push(
        "ik",
        2 + p
            .iks
            .iter()
            .map(|ik| 11 + 2 * ik.links.len())
            .sum::<usize>(),
        false,
    );
    push(
        "morphs",
        2 + p
            .morphs
            .iter()
            .map(|m| 25 + 16 * m.vertices.len())
            .sum::<usize>(),
        false,
    );
    push("morph display", 1 + 2 * p.morph_display.len(), false);
    push(
        "bone display names",
        1 + 50 * p.bone_display_names.len(),
        false,
    );
    push("bone display", 4 + 3 * p.bone_display.len(), false);
    if p.english_flag_present {
        let english = p.english.as_ref().map_or(0, |e| {
            276 + 20 * (e.bone_names.len() + e.morph_names.len()) + 50 * e.display_names.len()
        });
        push("english", 1 + english, true);
    }
    if p.toon_textures.is_some() {
        push("toon textures", 1000, true);
    }
    if let Some(b) = &p.rigid_bodies {
        push("rigid bodies", 4 + 83 * b.len(), true);
    }
    if let Some(j) = &p.joints {
        push("joints", 4 + 124 * j.len(), true);
    }
    out
}

fn start_of(p: &Pmd, name: &str) -> usize {
    sections(p).iter().find(|s| s.0 == name).unwrap().1
}

#[test]
fn shared_pmds_read_and_write_back_identically() {
    for rel in ["assets/miku_v2/miku_v2.pmd", "assets/gene/Gene_light.pmd"] {
        let Some(bytes) = read(rel) else { continue };
        let (p, diagnostics) =
            pmd::parse_with_diagnostics(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
        println!(
            "{rel}: {} vertices, {} indices, {} materials, {} bones, {} IK, {} morphs, {} rigid bodies, \
             {} joints, English names: {}, {} diagnostics",
            p.vertices.len(),
            p.indices.len(),
            p.materials.len(),
            p.bones.len(),
            p.iks.len(),
            p.morphs.len(),
            p.rigid_bodies.as_ref().map_or(0, Vec::len),
            p.joints.as_ref().map_or(0, Vec::len),
            p.english.is_some(),
            diagnostics.len(),
        );
        for d in diagnostics.iter().take(10) {
            println!("  {d}");
        }
        assert_eq!(
            sections(&p).last().unwrap().2,
            bytes.len(),
            "{rel}: every byte accounted for"
        );
        let written = pmd::write(&p).unwrap();
        assert_eq!(pmd::parse(&written).unwrap(), p, "{rel}: re-read differs");
        assert!(written == bytes, "{rel}: written bytes differ");
        println!("{rel}: byte-identical");
    }
}

#[test]
fn miku_v2_counts() {
    let Some(bytes) = read("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let (p, diagnostics) = pmd::parse_with_diagnostics(&bytes).unwrap();
    assert_eq!(p.header.version, 1.0);
    assert_eq!(p.header.name.text(), "初音ミク");
    assert_eq!(
        (
            p.vertices.len(),
            p.indices.len(),
            p.materials.len(),
            p.bones.len(),
            p.iks.len(),
            p.morphs.len()
        ),
        (12_354, 68_883, 17, 140, 7, 31)
    );
    assert_eq!(p.morph_display.len(), 30);
    assert_eq!((p.bone_display_names.len(), p.bone_display.len()), (7, 87));
    let english = p.english.as_ref().expect("miku_v2 has English names");
    assert_eq!(english.bone_names.len(), 140);
    assert_eq!(english.morph_names.len(), 30);
    assert_eq!(english.bone_names[0].text(), "center");
    assert!(p.toon_textures.is_some());
    assert_eq!(p.rigid_bodies.as_ref().map(Vec::len), Some(45));
    assert_eq!(p.joints.as_ref().map(Vec::len), Some(27));
    let left_leg_ik = p
        .iks
        .iter()
        .find(|ik| p.bones[ik.bone as usize].name.text() == "左足ＩＫ")
        .unwrap();
    assert_eq!(left_leg_ik.links.len(), 2);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");

    let Some(bytes) = read("assets/gene/Gene_light.pmd") else {
        return;
    };
    let p = pmd::parse(&bytes).unwrap();
    assert_eq!((p.bones.len(), p.iks.len(), p.morphs.len()), (224, 6, 178));
    assert_eq!(p.rigid_bodies.as_ref().map(Vec::len), Some(87));
    assert_eq!(p.joints.as_ref().map(Vec::len), Some(92));
}

#[test]
fn truncated_miku_at_every_section_boundary() {
    let Some(bytes) = read("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let p = pmd::parse(&bytes).unwrap();
    let list = sections(&p);
    for (index, &(name, start, end, optional)) in list.iter().enumerate() {
        let cut = pmd::parse(&bytes[..start]);
        if optional {
            // The optional sections may be missing: a shorter, valid file.
            let short = cut.unwrap_or_else(|e| panic!("cut before {name}: {e}"));
            assert_eq!(sections(&short).len(), index, "cut before {name}");
            assert_eq!(
                pmd::write(&short).unwrap(),
                bytes[..start],
                "cut before {name} writes back"
            );
        } else if start > 0 {
            let e = cut.unwrap_err();
            assert!(
                matches!(e.kind, ErrorKind::Truncated { .. }),
                "cut before {name}: {e}"
            );
            assert_eq!(e.location.section, name, "cut before {name}: {e}");
        }
        for at in [start + 1, end - 1] {
            if at <= start || at >= end {
                continue;
            }
            let e = pmd::parse(&bytes[..at]).unwrap_err();
            assert_eq!(e.location.format, Format::Pmd);
            assert_eq!(e.location.section, name, "cut at {at} inside {name}: {e}");
            // A cut among fixed-size records shows when the count is checked against the
            // bytes left; a cut inside a field is a short read.
            assert!(
                matches!(
                    e.kind,
                    ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
                ),
                "cut at {at} inside {name}: {e}"
            );
        }
    }
    assert_eq!(
        pmd::parse(&bytes[..2]).unwrap_err().location.section,
        "header"
    );
}

#[test]
fn bad_magic_huge_count_and_nan() {
    let Some(bytes) = read("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let mut b = bytes.clone();
    b[..3].copy_from_slice(b"PMX");
    let e = pmd::parse(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");

    let mut b = bytes.clone();
    b[283..287].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    let started = std::time::Instant::now();
    let e = pmd::parse(&b).unwrap_err();
    assert!(started.elapsed().as_millis() < 50);
    assert!(
        matches!(
            e.kind,
            ErrorKind::CountTooLarge {
                count: 0x8000_0000,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        (e.location.section, e.location.field, e.location.offset),
        ("vertices", "count", 283)
    );

    // NaN in vertex 2's position: an error.
    let at = 287 + 2 * 38 + 4;
    let mut b = bytes.clone();
    b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = pmd::parse(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::NonFinite(_)), "{e}");
    assert_eq!(
        (e.location.section, e.location.element, e.location.field),
        ("vertices", Some(2), "position")
    );
    assert_eq!(e.location.offset as usize, at);

    // NaN in its normal: MMD loads such models, so do we, and the bytes survive.
    let at = 287 + 2 * 38 + 12;
    let mut b = bytes.clone();
    b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let (p, d) = pmd::parse_with_diagnostics(&b).unwrap();
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].location.field, d[0].location.offset as usize),
        ("normal", at)
    );
    assert!(p.vertices[2].normal[0].is_nan());
    assert_eq!(pmd::write(&p).unwrap(), b);
}

#[test]
fn bone_that_is_its_own_parent_loads_with_a_diagnostic() {
    let Some(bytes) = read("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let p = pmd::parse(&bytes).unwrap();
    let at = start_of(&p, "bones") + 2 + 39 * 5 + 20;
    let mut b = bytes.clone();
    b[at..at + 2].copy_from_slice(&5u16.to_le_bytes());
    let (p, d) = pmd::parse_with_diagnostics(&b).unwrap();
    assert_eq!(p.bones[5].parent, 5);
    assert_eq!(d.len(), 1, "{d:?}");
    let l = &d[0].location;
    assert_eq!(
        (l.section, l.element, l.field, l.offset as usize),
        ("bones", Some(5), "parent", at)
    );
    assert_eq!(pmd::write(&p).unwrap(), b);

    // A parent past the bones, an IK link past the bones, a vertex bone past the bones,
    // a joint body past the bodies: all tolerated, all reported.
    let mut b = bytes.clone();
    b[at..at + 2].copy_from_slice(&500u16.to_le_bytes());
    let vertex_bone = 287 + 38 * 7 + 32 + 2;
    b[vertex_bone..vertex_bone + 2].copy_from_slice(&999u16.to_le_bytes());
    let joint_body = start_of(&p, "joints") + 4 + 124 + 20 + 4;
    b[joint_body..joint_body + 4].copy_from_slice(&77u32.to_le_bytes());
    let (_, d) = pmd::parse_with_diagnostics(&b).unwrap();
    let found: Vec<_> = d
        .iter()
        .map(|d| {
            (
                d.location.section,
                d.location.field,
                d.location.offset as usize,
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("vertices", "bones", vertex_bone),
            ("bones", "parent", at),
            ("joints", "body b", joint_body)
        ]
    );
}

#[test]
fn face_index_out_of_range_is_an_error_at_its_offset() {
    let Some(bytes) = read("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let p = pmd::parse(&bytes).unwrap();
    let at = start_of(&p, "faces") + 4 + 2 * 1000;
    let mut b = bytes.clone();
    b[at..at + 2].copy_from_slice(&0xFFFFu16.to_le_bytes());
    let e = pmd::parse(&b).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::IndexOutOfRange {
            index: 0xFFFF,
            len: 12_354
        }
    );
    assert_eq!(
        (
            e.location.section,
            e.location.element,
            e.location.offset as usize
        ),
        ("faces", Some(1000), at)
    );
}

#[test]
fn trailing_bytes_and_bad_english_flag() {
    let Some(bytes) = read("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let mut b = bytes.clone();
    b.extend_from_slice(b"extra");
    let (p, d) = pmd::parse_with_diagnostics(&b).unwrap();
    assert_eq!(
        (d.len(), d[0].location.field, d[0].location.offset as usize),
        (1, "trailing bytes", bytes.len())
    );
    assert_eq!(pmd::write(&p).unwrap(), bytes);

    let p = pmd::parse(&bytes).unwrap();
    let mut b = bytes.clone();
    b[start_of(&p, "english")] = 2;
    let e = pmd::parse(&b).unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::InvalidValue { value: 2, .. }),
        "{e}"
    );
}

#[test]
fn writer_fills_in_missing_earlier_sections_and_checks_english_lengths() {
    let Some(bytes) = read("assets/miku_v2/miku_v2.pmd") else {
        return;
    };
    let mut p = pmd::parse(&bytes).unwrap();
    // Physics without a toon list: the default list is written before it.
    p.toon_textures = None;
    let back = pmd::parse(&pmd::write(&p).unwrap()).unwrap();
    assert_eq!(back.toon_textures.unwrap()[9].text(), "toon10.bmp");
    assert_eq!(back.rigid_bodies, p.rigid_bodies);

    p.english.as_mut().unwrap().bone_names.pop();
    let e = pmd::write(&p).unwrap_err();
    assert_eq!(
        (e.location.section, e.location.field),
        ("english", "bone names")
    );
}

fn finite() -> impl Strategy<Value = f32> {
    use proptest::num::f32::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
}

fn f3() -> impl Strategy<Value = [f32; 3]> {
    [finite(), finite(), finite()]
}

fn name<const N: usize>() -> impl Strategy<Value = SjisName<N>> {
    vec(any::<u8>(), N).prop_map(|v| {
        let mut a = [0u8; N];
        a.copy_from_slice(&v);
        SjisName(a)
    })
}

fn vertex() -> impl Strategy<Value = Vertex> {
    (
        f3(),
        f3(),
        [finite(), finite()],
        any::<[u16; 2]>(),
        any::<u8>(),
        any::<u8>(),
    )
        .prop_map(|(position, normal, uv, bones, weight, edge_off)| Vertex {
            position,
            normal,
            uv,
            bones,
            weight,
            edge_off,
        })
}

fn material() -> impl Strategy<Value = Material> {
    (
        [finite(), finite(), finite(), finite()],
        finite(),
        f3(),
        f3(),
        any::<[u8; 2]>(),
        any::<u32>(),
        name::<20>(),
    )
        .prop_map(
            |(
                diffuse,
                specular_power,
                specular,
                ambient,
                [toon_index, edge_flag],
                index_count,
                texture,
            )| {
                Material {
                    diffuse,
                    specular_power,
                    specular,
                    ambient,
                    toon_index,
                    edge_flag,
                    index_count,
                    texture,
                }
            },
        )
}

fn bone() -> impl Strategy<Value = Bone> {
    (name::<20>(), any::<[u16; 3]>(), any::<u8>(), f3()).prop_map(
        |(name, [parent, tail, ik_parent], kind, position)| Bone {
            name,
            parent,
            tail,
            kind,
            ik_parent,
            position,
        },
    )
}

fn ik() -> impl Strategy<Value = Ik> {
    (any::<[u16; 3]>(), finite(), vec(any::<u16>(), 0..4)).prop_map(
        |([bone, target, iterations], limit, links)| Ik {
            bone,
            target,
            iterations,
            limit,
            links,
        },
    )
}

fn morph() -> impl Strategy<Value = Morph> {
    (name::<20>(), any::<u8>(), vec((any::<u32>(), f3()), 0..4)).prop_map(
        |(name, panel, vertices)| Morph {
            name,
            panel,
            vertices,
        },
    )
}

fn rigid_body() -> impl Strategy<Value = RigidBody> {
    (
        name::<20>(),
        any::<(u16, u8, u16, u8, u8)>(),
        [f3(), f3(), f3()],
        [finite(), finite(), finite(), finite(), finite()],
    )
        .prop_map(
            |(name, (bone, group, collision_mask, shape, mode), [size, position, rotation], f)| {
                RigidBody {
                    name,
                    bone,
                    group,
                    collision_mask,
                    shape,
                    size,
                    position,
                    rotation,
                    mass: f[0],
                    linear_damping: f[1],
                    angular_damping: f[2],
                    restitution: f[3],
                    friction: f[4],
                    mode,
                }
            },
        )
}

fn joint() -> impl Strategy<Value = Joint> {
    (
        name::<20>(),
        any::<[u32; 2]>(),
        [f3(), f3(), f3(), f3(), f3(), f3(), f3(), f3()],
    )
        .prop_map(|(name, [a, b], v)| Joint {
            name,
            body_a: a,
            body_b: b,
            position: v[0],
            rotation: v[1],
            translation_min: v[2],
            translation_max: v[3],
            rotation_min: v[4],
            rotation_max: v[5],
            spring_translation: v[6],
            spring_rotation: v[7],
        })
}

/// A small consistent model: face indices inside the vertices, English lists as long as what
/// they name, and the optional tail cut at a random depth.
fn pmd_value() -> impl Strategy<Value = Pmd> {
    (
        (finite(), name::<20>(), name::<256>()),
        vec(vertex(), 1..4),
        vec(material(), 0..3),
        vec(bone(), 0..4),
        vec(ik(), 0..3),
        vec(morph(), 0..4),
        vec(any::<u16>(), 0..3),
        vec(name::<50>(), 0..3),
        vec(any::<(u16, u8)>(), 0..3),
        0u8..=4,
        any::<bool>(),
    )
        .prop_flat_map(
            |(h, vertices, materials, bones, iks, morphs, md, dn, bd, depth, has_english)| {
                let english = (
                    name::<20>(),
                    name::<256>(),
                    vec(name::<20>(), bones.len()),
                    vec(name::<20>(), morphs.len().saturating_sub(1)),
                    vec(name::<50>(), dn.len()),
                )
                    .prop_map(
                        |(name, comment, bone_names, morph_names, display_names)| English {
                            name,
                            comment,
                            bone_names,
                            morph_names,
                            display_names,
                        },
                    );
                let indices = vec(0..vertices.len() as u16, 0..7);
                let toon = vec(name::<100>(), 10).prop_map(|v| {
                    let mut a = [SjisName::<100>::default(); 10];
                    a.copy_from_slice(&v);
                    a
                });
                (
                    Just((
                        h,
                        vertices,
                        materials,
                        bones,
                        iks,
                        morphs,
                        md,
                        dn,
                        bd,
                        depth,
                        has_english,
                    )),
                    indices,
                    english,
                    toon,
                    vec(rigid_body(), 0..3),
                    vec(joint(), 0..3),
                )
            },
        )
        .prop_map(|(base, indices, english, toon, bodies, joints)| {
            let (
                (version, name, comment),
                vertices,
                materials,
                bones,
                iks,
                morphs,
                md,
                dn,
                bd,
                depth,
                has_english,
            ) = base;
            Pmd {
                header: Header {
                    version,
                    name,
                    comment,
                },
                vertices,
                indices,
                materials,
                bones,
                iks,
                morphs,
                morph_display: md,
                bone_display_names: dn,
                bone_display: bd
                    .into_iter()
                    .map(|(bone, frame)| BoneDisplay { bone, frame })
                    .collect(),
                english: (depth >= 1 && has_english).then_some(english),
                english_flag_present: depth >= 1,
                toon_textures: (depth >= 2).then_some(toon),
                rigid_bodies: (depth >= 3).then_some(bodies),
                joints: (depth >= 4).then_some(joints),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_pmd_round_trips(p in pmd_value()) {
        let bytes = pmd::write(&p).unwrap();
        let back = pmd::parse(&bytes).unwrap();
        prop_assert_eq!(&back, &p);
        prop_assert_eq!(pmd::write(&back).unwrap(), bytes);
    }
}
