//! One video made in pieces. Each piece, a *segment*, is an MP4 of its own written by the
//! built-in encoder with no soundtrack ([`crate::Video::create`] with no sound): a fresh
//! encoder, so its first frame is an IDR and nothing in it refers to another segment, and its
//! timestamps start at 0. [`join`] copies the segments' H.264 samples, unchanged, one after
//! another into one MP4 (timestamps continuing from segment to segment) and muxes the
//! soundtrack once over the whole, cut, lined up (edit list) and ended with the last frame
//! exactly as a render of the whole range in one process does. Nothing is decoded or
//! re-encoded.

use crate::mp4::Mp4Writer;
use crate::{Soundtrack, VideoError, audio, probe};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// What [`join`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Joined {
    /// Frames in the joined video.
    pub frames: usize,
    /// Frames each segment gave, in order.
    pub segment_frames: Vec<usize>,
}

/// The media timescale of the built-in writer's video track (90 kHz, as MPEG).
const TIMESCALE: u32 = 90_000;

/// The joined file being written, the first segment's SPS/PPS (`avcC`) and picture size:
/// every later segment must match them.
type OpenJoin = (Mp4Writer<BufWriter<File>>, Vec<u8>, (u16, u16));

/// Join `segments` (in order) into `out` at `fps`, with `sound` (its `length_s` the whole
/// video's) muxed over the whole. Each segment must be an H.264 MP4 of the built-in encoder
/// at this frame rate and the first one's size and stream parameters (SPS, PPS), starting
/// with an IDR frame; a segment that is not is refused by name. On any error `out` is
/// removed.
pub fn join(
    segments: &[PathBuf],
    out: &Path,
    fps: u32,
    sound: Option<&Soundtrack<'_>>,
) -> Result<Joined, VideoError> {
    let result = write_joined(segments, out, fps, sound);
    if result.is_err() {
        let _ = std::fs::remove_file(out);
    }
    result
}

fn write_joined(
    segments: &[PathBuf],
    out: &Path,
    fps: u32,
    sound: Option<&Soundtrack<'_>>,
) -> Result<Joined, VideoError> {
    let refuse = |path: &Path, message: String| VideoError::Segment {
        path: path.to_path_buf(),
        message,
    };
    if segments.is_empty() {
        return Err(refuse(out, "no segments to join".into()));
    }
    // The soundtrack first: a bad audio file fails before anything is written.
    let mut track = match sound {
        Some(s) => Some(audio::read(s.path, s.start_s, s.length_s)?),
        None => None,
    };
    let frame_duration = TIMESCALE / fps.max(1);
    let mut writer: Option<OpenJoin> = None;
    let mut segment_frames = Vec::with_capacity(segments.len());
    let mut annex_b = Vec::new();
    for path in segments {
        let bytes = std::fs::read(path).map_err(|e| refuse(path, format!("cannot read: {e}")))?;
        let tracks = probe::tracks(&bytes);
        let video = match tracks.iter().find(|t| &t.handler == b"vide") {
            Some(v) if &v.codec == b"avc1" => v,
            Some(v) => {
                return Err(refuse(
                    path,
                    format!(
                        "the video track is {}, not H.264 (avc1)",
                        String::from_utf8_lossy(&v.codec)
                    ),
                ));
            }
            None => return Err(refuse(path, "not an MP4 with a video track".into())),
        };
        if tracks.len() != 1 {
            return Err(refuse(
                path,
                format!(
                    "a segment holds picture only, this file has {} tracks (the soundtrack is \
                     muxed once, when joining)",
                    tracks.len()
                ),
            ));
        }
        if video.timescale != TIMESCALE || video.time_runs != [(video.samples, frame_duration)] {
            return Err(refuse(
                path,
                format!(
                    "its frames are not {fps} fps in a {TIMESCALE} Hz timescale (timescale \
                     {}, runs {:?})",
                    video.timescale, video.time_runs
                ),
            ));
        }
        let size = (video.width, video.height);
        let (w, avcc, first_size) = match &mut writer {
            Some((w, avcc, s)) => (w, avcc, *s),
            None => {
                let file = BufWriter::with_capacity(1 << 20, File::create(out)?);
                let w = Mp4Writer::new(file, size.0 as u32, size.1 as u32, fps)?;
                let (w, avcc, s) = writer.insert((w, video.avcc().to_vec(), size));
                (w, avcc, *s)
            }
        };
        if size != first_size || video.avcc() != avcc.as_slice() {
            return Err(refuse(
                path,
                format!(
                    "made with other stream parameters than the first segment ({}x{} against \
                     {}x{}, or another SPS/PPS): segments of one video come from one encoder \
                     setting",
                    size.0, size.1, first_size.0, first_size.1
                ),
            ));
        }
        let count = video.samples as usize;
        for i in 0..count {
            let sample = video
                .sample(&bytes, i)
                .ok_or_else(|| refuse(path, format!("sample {i} lies outside the file")))?;
            let idr = to_annex_b(sample, &mut annex_b)
                .map_err(|m| refuse(path, format!("sample {i}: {m}")))?;
            if i == 0 && !idr {
                return Err(refuse(
                    path,
                    "its first frame is not an IDR frame: a segment must start one".into(),
                ));
            }
            let before = w.frame_count();
            w.write_frame(&annex_b)?;
            if w.frame_count() != before + 1 {
                return Err(refuse(path, format!("sample {i} holds no picture")));
            }
        }
        segment_frames.push(count);
    }
    let (w, _, _) = writer.expect("at least one segment was read");
    let frames = w.frame_count();
    if let Some(t) = track.as_mut() {
        t.truncate(frames as f64 / fps.max(1) as f64);
    }
    w.finish(track.as_ref())?;
    Ok(Joined {
        frames,
        segment_frames,
    })
}

/// An MP4 H.264 sample (NAL units each after a 4-byte length) as Annex B (each after a start
/// code) into `out`; true when it holds an IDR slice.
fn to_annex_b(sample: &[u8], out: &mut Vec<u8>) -> Result<bool, String> {
    out.clear();
    let mut idr = false;
    let mut at = 0;
    while at < sample.len() {
        let len = sample
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes(b.try_into().expect("four bytes")) as usize)
            .ok_or("a NAL length is cut off")?;
        let nal = sample
            .get(at + 4..at + 4 + len)
            .filter(|n| !n.is_empty())
            .ok_or_else(|| format!("a NAL unit of {len} bytes runs past the sample"))?;
        idr |= nal[0] & 0x1F == 5;
        out.extend_from_slice(&[0, 0, 0, 1]);
        out.extend_from_slice(nal);
        at += 4 + len;
    }
    Ok(idr)
}
