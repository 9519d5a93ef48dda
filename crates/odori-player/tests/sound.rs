//! The soundtrack decoded to PCM (`odori_video::audio::decode_pcm`) and played through ALSA's
//! "null" device (no sound card needed): the samples are the file's, bit for bit, and the
//! device's reported position moves with real time.

use odori_player::audio::alsa::AlsaOutput;
use odori_player::audio::{AudioOutput, Timeline};
use std::sync::Arc;
use std::time::Duration;

/// A 16-bit stereo WAV of `frames` frames at `rate`: left counts up, right counts down.
fn wav(path: &std::path::Path, rate: u32, frames: u32) -> Vec<i16> {
    let mut samples = Vec::new();
    for i in 0..frames {
        samples.push((i % 30_000) as i16);
        samples.push(-((i % 30_000) as i16));
    }
    let data: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
    let mut b = Vec::new();
    b.extend_from_slice(b"RIFF");
    b.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    b.extend_from_slice(b"WAVEfmt ");
    b.extend_from_slice(&16u32.to_le_bytes());
    b.extend_from_slice(&1u16.to_le_bytes()); // PCM
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&rate.to_le_bytes());
    b.extend_from_slice(&(rate * 4).to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&16u16.to_le_bytes());
    b.extend_from_slice(b"data");
    b.extend_from_slice(&(data.len() as u32).to_le_bytes());
    b.extend_from_slice(&data);
    std::fs::write(path, b).unwrap();
    samples
}

#[test]
fn wav_decodes_to_its_own_samples_and_plays_on_the_null_device() {
    let dir = std::env::temp_dir().join(format!("odori-sound-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ramp.wav");
    let written = wav(&path, 44_100, 44_100 * 3);
    let pcm = odori_video::audio::decode_pcm(&path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!((pcm.sample_rate, pcm.channels), (44_100, 2));
    assert_eq!(pcm.samples.len(), written.len());
    assert!(
        pcm.samples == written,
        "decoded samples differ from the file's"
    );

    let timeline = Timeline::new();
    let mut out = match AlsaOutput::open("null", Arc::new(pcm), timeline) {
        Ok(o) => o,
        Err(why) => {
            if std::env::var("ODORI_REQUIRE_DISPLAY").is_ok_and(|v| v == "1") {
                panic!("{why} (CI installs libasound2)");
            }
            eprintln!("SKIPPED: {why}");
            return;
        }
    };
    assert_eq!(out.position(), None, "nothing heard before play");
    let t0 = timeline.now();
    out.play(1.0);
    std::thread::sleep(Duration::from_millis(600));
    let (heard, at) = out.position().expect("the device reports while playing");
    let elapsed = at - t0;
    println!("after {elapsed:.3} s: heard {heard:.3} s of the song (from 1.0)");
    // It started at second 1 and moved on with time, give or take the device's buffer
    // (the null device consumes as a real one would; 0.15 s covers its period and latency).
    assert!(
        heard >= 1.0 - 0.15 && heard <= 1.0 + elapsed + 0.15,
        "{heard}"
    );
    assert!(
        heard - 1.0 > elapsed - 0.3,
        "the position stalls: {heard} after {elapsed}"
    );
    out.pause();
    assert_eq!(out.position(), None, "paused: nothing heard");
}
