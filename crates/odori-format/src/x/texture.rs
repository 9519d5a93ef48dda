//! MMD's texture names in a `.x` material: `texture.png*sphere.sph`.
//!
//! MMD reads `TextureFilename` as up to two names joined by `*`: a colour texture and a
//! sphere map. A sphere map is named by its extension, `.sph` multiplying the lit colour and
//! `.spa` adding to it; a lone `.sph` or `.spa` name is a sphere map with no colour texture
//! (nanoem's accessory loader decides the sphere mode the same way, by the name's
//! extension).

/// How a sphere map combines with the lit colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SphereMode {
    /// `.sph`.
    Multiply,
    /// `.spa`.
    Add,
}

/// The names in one `TextureFilename`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TextureNames {
    pub texture: Option<String>,
    pub sphere: Option<(String, SphereMode)>,
}

/// The sphere mode a file name's extension asks for, if any.
pub fn sphere_mode(name: &str) -> Option<SphereMode> {
    let ext = name.rsplit_once('.')?.1;
    if ext.eq_ignore_ascii_case("sph") {
        Some(SphereMode::Multiply)
    } else if ext.eq_ignore_ascii_case("spa") {
        Some(SphereMode::Add)
    } else {
        None
    }
}

/// Split a `TextureFilename` into its colour texture and sphere map. Empty parts are
/// ignored; when both parts are colour textures (no `.sph`/`.spa`), the first is used; when
/// both are sphere maps, the last is.
pub fn split(filename: &str) -> TextureNames {
    let mut names = TextureNames::default();
    for part in filename.split('*').map(str::trim).filter(|p| !p.is_empty()) {
        match sphere_mode(part) {
            Some(mode) => names.sphere = Some((part.to_string(), mode)),
            None if names.texture.is_none() => names.texture = Some(part.to_string()),
            None => {}
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_mmd_names() {
        let both = split("tex.png*metal.sph");
        assert_eq!(both.texture.as_deref(), Some("tex.png"));
        assert_eq!(
            both.sphere,
            Some(("metal.sph".to_string(), SphereMode::Multiply))
        );
        let lone = split("glow.SPA");
        assert_eq!(lone.texture, None);
        assert_eq!(lone.sphere, Some(("glow.SPA".to_string(), SphereMode::Add)));
        let plain = split("wood.bmp");
        assert_eq!(plain.texture.as_deref(), Some("wood.bmp"));
        assert_eq!(plain.sphere, None);
        assert_eq!(split(""), TextureNames::default());
    }
}
