//! Files that are not MMD files at all: an empty file, another kind of file renamed, text.
//! The message says which format the file's name asked for and what the file looks like,
//! never a byte dump under another format's section.

use odori_format::{ErrorKind, Format};
use std::path::PathBuf;

fn tmp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("odori-foreign-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The first bytes of a real PNG (signature and the start of the IHDR chunk).
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";

#[test]
fn png_renamed_pmx_says_what_it_looks_like() {
    let path = tmp("picture.pmx", PNG);
    let e = odori_format::read_path(&path).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::NotMmd {
                expected: Some(Format::Pmx),
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains("picture.pmx"), "{msg}");
    assert!(
        msg.contains("not a PMX file (it looks like a PNG image)"),
        "{msg}"
    );
    assert!(!msg.contains("137, 80"), "no raw byte dump: {msg}");
}

#[test]
fn empty_vmd_is_not_a_pmx_header_error() {
    let path = tmp("empty.vmd", b"");
    let msg = odori_format::read_path(&path).unwrap_err().to_string();
    assert!(msg.contains("empty.vmd"), "{msg}");
    assert!(msg.contains("not a VMD file: the file is empty"), "{msg}");
    assert!(!msg.contains("PMX"), "{msg}");
}

#[test]
fn text_and_unknown_extensions() {
    let path = tmp("notes.vpd", b"hello, this is not a pose");
    let msg = odori_format::read_path(&path).unwrap_err().to_string();
    assert!(
        msg.contains("not a VPD file (bad magic: it starts with \"hello, this is not a pose\")"),
        "{msg}"
    );
    let path = tmp("song.bin", b"ID3\x04\0\0\0\0\0\0");
    let msg = odori_format::read_path(&path).unwrap_err().to_string();
    assert!(
        msg.contains("not a PMX, PMD, VMD or VPD file (it looks like an MP3 audio file)"),
        "{msg}"
    );
    let path = tmp("noise.pmd", &[0x01, 0x02, 0xfe]);
    let msg = odori_format::read_path(&path).unwrap_err().to_string();
    assert!(msg.contains("bytes 01 02 fe"), "{msg}");
}

#[test]
fn a_file_cut_inside_its_magic_reads_as_truncated() {
    let path = tmp("cut.vmd", b"Vocaloid Mot");
    let msg = odori_format::read_path(&path).unwrap_err().to_string();
    assert!(msg.contains("VMD section `header`"), "{msg}");
    assert!(msg.contains("file ends early"), "{msg}");
}

#[test]
fn sniff_knows_common_files_and_not_mmd_ones() {
    assert_eq!(odori_format::sniff(PNG), Some("a PNG image"));
    assert_eq!(
        odori_format::sniff(b"\xff\xd8\xff\xe0"),
        Some("a JPEG image")
    );
    assert_eq!(
        odori_format::sniff(b"RIFF\0\0\0\0WAVEfmt "),
        Some("a WAV audio file")
    );
    assert_eq!(odori_format::sniff(b"PMX \0\0\0\x40"), None);
    assert_eq!(odori_format::sniff(b""), None);
    // A format's own reader names the foreign file too.
    let e = odori_format::pmx::parse(PNG).unwrap_err();
    assert!(e.to_string().contains("it looks like a PNG image"), "{e}");
}
