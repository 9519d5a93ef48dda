//! VPD reader and writer against the real poses in `../shared`, malformed text written in
//! code, and random round trips.

use odori_format::sjis::encode_sjis;
use odori_format::vpd::{self, BonePose, MorphPose, Vpd};
use odori_format::{ErrorKind, Format, FormatError};
use proptest::prelude::*;

const SMALL: &str = concat!(
    "Vocaloid Pose Data file\r\n",
    "\r\n",
    "miku.osm;\t\t// 親ファイル名\r\n",
    "2;\t\t\t\t// 総ポーズボーン数\r\n",
    "\r\n",
    "Bone0{センター\r\n",
    "  0.000000,1.500000,-0.250000;\t\t\t\t// trans x,y,z\r\n",
    "  0.000000,0.000000,0.000000,1.000000;\t\t// Quaternion x,y,z,w\r\n",
    "}\r\n",
    "\r\n",
    "Bone1{左足ＩＫ\r\n",
    "  0.000000,0.000000,0.000000;\t\t\t\t// trans x,y,z\r\n",
    "  0.100000,0.000000,0.000000,0.994987;\t\t// Quaternion x,y,z,w\r\n",
    "}\r\n",
    "\r\n",
    "Morph0{まばたき\r\n",
    "  0.500000;\t\t\t\t// weight\r\n",
    "}\r\n",
    "\r\n",
);

fn parse_text(text: &str) -> Result<Vpd, FormatError> {
    vpd::parse(&encode_sjis(text))
}

#[test]
fn every_shared_vpd_reads_and_round_trips() {
    let files = odori_testkit::shared_files("assets/vpd", &["vpd"]);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let v = vpd::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let written = vpd::write(&v);
        assert_eq!(vpd::parse(&written).unwrap(), v, "{}", path.display());
        // The shared files have LF line ends (MMD writes CRLF, as we do).
        let lf: Vec<u8> = written.iter().copied().filter(|&b| b != b'\r').collect();
        let same = if written == bytes {
            "identical"
        } else if lf == bytes {
            "identical but for CRLF"
        } else {
            "different"
        };
        println!(
            "{}: model {:?}, {} bones, {} morphs, written bytes {same}",
            path.display(),
            v.model_name,
            v.bones.len(),
            v.morphs.len()
        );
        assert_ne!(
            same,
            "different",
            "{}: our text is MMD's text",
            path.display()
        );
    }
    if let Some(path) = odori_testkit::shared("assets/vpd/01.vpd") {
        let v = vpd::parse(&std::fs::read(path).unwrap()).unwrap();
        assert_eq!(v.model_name, "初音ミク.osm");
        assert_eq!(v.bones.len(), 93);
        assert_eq!(v.bones[0].name, "センター");
        assert_eq!(v.bones[0].translation, [-1.994186, -0.241098, 0.050083]);
        assert_eq!(
            v.bones[0].rotation,
            [-0.008508, 0.417201, 0.003480, 0.908765]
        );
        assert_eq!(v.bones[92].name, "右つま先ＩＫ");
        assert!(v.morphs.is_empty());
    }
}

#[test]
fn writes_mmds_text() {
    let v = parse_text(SMALL).unwrap();
    assert_eq!(v.model_name, "miku.osm");
    assert_eq!(
        v.bones[0],
        BonePose {
            name: "センター".into(),
            translation: [0.0, 1.5, -0.25],
            rotation: [0.0, 0.0, 0.0, 1.0]
        }
    );
    assert_eq!(
        v.morphs,
        [MorphPose {
            name: "まばたき".into(),
            weight: 0.5
        }]
    );
    assert_eq!(vpd::write(&v), encode_sjis(SMALL));
}

#[test]
fn tolerates_lf_bom_and_comments_anywhere() {
    let text = SMALL
        .replace("\r\n", "\n")
        .replace("}\n", "}  // end of block\n// a comment line\n");
    let mut bom_and_lf = b"\xEF\xBB\xBF".to_vec();
    bom_and_lf.extend(encode_sjis(&text));
    assert_eq!(vpd::parse(&bom_and_lf).unwrap(), parse_text(SMALL).unwrap());
}

fn err(text: &str) -> FormatError {
    let e = parse_text(text).unwrap_err();
    assert_eq!(e.location.format, Format::Vpd);
    e
}

/// Byte offset of the line holding `needle` in the Shift-JIS encoding of `text`.
fn line_offset(text: &str, needle: &str) -> u64 {
    let at = text.find(needle).unwrap();
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    encode_sjis(&text[..line]).len() as u64
}

#[test]
fn malformed_text_is_located() {
    let e = err(&SMALL.replace("Vocaloid Pose Data file", "Vocaloid Pose Data fil"));
    assert!(matches!(e.kind, ErrorKind::BadMagic { .. }), "{e}");
    assert_eq!((e.location.section, e.location.offset), ("header", 0));

    let bad = SMALL.replace("0.100000,0.000000", "0.1x0000,0.000000");
    let e = err(&bad);
    assert!(
        matches!(&e.kind, ErrorKind::Syntax(m) if m.contains("0.1x0000")),
        "{e}"
    );
    assert_eq!(
        (e.location.section, e.location.element, e.location.field),
        ("bones", Some(1), "rotation")
    );
    assert_eq!(e.location.offset, line_offset(&bad, "0.1x0000"));

    let bad = SMALL.replace("0.500000;", "NaN;");
    let e = err(&bad);
    assert!(matches!(e.kind, ErrorKind::NonFinite(_)), "{e}");
    assert_eq!((e.location.section, e.location.field), ("morphs", "weight"));
    assert_eq!(e.location.offset, line_offset(&bad, "NaN;"));

    let bad = SMALL.replace("1.500000,-0.250000;", "1.500000;");
    let e = err(&bad);
    assert!(matches!(e.kind, ErrorKind::Syntax(_)), "{e}");
    assert_eq!(
        (e.location.field, e.location.element),
        ("translation", Some(0))
    );

    let bad = SMALL.replace("1.500000,-0.250000;", "1.500000,-0.250000");
    assert!(matches!(err(&bad).kind, ErrorKind::Syntax(ref m) if m.contains("`;`")));

    // A block without its closing brace.
    let cut = &SMALL[..SMALL.rfind('}').unwrap()];
    let e = err(cut);
    assert_eq!((e.location.section, e.location.field), ("morphs", "end"));
    assert_eq!(e.location.offset, line_offset(SMALL, "Morph0"));
    let bad = SMALL.replacen("}\r\n", "Bone9{x\r\n", 1);
    let e = err(&bad);
    assert_eq!((e.location.section, e.location.field), ("bones", "end"));

    // The file ends inside a block.
    let cut = &SMALL[..SMALL.find("  0.100000").unwrap()];
    let e = err(cut);
    assert_eq!(
        (e.location.section, e.location.field),
        ("bones", "rotation")
    );

    let e = err(&SMALL.replace("2;", "3;"));
    assert!(
        matches!(&e.kind, ErrorKind::Syntax(m) if m.contains("3 bones")),
        "{e}"
    );
    assert_eq!(
        (e.location.section, e.location.field),
        ("header", "bone count")
    );

    let e = err(&SMALL.replace("Bone1{", "Bone{"));
    assert_eq!(e.location.field, "block");
    let e = err(&SMALL.replace("Morph0{", "Pose0{"));
    assert_eq!(e.location.field, "block");
    let e = err("Vocaloid Pose Data file\r\n");
    assert_eq!(
        (e.location.section, e.location.field),
        ("header", "model name")
    );

    let mut invalid = encode_sjis(SMALL);
    let at = invalid.windows(4).position(|w| w == b"miku").unwrap();
    invalid[at] = 0xA0; // not a Shift-JIS byte
    let e = vpd::parse(&invalid).unwrap_err();
    assert!(
        matches!(&e.kind, ErrorKind::Syntax(m) if m.contains("Shift-JIS")),
        "{e}"
    );
    assert_eq!(e.location.offset, line_offset(SMALL, "miku"));
}

#[test]
fn numbers_keep_every_bit() {
    let v = Vpd {
        model_name: "m.osm".into(),
        bones: vec![BonePose {
            name: "b".into(),
            translation: [0.1, -0.0, 1e-7],
            rotation: [
                f32::MIN_POSITIVE / 8.0,
                f32::MAX,
                1.234_568e-3,
                0.999_999_94,
            ],
        }],
        morphs: vec![],
    };
    let back = vpd::parse(&vpd::write(&v)).unwrap();
    assert_eq!(back, v);
    assert!(back.bones[0].translation[1].is_sign_negative());
    let text = vpd::write(&v);
    let expected = b"\r\n  0.100000,-0.000000,0.0000001;";
    assert!(text.windows(expected.len()).any(|w| w == expected));
}

fn finite() -> impl Strategy<Value = f32> {
    use proptest::num::f32::{NEGATIVE, NORMAL, POSITIVE, SUBNORMAL, ZERO};
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
}

/// Names as MMD's own: no line breaks, no comment marker, no surrounding spaces.
fn name() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_.{};,あ-んア-ン左右足腕ＩＫ ]{0,12}".prop_map(|s| s.trim().to_string())
}

fn vpd_value() -> impl Strategy<Value = Vpd> {
    let bone = (
        name(),
        [finite(), finite(), finite()],
        [finite(), finite(), finite(), finite()],
    )
        .prop_map(|(name, translation, rotation)| BonePose {
            name,
            translation,
            rotation,
        });
    let morph = (name(), finite()).prop_map(|(name, weight)| MorphPose { name, weight });
    (
        name(),
        prop::collection::vec(bone, 0..5),
        prop::collection::vec(morph, 0..4),
    )
        .prop_map(|(model_name, bones, morphs)| Vpd {
            model_name,
            bones,
            morphs,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_vpd_round_trips(v in vpd_value()) {
        let bytes = vpd::write(&v);
        prop_assert_eq!(vpd::parse(&bytes).unwrap(), v);
    }
}

/// Fuzz regression: a name in Shift-JIS's user-defined area (decoded to private use
/// characters) must write back as the same bytes, not as `?`.
#[test]
fn user_defined_characters_round_trip() {
    let mut bytes = encode_sjis(SMALL);
    let at = bytes.windows(6).position(|w| w == b"Bone1{").unwrap() + 6;
    bytes.splice(at..at, [0xF0, 0x40, 0xF9, 0xFC]);
    let v = vpd::parse(&bytes).unwrap();
    assert_eq!(v.bones[1].name, "\u{E000}\u{E757}左足ＩＫ");
    assert_eq!(vpd::write(&v), bytes);
}

/// Fuzz regression: an LF file can hold a carriage return inside a name; it must survive.
#[test]
fn carriage_return_inside_a_name_round_trips() {
    let text = SMALL
        .replace("\r\n", "\n")
        .replace("センター", "セン\rター");
    let v = parse_text(&text).unwrap();
    assert_eq!(v.bones[0].name, "セン\rター");
    assert_eq!(vpd::parse(&vpd::write(&v)).unwrap(), v);
}
