#![no_main]
//! Fuzz the vmd reader: any input must parse or fail with an error, never panic; whatever
//! parses must write, the written bytes must be the input (less any trailing bytes the reader
//! reported), and they must parse back to an equal value.
use libfuzzer_sys::fuzz_target;
use odori_format::vmd;

fuzz_target!(|data: &[u8]| {
    let Ok((motion, diagnostics)) = vmd::parse_with_diagnostics(data) else {
        return;
    };
    let written = vmd::write(&motion).expect("a parsed motion writes");
    let end = diagnostics
        .iter()
        .find(|d| d.location.field == "trailing bytes")
        .map_or(data.len(), |d| d.location.offset as usize);
    assert!(
        written == data[..end],
        "written bytes differ from the input"
    );
    assert_eq!(vmd::parse(&written).expect("written bytes parse"), motion);
});
