//! Segments joined into one MP4. Three segments of uneven length (one of a single frame) are
//! written by the built-in encoder, each frame painted with its index in the whole video, and
//! joined with a soundtrack that has a click at a known time. Evidence held to:
//! - the joined file's samples are the segments' samples byte for byte, in order (nothing
//!   re-encoded), with one IDR at each join (the sync-sample table and the NAL type agree);
//! - its timestamps run on without a gap (one `stts` run of 3,000 ticks at 30 fps) and its
//!   frame count is the segments' sum; decoded frames show the index painted into them, so a
//!   frame sits at its time in the whole;
//! - the sound is muxed once over the whole: its edit list plays exactly the video's length,
//!   and the click comes out at its song time minus the range start within 1 ms, the
//!   existing sync test's rule (`tests/sync.rs`), decoded by symphonia;
//! - ffprobe, where installed, reads the same frame count and continuous timestamps.

mod common;

use odori_video::{Encoder, Soundtrack, Video, probe, segment};
use std::path::{Path, PathBuf};

const RATE: u32 = 44_100;
const FPS: u32 = 30;
const CLICK_S: f64 = 1.9;
const START_S: f64 = 0.4;
const W: u32 = 64;
const H: u32 = 48;

/// Frame `k` of the whole video: a flat colour that says `k`.
fn painted(k: usize) -> Vec<u8> {
    let c = [(k * 4) as u8, 255 - (k * 4) as u8, 128, 255];
    c.repeat((W * H) as usize)
}

/// The test's song: silence with a click at `CLICK_S`.
fn song(seconds: f64) -> Vec<f32> {
    common::click_song(RATE, seconds, CLICK_S)
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("odori-segment-{}-{name}", std::process::id()))
}

/// Write segments of `lengths` frames (painted with their index in the whole).
fn write_segments(test: &str, lengths: &[usize]) -> Vec<PathBuf> {
    let mut k = 0;
    (lengths.iter().enumerate())
        .map(|(i, &n)| {
            let path = temp(&format!("{test}-part{i}.mp4"));
            let mut v = Video::create(Encoder::Builtin, &path, W, H, FPS, None).unwrap();
            for _ in 0..n {
                v.push(&painted(k)).unwrap();
                k += 1;
            }
            v.finish().unwrap();
            path
        })
        .collect()
}

fn idr(sample: &[u8]) -> bool {
    let mut at = 0;
    let mut found = false;
    while at + 4 <= sample.len() {
        let n = u32::from_be_bytes(sample[at..at + 4].try_into().unwrap()) as usize;
        found |= sample[at + 4] & 0x1F == 5;
        at += 4 + n;
    }
    found
}

#[test]
fn segments_join_into_one_video_with_one_soundtrack() {
    let lengths = [29, 1, 42];
    let total: usize = lengths.iter().sum();
    let parts = write_segments("join", &lengths);
    let wav = temp("click.wav");
    std::fs::write(&wav, common::wav(RATE, 2, &song(4.0))).unwrap();
    let out = temp("joined.mp4");
    let sound = Soundtrack {
        path: &wav,
        start_s: START_S,
        length_s: total as f64 / FPS as f64,
    };
    let joined = segment::join(&parts, &out, FPS, Some(&sound)).unwrap();
    assert_eq!(joined.frames, total);
    assert_eq!(joined.segment_frames, lengths);
    let file = std::fs::read(&out).unwrap();
    let tracks = probe::tracks(&file);
    let video = tracks.iter().find(|t| &t.handler == b"vide").unwrap();
    assert_eq!(video.samples as usize, total);
    assert_eq!(video.time_runs, [(total as u32, 90_000 / FPS)]);
    assert_eq!(video.duration, total as u64 * (90_000 / FPS) as u64);

    // Every sample is the segment's, byte for byte; an IDR starts each segment.
    let mut k = 0;
    let mut joins = Vec::new();
    for part in &parts {
        let bytes = std::fs::read(part).unwrap();
        let t = &probe::tracks(&bytes)[0];
        joins.push(k as u32 + 1);
        for i in 0..t.samples as usize {
            assert_eq!(t.sample(&bytes, i), video.sample(&file, k), "frame {k}");
            k += 1;
        }
    }
    assert_eq!(k, total, "every joined frame was compared");
    let sync = video.sync_samples.as_ref().expect("an stss table");
    for j in &joins {
        assert!(sync.contains(j), "no sync sample at join {j}: {sync:?}");
        assert!(idr(video.sample(&file, *j as usize - 1).unwrap()));
    }
    // Decoded frames show the index they were painted with (tolerance: H.264 is lossy).
    for k in [0, 28, 29, 30, total - 1] {
        let (_, _, rgba) = probe::decode_frame(&file, video, k).unwrap();
        let want = painted(k);
        let off = (rgba[..4].iter().zip(&want[..4]))
            .map(|(a, b)| (*a as i32 - *b as i32).abs())
            .max()
            .unwrap();
        assert!(
            off <= 3,
            "frame {k}: {:?} against {:?}",
            &rgba[..4],
            &want[..4]
        );
    }

    // The sound: once, over the whole, as long as the picture, the click on time.
    let sound_track = tracks.iter().find(|t| &t.handler == b"soun").unwrap();
    let (played_ms, _) = sound_track.edit.unwrap();
    let video_ms = (total as f64 / FPS as f64 * 1000.0) as i64;
    assert!(
        (played_ms as i64 - video_ms).abs() <= 1,
        "{played_ms} ms of sound, {video_ms} ms of picture"
    );
    let (decoded, skip) = common::played_sound(&file);
    let at = common::onset(&decoded) as i64 - skip as i64;
    let want = ((CLICK_S - START_S) * RATE as f64) as i64;
    assert!(
        (at - want).abs() <= RATE as i64 / 1000,
        "click {} ms off",
        (at - want) as f64 * 1000.0 / RATE as f64
    );
    ffprobe_agrees(&out, total);
    for p in parts.iter().chain([&wav, &out]) {
        let _ = std::fs::remove_file(p);
    }
}

/// ffprobe (when installed) counts the same frames, each 1/FPS after the last.
fn ffprobe_agrees(path: &Path, frames: usize) {
    let run = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "packet=pts",
        ])
        .args(["-of", "csv=p=0"])
        .arg(path)
        .output();
    let Some(run) = run.ok().filter(|r| r.status.success()) else {
        if std::env::var_os("ODORI_REQUIRE_TOOLS").is_some_and(|v| v == "1") {
            panic!("ffprobe is needed (apt-get install ffmpeg)");
        }
        eprintln!("SKIPPED: the ffprobe check needs ffprobe (apt-get install ffmpeg)");
        return;
    };
    let pts: Vec<i64> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .filter_map(|l| l.trim().trim_end_matches(',').parse().ok())
        .collect();
    assert_eq!(pts.len(), frames, "ffprobe's packet count");
    for (k, p) in pts.iter().enumerate() {
        assert_eq!(
            *p,
            k as i64 * (90_000 / FPS) as i64,
            "ffprobe: packet {k}'s time"
        );
    }
}

#[test]
fn a_segment_with_sound_or_another_size_is_refused_by_name() {
    let parts = write_segments("refuse", &[3]);
    let other = temp("other.mp4");
    let mut v = Video::create(Encoder::Builtin, &other, 32, 32, FPS, None).unwrap();
    v.push(&vec![0; 32 * 32 * 4]).unwrap();
    v.finish().unwrap();
    let out = temp("refused.mp4");
    let e = segment::join(&[parts[0].clone(), other.clone()], &out, FPS, None).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains(&other.display().to_string()) && text.contains("64x48"),
        "{text}"
    );
    assert!(!out.exists(), "a failed join leaves no file");
    let e = segment::join(&parts, &out, 60, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("60 fps"), "{e}");
    for p in parts.iter().chain([&other]) {
        let _ = std::fs::remove_file(p);
    }
}
