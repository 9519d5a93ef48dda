//! An MP4 written with each kind of audio reads back with the right tracks, sample counts and
//! durations, and its video decodes to the colour that went in.

mod common;

use odori_video::mp4::AudioTrack;
use odori_video::{Mp4Video, audio, probe};
use std::path::Path;

fn frames_rgba(w: u32, h: u32, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|k| {
            let mut px = vec![0u8; (w * h * 4) as usize];
            for p in px.chunks_exact_mut(4) {
                p.copy_from_slice(&[200, 40 + k as u8, 60, 255]);
            }
            px
        })
        .collect()
}

/// MPEG-1 layer III frames of silence (all-zero side info decodes to silence): 128 kbit/s,
/// 44.1 kHz, stereo, 417 bytes each.
fn silent_mp3(frames: usize) -> Vec<u8> {
    let mut b = Vec::new();
    for _ in 0..frames {
        let mut f = vec![0xFF, 0xFB, 0x90, 0x00];
        f.resize(417, 0);
        b.extend_from_slice(&f);
    }
    b
}

fn write(name: &str, audio: Option<&AudioTrack>) -> Vec<u8> {
    let path = std::env::temp_dir().join(format!("odori-mux-{name}-{}.mp4", std::process::id()));
    let mut v = Mp4Video::create(&path, 64, 48, 30).unwrap();
    for f in frames_rgba(64, 48, 45) {
        v.push(&f).unwrap();
    }
    v.finish(audio).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    bytes
}

#[test]
fn video_only() {
    let bytes = write("plain", None);
    let t = probe::tracks(&bytes);
    assert_eq!(t.len(), 1);
    assert_eq!((t[0].samples, t[0].width, t[0].height), (45, 64, 48));
    assert!((t[0].seconds() - 1.5).abs() < 1e-9);
    let (w, h, rgba) = probe::decode_frame(&bytes, &t[0], 44).unwrap();
    assert_eq!((w, h), (64, 48));
    let p = &rgba[(24 * 64 + 32) * 4..][..3];
    // 4:2:0 and quantisation move colours a little.
    assert!(
        p[0].abs_diff(200) < 16 && p[1].abs_diff(84) < 16 && p[2].abs_diff(60) < 16,
        "{p:?}"
    );
}

#[test]
fn with_mp3() {
    let track = audio::track(Path::new("silence.mp3"), silent_mp3(200), 0.0, 1.5).unwrap();
    let bytes = write("mp3", Some(&track));
    let t = probe::tracks(&bytes);
    assert_eq!(t.len(), 2);
    assert_eq!(&t[1].codec, b"mp4a");
    assert_eq!(&t[1].handler, b"soun");
    // No LAME tag: the decoder's 529 samples are skipped, then 1.5 s play; frames up to
    // the one holding sample 529 + 66150 are kept: ceil(66679 / 1152).
    assert_eq!(t[1].samples, 58);
    assert_eq!(t[1].edit, Some((1500, 529)));
    assert!((t[1].seconds() - 58.0 * 1152.0 / 44100.0).abs() < 1e-9);
}

#[test]
fn wav_becomes_aac() {
    let wav = common::wav(48_000, 2, &vec![0.0; 48_000 * 2 * 3]);
    let track = audio::track(Path::new("quiet.wav"), wav, 0.5, 1.5).unwrap();
    let bytes = write("aac", Some(&track));
    let t = probe::tracks(&bytes);
    assert_eq!(&t[1].codec, b"mp4a");
    // AudioSpecificConfig: AAC-LC (object type 2), 48 kHz (index 3), 2 channels.
    assert_eq!(t[1].decoder_config, vec![0x11, 0x90]);
    let (ms, skip) = t[1].edit.unwrap();
    assert_eq!(ms, 1500);
    assert!((1024..=4096).contains(&skip), "priming samples {skip}");
    assert_eq!(t[1].timescale, 48_000);
    assert!(t[1].samples as u64 * 1024 >= 72_000 + skip as u64);
}

#[test]
fn not_audio_names_the_file() {
    let png = b"\x89PNG\r\n\x1a\nrest of an image".to_vec();
    let e = audio::track(Path::new("cover.png"), png, 0.0, 1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cover.png: not a soundtrack odori can read (it looks like a PNG image) (give MP3, WAV, \
         OGG Vorbis, FLAC or AAC/M4A)"
    );
    let vmd = b"Vocaloid Motion Data 0002\0\0\0\0\0".to_vec();
    let e = audio::track(Path::new("dance.vmd"), vmd, 0.0, 1.0).unwrap_err();
    assert!(
        e.to_string().starts_with("dance.vmd: not a soundtrack"),
        "{e}"
    );
    let e = audio::read(Path::new("/nonexistent/song.mp3"), 0.0, 1.0).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("cannot read the soundtrack /nonexistent/song.mp3: "),
        "{e}"
    );
    // Said once, not twice.
    let e = audio::track(Path::new("noise.mp3"), b"no frames here".to_vec(), 0.0, 1.0)
        .unwrap_err()
        .to_string();
    assert_eq!(e.matches("not a soundtrack").count(), 1, "{e}");
}

#[test]
fn range_past_the_song() {
    let wav = common::wav(44_100, 1, &vec![0.0; 44_100]);
    let e = audio::track(Path::new("short.wav"), wav, 5.0, 1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "short.wav: the soundtrack is 1.00 s long and the rendered range starts at 5.00 s"
    );
}
