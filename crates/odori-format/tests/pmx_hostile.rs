//! PMX reader and writer on hostile input: bad headers, huge and negative counts, indices out
//! of range, bad text, non-finite floats, 2.1 features in 2.0 files, and the dangling
//! references that load with diagnostics. Inputs are a real file or a model built in code,
//! patched.

mod common;

use common::*;
use odori_format::ErrorKind;
use odori_format::pmx::{self, TextEncoding, Weights};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

// ---------------------------------------------------------------------------------------------
// Allocation tracking: proves that a huge count is rejected before anything is allocated for
// it (a 0x7FFFFFFF-vertex Vec would be hundreds of GiB).

struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: the allocator may run while this thread's locals are being torn down.
    let _ = LARGEST.try_with(|c| c.set(c.get().max(size)));
}

// SAFETY: forwards to `System`, only recording sizes.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

/// Run `f` and return the largest single allocation it made on this thread.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|c| c.set(0));
    let t = f();
    (t, LARGEST.with(|c| c.get()))
}

#[test]
fn bad_magic_and_version() {
    let mut bytes = pmx::write(&sample(false, TextEncoding::Utf16Le, 2)).unwrap();
    patch(&mut bytes, 0, b"PMY ");
    let e = err(&bytes);
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
    assert_eq!((e.location.section, e.location.offset), ("header", 0));
    for version in [1.0f32, 2.2, f32::NAN] {
        let mut bytes = pmx::write(&sample(false, TextEncoding::Utf16Le, 2)).unwrap();
        patch(&mut bytes, 4, &version.to_le_bytes());
        let e = err(&bytes);
        assert!(matches!(e.kind, ErrorKind::UnsupportedVersion(_)), "{e}");
        assert_eq!(e.location.offset, 4);
    }
    assert!(matches!(err(b"").kind, ErrorKind::Truncated { .. }));
}

#[test]
fn bad_header_values() {
    let good = pmx::write(&sample(false, TextEncoding::Utf16Le, 2)).unwrap();
    // (offset, value, field): globals count, encoding, UV count, each index size.
    let cases: [(usize, u8, &str); 9] = [
        (8, 7, "globals count"),
        (9, 2, "encoding"),
        (10, 5, "additional UV count"),
        (11, 3, "vertex index size"),
        (12, 0, "texture index size"),
        (13, 8, "material index size"),
        (14, 255, "bone index size"),
        (15, 3, "morph index size"),
        (16, 5, "rigid body index size"),
    ];
    for (at, value, field) in cases {
        let mut bytes = good.clone();
        bytes[at] = value;
        let e = err(&bytes);
        assert!(
            matches!(e.kind, ErrorKind::InvalidValue { .. }),
            "{field}: {e}"
        );
        assert_eq!((e.location.field, e.location.offset), (field, at as u64));
    }
}

#[test]
fn extra_globals_are_kept() {
    let mut m = sample(false, TextEncoding::Utf8, 1);
    m.header.extra_globals = vec![9, 8, 7];
    let bytes = pmx::write(&m).unwrap();
    assert_eq!(bytes[8], 11);
    assert_eq!(pmx::parse(&bytes).unwrap(), m);
}

#[test]
fn huge_counts_fail_before_allocating() {
    let Some(bytes) = gene() else { return };
    // The tracker works: a good parse allocates Gene's vertex array (28,646 × 152 bytes).
    let (good, largest) = largest_allocation(|| pmx::parse(&bytes));
    assert!(
        good.is_ok() && largest > 4 << 20,
        "largest allocation {largest}"
    );
    for section in [
        "vertices",
        "bones",
        "morphs",
        "textures",
        "materials",
        "display frames",
        "rigid bodies",
        "joints",
    ] {
        let at = offset_of(&bytes, section);
        for count in [0x7FFF_FFFFi32, 0x4000_0000, 1 << 24] {
            let mut bad = bytes.clone();
            patch(&mut bad, at, &count.to_le_bytes());
            let (result, largest) = largest_allocation(|| pmx::parse(&bad));
            let e = result.unwrap_err();
            assert!(
                matches!(e.kind, ErrorKind::CountTooLarge { .. }),
                "{section} {count}: {e}"
            );
            assert_eq!(
                (e.location.section, e.location.offset),
                (section, at as u64)
            );
            // Whatever was read before (Gene's vertices are ~4 MiB) but nothing sized by the count.
            assert!(
                largest < 16 << 20,
                "{section} {count}: allocated {largest} bytes"
            );
        }
        // 2^31 as stored (0x80000000) is negative in a signed count field, and so is −1.
        for count in [i32::MIN, -1] {
            let mut bad = bytes.clone();
            patch(&mut bad, at, &count.to_le_bytes());
            let e = err(&bad);
            assert_eq!(e.kind, ErrorKind::NegativeCount(count.into()), "{section}");
            assert_eq!(e.location.offset, at as u64);
        }
    }
    // Fixed-size arrays (faces): a count that cannot fit is the file ending early.
    let at = offset_of(&bytes, "faces");
    let mut bad = bytes.clone();
    patch(&mut bad, at, &0x7FFF_FFFEi32.to_le_bytes());
    let (result, largest) = largest_allocation(|| pmx::parse(&bad));
    assert!(matches!(
        result.unwrap_err().kind,
        ErrorKind::Truncated { .. }
    ));
    assert!(largest < 16 << 20);
}

#[test]
fn face_count_must_be_whole_triangles() {
    let good = pmx::write(&sample(false, TextEncoding::Utf16Le, 2)).unwrap();
    let at = offset_of(&good, "faces");
    let mut bad = good.clone();
    patch(&mut bad, at, &4i32.to_le_bytes());
    let e = err(&bad);
    assert_eq!(
        e.kind,
        ErrorKind::InvalidValue {
            value: 4,
            expected: "a multiple of 3 indices"
        }
    );
    assert_eq!(
        (e.location.section, e.location.offset),
        ("faces", at as u64)
    );
}

#[test]
fn face_index_out_of_range_is_located() {
    let Some(bytes) = gene() else { return };
    let at = offset_of(&bytes, "faces");
    assert_eq!(bytes[11], 2, "Gene's vertex indices are 2 bytes");
    for element in [0usize, 9, 141_317] {
        let mut bad = bytes.clone();
        let index_at = at + 4 + 2 * element;
        patch(&mut bad, index_at, &28_646u16.to_le_bytes());
        let e = err(&bad);
        assert_eq!(
            e.kind,
            ErrorKind::IndexOutOfRange {
                index: 28_646,
                len: 28_646
            }
        );
        assert_eq!(e.location.section, "faces");
        assert_eq!(e.location.element, Some(element));
        assert_eq!(e.location.offset, index_at as u64);
    }
    // A 4-byte vertex index is signed on disk: negative is out of range too.
    let good = pmx::write(&sample(false, TextEncoding::Utf16Le, 4)).unwrap();
    let index_at = offset_of(&good, "faces") + 4 + 4;
    let mut bad = good.clone();
    patch(&mut bad, index_at, &(-1i32).to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.kind, ErrorKind::IndexOutOfRange { index: -1, len: 4 });
    assert_eq!(
        (e.location.element, e.location.offset),
        (Some(1), index_at as u64)
    );
}

#[test]
fn invalid_text_is_located() {
    let Some(bytes) = gene() else { return };
    let bones = offset_of(&bytes, "bones");
    // Bone 0's name: count, length, then "全ての親"; make its second unit a lone low surrogate.
    let unit_at = bones + 4 + 4 + 2;
    let mut bad = bytes.clone();
    patch(&mut bad, unit_at, &0xDC00u16.to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.kind, ErrorKind::InvalidUtf16);
    assert_eq!(e.location.section, "bones");
    assert_eq!((e.location.element, e.location.field), (Some(0), "name"));
    assert_eq!(e.location.offset, unit_at as u64);
    // An odd UTF-16 byte length.
    let mut bad = bytes.clone();
    patch(&mut bad, bones + 4, &7i32.to_le_bytes());
    let e = err(&bad);
    assert_eq!(e.kind, ErrorKind::OddUtf16Length(7));
    assert_eq!(e.location.offset, (bones + 4) as u64);
    // A negative length.
    let mut bad = bytes.clone();
    patch(&mut bad, bones + 4, &(-2i32).to_le_bytes());
    assert_eq!(err(&bad).kind, ErrorKind::NegativeCount(-2));
    // A length past the end.
    let mut bad = bytes.clone();
    patch(&mut bad, bones + 4, &0x7FFF_FFFEi32.to_le_bytes());
    assert!(matches!(err(&bad).kind, ErrorKind::Truncated { .. }));

    // Bad UTF-8 in a UTF-8 file: the model name ("サンプル") starts at 17 + 4.
    let mut bad = pmx::write(&sample(false, TextEncoding::Utf8, 1)).unwrap();
    bad[17 + 4 + 1] = 0xFF;
    let e = err(&bad);
    assert_eq!(e.kind, ErrorKind::InvalidUtf8);
    assert_eq!(
        (e.location.section, e.location.offset),
        ("model info", 17 + 4)
    );
}

#[test]
fn non_finite_floats() {
    let Some(bytes) = gene() else { return };
    let vertices = offset_of(&bytes, "vertices");
    for bits in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let mut bad = bytes.clone();
        patch(&mut bad, vertices + 4 + 4, &bits.to_le_bytes()); // vertex 0 position y
        let e = err(&bad);
        assert!(matches!(e.kind, ErrorKind::NonFinite(_)), "{e}");
        assert_eq!(
            (e.location.section, e.location.element),
            ("vertices", Some(0))
        );
        assert_eq!(
            (e.location.field, e.location.offset),
            ("position", (vertices + 8) as u64)
        );
    }
    // A NaN normal loads (real files have them), reported, and kept bit for bit.
    let mut odd = bytes.clone();
    let normal_at = vertices + 4 + 12;
    patch(&mut odd, normal_at, &f32::NAN.to_le_bytes());
    let (m, d) = pmx::parse_with_diagnostics(&odd).unwrap();
    assert!(m.vertices[0].normal[0].is_nan());
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].location.field, d[0].location.offset),
        ("normal", normal_at as u64)
    );
    assert_eq!(pmx::write(&m).unwrap(), odd);
}

/// Offset of the first vertex's first bone index in a `sample` model.
fn first_vertex_bone_at(bytes: &[u8], additional_uvs: usize) -> usize {
    offset_of(bytes, "vertices") + 4 + 32 + 16 * additional_uvs + 1
}

#[test]
fn vertex_bone_out_of_range_is_an_error_at_the_vertex() {
    let good = pmx::write(&sample(false, TextEncoding::Utf16Le, 2)).unwrap();
    let at = first_vertex_bone_at(&good, 0);
    for (index, expected) in [(3i16, 3i64), (-2, -2), (i16::MAX, i16::MAX as i64)] {
        let mut bad = good.clone();
        patch(&mut bad, at, &index.to_le_bytes());
        let e = err(&bad);
        assert_eq!(
            e.kind,
            ErrorKind::IndexOutOfRange {
                index: expected,
                len: 3
            }
        );
        assert_eq!(
            (e.location.section, e.location.element),
            ("vertices", Some(0))
        );
        assert_eq!((e.location.field, e.location.offset), ("bone", at as u64));
    }
}

#[test]
fn morph_vertex_out_of_range_is_an_error() {
    let good = pmx::write(&sample(false, TextEncoding::Utf16Le, 1)).unwrap();
    // Morph 0 is a vertex morph named "v" with an empty English name.
    let at = offset_of(&good, "morphs") + 4 + (4 + utf16_len("v")) + 4 + 1 + 1 + 4;
    let mut bad = good.clone();
    bad[at] = 4;
    let e = err(&bad);
    assert_eq!(e.kind, ErrorKind::IndexOutOfRange { index: 4, len: 4 });
    assert_eq!(
        (e.location.section, e.location.element, e.location.offset),
        ("morphs", Some(0), at as u64)
    );
    bad[at - 5] = 11; // unknown morph type
    let e = err(&bad);
    assert!(
        matches!(e.kind, ErrorKind::InvalidValue { value: 11, .. }),
        "{e}"
    );
    assert_eq!(
        (e.location.field, e.location.offset),
        ("type", (at - 5) as u64)
    );
}

#[test]
fn bad_parents_load_with_diagnostics() {
    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    m.bones[1].parent = 1;
    m.bones[2].parent = 9;
    m.bones[0].parent = -5;
    let bytes = pmx::write(&m).unwrap();
    let (read, d) = pmx::parse_with_diagnostics(&bytes).unwrap();
    assert_eq!(read, m, "raw values kept as stored");
    let parents: Vec<_> = d.iter().filter(|d| d.location.field == "parent").collect();
    assert_eq!(parents.len(), 3, "{d:#?}");
    for (diag, element) in parents.iter().zip([0, 1, 2]) {
        assert_eq!(diag.location.section, "bones");
        assert_eq!(diag.location.element, Some(element));
    }
    assert!(
        parents[1].message.contains("own parent"),
        "{}",
        parents[1].message
    );
    // Round trip keeps them.
    assert_eq!(pmx::write(&read).unwrap(), bytes);
}

#[test]
fn other_dangling_references_load_with_diagnostics() {
    let mut m = sample(true, TextEncoding::Utf8, 2);
    m.materials[0].texture = 10;
    m.bones[1].append.as_mut().unwrap().parent = 50;
    m.bones[2].ik.as_mut().unwrap().target = 3;
    m.bones[2].ik.as_mut().unwrap().links[1].bone = -7;
    if let pmx::MorphOffsets::Group(g) = &mut m.morphs[1].offsets {
        g[0].morph = 99;
    }
    if let pmx::MorphOffsets::Impulse(g) = &mut m.morphs[7].offsets {
        g[0].rigid_body = 2;
    }
    m.display_frames[1].items[1] = pmx::DisplayItem::Morph(8);
    m.rigid_bodies[0].bone = 3;
    m.joints[0].body_b = 2;
    let bytes = pmx::write(&m).unwrap();
    let (read, d) = pmx::parse_with_diagnostics(&bytes).unwrap();
    assert_eq!(read, m);
    let found: Vec<_> = d
        .iter()
        .map(|d| (d.location.section, d.location.element, d.location.field))
        .collect();
    assert_eq!(
        found,
        [
            ("materials", Some(0), "texture"),
            ("bones", Some(1), "append parent"),
            ("bones", Some(2), "ik target"),
            ("bones", Some(2), "ik link"),
            ("morphs", Some(1), "morph"),
            ("display frames", Some(1), "morph"),
            ("rigid bodies", Some(0), "bone"),
            // Impulse morphs are checked once the rigid bodies are known.
            ("morphs", Some(7), "rigid body"),
            ("joints", Some(0), "body b"),
        ]
    );
}

#[test]
fn pmx_21_features_in_a_20_file_are_rejected() {
    // Write a 2.1 model, then relabel it 2.0: QDEF (vertex 4) must fail at its weight type.
    let m = sample(true, TextEncoding::Utf16Le, 4);
    let mut bytes = pmx::write(&m).unwrap();
    patch(&mut bytes, 4, &2.0f32.to_le_bytes());
    let e = err(&bytes);
    assert!(
        matches!(e.kind, ErrorKind::InvalidValue { value: 4, .. }),
        "{e}"
    );
    assert_eq!(
        (e.location.section, e.location.element, e.location.field),
        ("vertices", Some(4), "weight type")
    );
    // And the writer refuses them in a 2.0 model.
    let mut m20 = m.clone();
    m20.header.version = 2.0;
    let e = pmx::write(&m20).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Unwritable(_)));
    assert_eq!(
        (e.location.section, e.location.field),
        ("vertices", "weight type")
    );
    m20.vertices.pop();
    m20.indices.truncate(6);
    let e = pmx::write(&m20).unwrap_err();
    assert_eq!(
        (e.location.section, e.location.element),
        ("morphs", Some(6))
    );
    m20.morphs.truncate(6);
    let e = pmx::write(&m20).unwrap_err();
    assert_eq!(e.location.section, "soft bodies");
    m20.soft_bodies.clear();
    let bytes = pmx::write(&m20).unwrap();
    assert_eq!(pmx::parse(&bytes).unwrap(), m20);
}

#[test]
fn pmx_21_without_soft_body_section_loads() {
    let m = sample(true, TextEncoding::Utf16Le, 2);
    let bytes = pmx::write(&m).unwrap();
    let cut = &bytes[..offset_of(&bytes, "soft bodies")];
    let (read, d) = pmx::parse_with_diagnostics(cut).unwrap();
    assert!(read.soft_bodies.is_empty());
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].location.section, "soft bodies");
}

#[test]
fn trailing_bytes_are_a_diagnostic() {
    let m = sample(false, TextEncoding::Utf16Le, 2);
    let mut bytes = pmx::write(&m).unwrap();
    let end = bytes.len();
    bytes.extend_from_slice(&[0, 0, 0, 0, 1]);
    let (read, d) = pmx::parse_with_diagnostics(&bytes).unwrap();
    assert_eq!(read, m);
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].location.offset, end as u64);
    assert!(
        d[0].message.contains("5 trailing bytes"),
        "{}",
        d[0].message
    );
}

#[test]
fn writer_refuses_what_the_layout_cannot_hold() {
    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    m.bones[1].parent = 128; // does not fit an i8
    let e = pmx::write(&m).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Unwritable(_)));
    assert_eq!(
        (e.location.section, e.location.element, e.location.field),
        ("bones", Some(1), "parent")
    );

    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    m.vertices[0].weights = Weights::Bdef1 { bone: 3 }; // only 3 bones: the reader would refuse
    assert_eq!(pmx::write(&m).unwrap_err().location.section, "vertices");

    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    m.indices[5] = 4;
    let e = pmx::write(&m).unwrap_err();
    assert_eq!((e.location.section, e.location.element), ("faces", Some(5)));

    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    m.indices.pop();
    assert_eq!(pmx::write(&m).unwrap_err().location.section, "faces");

    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    m.header.bone_index_size = 3;
    assert_eq!(
        pmx::write(&m).unwrap_err().location.field,
        "bone index size"
    );

    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    m.header.version = 2.05;
    assert_eq!(pmx::write(&m).unwrap_err().location.field, "version");
}

#[test]
fn vertex_index_size_1_is_unsigned() {
    // 255 vertices need vertex indices > i8::MAX: fine with an unsigned 1-byte index.
    let mut m = sample(false, TextEncoding::Utf16Le, 1);
    let v = m.vertices[0].clone();
    m.vertices.resize(255, v);
    m.indices.extend([254, 200, 128]);
    m.materials[0].index_count = 9;
    let bytes = pmx::write(&m).unwrap();
    assert_eq!(pmx::parse(&bytes).unwrap(), m);
    m.vertices.resize(257, m.vertices[0].clone());
    m.indices.extend([256, 0, 0]);
    let e = pmx::write(&m).unwrap_err();
    assert_eq!((e.location.section, e.location.element), ("faces", Some(9)));
}
