//! VMD reader and writer against the real motions in `../shared`, hostile inputs built by
//! patching real bytes or written in code, and random round trips.

use odori_format::sjis::SjisName;
use odori_format::vmd::{
    self, BoneKey, CameraKey, IkState, LightKey, MAGIC_V1, MAGIC_V2, MorphKey, PropertyKey,
    SelfShadowKey, Vmd,
};
use odori_format::{ErrorKind, Format};
use proptest::prelude::*;
use std::path::PathBuf;

const SECTIONS: [&str; 6] = [
    "bones",
    "morphs",
    "cameras",
    "lights",
    "self shadows",
    "properties",
];

fn all_vmds() -> Vec<PathBuf> {
    let mut files = odori_testkit::shared_files("assets", &["vmd"]);
    files.extend(odori_testkit::shared_files("ik-captures", &["vmd"]));
    files
}

fn read(rel: &str) -> Option<Vec<u8>> {
    odori_testkit::shared(rel).map(|p| std::fs::read(p).unwrap())
}

/// Byte ranges of each section present in `bytes` (the count and its records), from the
/// parsed value: the truncation tests cut around these.
fn section_bounds(v: &Vmd) -> Vec<(usize, usize)> {
    let mut at = if v.is_version1() { 40 } else { 50 };
    let sizes = [
        v.bones.len() * 111,
        v.morphs.len() * 23,
        v.cameras.len() * 61,
        v.lights.len() * 28,
        v.self_shadows.len() * 9,
        v.properties.iter().map(|p| 9 + 21 * p.ik.len()).sum(),
    ];
    let mut out = Vec::new();
    for size in sizes.iter().take(v.sections_present as usize) {
        out.push((at, at + 4 + size));
        at += 4 + size;
    }
    out
}

#[test]
fn every_shared_vmd_reads_and_writes_back_identically() {
    let files = all_vmds();
    let mut identical = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let (v, diagnostics) = vmd::parse_with_diagnostics(&bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let written = vmd::write(&v).unwrap();
        assert_eq!(
            vmd::parse(&written).unwrap(),
            v,
            "{}: re-read differs",
            path.display()
        );
        if written == bytes {
            identical.push(path.file_name().unwrap().to_string_lossy().into_owned());
            continue;
        }
        // The only thing the writer may drop is what follows the last section, which the
        // reader reports.
        let trailing = diagnostics
            .iter()
            .find(|d| d.location.field == "trailing bytes");
        let trailing =
            trailing.unwrap_or_else(|| panic!("{}: written bytes differ", path.display()));
        let cut = trailing.location.offset as usize;
        assert_eq!(
            written,
            bytes[..cut],
            "{}: differs before the trailing bytes",
            path.display()
        );
        println!(
            "{}: not identical, {} trailing bytes dropped",
            path.display(),
            bytes.len() - cut
        );
    }
    println!(
        "{} of {} VMD files byte-identical: {}",
        identical.len(),
        files.len(),
        identical.join(", ")
    );
}

#[test]
fn wavefile_counts() {
    let Some(bytes) = read("assets/wavefile/wavefile_v2.vmd") else {
        return;
    };
    let v = vmd::parse(&bytes).unwrap();
    assert_eq!(v.magic[..MAGIC_V2.len()], *MAGIC_V2);
    assert_eq!(v.bones.len(), 14_160);
    assert_eq!(v.morphs.len(), 1_279);
    let last = v.bones.iter().map(|k| k.frame).max().unwrap();
    println!(
        "wavefile_v2: model {}, last bone key at frame {last}",
        v.model_name
    );
    assert!((2800..=2815).contains(&last), "last key frame {last}");
    // Written by an MMD that stops after the self-shadow section.
    assert_eq!(v.sections_present, 5);
    // No key turns physics off, and every key holds MMD's canonical 64 bytes for its curves.
    for k in &v.bones {
        assert!(!k.physics_disabled());
        assert_eq!(BoneKey::encode_curves(&k.curves(), false), k.interpolation);
    }

    let Some(bytes) = read("assets/wavefile/wavefile_camera.vmd") else {
        return;
    };
    let v = vmd::parse(&bytes).unwrap();
    assert_eq!(v.cameras.len(), 70);
    assert!(v.bones.is_empty() && v.morphs.is_empty());
    assert_eq!(
        v.sections_present, 4,
        "camera export stops after the light section"
    );
}

#[test]
fn property_keys_and_physics_flags() {
    let Some(bytes) = read("assets/gene/motion/26_mortifying.vmd") else {
        return;
    };
    let v = vmd::parse(&bytes).unwrap();
    assert_eq!(v.properties.len(), 1);
    let p = &v.properties[0];
    let names: Vec<String> = p.ik.iter().map(|s| s.name.text()).collect();
    println!(
        "26_mortifying property key at frame {}: visible {}, IK {names:?}",
        p.frame, p.visible
    );
    assert_eq!((p.frame, p.visible, p.ik.len()), (0, 1, 6));
    assert!(names.contains(&"左足ＩＫ".to_string()));
    assert!(
        p.ik.iter().all(|s| s.enabled == 1),
        "every IK on in this file"
    );

    let Some(bytes) = read("assets/babylon-mmd-fixtures/physics_toggle_test_yyb10th.vmd") else {
        return;
    };
    let v = vmd::parse(&bytes).unwrap();
    let off = v.bones.iter().filter(|k| k.physics_disabled()).count();
    println!(
        "physics_toggle_test: {off} of {} bone keys turn physics off",
        v.bones.len()
    );
    assert_eq!(off, 9);
    assert_eq!(v.properties[0].ik.len(), 4);
}

/// MMD 9 writes `00 00` into bytes 2 and 3 for "physics on" and zeros where older versions
/// wrote the row-end 1s; the curves still decode from the row diagonals.
#[test]
fn mmd9_interpolation_bytes_decode() {
    let Some(bytes) = read("assets/gene/motion/stand.vmd") else {
        return;
    };
    let v = vmd::parse(&bytes).unwrap();
    for k in &v.bones {
        assert!(!k.physics_disabled());
        let mut canonical = BoneKey::encode_curves(&k.curves(), false);
        canonical[2..4].copy_from_slice(&k.interpolation[2..4]);
        // Rows 1..3 of MMD 9's bytes end in zeros (or leftover memory) instead of a 1.
        for i in [31, 46, 47, 61, 62, 63] {
            canonical[i] = k.interpolation[i];
        }
        assert_eq!(canonical, k.interpolation);
    }
}

#[test]
fn truncated_wavefile_at_every_section_boundary() {
    let Some(bytes) = read("assets/wavefile/wavefile_v2.vmd") else {
        return;
    };
    let v = vmd::parse(&bytes).unwrap();
    let bounds = section_bounds(&v);
    // Cut exactly before a count: a valid file with fewer sections.
    for (index, &(start, _)) in bounds.iter().enumerate() {
        let short = vmd::parse(&bytes[..start]).unwrap_or_else(|e| panic!("cut at {start}: {e}"));
        assert_eq!(short.sections_present as usize, index, "cut at {start}");
        let written = vmd::write(&short).unwrap();
        assert_eq!(written, bytes[..start], "cut at {start} writes back");
    }
    for (index, &(start, end)) in bounds.iter().enumerate() {
        // Inside the count, and inside the last record of the section.
        for cut in [start + 1, start + 3, end - 1] {
            if cut <= start || cut >= end {
                continue;
            }
            let e = vmd::parse(&bytes[..cut]).unwrap_err();
            assert_eq!(e.location.format, Format::Vmd);
            assert_eq!(e.location.section, SECTIONS[index], "cut at {cut}: {e}");
            // A cut inside the count is a short read; a cut among fixed-size records is seen
            // when the count is checked against the bytes left, before anything is allocated.
            match e.kind {
                ErrorKind::Truncated { .. } => {
                    assert!(cut < start + 4 || index == 5, "cut at {cut}: {e}")
                }
                ErrorKind::CountTooLarge { .. } => {
                    assert_eq!(e.location.offset as usize, start, "{e}")
                }
                _ => panic!("cut at {cut}: {e}"),
            }
        }
    }
    // Inside the header.
    for cut in [0, 10, 29, 30, 49] {
        let e = vmd::parse(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::Truncated { .. }),
            "cut at {cut}: {e}"
        );
        assert_eq!(e.location.section, "header");
    }
}

/// Every prefix of a small file: valid exactly at section boundaries, an error naming the
/// section being read everywhere else, never a panic.
#[test]
fn every_prefix_of_a_small_capture() {
    let Some(bytes) = read("ik-captures/limited-n1.vmd") else {
        return;
    };
    let v = vmd::parse(&bytes).unwrap();
    assert_eq!(v.properties.len(), 1);
    let bounds = section_bounds(&v);
    for cut in 0..bytes.len() {
        let result = vmd::parse(&bytes[..cut]);
        match bounds
            .iter()
            .position(|&(start, end)| start <= cut && cut < end)
        {
            None => {
                let e = result.unwrap_err();
                assert_eq!(e.location.section, "header", "cut at {cut}: {e}");
            }
            Some(index) if cut == bounds[index].0 => {
                assert_eq!(
                    result.unwrap().sections_present as usize,
                    index,
                    "cut at {cut}"
                );
            }
            Some(index) => {
                let e = result.unwrap_err();
                assert_eq!(e.location.section, SECTIONS[index], "cut at {cut}: {e}");
                assert!(
                    matches!(
                        e.kind,
                        ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
                    ),
                    "cut at {cut}: {e}"
                );
            }
        }
    }
    assert_eq!(vmd::parse(&bytes).unwrap().sections_present, 6);
}

#[test]
fn bad_magic_huge_count_and_nan() {
    let Some(bytes) = read("assets/wavefile/wavefile_v2.vmd") else {
        return;
    };
    let mut b = bytes.clone();
    b[0] = b'X';
    let e = vmd::parse(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
    assert_eq!((e.location.section, e.location.offset), ("header", 0));

    // 2^31 bone keys: refused at the count, before anything is allocated.
    let mut b = bytes.clone();
    b[50..54].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    let started = std::time::Instant::now();
    let e = vmd::parse(&b).unwrap_err();
    assert!(
        started.elapsed().as_millis() < 50,
        "huge count took {:?}",
        started.elapsed()
    );
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
        ("bones", "count", 50)
    );

    // NaN in the second key's translation y.
    let at = 54 + 111 + 15 + 4 + 4;
    let mut b = bytes.clone();
    b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = vmd::parse(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::NonFinite(_)), "{e}");
    assert_eq!(e.location.section, "bones");
    assert_eq!(e.location.element, Some(1));
    assert_eq!(e.location.field, "translation");
    assert_eq!(e.location.offset as usize, at);
}

#[test]
fn small_hostile_inputs() {
    // A property key claiming 2^31 IK entries.
    let mut b = MAGIC_V2.to_vec();
    b.resize(50, 0);
    for _ in 0..5 {
        b.extend_from_slice(&0u32.to_le_bytes());
    }
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.push(1);
    b.extend_from_slice(&0x8000_0000u32.to_le_bytes());
    let e = vmd::parse(&b).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
    assert_eq!(
        (e.location.section, e.location.field, e.location.element),
        ("properties", "ik count", Some(0))
    );

    // Bytes after the sixth section: read, reported, dropped on write.
    let mut b2 = MAGIC_V2.to_vec();
    b2.resize(50, 0);
    b2.extend_from_slice(&[0; 24]);
    b2.extend_from_slice(b"junk");
    let (v, d) = vmd::parse_with_diagnostics(&b2).unwrap();
    assert_eq!(v.sections_present, 6);
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].location.field, d[0].location.offset),
        ("trailing bytes", 74)
    );
    assert_eq!(vmd::write(&v).unwrap(), b2[..74]);
}

#[test]
fn version1_file_has_a_10_byte_model_name() {
    let mut b = MAGIC_V1.to_vec();
    b.resize(30, 0);
    b.extend_from_slice(b"model\0\0\0\0\0");
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&[0; 15]);
    b.extend_from_slice(&7u32.to_le_bytes());
    b.extend_from_slice(&[0; 28]);
    b.extend_from_slice(&[20; 64]);
    let v = vmd::parse(&b).unwrap();
    assert!(v.is_version1());
    assert_eq!(v.model_name.text(), "model");
    assert_eq!(v.bones[0].frame, 7);
    assert_eq!(v.sections_present, 1);
    assert_eq!(vmd::write(&v).unwrap(), b);

    let mut long = v.clone();
    long.model_name = SjisName::new("a name of more than ten bytes");
    assert!(
        vmd::write(&long).is_err(),
        "the 10-byte field cannot hold it"
    );
}

#[test]
fn writer_adds_sections_for_late_keys_and_refuses_nan() {
    let mut v = vmd::parse(&{
        let mut b = MAGIC_V2.to_vec();
        b.resize(50, 0);
        b
    })
    .unwrap();
    assert_eq!(v.sections_present, 0);
    v.lights.push(LightKey {
        frame: 3,
        color: [0.6; 3],
        direction: [-0.5, -1.0, 0.5],
    });
    let w = vmd::write(&v).unwrap();
    assert_eq!(w.len(), 50 + 4 * 4 + 28);
    let back = vmd::parse(&w).unwrap();
    assert_eq!(back.sections_present, 4);
    assert_eq!(back.lights, v.lights);

    v.lights[0].color[1] = f32::INFINITY;
    let e = vmd::write(&v).unwrap_err();
    assert_eq!(
        (e.location.section, e.location.field, e.location.element),
        ("lights", "color", Some(0))
    );
}

fn finite() -> impl Strategy<Value = f32> {
    use proptest::num::f32::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
}

fn name<const N: usize>() -> impl Strategy<Value = SjisName<N>> {
    prop::array::uniform::<_, N>(any::<u8>()).prop_map(SjisName)
}

fn vmd_value() -> impl Strategy<Value = Vmd> {
    let bone = (
        name::<15>(),
        any::<u32>(),
        [finite(), finite(), finite()],
        [finite(), finite(), finite(), finite()],
    )
        .prop_flat_map(|(name, frame, translation, rotation)| {
            prop::array::uniform32(any::<u8>()).prop_flat_map(move |a| {
                let (name, translation, rotation) = (name, translation, rotation);
                prop::array::uniform32(any::<u8>()).prop_map(move |b| {
                    let mut interpolation = [0u8; 64];
                    interpolation[..32].copy_from_slice(&a);
                    interpolation[32..].copy_from_slice(&b);
                    BoneKey {
                        name,
                        frame,
                        translation,
                        rotation,
                        interpolation,
                    }
                })
            })
        });
    let morph = (name::<15>(), any::<u32>(), finite()).prop_map(|(name, frame, weight)| MorphKey {
        name,
        frame,
        weight,
    });
    let camera = (
        any::<u32>(),
        finite(),
        [finite(), finite(), finite()],
        [finite(), finite(), finite()],
        prop::array::uniform24(any::<u8>()),
        any::<u32>(),
        any::<u8>(),
    )
        .prop_map(
            |(frame, distance, target, rotation, interpolation, fov, perspective_off)| CameraKey {
                frame,
                distance,
                target,
                rotation,
                interpolation,
                fov,
                perspective_off,
            },
        );
    let light = (
        any::<u32>(),
        [finite(), finite(), finite()],
        [finite(), finite(), finite()],
    )
        .prop_map(|(frame, color, direction)| LightKey {
            frame,
            color,
            direction,
        });
    let shadow =
        (any::<u32>(), any::<u8>(), finite()).prop_map(|(frame, mode, distance)| SelfShadowKey {
            frame,
            mode,
            distance,
        });
    let ik = (name::<20>(), any::<u8>()).prop_map(|(name, enabled)| IkState { name, enabled });
    let property = (any::<u32>(), any::<u8>(), prop::collection::vec(ik, 0..3))
        .prop_map(|(frame, visible, ik)| PropertyKey { frame, visible, ik });
    (
        any::<bool>(),
        name::<20>(),
        prop::collection::vec(bone, 0..4),
        prop::collection::vec(morph, 0..4),
        prop::collection::vec(camera, 0..3),
        prop::collection::vec(light, 0..3),
        prop::collection::vec(shadow, 0..3),
        prop::collection::vec(property, 0..3),
        0u8..=6,
    )
        .prop_map(
            |(
                v1,
                mut model_name,
                bones,
                morphs,
                cameras,
                lights,
                self_shadows,
                properties,
                present,
            )| {
                let mut magic = [0u8; 30];
                let m = if v1 { MAGIC_V1 } else { MAGIC_V2 };
                magic[..m.len()].copy_from_slice(m);
                if v1 {
                    model_name.0[10..].fill(0);
                }
                let lens = [
                    bones.len(),
                    morphs.len(),
                    cameras.len(),
                    lights.len(),
                    self_shadows.len(),
                    properties.len(),
                ];
                let needed = lens.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1) as u8;
                Vmd {
                    magic,
                    model_name,
                    bones,
                    morphs,
                    cameras,
                    lights,
                    self_shadows,
                    properties,
                    sections_present: present.max(needed),
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_vmd_round_trips(v in vmd_value()) {
        let bytes = vmd::write(&v).unwrap();
        let back = vmd::parse(&bytes).unwrap();
        prop_assert_eq!(&back, &v);
        prop_assert_eq!(vmd::write(&back).unwrap(), bytes);
    }
}
