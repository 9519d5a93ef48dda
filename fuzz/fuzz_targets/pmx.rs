#![no_main]
//! Fuzz the pmx reader: any input must parse or fail with an error, never panic; whatever
//! parses must write, and the written bytes must parse back to an equal value.
use libfuzzer_sys::fuzz_target;
use odori_format::pmx;

fuzz_target!(|data: &[u8]| {
    let Ok(model) = pmx::parse(data) else { return };
    let written = pmx::write(&model).expect("a parsed model writes");
    let again = pmx::parse(&written).expect("written bytes parse");
    // Compared through `Debug`: it prints every float exactly, and NaN normals (which the
    // reader keeps) compare equal there; the byte comparison below catches NaN payloads.
    assert_eq!(
        format!("{model:?}"),
        format!("{again:?}"),
        "re-parsed model differs"
    );
    assert_eq!(
        pmx::write(&again).expect("re-parsed model writes"),
        written,
        "second write differs"
    );
});
