//! Output paths, checked before anything is loaded or rendered: a missing folder, a folder
//! where a file is wanted, or no permission to write is said at once, not after minutes of
//! work.

use crate::error::PlaybackError;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, PlaybackError>;

/// The refusal for `path`: the message follows the path's name.
fn refuse<T>(path: &Path, message: String) -> Result<T> {
    Err(PlaybackError::Output {
        path: path.to_path_buf(),
        message,
    })
}

/// What a render writes (`odori render -o`, `odori.render(out=...)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderOutput {
    Mp4(PathBuf),
    Png(PathBuf),
    Folder(PathBuf),
}

const ACCEPTED: &str = "use NAME.mp4 (video), NAME.png (the first frame) or a folder for PNG \
                        frames (FOLDER/ with a trailing slash, or an existing folder)";

/// `path` as a render output: `.mp4`, `.png`, or a folder asked for by a trailing `/` or by
/// being one already; anything else is refused with the list of what is accepted. The place
/// it names is checked (see [`check_file`], [`check_folder`]).
pub fn render(path: &Path) -> Result<RenderOutput> {
    let text = path.as_os_str().to_string_lossy();
    if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) {
        check_folder(path)?;
        return Ok(RenderOutput::Folder(path.to_path_buf()));
    }
    match extension(path).as_deref() {
        Some("mp4") => {
            check_file(path)?;
            Ok(RenderOutput::Mp4(path.to_path_buf()))
        }
        Some("png") => {
            check_file(path)?;
            Ok(RenderOutput::Png(path.to_path_buf()))
        }
        _ if path.is_dir() => {
            check_folder(path)?;
            Ok(RenderOutput::Folder(path.to_path_buf()))
        }
        Some(ext) => refuse(
            path,
            format!("odori does not write .{ext} files; {ACCEPTED}"),
        ),
        None => refuse(path, format!("not an output odori knows; {ACCEPTED}")),
    }
}

/// The extension, lower case.
pub fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// A file to be written at `path`: not a folder, in a folder that exists and can be written
/// to, and (when it exists already) writable itself.
pub fn check_file(path: &Path) -> Result<()> {
    if path.is_dir() {
        return refuse(
            path,
            format!(
                "is a folder; give a file name ending in .{}",
                extension(path).unwrap_or_else(|| "mp4".into())
            ),
        );
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.exists() {
        return refuse(
            path,
            format!("the folder {} does not exist", parent.display()),
        );
    }
    if !parent.is_dir() {
        return refuse(path, format!("{} is not a folder", parent.display()));
    }
    if let Err(e) = writable_folder(parent) {
        return refuse(path, e);
    }
    if path.exists()
        && let Err(e) = std::fs::OpenOptions::new().append(true).open(path)
    {
        return refuse(path, format!("cannot be overwritten: {e}"));
    }
    Ok(())
}

/// A folder for numbered files: an existing writable folder, or one that can be made (its
/// nearest existing ancestor is a writable folder).
pub fn check_folder(path: &Path) -> Result<()> {
    // Without the trailing slash, so that a file of that name is seen.
    let bare: PathBuf = path.components().collect();
    let mut at = bare.as_path();
    loop {
        if at.exists() {
            if !at.is_dir() {
                return refuse(path, format!("{} is a file, not a folder", at.display()));
            }
            return writable_folder(at).or_else(|e| refuse(path, e));
        }
        at = match at.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
    }
}

/// Whether a file can be made in `dir` (tried: permissions, read-only file systems and
/// ownership all count), by making and removing an empty one.
fn writable_folder(dir: &Path) -> std::result::Result<(), String> {
    let probe = dir.join(format!(".odori-write-test-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(format!("cannot write in {}: {e}", dir.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_refusals() {
        let dir = std::env::temp_dir().join(format!("odori-output-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("x.mp4")).unwrap();
        let mp4 = dir.join("a.MP4");
        assert_eq!(render(&mp4).unwrap(), RenderOutput::Mp4(mp4.clone()));
        assert!(matches!(
            render(&dir.join("a.png")).unwrap(),
            RenderOutput::Png(_)
        ));
        assert!(matches!(render(&dir).unwrap(), RenderOutput::Folder(_)));
        let new_folder = PathBuf::from(format!("{}/new/deeper/", dir.display()));
        assert!(matches!(
            render(&new_folder).unwrap(),
            RenderOutput::Folder(_)
        ));
        for bad in ["a.avi", "a.jpg", "frames"] {
            let e = render(&dir.join(bad)).unwrap_err().to_string();
            assert!(e.contains(bad) && e.contains("NAME.mp4"), "{e}");
        }
        let e = render(&dir.join("x.mp4")).unwrap_err().to_string();
        assert!(e.contains("is a folder"), "{e}");
        let e = render(&dir.join("missing/a.mp4")).unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
        std::fs::write(dir.join("file"), b"").unwrap();
        let e = render(Path::new(&format!("{}/file/", dir.display())))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a folder"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
