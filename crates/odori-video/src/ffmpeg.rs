//! The optional ffmpeg path: raw RGBA frames piped into an `ffmpeg` process (libx264, AAC
//! audio). Used only when ffmpeg is on PATH and asked for (or needed for a WAV soundtrack,
//! which it turns into AAC that every player handles); the built-in encoder needs nothing.

use crate::VideoError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

/// True when an `ffmpeg` executable answers `-version`.
pub fn available() -> bool {
    Command::new("ffmpeg")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The soundtrack for ffmpeg to cut and encode.
pub struct Audio {
    pub path: PathBuf,
    pub start_s: f64,
    pub length_s: f64,
}

pub struct FfmpegVideo {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl FfmpegVideo {
    pub fn spawn(
        path: &Path,
        width: u32,
        height: u32,
        fps: u32,
        audio: Option<&Audio>,
    ) -> Result<FfmpegVideo, VideoError> {
        let mut cmd = Command::new("ffmpeg");
        cmd.args(["-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba"])
            .args(["-s", &format!("{width}x{height}"), "-r", &fps.to_string()])
            .args(["-i", "-"]);
        if let Some(a) = audio {
            cmd.args(["-ss", &format!("{:.3}", a.start_s)])
                .args(["-t", &format!("{:.3}", a.length_s)])
                .arg("-i")
                .arg(&a.path)
                .args(["-map", "0:v", "-map", "1:a", "-c:a", "aac", "-b:a", "192k"]);
        }
        cmd.args(["-c:v", "libx264", "-preset", "veryfast", "-crf", "18"])
            .args(["-pix_fmt", "yuv420p", "-movflags", "+faststart"])
            .arg(path)
            .stdin(Stdio::piped());
        let mut child = cmd
            .spawn()
            .map_err(|e| VideoError::Encoder(format!("starting ffmpeg: {e}")))?;
        let stdin = child.stdin.take();
        Ok(FfmpegVideo { child, stdin })
    }

    pub fn push(&mut self, rgba: &[u8]) -> Result<(), VideoError> {
        self.stdin
            .as_mut()
            .ok_or_else(|| VideoError::Encoder("ffmpeg input closed".into()))?
            .write_all(rgba)
            .map_err(|e| VideoError::Encoder(format!("ffmpeg stopped reading: {e}")))
    }

    pub fn finish(mut self) -> Result<(), VideoError> {
        drop(self.stdin.take());
        let status = self.child.wait()?;
        if status.success() {
            Ok(())
        } else {
            Err(VideoError::Encoder(format!("ffmpeg exited with {status}")))
        }
    }
}
