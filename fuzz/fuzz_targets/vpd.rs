#![no_main]
//! Fuzz the vpd reader: any input must parse or fail with an error, never panic; whatever
//! parses must write, and the written text must parse back to an equal pose and write the
//! same text again.
use libfuzzer_sys::fuzz_target;
use odori_format::vpd;

fuzz_target!(|data: &[u8]| {
    let Ok(pose) = vpd::parse(data) else { return };
    let written = vpd::write(&pose);
    let back = vpd::parse(&written).expect("written text parses");
    assert_eq!(back, pose);
    assert!(vpd::write(&back) == written);
});
