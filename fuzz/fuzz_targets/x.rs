#![no_main]
//! Fuzz the DirectX .x reader: any input must parse or fail with an error, never panic;
//! whatever parses must write in its own encoding (text, or binary with its float size), and
//! the written file must parse back to an equal file and write the same bytes again. Text
//! can refuse to write a name the binary encoding could hold, never one it read.
use libfuzzer_sys::fuzz_target;
use odori_format::x;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = x::parse(data) else { return };
    let written = x::write(&file).expect("what was read writes in its own encoding");
    let back = x::parse(&written).expect("written file parses");
    // A compressed file is written uncompressed: compare all but the encoding.
    let mut expected = file.clone();
    expected.header.encoding = back.header.encoding;
    assert_eq!(back, expected);
    assert!(x::write(&back).unwrap() == written);
});
