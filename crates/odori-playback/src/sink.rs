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

/// Where this process writes `path` until it is finished: `.NAME.PID.part` in the same folder
/// (so the rename is on one file system). The process id keeps two renders of one output
/// apart (each renames its own whole file; the last one wins) and tells a later render which
/// hidden files were left by a process that no longer runs ([`remove_stale_parts`]).
pub fn part_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "odori.mp4".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.part", std::process::id()))
}

/// Remove the hidden files that renders of `path` killed before they could clean up (power
/// lost, SIGKILL) left beside it: `.NAME.PID.part` whose process no longer runs. Files of
/// renders still running, and every other file, are left alone.
pub fn remove_stale_parts(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let name = name.to_string_lossy();
    remove_stale_parts_in(dir, |n| n == name);
}

/// [`remove_stale_parts`] for every output name in `dir` that `owned` accepts.
fn remove_stale_parts_in(dir: &Path, owned: impl Fn(&str) -> bool) {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        let Some((name, pid)) = (file.strip_prefix('.'))
            .and_then(|rest| rest.strip_suffix(".part"))
            .and_then(|rest| rest.rsplit_once('.'))
        else {
            continue;
        };
        if let Ok(pid) = pid.parse::<u32>()
            && owned(name)
            && pid != std::process::id()
            && !process_runs(pid)
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` still runs. Where that cannot be asked (no `/proc`), every process
/// is taken to run, so nothing another render may still be writing is removed.
fn process_runs(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.join("self").exists() || proc.join(pid.to_string()).exists()
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
        remove_stale_parts(path);
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
        // On disk before it takes the name: a power cut after the rename must not leave a
        // file of that name that is empty or short.
        if let Err(source) = std::fs::File::open(&self.part).and_then(|f| f.sync_all()) {
            let _ = std::fs::remove_file(&self.part);
            return Err(PlaybackError::Write {
                path: self.path.clone(),
                source,
            });
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
        remove_stale_parts(path);
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
        remove_stale_parts_in(dir, |name| {
            name.starts_with("frame_") && name.ends_with(".png")
        });
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

/// Write one RGBA8 frame as a PNG: encoded into [`part_path`] and renamed, so a full disk or
/// a killed process never leaves a partial PNG under the final name, and an older file of
/// that name stays as it was until the new one is whole.
pub fn save_png(path: &Path, size: (u32, u32), rgba: &[u8]) -> Result<(), PlaybackError> {
    let part = part_path(path);
    let written = std::fs::File::create(&part)
        .map_err(|e| e.to_string())
        .and_then(|file| {
            let mut out = std::io::BufWriter::new(file);
            image::write_buffer_with_format(
                &mut out,
                rgba,
                size.0,
                size.1,
                image::ExtendedColorType::Rgba8,
                image::ImageFormat::Png,
            )
            .map_err(|e| e.to_string())?;
            let file = out.into_inner().map_err(|e| e.error().to_string())?;
            file.sync_data().map_err(|e| e.to_string())
        })
        .and_then(|()| std::fs::rename(&part, path).map_err(|e| e.to_string()));
    written.map_err(|message| {
        let _ = std::fs::remove_file(&part);
        PlaybackError::Image {
            path: path.to_path_buf(),
            message,
        }
    })
}
