//! Binary little-endian PLY: per vertex position, normal and UV (`s`, `t`; V flipped as in
//! OBJ), per face its three vertex indices and its material's index (`material`, a custom
//! property viewers ignore or use for grouping).

use super::flip;
use anyhow::{Context, Result};
use odori_deform::{Deformed, Mesh};
use std::io::{BufWriter, Write};
use std::path::Path;

pub fn write(path: &Path, comment: &str, mesh: &Mesh, out: &Deformed) -> Result<()> {
    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = BufWriter::new(file);
    let faces = mesh.indices().len() / 3;
    write!(
        w,
        "ply\nformat binary_little_endian 1.0\ncomment {}\nelement vertex {}\n\
         property float x\nproperty float y\nproperty float z\n\
         property float nx\nproperty float ny\nproperty float nz\n\
         property float s\nproperty float t\n\
         element face {faces}\nproperty list uchar uint vertex_indices\nproperty int material\n\
         end_header\n",
        comment.replace('\n', " "),
        out.positions.len()
    )?;
    for v in 0..out.positions.len() {
        let [u, t] = out.uvs[v];
        for x in flip(out.positions[v])
            .into_iter()
            .chain(flip(out.normals[v]))
            .chain([u, 1.0 - t])
        {
            w.write_all(&x.to_le_bytes())?;
        }
    }
    let indices = mesh.indices();
    for (m, range) in mesh.material_ranges().iter().enumerate() {
        for t in indices[range.start as usize..range.end as usize].chunks_exact(3) {
            w.write_all(&[3u8])?;
            for i in [t[0], t[2], t[1]] {
                w.write_all(&i.to_le_bytes())?;
            }
            w.write_all(&(m as i32).to_le_bytes())?;
        }
    }
    w.flush()?;
    Ok(())
}
