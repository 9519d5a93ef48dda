//! Texture files handed over in memory rather than found on disk: what a web page has after
//! the user drops a model's folder (or picks its files). Names resolve as
//! [`super::path::resolve`] resolves them on disk — backslashes or slashes, any letter case,
//! never `..`, absolute paths or drive letters — plus one fallback a folder on disk does not
//! need: a file picker hands over files without their folders, so a name whose folders match
//! nothing finds a file of the same base name when exactly one has it.
//!
//! A file may also arrive decoded already: a browser decodes PNG and JPEG in native code
//! (`createImageBitmap`), faster than a decoder compiled to wasm.

use super::path::Unresolved;
use image::RgbaImage;
use std::collections::HashMap;

/// A file as handed over.
#[derive(Debug)]
enum Content {
    /// The file's bytes and its extension as given (for formats without a signature).
    Encoded(String, Vec<u8>),
    /// Decoded by whoever handed it over.
    Decoded(RgbaImage),
}

/// What a name found.
#[derive(Debug, PartialEq)]
pub enum Found<'a> {
    /// A file to decode: its bytes and extension.
    Encoded(&'a [u8], &'a str),
    /// An image decoded already.
    Decoded(&'a RgbaImage),
}

/// Files by their path relative to the model's folder.
#[derive(Debug, Default)]
pub struct FileSet {
    /// Lower-case `a/b.png` → the file.
    by_path: HashMap<String, Content>,
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
        self.insert_content(key, Content::Encoded(ext, bytes));
    }

    /// Add the file at `path` decoded already (to RGBA8, straight alpha).
    pub fn insert_decoded(&mut self, path: &str, image: RgbaImage) {
        let Ok(key) = key(path) else { return };
        self.insert_content(key, Content::Decoded(image));
    }

    fn insert_content(&mut self, key: String, content: Content) {
        let base = key.rsplit('/').next().unwrap_or(&key).to_string();
        let paths = self.by_base.entry(base).or_default();
        if !paths.contains(&key) {
            paths.push(key.clone());
        }
        self.by_path.insert(key, content);
    }

    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// The file `name` (a model's texture name) denotes.
    pub fn find(&self, name: &str) -> Result<Found<'_>, Unresolved> {
        let key = key(name)?;
        let hit = self.by_path.get(&key).or_else(|| {
            let base = key.rsplit('/').next().unwrap_or(&key);
            match self.by_base.get(base).map(Vec::as_slice) {
                Some([only]) => self.by_path.get(only),
                _ => None,
            }
        });
        hit.map(|content| match content {
            Content::Encoded(ext, bytes) => Found::Encoded(bytes, ext),
            Content::Decoded(image) => Found::Decoded(image),
        })
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
        let bytes = |name: &str| match set.find(name) {
            Ok(Found::Encoded(b, _)) => b.to_vec(),
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(
            set.find("TEX\\face.png").unwrap(),
            Found::Encoded(b"face", "png")
        );
        assert_eq!(bytes("./tex/face.png"), b"face");
        // A picked (folder-less) file: the base name, when unique.
        assert_eq!(bytes("other\\Face.png"), b"face");
        assert_eq!(set.find("x.png"), Err(Unresolved::NotFound));
        assert_eq!(bytes("b\\X.png"), b"bx");
        // Decoded by the browser: found the same way, by any case and separator.
        let red = RgbaImage::from_pixel(2, 1, image::Rgba([255, 0, 0, 128]));
        set.insert_decoded("tex/Hair.png", red.clone());
        assert_eq!(set.find("TEX\\hair.PNG").unwrap(), Found::Decoded(&red));
        assert_eq!(set.find("hair.png").unwrap(), Found::Decoded(&red));
        // Never outside the folder.
        assert_eq!(set.find("..\\tex\\face.png"), Err(Unresolved::Escapes));
        assert_eq!(set.find("C:\\tex\\face.png"), Err(Unresolved::Escapes));
        assert_eq!(set.find("\\tex\\face.png"), Err(Unresolved::Escapes));
    }
}
