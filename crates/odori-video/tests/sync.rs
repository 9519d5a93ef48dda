//! Sound lines up with the picture. A song with a click at a known time is rendered from a
//! range that starts mid-song; the MP4's audio track is decoded back (symphonia) and played as
//! a player plays it (its edit list applied), and the click must come out at its song time
//! minus the range start, within 1 ms. Evidence: the click's position is set in the test; the
//! codec delay this removes is real (the same decode without the edit list is ≥ 20 ms late,
//! checked too, so the test cannot pass by a track that had no delay to remove).
//! The MP3 is made by LAME (Debian `lame`), which writes the encoder-delay tag real MP3s have.

mod common;

use odori_video::{Mp4Video, audio};
use std::path::Path;

const RATE: u32 = 44_100;
const CLICK_S: f64 = 1.5;

/// The test's song: silence with a click at `CLICK_S`.
fn song() -> Vec<f32> {
    common::click_song(RATE, 3.0, CLICK_S)
}

/// Mux `track` under 2 s of 30 fps video and decode its sound back: (samples of the first
/// channel from the start of the media, the edit list's media start).
fn mux_and_decode(name: &str, track: &odori_video::mp4::AudioTrack) -> (Vec<f32>, usize) {
    let path = std::env::temp_dir().join(format!("odori-sync-{name}-{}.mp4", std::process::id()));
    let mut v = Mp4Video::create(&path, 64, 48, 30).unwrap();
    let grey = vec![128u8; 64 * 48 * 4];
    for _ in 0..60 {
        v.push(&grey).unwrap();
    }
    v.finish(Some(track)).unwrap();
    let file = std::fs::read(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    common::played_sound(&file)
}

/// The click, rendered from `start_s`, plays within 1 ms of `CLICK_S - start_s`.
fn check(name: &str, track: odori_video::mp4::AudioTrack, start_s: f64) {
    let (decoded, skip) = mux_and_decode(name, &track);
    let want = ((CLICK_S - start_s) * RATE as f64) as i64;
    let raw = common::onset(&decoded) as i64;
    let played = raw - skip as i64;
    let ms = |n: i64| n as f64 * 1000.0 / RATE as f64;
    eprintln!(
        "{name}: click at {:.2} ms (want {:.2}); without the edit list {:.2} ms late",
        ms(played),
        ms(want),
        ms(raw - want)
    );
    assert!(
        (played - want).abs() <= RATE as i64 / 1000,
        "{name}: off by {:.2} ms",
        ms(played - want)
    );
    assert!(
        ms(raw - want) >= 20.0,
        "{name}: no codec delay to remove? ({:.2} ms)",
        ms(raw - want)
    );
}

#[test]
fn wav_click_lines_up() {
    let wav = common::wav(RATE, 2, &song());
    for start in [0.0, 0.5] {
        let track = audio::track(Path::new("click.wav"), wav.clone(), start, 2.0).unwrap();
        check(&format!("wav-from-{start}"), track, start);
    }
}

#[test]
fn mp3_click_lines_up() {
    let dir = std::env::temp_dir().join(format!("odori-sync-lame-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wav = dir.join("click.wav");
    let mp3 = dir.join("click.mp3");
    std::fs::write(&wav, common::wav(RATE, 2, &song())).unwrap();
    let made = std::process::Command::new("lame")
        .args(["--quiet", "-b", "192"])
        .arg(&wav)
        .arg(&mp3)
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        let _ = std::fs::remove_dir_all(&dir);
        if std::env::var_os("ODORI_REQUIRE_TOOLS").is_some_and(|v| v == "1") {
            panic!("lame is needed to make the test MP3 (apt-get install lame)");
        }
        eprintln!("SKIPPED: mp3_click_lines_up needs `lame` (apt-get install lame)");
        return;
    }
    for start in [0.0, 0.5, 0.75] {
        let track = audio::read(&mp3, start, 2.0).unwrap();
        check(&format!("mp3-from-{start}"), track, start);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
