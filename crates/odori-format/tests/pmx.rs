//! PMX reader and writer on real files from `../shared` and on models built in code: every
//! file reads and round-trips, and a file cut anywhere fails cleanly in the right section.

mod common;

use common::*;
use odori_format::ErrorKind;
use odori_format::pmx::{self, TextEncoding};

/// Files the writer does not reproduce byte for byte, and why. Empty: every shared PMX is
/// canonical (no trailing bytes; 2.0 files end after their joints).
const NOT_IDENTICAL: &[(&str, &str)] = &[];

// ---------------------------------------------------------------------------------------------
// Real files.

#[test]
fn every_shared_pmx_reads_and_round_trips() {
    let files = shared_pmx_files();
    println!("{:<45} {:>9}  byte-identical", "file", "bytes");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(path).unwrap();
        match round_trip(&bytes) {
            Ok(identical) => {
                println!(
                    "{name:<45} {:>9}  {}",
                    bytes.len(),
                    if identical { "yes" } else { "NO" }
                );
                let expected = !NOT_IDENTICAL.iter().any(|(n, _)| *n == name);
                if identical != expected {
                    failures.push(format!("{name}: byte-identical = {identical}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn gene_light_sanity() {
    let Some(bytes) = gene() else { return };
    let (m, diagnostics) = pmx::parse_with_diagnostics(&bytes).unwrap();
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    assert_eq!(m.header.version, 2.0);
    assert_eq!(m.header.encoding, TextEncoding::Utf16Le);
    assert_eq!(m.vertices.len(), 28_646);
    assert_eq!(m.indices.len(), 141_318);
    assert_eq!(m.textures.len(), 10);
    assert_eq!(m.materials.len(), 13);
    assert_eq!(m.bones.len(), 224);
    assert_eq!(m.morphs.len(), 184);
    assert_eq!(m.display_frames.len(), 15);
    assert_eq!(m.rigid_bodies.len(), 87);
    assert_eq!(m.joints.len(), 92);
    assert!(m.soft_bodies.is_empty());
    assert_eq!(m.bones[0].name, "全ての親");
    let center = m
        .bones
        .iter()
        .position(|b| b.name == "センター")
        .expect("センター");
    assert_eq!(m.bones[center].parent, 0);
    let drawn: i64 = m.materials.iter().map(|x| i64::from(x.index_count)).sum();
    assert_eq!(drawn, m.indices.len() as i64);
    assert!(m.bones.iter().any(|b| b.ik.is_some()), "Gene has leg IK");
}

// ---------------------------------------------------------------------------------------------
// Truncation.

#[test]
fn gene_truncated_at_every_section_boundary() {
    let Some(bytes) = gene() else { return };
    let sections = pmx::section_offsets(&bytes).unwrap();
    let names: Vec<_> = sections.iter().map(|s| s.0).collect();
    assert_eq!(
        names,
        [
            "header",
            "model info",
            "vertices",
            "faces",
            "textures",
            "materials",
            "bones",
            "morphs",
            "display frames",
            "rigid bodies",
            "joints"
        ]
    );
    let mut cuts: Vec<usize> = sections
        .iter()
        .flat_map(|(_, s)| [s.wrapping_sub(1), *s, s + 1])
        .collect();
    cuts.push(bytes.len() - 1);
    for cut in cuts.into_iter().filter(|&c| c < bytes.len()) {
        let e = err(&bytes[..cut]);
        assert!(
            matches!(e.kind, ErrorKind::Truncated { .. }),
            "cut {cut}: {e}"
        );
        assert_eq!(
            e.location.section,
            section_at(&sections, cut),
            "cut {cut}: {e}"
        );
        assert!(e.location.offset <= cut as u64, "cut {cut}: {e}");
    }
}

/// Cut `bytes` at every length: each prefix fails, in the section the cut falls in, with
/// truncation (or, inside a counted array, a count that no longer fits the bytes left).
fn truncate_everywhere(bytes: &[u8]) {
    let sections = pmx::section_offsets(bytes).unwrap();
    for cut in 0..bytes.len() {
        let e = err(&bytes[..cut]);
        assert!(
            matches!(
                e.kind,
                ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
            ),
            "cut {cut}: {e}"
        );
        assert_eq!(
            e.location.section,
            section_at(&sections, cut),
            "cut {cut}: {e}"
        );
        assert!(e.location.offset <= cut as u64, "cut {cut}: {e}");
    }
}

#[test]
fn small_shared_pmx_truncated_at_every_byte() {
    for rel in [
        "ik-captures/parity-fixedlimits-base.pmx",
        "assets/babylon-mmd-fixtures/constraint_test.pmx",
    ] {
        let Some(path) = odori_testkit::shared(rel) else {
            continue;
        };
        truncate_everywhere(&std::fs::read(path).unwrap());
    }
}

#[test]
fn sample_models_truncated_at_every_byte() {
    for encoding in [TextEncoding::Utf16Le, TextEncoding::Utf8] {
        for size in [1, 2, 4] {
            truncate_everywhere(&pmx::write(&sample(false, encoding, size)).unwrap());
            // A 2.1 file cut exactly where its soft bodies start loads (see
            // `pmx_21_without_soft_body_section_loads`); every other cut fails.
            let bytes = pmx::write(&sample(true, encoding, size)).unwrap();
            let soft = offset_of(&bytes, "soft bodies");
            let sections = pmx::section_offsets(&bytes).unwrap();
            for cut in (0..bytes.len()).filter(|&c| c != soft) {
                let e = err(&bytes[..cut]);
                assert!(
                    matches!(
                        e.kind,
                        ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. }
                    ),
                    "cut {cut}: {e}"
                );
                assert_eq!(
                    e.location.section,
                    section_at(&sections, cut),
                    "cut {cut}: {e}"
                );
            }
        }
    }
}

#[test]
fn sample_models_round_trip() {
    for v21 in [false, true] {
        for encoding in [TextEncoding::Utf16Le, TextEncoding::Utf8] {
            for size in [1, 2, 4] {
                let m = sample(v21, encoding, size);
                let bytes = pmx::write(&m).unwrap();
                let (read, d) = pmx::parse_with_diagnostics(&bytes).unwrap();
                assert!(d.is_empty(), "{d:#?}");
                assert_eq!(read, m);
                assert_eq!(round_trip(&bytes), Ok(true));
            }
        }
    }
}

/// Seeds for the fuzzer (`fuzz/corpus/pmx`): every `sample` variant. Run with
/// `ODORI_FUZZ_SEEDS=fuzz/corpus/pmx cargo test -p odori-format --test pmx -- --ignored`.
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let Some(dir) = std::env::var_os("ODORI_FUZZ_SEEDS") else {
        return;
    };
    for v21 in [false, true] {
        for (encoding, e) in [
            (TextEncoding::Utf16Le, "utf16"),
            (TextEncoding::Utf8, "utf8"),
        ] {
            for size in [1, 2, 4] {
                let name = format!("sample-{}-{e}-{size}.pmx", if v21 { "21" } else { "20" });
                let bytes = pmx::write(&sample(v21, encoding, size)).unwrap();
                std::fs::write(std::path::Path::new(&dir).join(name), bytes).unwrap();
            }
        }
    }
}
