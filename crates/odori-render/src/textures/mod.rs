//! Textures: where a model's texture names lead (a folder on disk, or images made in memory
//! for the embedded demo), and decoding them. Missing or broken textures are warnings; the
//! material then draws without that texture, as MMD does.

mod decode;
pub mod files;
pub mod path;

pub use decode::decode;
use image::RgbaImage;
use odori_format::limits::TEXTURE_BYTES;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Where texture names are looked up.
#[derive(Debug, Clone)]
pub enum TextureSource {
    /// The model's folder: names are resolved as MMD resolves them ([`path::resolve`]).
    Folder(PathBuf),
    /// Images by exact name (generated models).
    Memory(HashMap<String, RgbaImage>),
    /// Files in memory, resolved like a folder's (a web page's dropped files: [`files`]).
    Files(Arc<files::FileSet>),
}

impl TextureSource {
    /// Load `name`; `Err` is a human-readable reason for a warning.
    pub fn load(&self, name: &str) -> Result<RgbaImage, String> {
        match self {
            TextureSource::Memory(map) => map
                .get(name)
                .cloned()
                .ok_or_else(|| format!("{name}: no such generated texture")),
            TextureSource::Folder(root) => {
                let file = path::resolve(root, name).map_err(|e| match e {
                    path::Unresolved::Escapes => {
                        format!("{name}: refused (outside the model's folder)")
                    }
                    path::Unresolved::NotFound => format!("{name}: not found"),
                })?;
                let bytes = odori_format::limits::read_file(&file, &TEXTURE_BYTES)
                    .map_err(|e| format!("{name}: {e}"))?;
                let ext = file
                    .extension()
                    .and_then(|e| e.to_str())
                    .unwrap_or_default();
                decode(&bytes, ext).map_err(|e| format!("{name}: {e}"))
            }
            TextureSource::Files(set) => {
                let found = set.find(name).map_err(|e| match e {
                    path::Unresolved::Escapes => {
                        format!("{name}: refused (outside the model's folder)")
                    }
                    path::Unresolved::NotFound => format!("{name}: not among the files given"),
                })?;
                match found {
                    files::Found::Encoded(bytes, ext) => {
                        decode(bytes, ext).map_err(|e| format!("{name}: {e}"))
                    }
                    files::Found::Decoded(image) => Ok(image.clone()),
                }
            }
        }
    }

    /// True when `name` resolves to something (used to prefer a model's own `toonNN.bmp`
    /// over the shared ramp of the same name, as MMD does).
    pub fn exists(&self, name: &str) -> bool {
        match self {
            TextureSource::Memory(map) => map.contains_key(name),
            TextureSource::Folder(root) => path::resolve(root, name).is_ok(),
            TextureSource::Files(set) => set.find(name).is_ok(),
        }
    }
}
