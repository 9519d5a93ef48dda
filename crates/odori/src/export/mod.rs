//! Writing a deformed mesh to files any 3D viewer opens: Wavefront OBJ (with a .mtl beside
//! it) and binary PLY.
//!
//! MMD models live in a left-handed frame (Y up, Z into the screen) with clockwise front
//! faces; viewers expect right-handed, counter-clockwise. Both writers negate Z (positions
//! and normals) and reverse each triangle's winding, as MMD importers do, so the model faces
//! the viewer the right way round and is not mirrored.

pub mod obj;
pub mod ply;

use odori_render::RenderModel;
use std::path::Path;

/// What a viewer needs of one material.
pub struct Material {
    pub name: String,
    pub diffuse: [f32; 4],
    pub ambient: [f32; 3],
    pub specular: [f32; 3],
    pub specular_power: f32,
    /// The main texture as the model names it (relative to the model's folder, forward
    /// slashes).
    pub texture: Option<String>,
}

/// The model's materials, in file order, as the renderer reads them (one compiled source for
/// both, so an OBJ names the textures odori draws with).
pub fn materials(model: &RenderModel) -> Vec<Material> {
    (model.materials.iter())
        .map(|m| Material {
            name: m.name.clone(),
            diffuse: m.diffuse.to_array(),
            ambient: m.ambient.to_array(),
            specular: m.specular.to_array(),
            specular_power: m.specular_power,
            texture: (m.texture.as_ref())
                .map(|t| t.replace('\\', "/"))
                .filter(|t| !t.is_empty()),
        })
        .collect()
}

/// A name safe for OBJ/MTL statements (no whitespace), unique by its index.
pub fn material_name(index: usize, m: &Material) -> String {
    let clean: String = m
        .name
        .chars()
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    format!("{index:03}_{clean}")
}

/// `target` written relative to the folder `from` (forward slashes), or absolute when the two
/// share no root.
pub fn relative(from: &Path, target: &Path) -> String {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (from, target) = (abs(from), abs(target));
    let a: Vec<_> = from.components().collect();
    let b: Vec<_> = target.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return target.display().to_string().replace('\\', "/");
    }
    let mut parts: Vec<String> = vec!["..".into(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Into the viewer's right-handed frame.
pub fn flip([x, y, z]: [f32; 3]) -> [f32; 3] {
    [x, y, -z]
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn relative_paths_climb_and_descend() {
        assert_eq!(
            super::relative(Path::new("/a/out"), Path::new("/a/model/tex/skin.png")),
            "../model/tex/skin.png"
        );
        assert_eq!(
            super::relative(Path::new("/a/model"), Path::new("/a/model/skin.png")),
            "skin.png"
        );
    }
}
