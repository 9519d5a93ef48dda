//! Where the offline pipeline's frames go: an MP4 (H.264, with the scene's soundtrack), one
//! PNG, or a folder of numbered PNGs.

use crate::error::PlaybackError;
use std::path::{Path, PathBuf};

/// A consumer of rendered frames (RGBA8, rows top to bottom), fed in order on one thread.
pub trait FrameSink: Send {
    fn push(&mut self, rgba: &[u8]) -> Result<(), PlaybackError>;
    /// Called once after the last frame.
    fn finish(self: Box<Self>) -> Result<(), PlaybackError>;
}

/// An MP4 being written. It is written to a hidden file beside the final one
/// ([`part_path`]) and renamed when finished, so the final name never holds a partial or
/// empty file: a sink dropped without [`FrameSink::finish`] (a failed or abandoned render)
/// removes what it wrote, and an existing file of that name is left as it was.
pub struct Mp4Sink {
    video: Option<odori_video::Video>,
    path: PathBuf,
    part: PathBuf,
}

/// Where an MP4 for `path` is written until it is finished: `.NAME.part` in the same folder
/// (so the rename is on one file system).
pub fn part_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "odori.mp4".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.part"))
}

impl Mp4Sink {
    /// Start `path` (written as [`part_path`] until finished); the soundtrack (if any) is read
    /// now, so a bad audio file fails before any frame is rendered.
    pub fn create(
        encoder: odori_video::Encoder,
        path: &Path,
        size: (u32, u32),
        fps: u32,
        sound: Option<&odori_video::Soundtrack<'_>>,
    ) -> Result<Mp4Sink, PlaybackError> {
        let part = part_path(path);
        match odori_video::Video::create(encoder, &part, size.0, size.1, fps, sound) {
            Ok(video) => Ok(Mp4Sink {
                video: Some(video),
                path: path.to_path_buf(),
                part,
            }),
            Err(source) => {
                let _ = std::fs::remove_file(&part);
                Err(match source {
                    odori_video::VideoError::Audio(e) => PlaybackError::Soundtrack(e),
                    source => PlaybackError::Video {
                        path: path.to_path_buf(),
                        source,
                    },
                })
            }
        }
    }

    fn error(&self, source: odori_video::VideoError) -> PlaybackError {
        PlaybackError::Video {
            path: self.path.clone(),
            source,
        }
    }
}

impl FrameSink for Mp4Sink {
    fn push(&mut self, rgba: &[u8]) -> Result<(), PlaybackError> {
        match self.video.as_mut() {
            Some(v) => v.push(rgba).map_err(|e| self.error(e)),
            None => Ok(()),
        }
    }

    /// Finish the file (the soundtrack is cut to the frames written) and give it its name.
    fn finish(mut self: Box<Self>) -> Result<(), PlaybackError> {
        let Some(video) = self.video.take() else {
            return Ok(());
        };
        if let Err(source) = video.finish() {
            let _ = std::fs::remove_file(&self.part);
            return Err(self.error(source));
        }
        std::fs::rename(&self.part, &self.path).map_err(|source| {
            let _ = std::fs::remove_file(&self.part);
            PlaybackError::Write {
                path: self.path.clone(),
                source,
            }
        })
    }
}

impl Drop for Mp4Sink {
    /// Not finished: the encoder is stopped and its partial file removed.
    fn drop(&mut self) {
        if let Some(video) = self.video.take() {
            drop(video);
            let _ = std::fs::remove_file(&self.part);
        }
    }
}

/// PNG files: one named file (the first frame pushed), or `frame_00000.png`… in a folder.
pub struct PngSink {
    target: PngTarget,
    size: (u32, u32),
    count: usize,
}

enum PngTarget {
    File(PathBuf),
    Folder(PathBuf),
}

impl PngSink {
    /// The first frame to `path`.
    pub fn file(path: &Path, size: (u32, u32)) -> PngSink {
        PngSink {
            target: PngTarget::File(path.to_path_buf()),
            size,
            count: 0,
        }
    }

    /// Every frame into `dir` (created if missing).
    pub fn folder(dir: &Path, size: (u32, u32)) -> Result<PngSink, PlaybackError> {
        std::fs::create_dir_all(dir).map_err(|source| PlaybackError::Write {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(PngSink {
            target: PngTarget::Folder(dir.to_path_buf()),
            size,
            count: 0,
        })
    }
}

impl FrameSink for PngSink {
    fn push(&mut self, rgba: &[u8]) -> Result<(), PlaybackError> {
        let path = match &self.target {
            PngTarget::File(p) if self.count == 0 => p.clone(),
            PngTarget::File(_) => return Ok(()),
            PngTarget::Folder(d) => d.join(format!("frame_{:05}.png", self.count)),
        };
        self.count += 1;
        save_png(&path, self.size, rgba)
    }

    fn finish(self: Box<Self>) -> Result<(), PlaybackError> {
        Ok(())
    }
}

/// Write one RGBA8 frame as a PNG.
pub fn save_png(path: &Path, size: (u32, u32), rgba: &[u8]) -> Result<(), PlaybackError> {
    image::save_buffer(path, rgba, size.0, size.1, image::ExtendedColorType::Rgba8).map_err(|e| {
        PlaybackError::Image {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })
}
