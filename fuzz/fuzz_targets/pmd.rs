#![no_main]
//! Fuzz the pmd reader: any input must parse or fail with an error, never panic; whatever
//! parses must write, the written bytes must be the input (less any trailing bytes the reader
//! reported), and they must parse back to the same model.
use libfuzzer_sys::fuzz_target;
use odori_format::pmd;

fuzz_target!(|data: &[u8]| {
    let Ok((model, diagnostics)) = pmd::parse_with_diagnostics(data) else {
        return;
    };
    let written = pmd::write(&model).expect("a parsed model writes");
    let end = diagnostics
        .iter()
        .find(|d| d.location.field == "trailing bytes")
        .map_or(data.len(), |d| d.location.offset as usize);
    assert!(
        written == data[..end],
        "written bytes differ from the input"
    );
    let back = pmd::parse(&written).expect("written bytes parse");
    // Debug text compares NaN normals (which MMD loads) as equal; the bytes compare the rest.
    assert_eq!(format!("{back:?}"), format!("{model:?}"));
    assert!(pmd::write(&back).expect("writes again") == written);
});
