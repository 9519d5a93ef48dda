//! Wavefront OBJ with a material library: `v`, `vt` (V flipped: MMD's V grows downwards,
//! OBJ's upwards), `vn`, and one `usemtl` group per material. The .mtl (same stem, beside
//! the .obj) gives each material's colours and its texture as `map_Kd`, relative to the .obj.

use super::{Material, flip, material_name, relative};
use anyhow::{Context, Result};
use odori_deform::{Deformed, Mesh};
use std::io::{BufWriter, Write};
use std::path::Path;

pub fn write(
    path: &Path,
    comment: &str,
    mesh: &Mesh,
    out: &Deformed,
    materials: &[Material],
    model_dir: &Path,
) -> Result<()> {
    let mtl_path = path.with_extension("mtl");
    let mtl_name = mtl_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model.mtl".into());
    let out_dir = path.parent().unwrap_or(Path::new("."));
    let out_dir = if out_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        out_dir
    };

    let file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut w = BufWriter::new(file);
    writeln!(w, "# {comment}")?;
    writeln!(w, "mtllib {mtl_name}")?;
    for p in &out.positions {
        let [x, y, z] = flip(*p);
        writeln!(w, "v {x} {y} {z}")?;
    }
    for [u, v] in &out.uvs {
        writeln!(w, "vt {u} {}", 1.0 - v)?;
    }
    for n in &out.normals {
        let [x, y, z] = flip(*n);
        writeln!(w, "vn {x} {y} {z}")?;
    }
    let indices = mesh.indices();
    for (m, range) in mesh.material_ranges().iter().enumerate() {
        if range.is_empty() {
            continue;
        }
        match materials.get(m) {
            Some(mat) => writeln!(w, "usemtl {}", material_name(m, mat))?,
            None => writeln!(w, "usemtl material{m}")?,
        }
        for t in indices[range.start as usize..range.end as usize].chunks_exact(3) {
            // 1-based; winding reversed for the right-handed frame.
            let (a, b, c) = (t[0] + 1, t[2] + 1, t[1] + 1);
            writeln!(w, "f {a}/{a}/{a} {b}/{b}/{b} {c}/{c}/{c}")?;
        }
    }
    w.flush()?;

    let file = std::fs::File::create(&mtl_path)
        .with_context(|| format!("creating {}", mtl_path.display()))?;
    let mut w = BufWriter::new(file);
    writeln!(w, "# {comment}")?;
    for (m, mat) in materials.iter().enumerate() {
        let [r, g, b, a] = mat.diffuse;
        let [ar, ag, ab] = mat.ambient;
        let [sr, sg, sb] = mat.specular;
        writeln!(w, "\nnewmtl {}", material_name(m, mat))?;
        writeln!(w, "Kd {r} {g} {b}")?;
        writeln!(w, "Ka {ar} {ag} {ab}")?;
        writeln!(w, "Ks {sr} {sg} {sb}")?;
        writeln!(w, "Ns {}", mat.specular_power)?;
        writeln!(w, "d {a}")?;
        if let Some(t) = &mat.texture {
            writeln!(w, "map_Kd {}", relative(out_dir, &model_dir.join(t)))?;
        }
    }
    w.flush()?;
    Ok(())
}
