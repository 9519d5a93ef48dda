//! Writing the files: a GLB (JSON and binary chunks in one file), or a .gltf with its .bin
//! and texture images beside it. Every file is first written as `.NAME.part` in the output's
//! folder and renamed when all are complete, so a failed export leaves nothing behind (and
//! an older file of that name as it was).

use crate::error::GltfError;
use std::path::{Path, PathBuf};

/// One file to write: its final path and its bytes.
pub struct OutFile {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// The GLB container: 12-byte header, a JSON chunk padded with spaces and a BIN chunk padded
/// with zeros, each to 4 bytes.
pub fn glb(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let pad = |n: usize| (4 - n % 4) % 4;
    let json_len = json.len() + pad(json.len());
    let bin_len = bin.len() + pad(bin.len());
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(json);
    out.resize(out.len() + pad(json.len()), b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(bin);
        out.resize(out.len() + pad(bin.len()), 0);
    }
    out
}

/// `.NAME.part` beside `path`.
fn part_of(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.part"))
}

/// Write every file as a part, then rename them all; on any error remove the parts.
pub fn all(files: &[OutFile]) -> Result<(), GltfError> {
    let mut written: Vec<PathBuf> = Vec::new();
    let result = (|| {
        for f in files {
            let part = part_of(&f.path);
            written.push(part.clone());
            std::fs::write(&part, &f.bytes).map_err(|source| GltfError::Write {
                path: f.path.clone(),
                source,
            })?;
        }
        for f in files {
            std::fs::rename(part_of(&f.path), &f.path).map_err(|source| GltfError::Write {
                path: f.path.clone(),
                source,
            })?;
        }
        Ok(())
    })();
    if result.is_err() {
        for p in written {
            let _ = std::fs::remove_file(p);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GLB header's length is the file's; both chunks are padded to 4 bytes.
    #[test]
    fn glb_chunks_are_padded_and_counted() {
        let g = glb(b"{\"a\":1}", &[1, 2, 3, 4, 5]);
        assert_eq!(g.len() % 4, 0);
        assert_eq!(
            u32::from_le_bytes(g[8..12].try_into().unwrap()) as usize,
            g.len()
        );
        assert_eq!(&g[16..20], b"JSON");
        assert_eq!(&g[20..28], b"{\"a\":1} ");
        assert_eq!(&g[32..36], b"BIN\0");
        assert_eq!(&g[36..44], &[1, 2, 3, 4, 5, 0, 0, 0]);
    }

    /// A file that cannot be written: an error naming it, and no part left of the others.
    #[test]
    fn a_failed_write_leaves_no_part() {
        let dir = std::env::temp_dir().join(format!("odori-gltf-write-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let files = [
            OutFile {
                path: dir.join("a.gltf"),
                bytes: b"{}".to_vec(),
            },
            OutFile {
                path: dir.join("missing/a.bin"),
                bytes: vec![0; 4],
            },
        ];
        let e = all(&files).unwrap_err().to_string();
        assert!(e.contains("a.bin"), "{e}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
