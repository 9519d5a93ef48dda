//! Resolving a model's texture names to files the way MMD does, safely.
//!
//! Models are authored on Windows: names use backslashes and match files case-insensitively.
//! A model is untrusted input, so a name may only reach files inside the model's folder: `..`,
//! absolute paths, drive letters and symlinks that lead outside are refused.

use std::path::{Path, PathBuf};

/// Why a texture name resolved to no file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// `..`, an absolute path, a drive letter or a symlink leaving the model's folder.
    Escapes,
    /// No file of that name (in any letter case).
    NotFound,
}

/// The file `name` denotes inside `root` (the model's folder), matching each component
/// case-insensitively when the exact spelling does not exist.
pub fn resolve(root: &Path, name: &str) -> Result<PathBuf, Unresolved> {
    let name = name.trim().trim_matches('\0');
    if name.is_empty() {
        return Err(Unresolved::NotFound);
    }
    let parts: Vec<&str> = name
        .split(['\\', '/'])
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if name.starts_with(['\\', '/'])
        || name.contains(':')
        || parts.contains(&"..")
        || parts.is_empty()
    {
        return Err(Unresolved::Escapes);
    }
    let mut path = root.to_path_buf();
    for part in parts {
        let exact = path.join(part);
        path = if exact.exists() {
            exact
        } else {
            find_case_insensitive(&path, part).ok_or(Unresolved::NotFound)?
        };
    }
    // Symlinks (in the name or in what it resolves to) must stay inside the root.
    let real = path.canonicalize().map_err(|_| Unresolved::NotFound)?;
    let real_root = root.canonicalize().map_err(|_| Unresolved::NotFound)?;
    if !real.starts_with(&real_root) {
        return Err(Unresolved::Escapes);
    }
    if !real.is_file() {
        return Err(Unresolved::NotFound);
    }
    Ok(real)
}

fn find_case_insensitive(dir: &Path, part: &str) -> Option<PathBuf> {
    let want = part.to_lowercase();
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .find(|e| e.file_name().to_string_lossy().to_lowercase() == want)
        .map(|e| e.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("odori-tex-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("Tex")).unwrap();
        d
    }

    #[test]
    fn backslashes_and_case() {
        let d = temp_dir("case");
        std::fs::write(d.join("Tex/Face.PNG"), b"x").unwrap();
        let got = resolve(&d, "tex\\face.png").unwrap();
        assert!(got.ends_with("Tex/Face.PNG"));
        assert_eq!(resolve(&d, "tex\\none.png"), Err(Unresolved::NotFound));
    }

    #[test]
    fn refuses_escapes() {
        let d = temp_dir("esc");
        std::fs::write(d.join("secret.png"), b"x").unwrap();
        let inner = d.join("model");
        std::fs::create_dir_all(&inner).unwrap();
        assert_eq!(resolve(&inner, "..\\secret.png"), Err(Unresolved::Escapes));
        assert_eq!(resolve(&inner, "/etc/passwd"), Err(Unresolved::Escapes));
        assert_eq!(resolve(&inner, "C:\\x.png"), Err(Unresolved::Escapes));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("secret.png"), inner.join("link.png")).unwrap();
            assert_eq!(resolve(&inner, "link.png"), Err(Unresolved::Escapes));
        }
    }
}
