//! A zip of a model, opened in the page: MMD models are shared as zips, and their names are
//! often Shift_JIS without the archive's UTF-8 flag (made by Japanese Windows tools), which
//! zip readers then show as mojibake and which would no longer match the texture names in the
//! PMX. Each name is read as UTF-8 when it is valid UTF-8 and as Shift_JIS (MMD's own
//! encoding) otherwise.

use odori_format::limits::{ZIP_ENTRIES, ZIP_EXPANDED, ZIP_RATIO};
use std::collections::HashSet;
use std::io::{Cursor, Read};

/// True when `path` names a zip archive (by its extension, any case).
pub fn is_zip(path: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, e)| e.eq_ignore_ascii_case("zip"))
}

/// What one archive may hold and expand to ([`odori_format::limits`] for the page).
#[derive(Debug, Clone, Copy)]
struct Bounds {
    expanded: u64,
    entries: u64,
    ratio: u64,
}

/// The files in the zip `bytes` (named `path`, for messages), as (path inside the archive,
/// bytes). Folders, macOS resource forks (`__MACOSX/`) and empty names are left out. `Err`
/// names the archive and what was wrong with it: a name that leads out of the archive's
/// folder (`..`, an absolute path, a drive letter), a name given twice, a symbolic link, or
/// more entries or expansion than [`odori_format::limits`] allows (checked on each entry's
/// header before anything is unpacked; an entry that holds more than its header says is
/// stopped there).
pub fn expand(path: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    expand_within(
        path,
        bytes,
        Bounds {
            expanded: ZIP_EXPANDED.bytes(),
            entries: ZIP_ENTRIES.value(),
            ratio: ZIP_RATIO.value(),
        },
    )
}

fn expand_within(
    path: &str,
    bytes: &[u8],
    bounds: Bounds,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| format!("{path}: not a zip archive that can be read ({e})"))?;
    if archive.len() as u64 > bounds.entries {
        return Err(format!(
            "{path}: holds {} entries, over {}",
            archive.len(),
            ZIP_ENTRIES.describe()
        ));
    }
    let too_big = || {
        format!(
            "{path}: expands to more than {} MiB, over {}; unpack it and drop the model's folder",
            bounds.expanded >> 20,
            ZIP_EXPANDED.describe()
        )
    };
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let entry = archive
            .by_index(i)
            .map_err(|e| format!("{path}: entry {i} cannot be read ({e})"))?;
        let raw_name = decode_name(entry.name_raw());
        let name = checked_name(&raw_name)
            .map_err(|why| format!("{path}: entry {i} `{raw_name}` {why}; refused"))?;
        if entry.is_symlink() {
            return Err(format!(
                "{path}: entry `{raw_name}` is a symbolic link; refused"
            ));
        }
        if entry.is_dir() || name.is_empty() || name.starts_with("__MACOSX/") {
            continue;
        }
        if !seen.insert(name.clone()) {
            return Err(format!("{path}: `{name}` is in the archive twice; refused"));
        }
        let declared = entry.size();
        if declared > entry.compressed_size().max(1).saturating_mul(bounds.ratio) {
            return Err(format!(
                "{path}: `{name}` says {declared} bytes from {} compressed, over {}; refused",
                entry.compressed_size(),
                ZIP_RATIO.describe()
            ));
        }
        total = total.saturating_add(declared);
        if total > bounds.expanded {
            return Err(too_big());
        }
        // The header's size is now known to be within bounds; the data is held to it.
        let mut data = Vec::with_capacity(declared as usize);
        entry
            .take(declared + 1)
            .read_to_end(&mut data)
            .map_err(|e| format!("{path}: {name} cannot be unpacked ({e})"))?;
        if data.len() as u64 > declared {
            return Err(format!(
                "{path}: `{name}` holds more than the {declared} bytes its header says; refused"
            ));
        }
        files.push((name, data));
    }
    Ok(files)
}

/// An entry's name as a path inside the archive (`/` separated, no leading `/`), or why it
/// leads outside the archive's folder: a `..` part, an absolute path, a drive letter.
fn checked_name(raw: &str) -> Result<String, &'static str> {
    let name = raw.replace('\\', "/");
    if name.starts_with('/') {
        return Err("is an absolute path");
    }
    let bytes = name.as_bytes();
    if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
        return Err("starts with a drive letter");
    }
    if name.split('/').any(|part| part == "..") {
        return Err("leads out of the archive's folder (`..`)");
    }
    if name.contains('\0') {
        return Err("holds a NUL character");
    }
    Ok(name)
}

/// A zip entry's name: UTF-8 when the bytes are valid UTF-8 (flagged archives and plain
/// ASCII), else Shift_JIS.
fn decode_name(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(s) => s.to_string(),
        Err(_) => encoding_rs::SHIFT_JIS.decode(raw).0.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const SMALL: Bounds = Bounds {
        expanded: 64 << 10,
        entries: 8,
        ratio: 1100,
    };

    fn zip_of(entries: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(method);
        for (name, data) in entries {
            zip.start_file(*name, options).unwrap();
            zip.write_all(data).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    fn stored(entries: &[(&str, &[u8])]) -> Vec<u8> {
        zip_of(entries, zip::CompressionMethod::Stored)
    }

    /// Every occurrence of `from` in `bytes` replaced by `to` (same length): header fields
    /// rewritten as a hostile tool would.
    fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) -> usize {
        assert_eq!(from.len(), to.len());
        let mut n = 0;
        let mut i = 0;
        while i + from.len() <= bytes.len() {
            if &bytes[i..i + from.len()] == from {
                bytes[i..i + from.len()].copy_from_slice(to);
                n += 1;
                i += from.len();
            } else {
                i += 1;
            }
        }
        n
    }

    // Evidence: archives written by the zip crate's own writer (an independent encoder), and
    // header fields patched at the byte offsets of the ZIP specification (APPNOTE 4.3.7, 4.3.12).
    #[test]
    fn a_plain_archive_expands_with_its_names() {
        let zip = stored(&[("model/a.pmx", b"PMX "), ("model\\tex/b.png", b"png")]);
        let files = expand_within("m.zip", &zip, SMALL).unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["model/a.pmx", "model/tex/b.png"]);
        assert_eq!(files[0].1, b"PMX ");
    }

    #[test]
    fn names_that_leave_the_folder_are_refused() {
        for (bad, why) in [
            ("../evil.pmx", "`..`"),
            ("model/../../evil.pmx", "`..`"),
            ("/etc/passwd", "absolute"),
            ("\\windows\\x.bmp", "absolute"),
            ("C:\\x.bmp", "drive letter"),
            ("c:/x.bmp", "drive letter"),
        ] {
            let mut zip = stored(&[("placeholder_name_long_enough_x", b"x")]);
            // The writer refuses some of these names itself: patch them in, padded to the
            // placeholder's length with a harmless tail.
            let mut name = bad.as_bytes().to_vec();
            name.resize(30, b'z');
            assert_eq!(patch(&mut zip, b"placeholder_name_long_enough_x", &name), 2);
            let e = expand_within("m.zip", &zip, SMALL).unwrap_err();
            assert!(e.contains("m.zip") && e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn duplicates_symlinks_and_too_many_entries_are_refused() {
        // Two raw names that are one path once `\\` is read as `/` (exact duplicates the zip
        // crate itself already keeps one of).
        let zip = stored(&[("tex/a.png", b"1"), ("tex\\a.png", b"2")]);
        let e = expand_within("m.zip", &zip, SMALL).unwrap_err();
        assert!(e.contains("twice"), "{e}");

        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        w.add_symlink(
            "link.png",
            "/etc/passwd",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        let zip = w.finish().unwrap().into_inner();
        let e = expand_within("m.zip", &zip, SMALL).unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");

        let names: Vec<String> = (0..9).map(|i| format!("{i}.png")).collect();
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        let e = expand_within("m.zip", &stored(&entries), SMALL).unwrap_err();
        assert!(
            e.contains("9 entries") && e.contains("entries in a zip"),
            "{e}"
        );
    }

    #[test]
    fn a_zip_bomb_is_refused_on_its_headers() {
        // Deflate's best is about 1032 to 1: 100 KiB of zeros is honest, and over SMALL's
        // 64 KiB budget.
        let zeros = vec![0u8; 100 << 10];
        let zip = zip_of(&[("zeros.bmp", &zeros)], zip::CompressionMethod::Deflated);
        let e = expand_within("bomb.zip", &zip, SMALL).unwrap_err();
        assert!(
            e.contains("bomb.zip") && e.contains("what a zip expands to"),
            "{e}"
        );
        // The default budget takes it whole.
        assert_eq!(expand("bomb.zip", &zip).unwrap()[0].1.len(), 100 << 10);

        // A header claiming 4 GiB for 3 stored bytes: refused by the ratio before any read.
        let mut zip = stored(&[("lie.png", b"abc")]);
        let three = 3u32.to_le_bytes();
        let huge = u32::MAX.to_le_bytes();
        // Compressed and uncompressed sizes sit side by side in both headers.
        let from = [three, three].concat();
        let to = [three, huge].concat();
        assert_eq!(patch(&mut zip, &from, &to), 2);
        let e = expand_within("lie.zip", &zip, SMALL).unwrap_err();
        assert!(e.contains("expansion ratio"), "{e}");
    }
}
