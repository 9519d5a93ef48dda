//! Video output for `odori render`: RGBA frames in, a playable MP4 out.
//!
//! H.264 comes from OpenH264 built into the binary ([`h264`]), muxed by a small MP4 writer of
//! our own ([`mp4`]). Sound ([`audio`]): an MP3 is stored as it is, anything else (WAV, OGG,
//! FLAC, AAC) is encoded to AAC in-process; both play in browsers and players, lined up with
//! the picture by an edit list. [`segment`] joins MP4s drawn in pieces into one without
//! re-encoding. [`probe`] reads a file back for checks.

pub mod audio;
pub mod ffmpeg;
pub mod h264;
pub mod mp4;
pub mod probe;
pub mod segment;

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum VideoError {
    #[error("{0}")]
    Encoder(String),
    #[error(transparent)]
    Audio(#[from] audio::AudioError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A segment that cannot be joined (the message says why).
    #[error("{}: {message}", path.display())]
    Segment {
        path: std::path::PathBuf,
        message: String,
    },
}

/// An MP4 being written frame by frame.
pub struct Mp4Video {
    encoder: h264::H264Encoder,
    writer: mp4::Mp4Writer<BufWriter<File>>,
    fps: u32,
}

impl Mp4Video {
    /// `width` and `height` must be even.
    pub fn create(path: &Path, width: u32, height: u32, fps: u32) -> Result<Mp4Video, VideoError> {
        let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
        Ok(Mp4Video {
            encoder: h264::H264Encoder::new(width, height, fps).map_err(VideoError::Encoder)?,
            writer: mp4::Mp4Writer::new(file, width, height, fps)?,
            fps,
        })
    }

    /// Encode and append one RGBA8 frame (rows top to bottom).
    pub fn push(&mut self, rgba: &[u8]) -> Result<(), VideoError> {
        let bits = self.encoder.encode(rgba).map_err(VideoError::Encoder)?;
        self.writer.write_frame(&bits)?;
        Ok(())
    }

    /// Frames written so far.
    pub fn frame_count(&self) -> usize {
        self.writer.frame_count()
    }

    /// Seconds of video written so far.
    pub fn seconds(&self) -> f64 {
        self.frame_count() as f64 / self.fps.max(1) as f64
    }

    /// Add the audio track (if any) and the index.
    pub fn finish(self, audio: Option<&mp4::AudioTrack>) -> Result<(), VideoError> {
        self.writer.finish(audio)?;
        Ok(())
    }
}

/// Which H.264 encoder writes an MP4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoder {
    /// OpenH264 in-process and our muxer (always available).
    Builtin,
    /// An `ffmpeg` process (libx264; WAV/MP3 audio encoded to AAC).
    Ffmpeg,
}

/// A soundtrack file and the part of it that goes with the rendered frames.
pub struct Soundtrack<'a> {
    pub path: &'a Path,
    pub start_s: f64,
    pub length_s: f64,
}

/// An MP4 being written by either encoder.
pub enum Video {
    Builtin {
        /// Boxed: the encoder state is large, the ffmpeg variant a pipe.
        mp4: Box<Mp4Video>,
        audio: Option<mp4::AudioTrack>,
    },
    Ffmpeg(ffmpeg::FfmpegVideo),
}

impl Video {
    /// Start writing `path`. The soundtrack is read (built-in) or handed to ffmpeg now, so a
    /// bad audio file fails before any frame is rendered.
    pub fn create(
        encoder: Encoder,
        path: &Path,
        width: u32,
        height: u32,
        fps: u32,
        sound: Option<&Soundtrack<'_>>,
    ) -> Result<Video, VideoError> {
        match encoder {
            Encoder::Builtin => {
                let audio = match sound {
                    Some(s) => Some(audio::read(s.path, s.start_s, s.length_s)?),
                    None => None,
                };
                Ok(Video::Builtin {
                    mp4: Box::new(Mp4Video::create(path, width, height, fps)?),
                    audio,
                })
            }
            Encoder::Ffmpeg => {
                let audio = sound.map(|s| ffmpeg::Audio {
                    path: s.path.to_path_buf(),
                    start_s: s.start_s,
                    length_s: s.length_s,
                });
                Ok(Video::Ffmpeg(ffmpeg::FfmpegVideo::spawn(
                    path,
                    width,
                    height,
                    fps,
                    audio.as_ref(),
                )?))
            }
        }
    }

    pub fn push(&mut self, rgba: &[u8]) -> Result<(), VideoError> {
        match self {
            Video::Builtin { mp4, .. } => mp4.push(rgba),
            Video::Ffmpeg(f) => f.push(rgba),
        }
    }

    /// Write the index and close the file. With the built-in encoder the soundtrack ends with
    /// the last frame written (a render stopped early gets a shorter soundtrack too); ffmpeg
    /// keeps the length it was started with.
    pub fn finish(self) -> Result<(), VideoError> {
        match self {
            Video::Builtin { mp4, mut audio } => {
                if let Some(a) = audio.as_mut() {
                    a.truncate(mp4.seconds());
                }
                mp4.finish(audio.as_ref())
            }
            Video::Ffmpeg(f) => f.finish(),
        }
    }
}
