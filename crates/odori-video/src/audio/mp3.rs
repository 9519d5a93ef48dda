//! An MP3 soundtrack: its frames go into the MP4 as they are, cut to the rendered range, with
//! the edit list skipping the codec delay so that song sample 0 plays with frame 0.

use super::decode::Source;
use super::{AudioError, Range};
use crate::mp4::{AudioTrack, Edit};
use std::path::Path;

/// What every MP3 decoder outputs before the first encoded sample (the polyphase synthesis
/// filter bank's delay): 528 + 1 samples, the figure LAME, ffmpeg and symphonia use. A file
/// with a LAME/Xing tag reports this plus its encoder delay; one without is given this alone.
pub(crate) const DECODER_DELAY: u32 = 529;

/// Frames kept before the range's first sample: layer III frames borrow bits from earlier
/// ones (the bit reservoir, up to 511 bytes back) and overlap the previous frame in the
/// inverse MDCT, so a decoder needs a few frames of run-up to make the first one right.
const RUN_UP_FRAMES: u64 = 3;

pub(crate) fn cut(
    path: &Path,
    source: &mut Source,
    range: Range,
) -> Result<AudioTrack, AudioError> {
    let rate = source.sample_rate();
    let channels = source.channels();
    let delay = source.encoder_delay().unwrap_or(DECODER_DELAY) as u64;
    // In decoder output samples: where song sample `start` comes out, and how many we want.
    let start = (range.start_s * rate as f64).round() as u64 + delay;
    let count = (range.len_s * rate as f64).round() as u64;
    let mut frames = Vec::new();
    let mut first_ts = None;
    let mut samples_per_frame = 1152;
    let mut end = 0;
    while let Some(packet) = source.next_packet(path)? {
        // Positions in the decoder's raw output: the reader's gapless trimming moves `ts`
        // and shortens `dur`, which a copied frame does not get.
        let ts = end;
        let raw = packet.dur + u64::from(packet.trim_start) + u64::from(packet.trim_end);
        samples_per_frame = raw.max(1);
        end = ts + raw;
        if end + RUN_UP_FRAMES * samples_per_frame <= start {
            continue;
        }
        if ts >= start + count {
            break;
        }
        first_ts.get_or_insert(ts);
        frames.push(packet.data.into_vec());
    }
    let Some(first_ts) = first_ts.filter(|_| end > start) else {
        return Err(AudioError::EndsBeforeRange {
            path: path.to_path_buf(),
            length_s: end.saturating_sub(delay) as f64 / rate as f64,
            start_s: range.start_s,
        });
    };
    Ok(AudioTrack::Mpeg {
        sample_rate: rate,
        channels,
        samples_per_frame: samples_per_frame as u32,
        frames,
        edit: Edit {
            skip: start - first_ts,
            duration: count.min(end - start),
        },
    })
}
