//! The writer thread that feeds the sound device (`audio::stream`), on a simulated card that
//! plays in real time at its sample rate from a 60 ms buffer, as ALSA's blocking writes do.
//! The evidence is the card's own log: which samples it was given, how many it played out and
//! how many were thrown away by a flush.
//!
//! - At the song's end every frame reaches the speaker (none of the last buffered ~60 ms is
//!   dropped), and the position is reported while it plays out.
//! - At ×2 and ×0.5 the card gets the song resampled: every second frame, or each frame and
//!   the midpoints between frames.
//! - A card that fails its writes mid-song (unplugged): the stream says why, and a clock it
//!   drove goes on from where it was, silent, on the timeline.

use odori_player::audio::stream::{PcmDevice, Stream};
use odori_player::audio::{AudioOutput, PlaybackClock, Timeline};
use odori_video::audio::Pcm;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Default)]
struct Log {
    /// Every sample written, in order.
    samples: Vec<i16>,
    /// Frames played out, and frames dropped by flushes.
    heard: i64,
    dropped: i64,
}

/// A card consuming `rate` frames a second from a buffer of `capacity` frames.
struct Card {
    rate: f64,
    capacity: i64,
    channels: usize,
    written: i64,
    /// Frames heard before `started`, and when the card last started playing.
    base: i64,
    started: Option<Instant>,
    log: Arc<Mutex<Log>>,
    /// Frames taken before every write fails, as ALSA's do once the card is unplugged and
    /// recovery fails (`-ENODEV`).
    fail_after: Option<usize>,
    taken: usize,
}

impl Card {
    fn heard(&self) -> i64 {
        match self.started {
            None => self.base,
            Some(t) => {
                (self.base + (t.elapsed().as_secs_f64() * self.rate) as i64).min(self.written)
            }
        }
    }

    fn note(&self) {
        self.log.lock().unwrap().heard = self.heard();
    }
}

impl PcmDevice for Card {
    fn write(&mut self, samples: &[i16], frames: usize) -> Result<usize, i32> {
        if self.fail_after.is_some_and(|n| self.taken >= n) {
            return Err(-19);
        }
        if self.heard() >= self.written {
            // Idle or run dry: it starts again with this write.
            self.base = self.written;
            self.started = Some(Instant::now());
        }
        let free = loop {
            let free = self.capacity - (self.written - self.heard());
            if free > 0 {
                break free;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        let n = (free as usize).min(frames);
        self.written += n as i64;
        self.taken += n;
        let mut log = self.log.lock().unwrap();
        log.samples.extend_from_slice(&samples[..n * self.channels]);
        drop(log);
        self.note();
        Ok(n)
    }

    fn delay(&mut self) -> Option<i64> {
        self.note();
        Some(self.written - self.heard())
    }

    fn flush(&mut self) {
        let heard = self.heard();
        let mut log = self.log.lock().unwrap();
        log.heard = heard;
        log.dropped += self.written - heard;
        self.written = heard;
        self.base = heard;
        self.started = None;
    }
}

/// A mono song of `frames` frames at 44.1 kHz: sample i is i (mod 30000).
fn song(frames: usize) -> Arc<Pcm> {
    Arc::new(Pcm {
        sample_rate: 44_100,
        channels: 1,
        samples: (0..frames).map(|i| (i % 30_000) as i16).collect(),
    })
}

fn card(log: &Arc<Mutex<Log>>) -> Card {
    Card {
        rate: 44_100.0,
        capacity: 2_646, // 60 ms
        channels: 1,
        written: 0,
        base: 0,
        started: None,
        log: log.clone(),
        fail_after: None,
        taken: 0,
    }
}

/// Play `pcm` from 0 at `speed` until the position is no longer reported (the end); the last
/// position reported.
fn play_to_end(stream: &mut Stream, speed: f64) -> f64 {
    stream.play(0.0, speed);
    let start = Instant::now();
    let mut last = None;
    loop {
        match stream.position() {
            Some((p, _)) => last = Some(p),
            None if last.is_some() => break,
            None => {}
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the song never ended"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    last.unwrap()
}

#[test]
fn the_song_end_is_played_out_not_dropped() {
    let frames = 13_230; // 0.3 s
    let log = Arc::new(Mutex::new(Log::default()));
    let mut stream = Stream::start(card(&log), song(frames), Timeline::new(), "card".into())
        .expect("the thread starts");
    let last = play_to_end(&mut stream, 1.0);
    drop(stream);
    let log = log.lock().unwrap();
    println!(
        "heard {} of {frames} frames, dropped {}, last position {last:.4} s",
        log.heard, log.dropped
    );
    assert_eq!(log.samples.len(), frames, "every frame written once");
    assert_eq!(log.dropped, 0, "the end was cut");
    assert_eq!(log.heard, frames as i64);
    // Reported while the end plays out: on a quiet machine to within a poll (5 ms) of the
    // end; a loaded one may sleep through polls, so only past the halfway mark is held here.
    assert!(last > 0.15, "positions stopped at {last} s of 0.3 s");
}

#[test]
fn other_speeds_get_the_song_resampled() {
    let frames = 8_820; // 0.2 s
    let pcm = song(frames);
    for (speed, want) in [
        // ×2: every second frame.
        (
            2.0,
            (0..frames / 2)
                .map(|i| pcm.samples[2 * i])
                .collect::<Vec<_>>(),
        ),
        // ×0.5: each frame, then the midpoint to the next (rounded half away from zero).
        (
            0.5,
            (0..2 * frames - 1)
                .map(|k| {
                    let (i, half) = (k / 2, k % 2 == 1);
                    let a = pcm.samples[i] as f64;
                    let b = pcm.samples[(i + 1).min(frames - 1)] as f64;
                    if half {
                        ((a + b) / 2.0).round() as i16
                    } else {
                        a as i16
                    }
                })
                .collect(),
        ),
    ] {
        let log = Arc::new(Mutex::new(Log::default()));
        let mut stream = Stream::start(card(&log), pcm.clone(), Timeline::new(), "card".into())
            .expect("the thread starts");
        play_to_end(&mut stream, speed);
        drop(stream);
        let log = log.lock().unwrap();
        let got = &log.samples;
        // The last output frame may fall on the song's final frame or just past it.
        assert!(
            got.len().abs_diff(want.len()) <= 1,
            "×{speed}: {} frames written, {} wanted",
            got.len(),
            want.len()
        );
        let n = got.len().min(want.len());
        assert_eq!(got[..n], want[..n], "×{speed}");
        assert_eq!(log.dropped, 0, "×{speed}");
    }
}

#[test]
fn a_lost_device_is_said_and_the_clock_runs_on_silent() {
    let log = Arc::new(Mutex::new(Log::default()));
    let timeline = Timeline::new();
    let lost_card = Card {
        fail_after: Some(13_230),
        ..card(&log)
    };
    let stream = Stream::start(lost_card, song(441_000), timeline, "card".into()).unwrap();
    let mut clock = PlaybackClock::new(Some(Box::new(stream)));
    clock.play(timeline.now());
    let start = Instant::now();
    let mut last = 0.0;
    let (why, at_loss) = loop {
        let now = timeline.now();
        if let Some(why) = clock.take_lost(now) {
            break (why, (clock.position(now), now));
        }
        let p = clock.position(now);
        assert!(p >= last, "the clock went back: {last} → {p}");
        last = p;
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the failing card was never said to be lost"
        );
        std::thread::sleep(Duration::from_millis(1));
    };
    eprintln!("lost at song second {:.3}: {why}", at_loss.0);
    assert!(why.contains("error -19"), "{why}");
    assert!(!clock.has_audio(), "the lost device is let go");
    assert!(clock.take_lost(timeline.now()).is_none(), "said once");
    // 0.3 s of song was taken (0.24 s of it heard before the card's 60 ms buffer).
    assert!((0.2..0.5).contains(&at_loss.0), "{at_loss:?}");
    // From there it runs on the timeline at speed 1, without a jump.
    std::thread::sleep(Duration::from_millis(300));
    let now = timeline.now();
    let p = clock.position(now);
    let expected = at_loss.0 + (now - at_loss.1);
    assert!(
        (p - expected).abs() < 1e-9,
        "silent clock at {p}, the timeline says {expected}"
    );
    assert!(clock.is_playing());
}
