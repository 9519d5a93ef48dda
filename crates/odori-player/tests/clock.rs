//! The picture locked to the sound, with a simulated sound card (CI has none): a device whose
//! crystal runs 0.5 % fast, reporting once per 1024-sample period (23 ms, longer than a 60 Hz
//! display frame) with 60 ms of latency. The evidence is the device's own record of what it
//! plays at each instant (`SimDevice::heard`, computed from its settings, independent of the
//! clock under test). Two controls show the scenario would catch a wrong clock: the system
//! clock alone drifts more than a display frame from the sound in 10 s, and the device's
//! raw reports lag by more than a display frame between periods.

use odori_player::audio::PlaybackClock;
use odori_player::audio::sim::{SimDevice, SimSettings};

const DISPLAY: f64 = 1.0 / 60.0;

fn device() -> SimDevice {
    SimDevice::new(SimSettings {
        rate: 1.005,
        period: 1024.0 / 44_100.0,
        latency: 0.060,
        length: 300.0,
    })
}

/// Show frames at 60 Hz from timeline second `from` for `seconds`; the largest gap between
/// the picture and the sound over the frames where sound is heard, and how many those were.
fn play(clock: &mut PlaybackClock, dev: &SimDevice, from: f64, seconds: f64) -> (f64, usize) {
    let mut worst = 0.0f64;
    let mut compared = 0;
    let frames = (seconds / DISPLAY).round() as usize;
    for k in 1..=frames {
        let t = from + k as f64 * DISPLAY;
        dev.set_now(t);
        let shown = clock.position(t);
        if let Some(heard) = dev.heard() {
            worst = worst.max((shown - heard).abs());
            compared += 1;
        }
    }
    (worst, compared)
}

#[test]
fn picture_stays_within_a_display_frame_of_the_sound() {
    let dev = device();
    let mut clock = PlaybackClock::new(Some(Box::new(dev.output())));
    dev.set_now(0.0);
    clock.play(0.0);
    let (worst, compared) = play(&mut clock, &dev, 0.0, 10.0);
    // Sound is heard after the latency: all but the first few frames are compared.
    assert!(compared >= 590, "only {compared} frames compared");
    let t = 10.0;
    let (shown, heard) = (clock.position(t), dev.heard().expect("playing"));
    println!("after 10 s: picture {shown:.4} s, sound {heard:.4} s; worst gap {worst:.5} s");
    assert!((shown - heard).abs() < DISPLAY, "{shown} vs {heard}");
    assert!(worst < DISPLAY, "worst gap {worst} s");
    // The sound card's clock, not the system's: 10 s of system time is 10.05 s of song.
    assert!(heard > 10.0 + 0.04 - 0.06, "{heard}");

    // Control 1: the system clock alone, with the same device, drifts from the sound by more
    // than a frame between second 1 and second 10 (no fixed offset could hide that).
    let dev2 = device();
    let mut out2 = dev2.output();
    use odori_player::audio::AudioOutput;
    dev2.set_now(0.0);
    out2.play(0.0, 1.0);
    let mut wall = PlaybackClock::new(None);
    wall.play(0.0);
    let mut gap = |t: f64| {
        dev2.set_now(t);
        wall.position(t) - dev2.heard().unwrap()
    };
    let drift = (gap(10.0) - gap(1.0)).abs();
    assert!(
        drift > DISPLAY,
        "the scenario does not tell clocks apart: {drift}"
    );
    // Control 2: the device's last report, not carried forward, lags by more than a frame
    // just before the next period.
    let mut lag = 0.0f64;
    for k in 0..2000 {
        let t = 5.0 + k as f64 * 0.0005;
        dev2.set_now(t);
        let (reported, _) = out2.position().unwrap();
        lag = lag.max(dev2.heard().unwrap() - reported);
    }
    assert!(lag > DISPLAY, "reports alone would do: {lag}");
}

#[test]
fn pause_and_seek_keep_picture_and_sound_together() {
    let dev = device();
    let mut clock = PlaybackClock::new(Some(Box::new(dev.output())));
    dev.set_now(0.0);
    clock.play(0.0);
    play(&mut clock, &dev, 0.0, 5.0);

    // Pause: the picture stops where it is and the sound stops.
    clock.pause(5.0);
    let at = clock.position(5.0);
    dev.set_now(7.0);
    assert_eq!(clock.position(7.0), at, "the picture moved while paused");
    assert_eq!(dev.heard(), None, "the sound plays on while paused");

    // Resume: locked again, from where it stopped.
    clock.play(7.0);
    let (worst, compared) = play(&mut clock, &dev, 7.0, 3.0);
    assert!(
        compared > 170 && worst < DISPLAY,
        "{compared} frames, worst {worst}"
    );
    let resumed = clock.position(10.0);
    assert!((resumed - (at + 3.0)).abs() < 0.1, "{resumed} vs {at} + 3");

    // Seek while playing: both jump, and stay together.
    clock.seek(30.0, 10.0);
    let (worst, compared) = play(&mut clock, &dev, 10.0, 2.0);
    assert!(
        compared > 110 && worst < DISPLAY,
        "{compared} frames, worst {worst}"
    );
    let p = clock.position(12.0);
    assert!((p - 32.0).abs() < 0.1, "{p}");

    // Seek while paused: the picture shows the new place at once; sound waits for play.
    clock.pause(12.0);
    clock.seek(3.0, 12.0);
    assert_eq!(clock.position(12.5), 3.0);
    assert_eq!(dev.heard(), None);
}

/// At ×1.5 and ×0.5 the sound plays on (resampled) and still drives the picture: after 10 s
/// at each speed the picture is within a display frame of what the device plays, and the song
/// moved by speed × 10 s of the device's (fast) clock. Evidence: the simulated device's own
/// record at its speed (`SimDevice::heard`). Control: the system clock scaled by the speed
/// drifts by more than a display frame from that device over the same 10 s.
#[test]
fn at_other_speeds_the_sound_still_drives_the_picture() {
    for speed in [1.5, 0.5] {
        let dev = device();
        let mut clock = PlaybackClock::new(Some(Box::new(dev.output())));
        dev.set_now(0.0);
        clock.play(0.0);
        play(&mut clock, &dev, 0.0, 2.0);
        clock.set_speed(speed, 2.0);
        let from = clock.position(2.0);
        let (worst, compared) = play(&mut clock, &dev, 2.0, 10.0);
        let (shown, heard) = (clock.position(12.0), dev.heard().expect("playing"));
        println!(
            "×{speed}: after 10 s picture {shown:.4} s, sound {heard:.4} s, worst gap {worst:.5} s"
        );
        assert!(compared >= 590, "×{speed}: only {compared} frames compared");
        assert!(worst < DISPLAY, "×{speed}: worst gap {worst} s");
        let moved = heard - from;
        let want = 10.0 * 1.005 * speed;
        // Less the restart's latency (60 ms of device time at the new speed).
        assert!(
            (moved - want).abs() < 0.06 * speed + DISPLAY,
            "×{speed}: the song moved {moved} s, not {want}"
        );
        // Control: the system clock at this speed, from the same place, drifts from it.
        let mut wall = PlaybackClock::new(None);
        wall.seek(from, 2.0);
        wall.set_speed(speed, 2.0);
        wall.play(2.0);
        let gap = |t: f64, wall: &mut PlaybackClock| {
            dev.set_now(t);
            wall.position(t) - dev.heard().unwrap()
        };
        let drift = (gap(12.0, &mut wall) - gap(3.0, &mut wall)).abs();
        assert!(
            drift > DISPLAY,
            "×{speed}: the scenario does not tell clocks apart: {drift}"
        );
    }
}

#[test]
fn without_sound_the_system_clock_runs_at_the_chosen_speed() {
    let mut clock = PlaybackClock::new(None);
    assert!(!clock.has_audio());
    clock.play(1.0);
    assert!((clock.position(3.0) - 2.0).abs() < 1e-12);
    clock.set_speed(0.5, 3.0);
    assert!((clock.position(5.0) - 3.0).abs() < 1e-12);
    clock.pause(5.0);
    assert_eq!(clock.position(9.0), 3.0);
}

#[test]
fn past_the_song_end_the_picture_runs_on() {
    // A 2 s song: after it, the picture goes on at the system clock's pace from where the
    // sound stopped, not from where the system clock alone would be.
    let dev = SimDevice::new(SimSettings {
        length: 2.0,
        ..SimSettings {
            rate: 1.005,
            period: 0.02,
            latency: 0.05,
            length: 0.0,
        }
    });
    let mut clock = PlaybackClock::new(Some(Box::new(dev.output())));
    dev.set_now(0.0);
    clock.play(0.0);
    play(&mut clock, &dev, 0.0, 3.0);
    let p3 = clock.position(3.0);
    dev.set_now(4.0);
    let p4 = clock.position(4.0);
    assert!((p4 - p3 - 1.0).abs() < 1e-9, "{p3} → {p4}");
    assert!(p3 > 2.9 && p3 < 3.1, "{p3}");
}
