//! Opening a soundtrack with symphonia and decoding the rendered part of it to 16-bit PCM.

use super::{AudioError, claims, looks_like};
use std::path::Path;
use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{CODEC_TYPE_MP3, CODEC_TYPE_NULL, CodecParameters, DecoderOptions};
use symphonia::core::errors::Error as SymphoniaError;
use symphonia::core::formats::{FormatOptions, FormatReader, Packet};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

/// The part of the song that goes with the rendered frames.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Range {
    pub start_s: f64,
    pub len_s: f64,
}

/// An opened soundtrack: its container read packet by packet.
pub(crate) struct Source {
    reader: Box<dyn FormatReader>,
    track_id: u32,
    params: CodecParameters,
}

/// Interleaved 16-bit samples, one or two channels.
#[derive(Debug, Clone)]
pub struct Pcm {
    pub sample_rate: u32,
    pub channels: u16,
    pub samples: Vec<i16>,
}

impl Source {
    pub fn open(path: &Path, bytes: Vec<u8>) -> Result<Source, AudioError> {
        let not_audio = |looks_like| AudioError::NotAudio {
            path: path.to_path_buf(),
            looks_like,
        };
        // A model, motion or image can hold a byte pattern an MP3 reader takes for a frame
        // header: what is recognisably something else is refused before probing.
        if let Some(what) = looks_like(&bytes) {
            return Err(not_audio(Some(what)));
        }
        if let Some(message) = claims::overclaim(&bytes) {
            return Err(AudioError::Decode {
                path: path.to_path_buf(),
                message,
            });
        }
        let mut hint = Hint::new();
        if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
            hint.with_extension(ext);
        }
        let stream =
            MediaSourceStream::new(Box::new(std::io::Cursor::new(bytes)), Default::default());
        let options = FormatOptions {
            enable_gapless: true,
            ..Default::default()
        };
        let probed = guarded(path, "container reader", || {
            symphonia::default::get_probe().format(
                &hint,
                stream,
                &options,
                &MetadataOptions::default(),
            )
        })?
        .map_err(|_| not_audio(None))?;
        let reader = probed.format;
        let track = reader
            .tracks()
            .iter()
            .find(|t| {
                t.codec_params.codec != CODEC_TYPE_NULL && t.codec_params.sample_rate.is_some()
            })
            .ok_or_else(|| not_audio(None))?;
        Ok(Source {
            track_id: track.id,
            params: track.codec_params.clone(),
            reader,
        })
    }

    pub fn is_mp3(&self) -> bool {
        self.params.codec == CODEC_TYPE_MP3
    }

    pub fn sample_rate(&self) -> u32 {
        self.params.sample_rate.unwrap_or(44_100)
    }

    pub fn channels(&self) -> u16 {
        self.params.channels.map_or(2, |c| c.count() as u16)
    }

    /// Samples the encoder put before the song (from the LAME tag), when the file says.
    pub fn encoder_delay(&self) -> Option<u32> {
        self.params.delay
    }

    /// The next packet of the soundtrack's track; `None` at its end.
    pub fn next_packet(&mut self, path: &Path) -> Result<Option<Packet>, AudioError> {
        loop {
            let reader = &mut self.reader;
            match guarded(path, "container reader", || reader.next_packet())? {
                Ok(p) if p.track_id() == self.track_id => return Ok(Some(p)),
                Ok(_) => continue,
                Err(SymphoniaError::IoError(e))
                    if e.kind() == std::io::ErrorKind::UnexpectedEof =>
                {
                    return Ok(None);
                }
                Err(SymphoniaError::ResetRequired) => return Ok(None),
                Err(e) => {
                    return Err(AudioError::Decode {
                        path: path.to_path_buf(),
                        message: e.to_string(),
                    });
                }
            }
        }
    }

    /// Decode the part of the song in `range`, as one or two channels (more are cut to the
    /// first two, MMD's soundtracks being stereo).
    pub fn decode_range(&mut self, path: &Path, range: Range) -> Result<Pcm, AudioError> {
        let decode_error = |e: SymphoniaError| AudioError::Decode {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let mut decoder = symphonia::default::get_codecs()
            .make(&self.params, &DecoderOptions::default())
            .map_err(decode_error)?;
        let rate = self.sample_rate();
        let channels = self.channels().clamp(1, 2);
        let first = (range.start_s * rate as f64).round() as u64;
        let count = (range.len_s * rate as f64).round() as u64;
        let mut samples = Vec::with_capacity((count as usize).min(1 << 26) * channels as usize);
        let mut at = 0u64; // song frames decoded so far
        let mut buffer: Option<SampleBuffer<i16>> = None;
        while at < first + count {
            let Some(packet) = self.next_packet(path)? else {
                break;
            };
            let decoded = match guarded(path, "decoder", || decoder.decode(&packet))? {
                Ok(d) => d,
                // A damaged packet: players skip it and so do we.
                Err(SymphoniaError::DecodeError(_)) => continue,
                Err(e) => return Err(decode_error(e)),
            };
            let spec = *decoded.spec();
            let frames = decoded.frames() as u64;
            if at + frames > first {
                let buf = match &mut buffer {
                    Some(b) if b.capacity() >= decoded.capacity() * spec.channels.count() => b,
                    _ => buffer.insert(SampleBuffer::new(decoded.capacity() as u64, spec)),
                };
                buf.copy_interleaved_ref(decoded);
                let all = spec.channels.count().max(1);
                let from = first.saturating_sub(at) as usize;
                let to = ((first + count - at).min(frames)) as usize;
                for frame in buf.samples().chunks_exact(all).take(to).skip(from) {
                    samples.extend_from_slice(&frame[..channels.min(all as u16) as usize]);
                    if all == 1 && channels == 2 {
                        samples.push(frame[0]);
                    }
                }
            }
            at += frames;
        }
        if at <= first && count > 0 {
            return Err(AudioError::EndsBeforeRange {
                path: path.to_path_buf(),
                length_s: at as f64 / rate as f64,
                start_s: range.start_s,
            });
        }
        Ok(Pcm {
            sample_rate: rate,
            channels,
            samples,
        })
    }
}

/// Run a call into symphonia, whose demuxers and decoders are not hardened against every
/// damaged file (an AAC stream indexes past a 64-entry table in symphonia-codec-aac 0.5.5:
/// `fuzz/` found it): a panic inside one becomes this file's error, naming it, instead of
/// ending the process. The reader or decoder that panicked is not used again.
fn guarded<T>(path: &Path, what: &str, call: impl FnOnce() -> T) -> Result<T, AudioError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)).map_err(|_| AudioError::Decode {
        path: path.to_path_buf(),
        message: format!("the {what} failed on damaged data (a fault in symphonia, caught)"),
    })
}
