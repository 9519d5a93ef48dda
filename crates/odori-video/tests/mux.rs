//! An MP4 written with each kind of audio reads back with the right tracks, sample counts and
//! durations, and its video decodes to the colour that went in.

use odori_video::mp4::AudioTrack;
use odori_video::{Mp4Video, audio, probe};

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
    let track = audio::track(&silent_mp3(200), 0.0, 1.5).unwrap();
    let bytes = write("mp3", Some(&track));
    let t = probe::tracks(&bytes);
    assert_eq!(t.len(), 2);
    assert_eq!(&t[1].codec, b"mp4a");
    assert_eq!(&t[1].handler, b"soun");
    // ceil(1.5 s × 44100 / 1152) frames.
    assert_eq!(t[1].samples, 58);
    assert!((t[1].seconds() - 58.0 * 1152.0 / 44100.0).abs() < 1e-9);
}

#[test]
fn with_pcm() {
    let track = AudioTrack::Pcm {
        sample_rate: 48000,
        channels: 2,
        data: vec![0; 48000 * 4 * 3 / 2],
    };
    let bytes = write("pcm", Some(&track));
    let t = probe::tracks(&bytes);
    assert_eq!(&t[1].codec, b"sowt");
    assert_eq!(t[1].samples, 72000);
    assert!((t[1].seconds() - 1.5).abs() < 1e-9);
}
