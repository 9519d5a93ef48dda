//! The offline pipeline's ends: an MP4 is written under a hidden name and renamed when done,
//! so a failed or abandoned render leaves nothing under the final name; a cancelled run
//! finishes a shorter, whole MP4 with the frames done so far.

use odori_playback::offline::{self, FrameRange, Skinning};
use odori_playback::sink::{FrameSink, Mp4Sink, part_path};
use odori_playback::{Player, PlayerOptions, Scene};
use odori_render::RenderOptions;
use odori_video::Encoder;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

fn dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("offline-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn files_in(d: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_unfinished_mp4_leaves_no_file_and_an_old_one_untouched() {
    let d = dir("unfinished");
    let out = d.join("clip.mp4");
    let pid = std::process::id();
    assert_eq!(part_path(&out), d.join(format!(".clip.mp4.{pid}.part")));
    let gray = vec![128u8; 32 * 32 * 4];

    let mut sink = Mp4Sink::create(Encoder::Builtin, &out, (32, 32), 30, None).unwrap();
    sink.push(&gray).unwrap();
    assert!(part_path(&out).exists(), "written under the hidden name");
    assert!(!out.exists(), "nothing under the final name until finished");
    drop(sink);
    assert_eq!(files_in(&d), Vec::<String>::new(), "dropped: nothing left");

    std::fs::write(&out, b"an older file").unwrap();
    let mut sink = Mp4Sink::create(Encoder::Builtin, &out, (32, 32), 30, None).unwrap();
    sink.push(&gray).unwrap();
    drop(sink);
    assert_eq!(std::fs::read(&out).unwrap(), b"an older file");

    let mut sink: Box<dyn FrameSink> =
        Box::new(Mp4Sink::create(Encoder::Builtin, &out, (32, 32), 30, None).unwrap());
    for _ in 0..3 {
        sink.push(&gray).unwrap();
    }
    sink.finish().unwrap();
    assert_eq!(files_in(&d), vec!["clip.mp4".to_string()]);
    let tracks = odori_video::probe::tracks(&std::fs::read(&out).unwrap());
    assert_eq!(tracks[0].samples, 3);
}

/// The demo through the pipeline at a small size, cancelled once `after` frames are written
/// (`after` 0: cancelled before it starts).
fn render_cancelled(tag: &str, after: usize) -> Option<(PathBuf, offline::RenderReport)> {
    let device = odori_render::device_for_tests();
    let d = dir(tag);
    let out = d.join("demo.mp4");
    let scene = Arc::new(Scene::demo());
    let options = RenderOptions {
        width: 64,
        height: 64,
        msaa: 1,
        ..Default::default()
    };
    let mut renderer = offline::renderer_for(&scene, device, options);
    let player = Player::new(scene, PlayerOptions::default());
    let range = FrameRange::new(0.0, 59.0, 30);
    let sink = Box::new(Mp4Sink::create(Encoder::Builtin, &out, (64, 64), 30, None).unwrap());
    let cancel = AtomicBool::new(after == 0);
    let done = AtomicUsize::new(0);
    let progress = || {
        if done.fetch_add(1, Ordering::Relaxed) + 1 == after {
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let report = offline::render(
        player,
        &mut renderer,
        Skinning::Cpu,
        range,
        sink,
        &progress,
        &cancel,
    )
    .unwrap();
    assert_eq!(report.requested, 60);
    assert!(!part_path(&out).exists(), "no hidden file left");
    Some((out, report))
}

#[test]
fn a_cancelled_render_finishes_a_shorter_mp4() {
    let Some((out, report)) = render_cancelled("cancel", 5) else {
        return;
    };
    assert!(report.cancelled(), "{report:?}");
    assert!(
        (5..60).contains(&report.frames),
        "the frames under way are finished, no more: {report:?}"
    );
    let bytes = std::fs::read(&out).unwrap();
    let tracks = odori_video::probe::tracks(&bytes);
    assert_eq!(tracks.len(), 1);
    assert_eq!(tracks[0].samples as usize, report.frames);
    let last = report.frames - 1;
    let (w, h, _) = odori_video::probe::decode_frame(&bytes, &tracks[0], last).unwrap();
    assert_eq!((w, h), (64, 64), "the last frame written decodes");
}

#[test]
fn cancelled_before_the_first_frame_writes_nothing() {
    let Some((out, report)) = render_cancelled("cancel-at-once", 0) else {
        return;
    };
    assert_eq!(report.frames, 0);
    assert!(report.cancelled());
    assert!(!out.exists());
}
