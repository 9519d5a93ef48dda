//! A zip of a model, opened in the page: MMD models are shared as zips, and their names are
//! often Shift_JIS without the archive's UTF-8 flag (made by Japanese Windows tools), which
//! zip readers then show as mojibake and which would no longer match the texture names in the
//! PMX. Each name is read as UTF-8 when it is valid UTF-8 and as Shift_JIS (MMD's own
//! encoding) otherwise.

use std::io::{Cursor, Read};

/// The most a zip may expand to (the page holds every file in memory, and wasm32 has 4 GiB).
pub const MAX_EXPANDED: u64 = 1 << 30;

/// True when `path` names a zip archive (by its extension, any case).
pub fn is_zip(path: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case("zip"))
}

/// The files in the zip `bytes` (named `path`, for messages), as (path inside the archive,
/// bytes). Folders, macOS resource forks (`__MACOSX/`) and empty names are left out. `Err`
/// names the archive and what was wrong with it.
pub fn expand(path: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("{path}: not a zip archive that can be read ({e})"))?;
    let mut files = Vec::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| format!("{path}: entry {i} cannot be read ({e})"))?;
        if entry.is_dir() {
            continue;
        }
        let name = decode_name(entry.name_raw());
        let name = name.trim_start_matches(['/', '\\']).to_string();
        if name.is_empty() || name.starts_with("__MACOSX/") {
            continue;
        }
        total = total.saturating_add(entry.size());
        if total > MAX_EXPANDED {
            return Err(format!(
                "{path}: expands to more than {} MiB; unpack it and drop the model's folder",
                MAX_EXPANDED >> 20
            ));
        }
        let mut data = Vec::with_capacity(entry.size().min(MAX_EXPANDED) as usize);
        entry
            .read_to_end(&mut data)
            .map_err(|e| format!("{path}: {name} cannot be unpacked ({e})"))?;
        files.push((name, data));
    }
    Ok(files)
}

/// A zip entry's name: UTF-8 when the bytes are valid UTF-8 (flagged archives and plain
/// ASCII), else Shift_JIS.
fn decode_name(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::SHIFT_JIS.decode(raw).0.into_owned(),
    }
}
