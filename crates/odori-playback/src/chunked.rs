//! One render in chunks: the poses of the whole range baked once (physics is sequential), the
//! range split into chunks drawn from them independently, each into an MP4 segment, and the
//! segments joined into the one MP4 with the soundtrack muxed once over the whole. The frames
//! are those of a render of the whole range in one run, pixel for pixel (a chunk draws from
//! the same poses); only the encoder's key frames differ (one starts each chunk).
//!
//! [`render_chunked`] runs the chunks on local threads (`odori render --chunks`); the steps
//! are public for front ends that spread the chunks further (Python's `odori.ray.render`):
//! [`bake`], [`render_chunk`], [`join`], with [`split`] saying which frames each chunk has.

use crate::error::PlaybackError;
use crate::output::RenderOutput;
use crate::pose_stream::PoseStream;
use crate::render_job::{EncoderChoice, Note, RenderJob};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

/// `frames` output frames split into `chunks` runs (first frame, count) as even as can be,
/// the longer ones first; fewer runs when there are fewer frames than chunks.
pub fn split(frames: usize, chunks: usize) -> Vec<(usize, usize)> {
    let chunks = chunks.clamp(1, frames.max(1));
    let (base, extra) = (frames / chunks, frames % chunks);
    let mut first = 0;
    (0..chunks)
        .map(|i| {
            let count = base + usize::from(i < extra);
            let run = (first, count);
            first += count;
            run
        })
        .filter(|r| r.1 > 0)
        .collect()
}

/// Bake `job`'s poses over its whole range (what every chunk draws from). Nothing is drawn
/// or written; the output path is only checked.
pub fn bake(
    job: &RenderJob,
    notes: &mut dyn FnMut(Note),
    progress: &dyn Fn(),
    cancel: &AtomicBool,
) -> Result<PoseStream, PlaybackError> {
    let quiet = RenderJob {
        audio: None,
        ..job.clone()
    };
    let prepared = quiet.prepare(notes)?;
    prepared
        .bake_poses(progress, cancel)
        .ok_or_else(|| PlaybackError::Option("cancelled while baking the poses".into()))
}

/// Draw output frames `first..first + count` of `job`'s range from `stream` into `segment`
/// (an MP4 of the built-in encoder, picture only, starting with an IDR frame; or a folder of
/// PNGs numbered from the chunk's first frame). `job` is the whole render's (its range,
/// size and drawing options); its output and soundtrack are not used.
pub fn render_chunk(
    job: &RenderJob,
    stream: Arc<PoseStream>,
    first: usize,
    count: usize,
    segment: &Path,
    progress: &(dyn Fn() + Sync),
    cancel: &AtomicBool,
) -> Result<crate::offline::RenderReport, PlaybackError> {
    let chunk = RenderJob {
        audio: None,
        output: segment.to_path_buf(),
        ..job.clone()
    };
    chunk
        .prepare(&mut |_| {})?
        .run_chunk(stream, first, count, progress, cancel)
}

/// Join `segments` into `job`'s output (an MP4), the soundtrack (if the job has one) cut to
/// the range and muxed once over the whole, as a render of the whole range does. Written
/// under [`crate::sink::part_path`] and renamed when whole.
pub fn join(
    job: &RenderJob,
    range: crate::offline::FrameRange,
    segments: &[PathBuf],
) -> Result<odori_video::segment::Joined, PlaybackError> {
    let out = &job.output;
    let part = crate::sink::part_path(out);
    let sound = job.audio.as_deref().map(|path| odori_video::Soundtrack {
        path,
        start_s: range.start as f64 / f64::from(odori_pose::FPS),
        length_s: range.count as f64 / job.fps as f64,
    });
    let joined = odori_video::segment::join(segments, &part, job.fps, sound.as_ref()).map_err(
        |e| match e {
            odori_video::VideoError::Audio(a) => PlaybackError::Soundtrack(a),
            source => PlaybackError::Video {
                path: out.clone(),
                source,
            },
        },
    )?;
    std::fs::rename(&part, out).map_err(|source| {
        let _ = std::fs::remove_file(&part);
        PlaybackError::Write {
            path: out.clone(),
            source,
        }
    })?;
    Ok(joined)
}

/// What a chunked render took: wall seconds per phase.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkedReport {
    pub frames: usize,
    pub chunks: usize,
    /// Loading and the pose stream (pose and physics of every frame, once).
    pub bake_s: f64,
    /// Every chunk drawn and encoded (they run at once).
    pub draw_s: f64,
    pub join_s: f64,
}

/// Render `job` (an MP4 with the built-in encoder) in `chunks` chunks on as many local
/// threads: [`bake`], then every chunk's [`render_chunk`] at once, then [`join`]. The
/// segments are written in a hidden folder beside the output and removed. `progress` is
/// called once per frame drawn (from the drawing threads).
pub fn render_chunked(
    job: &RenderJob,
    chunks: usize,
    notes: &mut dyn FnMut(Note),
    progress: &(dyn Fn() + Sync),
    cancel: &AtomicBool,
) -> Result<ChunkedReport, PlaybackError> {
    let output = crate::output::render(&job.output)?;
    if !matches!(output, RenderOutput::Mp4(_)) {
        return Err(PlaybackError::Option(format!(
            "{}: chunks are joined into an MP4; give NAME.mp4",
            job.names.name("chunks")
        )));
    }
    if job.encoder == EncoderChoice::Ffmpeg {
        return Err(PlaybackError::Option(format!(
            "{} cannot be joined without re-encoding; chunks use the built-in encoder",
            job.names.show("encoder", "ffmpeg")
        )));
    }
    if chunks == 0 {
        return Err(PlaybackError::Option(format!(
            "{}: give at least 1",
            job.names.show("chunks", 0)
        )));
    }
    if let Some(path) = &job.audio {
        odori_video::audio::check(path).map_err(PlaybackError::Soundtrack)?;
    }
    let began = Instant::now();
    let stream = Arc::new(bake(job, notes, &|| {}, cancel)?);
    let bake_s = began.elapsed().as_secs_f64();
    let runs = split(stream.len(), chunks);
    notes(Note::Info(format!(
        "chunks: {} poses baked in {bake_s:.1} s; drawing {} chunks of {:?} frames",
        stream.len(),
        runs.len(),
        runs.iter().map(|r| r.1).collect::<Vec<_>>()
    )));
    let folder = segment_folder(&job.output);
    std::fs::create_dir_all(&folder).map_err(|source| PlaybackError::Write {
        path: folder.clone(),
        source,
    })?;
    let segments: Vec<PathBuf> = (0..runs.len())
        .map(|i| folder.join(format!("chunk_{i:04}.mp4")))
        .collect();
    let drawn = Instant::now();
    let failed = AtomicUsize::new(usize::MAX);
    let results: Vec<Result<crate::offline::RenderReport, PlaybackError>> =
        std::thread::scope(|s| {
            let handles: Vec<_> = (runs.iter().zip(&segments).enumerate())
                .map(|(i, (&(first, count), seg))| {
                    let stream = stream.clone();
                    let failed = &failed;
                    s.spawn(move || {
                        let r = render_chunk(job, stream, first, count, seg, progress, cancel);
                        if r.is_err() {
                            failed.fetch_min(i, Ordering::Relaxed);
                            cancel.store(true, Ordering::Relaxed);
                        }
                        r
                    })
                })
                .collect();
            (handles.into_iter())
                .map(|h| h.join().expect("a chunk's thread panicked"))
                .collect()
        });
    let draw_s = drawn.elapsed().as_secs_f64();
    let outcome = (|| {
        for (r, &(first, count)) in results.into_iter().zip(&runs) {
            let report = r?;
            if report.frames != count {
                return Err(PlaybackError::Option(format!(
                    "cancelled: the chunk from frame {first} has {} of its {count} frames",
                    report.frames
                )));
            }
        }
        let joining = Instant::now();
        let joined = join(job, stream.range(), &segments)?;
        Ok((joined, joining.elapsed().as_secs_f64()))
    })();
    let _ = std::fs::remove_dir_all(&folder);
    let (joined, join_s) = outcome?;
    Ok(ChunkedReport {
        frames: joined.frames,
        chunks: runs.len(),
        bake_s,
        draw_s,
        join_s,
    })
}

/// `.NAME.chunks` beside the output: the segments, on the output's file system.
fn segment_folder(output: &Path) -> PathBuf {
    let name = output
        .file_name()
        .map_or_else(|| "odori.mp4".into(), |n| n.to_string_lossy().into_owned());
    output.with_file_name(format!(".{name}.chunks-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::split;

    /// Every frame in exactly one run, in order, lengths differing by at most one.
    #[test]
    fn split_covers_every_frame_once() {
        for frames in [0, 1, 2, 7, 100, 2810] {
            for chunks in [1, 2, 3, 8, 200] {
                let runs = split(frames, chunks);
                let mut next = 0;
                for &(first, count) in &runs {
                    assert_eq!(first, next);
                    assert!(count > 0);
                    next += count;
                }
                assert_eq!(next, frames, "{frames} frames in {chunks} chunks: {runs:?}");
                let (lo, hi) = (
                    runs.iter().map(|r| r.1).min(),
                    runs.iter().map(|r| r.1).max(),
                );
                assert!(hi.unwrap_or(0) - lo.unwrap_or(0) <= 1);
            }
        }
    }
}
