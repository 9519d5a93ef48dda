//! A render drawn in chunks from a baked pose stream equals the render of the whole range in
//! one run. Evidence: the one-run render (pose, physics, drawing on one pipeline) is the
//! reference; Gene_light.pmx dancing wavefile_v2 with physics, a range that starts late (so
//! the physics pre-roll matters) split into chunks of uneven length, one of a single frame.
//! Every frame of every chunk is compared with the reference's frame at the same place, pixel
//! for pixel (the borders and inside), and the test fails if any frame was not compared or if
//! the frames do not change over the range (nothing to tell apart). The stream's file form
//! is read back to the same bytes, and a damaged file is refused with its byte offset. The
//! joined MP4 of a chunked render has every frame, an IDR at each join, one `stts` run, and
//! the soundtrack over the whole.

use odori_playback::chunked;
use odori_playback::load::ModelInput;
use odori_playback::pose_stream::PoseStream;
use odori_playback::render_job::{BackendChoice, Range, RenderJob};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

fn dir(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("chunks-{tag}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Gene × wavefile with physics, a short range from frame 400, drawn by the CPU rasteriser
/// (the same on every machine) at a small size.
fn job() -> Option<RenderJob> {
    let model = odori_testkit::shared("assets/gene/Gene_light.pmx")?;
    let motion = odori_testkit::shared("assets/wavefile/wavefile_v2.vmd")?;
    Some(RenderJob {
        models: vec![(ModelInput::Path(model), vec![motion])],
        size: Some((160, 120)),
        range: Some(Range::new(400.0, Some(412.0)).unwrap()),
        backend: BackendChoice::Cpu,
        ..RenderJob::default()
    })
}

fn png(path: &Path) -> Vec<u8> {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
        .into_raw()
}

#[test]
fn chunks_from_the_pose_stream_equal_the_one_run_render() {
    let Some(job) = job() else { return };
    let d = dir("pixels");
    let whole = d.join("whole/");
    let cancel = AtomicBool::new(false);
    let reference = RenderJob {
        output: whole.clone(),
        ..job.clone()
    };
    let report = reference
        .prepare(&mut |_| {})
        .unwrap()
        .run(&|| {}, &cancel)
        .unwrap();
    assert_eq!(report.frames, 13);
    let stream = chunked::bake(&job, &mut |_| {}, &|| {}, &cancel).unwrap();
    assert_eq!(stream.len(), 13);

    // The file form: read back, the same bytes; drawn from, the same frames (below).
    let file = d.join("poses.odoriposes");
    stream.write(&file).unwrap();
    let read = PoseStream::read(&file).unwrap();
    assert_eq!(read.to_bytes(), stream.to_bytes());
    let stream = Arc::new(read);

    let runs = [(0, 5), (5, 1), (6, 7)];
    let mut compared = 0;
    for (i, &(first, count)) in runs.iter().enumerate() {
        let out = d.join(format!("chunk{i}/"));
        let r = chunked::render_chunk(&job, stream.clone(), first, count, &out, &|| {}, &cancel)
            .unwrap();
        assert_eq!(r.frames, count);
        for k in 0..count {
            let got = png(&out.join(format!("frame_{k:05}.png")));
            let want = png(&whole.join(format!("frame_{:05}.png", first + k)));
            assert!(
                got == want,
                "chunk {i}: its frame {k} differs from the one-run frame {}",
                first + k
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 13, "every frame of the range was compared");
    assert_ne!(
        png(&whole.join("frame_00000.png")),
        png(&whole.join("frame_00012.png")),
        "the frames change over the range"
    );
}

#[test]
fn a_damaged_stream_is_refused_with_its_offset() {
    let Some(job) = job() else { return };
    let job = RenderJob {
        range: Some(Range::new(0.0, Some(2.0)).unwrap()),
        ..job
    };
    let stream = chunked::bake(&job, &mut |_| {}, &|| {}, &AtomicBool::new(false)).unwrap();
    let bytes = stream.to_bytes();
    let name = Path::new("poses.odoriposes");
    let e = PoseStream::from_bytes(&bytes[..bytes.len() - 1], name)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("poses.odoriposes") && e.contains("byte ") && e.contains("3 frames"),
        "{e}"
    );
    let mut bad = bytes.clone();
    bad[0] = b'X';
    let e = PoseStream::from_bytes(&bad, name)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("byte 0") && e.contains("magic"), "{e}");
    // A stream drawn for another range is refused by name.
    let other = RenderJob {
        range: Some(Range::new(1.0, Some(3.0)).unwrap()),
        ..job.clone()
    };
    let d = dir("refused");
    let e = chunked::render_chunk(
        &other,
        Arc::new(stream),
        0,
        1,
        &d.join("x/"),
        &|| {},
        &AtomicBool::new(false),
    )
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("pose stream"), "{e}");
}

#[test]
fn a_chunked_mp4_is_whole_with_an_idr_at_each_join() {
    let Some(job) = job() else { return };
    let d = dir("mp4");
    let out = d.join("chunked.mp4");
    let wav = d.join("song.wav");
    // One second of quiet stereo 44.1 kHz PCM: the soundtrack muxed over the whole.
    let mut w = Vec::new();
    let data = vec![0u8; 44_100 * 4 * 20];
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    for v in [16u32, 0x0002_0001, 44_100, 44_100 * 4, 0x0010_0004] {
        w.extend_from_slice(&v.to_le_bytes());
    }
    w.extend_from_slice(b"data");
    w.extend_from_slice(&(data.len() as u32).to_le_bytes());
    w.extend_from_slice(&data);
    std::fs::write(&wav, w).unwrap();
    let job = RenderJob {
        output: out.clone(),
        audio: Some(wav),
        ..job
    };
    let report =
        chunked::render_chunked(&job, 3, &mut |_| {}, &|| {}, &AtomicBool::new(false)).unwrap();
    assert_eq!((report.frames, report.chunks), (13, 3));
    let file = std::fs::read(&out).unwrap();
    let tracks = odori_video::probe::tracks(&file);
    let video = tracks.iter().find(|t| &t.handler == b"vide").unwrap();
    assert_eq!(video.samples, 13);
    assert_eq!(video.time_runs, [(13, 3000)]);
    let sync = video.sync_samples.as_ref().unwrap();
    for join in [1, 6, 10] {
        assert!(sync.contains(&join), "an IDR at sample {join}: {sync:?}");
    }
    let sound = tracks.iter().find(|t| &t.handler == b"soun").unwrap();
    let (played_ms, _) = sound.edit.unwrap();
    assert_eq!(played_ms, 433, "13 frames at 30 fps of sound");
    let left: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left.len(),
        2,
        "only the song and the video are left: {left:?}"
    );
}
