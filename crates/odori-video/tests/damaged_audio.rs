//! A damaged soundtrack is the file's error, never the end of the process. The file: an
//! ADTS AAC stream that fuzz/audio's mutations made from a sine ffmpeg encoded (our own),
//! on which symphonia-codec-aac 0.5.5 indexes past a 64-entry table and panics. Without
//! odori's guard around symphonia's calls this test fails by that panic.

use std::path::PathBuf;

fn damaged() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/damaged.aac")
}

#[test]
fn a_damaged_aac_stream_is_an_error_naming_the_file() {
    let path = damaged();
    // It opens: the container (ADTS) is read without decoding.
    odori_video::audio::check(&path).expect("the damaged stream's container reads");
    for err in [
        odori_video::audio::decode_pcm(&path).unwrap_err(),
        odori_video::audio::read(&path, 0.0, 10.0).unwrap_err(),
    ] {
        let message = err.to_string();
        assert!(
            message.contains("damaged.aac") && message.contains("caught"),
            "{message}"
        );
    }
}
