#![no_main]
//! Fuzz the web page's zip reader (the archive a user drops on the page, from anyone): any
//! input must expand or fail with an error naming the archive, never panic, and what expands
//! must stay within the limits it promises: names inside the archive's folder, no name twice,
//! the total within the expansion limit.
//!
//! The reader's source file is compiled in here as it ships (`#[path]`), so that this target
//! builds without the page's GPU and wasm dependencies.
use libfuzzer_sys::fuzz_target;

#[path = "../../crates/odori-web/src/archive.rs"]
#[allow(dead_code)]
mod archive;

fuzz_target!(|data: &[u8]| {
    match archive::expand("fuzz.zip", data) {
        Ok(files) => {
            let mut names = std::collections::HashSet::new();
            let mut total = 0u64;
            for (name, bytes) in &files {
                assert!(!name.starts_with('/'), "absolute name {name:?}");
                assert!(!name.split('/').any(|p| p == ".."), "`..` in {name:?}");
                assert!(!name.contains('\\'), "unnormalised name {name:?}");
                assert!(names.insert(name.clone()), "{name:?} twice");
                total += bytes.len() as u64;
            }
            assert!(total <= odori_format::limits::ZIP_EXPANDED.bytes());
        }
        Err(message) => assert!(message.starts_with("fuzz.zip: "), "{message}"),
    }
});
