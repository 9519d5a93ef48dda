//! Texture files handed over in memory rather than found on disk: what a web page has after
//! the user drops a model's folder (or picks its files). Names resolve as
//! [`super::path::resolve`] resolves them on disk — backslashes or slashes, any letter case,
//! never `..`, absolute paths or drive letters — plus one fallback a folder on disk does not
//! need: a file picker hands over files without their folders, so a name whose folders match
//! nothing finds a file of the same base name when exactly one has it.

use super::path::Unresolved;
use std::collections::HashMap;

/// Files by their path relative to the model's folder.
#[derive(Debug, Default)]
pub struct FileSet {
    /// Lower-case `a/b.png` → (the extension as given, the bytes).
    by_path: HashMap<String, (String, Vec<u8>)>,
    /// Lower-case base name → the paths that end in it.
    by_base: HashMap<String, Vec<String>>,
}

impl FileSet {
    pub fn new() -> FileSet {
        FileSet::default()
    }

    /// Add the file at `path` (relative to the model's folder, `/` or `\` separated).
    /// A path that would leave the folder is ignored.
    pub fn insert(&mut self, path: &str, bytes: Vec<u8>) {
        let Ok(key) = key(path) else { return };
        let ext = key.rsplit_once('.').map_or("", |(_, e)| e).to_string();
        let base = key.rsplit('/').next().unwrap_or(&key).to_string();
        let paths = self.by_base.entry(base).or_default();
        if !paths.contains(&key) {
            paths.push(key.clone());
        }
        self.by_path.insert(key, (ext, bytes));
    }

    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// The bytes and extension of the file `name` (a model's texture name) denotes.
    pub fn find(&self, name: &str) -> Result<(&[u8], &str), Unresolved> {
        let key = key(name)?;
        let hit = self.by_path.get(&key).or_else(|| {
            let base = key.rsplit('/').next().unwrap_or(&key);
            match self.by_base.get(base).map(Vec::as_slice) {
                Some([only]) => self.by_path.get(only),
                _ => None,
            }
        });
        hit.map(|(ext, bytes)| (bytes.as_slice(), ext.as_str()))
            .ok_or(Unresolved::NotFound)
    }
}

/// The lower-case, `/`-joined form of a relative name, or why it is refused.
fn key(name: &str) -> Result<String, Unresolved> {
    let name = name.trim().trim_matches('\0');
    let parts: Vec<&str> = (name.split(['\\', '/']))
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.is_empty() {
        return Err(Unresolved::NotFound);
    }
    if name.starts_with(['\\', '/']) || name.contains(':') || parts.contains(&"..") {
        return Err(Unresolved::Escapes);
    }
    Ok(parts.join("/").to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_as_on_disk_and_by_unique_base_name() {
        let mut set = FileSet::new();
        set.insert("tex/Face.PNG", b"face".to_vec());
        set.insert("a/x.png", b"ax".to_vec());
        set.insert("b/x.png", b"bx".to_vec());
        // Backslashes and any letter case, as a Windows-authored model names them.
        assert_eq!(set.find("TEX\\face.png").unwrap(), (&b"face"[..], "png"));
        assert_eq!(set.find("./tex/face.png").unwrap().0, b"face");
        // A picked (folder-less) file: the base name, when unique.
        assert_eq!(set.find("other\\Face.png").unwrap().0, b"face");
        assert_eq!(set.find("x.png"), Err(Unresolved::NotFound));
        assert_eq!(set.find("b\\X.png").unwrap().0, b"bx");
        // Never outside the folder.
        assert_eq!(set.find("..\\tex\\face.png"), Err(Unresolved::Escapes));
        assert_eq!(set.find("C:\\tex\\face.png"), Err(Unresolved::Escapes));
        assert_eq!(set.find("\\tex\\face.png"), Err(Unresolved::Escapes));
    }
}
