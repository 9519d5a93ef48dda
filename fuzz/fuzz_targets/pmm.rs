#![no_main]
//! Fuzz the pmm reader: any input must parse or fail with an error, never panic or hang;
//! whatever parses must write back to exactly the input (the reader keeps every byte, trailing
//! ones included), and the written bytes must parse to a value that writes them again (bytes
//! rather than values are compared: a float may be a NaN, which equals nothing). Walking every
//! key track and converting every model and the camera to VMD must not panic either.
use libfuzzer_sys::fuzz_target;
use odori_format::pmm;

fuzz_target!(|data: &[u8]| {
    let Ok(project) = pmm::parse(data) else {
        return;
    };
    let written = pmm::write(&project).expect("a parsed project writes");
    assert!(written == data, "written bytes differ from the input");
    let again = pmm::parse(&written).expect("written bytes parse");
    assert!(pmm::write(&again).expect("writes") == written);
    for m in &project.models {
        let _ = pmm::model_motion(m);
        let _ = pmm::track(&m.initial_morph_keys, &m.morph_keys);
    }
    let _ = pmm::camera_motion(&project);
    let _ = pmm::camera_follow_warnings(&project);
    if let Some(v2) = &project.v2 {
        let _ = pmm::track(
            std::slice::from_ref(&v2.gravity.initial_key),
            &v2.gravity.keys,
        );
    }
    for a in &project.accessories {
        let _ = pmm::track(std::slice::from_ref(&a.initial_key), &a.keys);
    }
});
