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
    /// Waited for (finished); otherwise dropping stops it.
    done: bool,
}

impl Drop for FfmpegVideo {
    /// Dropped unfinished (a failed or abandoned render): stop ffmpeg before the caller
    /// removes its partial file.
    fn drop(&mut self) {
        if !self.done {
            drop(self.stdin.take());
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
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
        // `-f mp4`: the file being written may not end in `.mp4` (it is renamed when done).
        cmd.args(["-c:v", "libx264", "-preset", "veryfast", "-crf", "18"])
            .args([
                "-pix_fmt",
                "yuv420p",
                "-movflags",
                "+faststart",
                "-f",
                "mp4",
            ])
            .arg(path)
            .stdin(Stdio::piped());
        // Its own process group: Ctrl-C in a terminal reaches only us, and we decide whether
        // to finish the file with the frames so far (closing its input) or drop it.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .map_err(|e| VideoError::Encoder(format!("starting ffmpeg: {e}")))?;
        let stdin = child.stdin.take();
        Ok(FfmpegVideo {
            child,
            stdin,
            done: false,
        })
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
        self.done = true;
        if status.success() {
            Ok(())
        } else {
            Err(VideoError::Encoder(format!("ffmpeg exited with {status}")))
        }
    }
}
