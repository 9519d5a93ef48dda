//! Video output for `odori render`: RGBA frames in, a playable MP4 out.
//!
//! H.264 comes from OpenH264 built into the binary ([`h264`]), muxed by a small MP4 writer of
//! our own ([`mp4`]). Sound: an MP3 is stored as it is (players handle MP3 in MP4); a WAV is
//! stored as 16-bit PCM (`sowt`: VLC, mpv, QuickTime and ffmpeg-based players; browsers
//! do not), so an MP3 soundtrack is the portable choice. [`probe`] reads a file back for
//! checks.

pub mod audio;
pub mod h264;
pub mod mp4;
pub mod probe;

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    #[error("{0}")]
    Encoder(String),
    #[error("audio: {0}")]
    Audio(#[from] audio::AudioError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// An MP4 being written frame by frame.
pub struct Mp4Video {
    encoder: h264::H264Encoder,
    writer: mp4::Mp4Writer<BufWriter<File>>,
}

impl Mp4Video {
    /// `width` and `height` must be even.
    pub fn create(path: &Path, width: u32, height: u32, fps: u32) -> Result<Mp4Video, VideoError> {
        let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
        Ok(Mp4Video {
            encoder: h264::H264Encoder::new(width, height, fps).map_err(VideoError::Encoder)?,
            writer: mp4::Mp4Writer::new(file, width, height, fps)?,
        })
    }

    /// Encode and append one RGBA8 frame (rows top to bottom).
    pub fn push(&mut self, rgba: &[u8]) -> Result<(), VideoError> {
        let bits = self.encoder.encode(rgba).map_err(VideoError::Encoder)?;
        self.writer.write_frame(&bits)?;
        Ok(())
    }

    /// Add the audio track (if any) and the index.
    pub fn finish(self, audio: Option<&mp4::AudioTrack>) -> Result<(), VideoError> {
        self.writer.finish(audio)?;
        Ok(())
    }
}
