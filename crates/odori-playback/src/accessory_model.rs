//! DirectX `.x` accessories loaded as models: the static model MMD draws for a `.x` (one
//! root bone, MMD's tenfold accessory scale, see `odori_format::x::to_pmx`), and the `.x` a
//! `.vac` names. Placement (the accessory panel's transform, the bone it follows) is not part
//! of the model: see [`crate::accessory`].

use crate::error::PlaybackError;
use odori_format::x::{self, XFile};
use odori_format::{ErrorKind, Format, FormatError, Location, Pmx, Vac};
use std::path::{Component, Path, PathBuf};

/// A converted accessory: the model, the folder its texture names lead to, and what the
/// conversion could not keep (each line naming the file).
pub(crate) struct Accessory {
    pub pmx: Pmx,
    pub folder: PathBuf,
    pub warnings: Vec<String>,
}

/// The model of the `.x` read from `path`, whose textures lie in `folder`.
pub(crate) fn from_x(file: &XFile, path: &Path, folder: PathBuf) -> Accessory {
    let name = path
        .file_stem()
        .map_or_else(|| "accessory".into(), |s| s.to_string_lossy().into_owned());
    let (pmx, warnings) = x::to_pmx(file, &name);
    let label = path.display();
    Accessory {
        pmx,
        folder,
        warnings: warnings.iter().map(|w| format!("{label}: {w}")).collect(),
    }
}

/// The model of the `.x` that the `.vac` at `path` names, read from the `.vac`'s `folder`
/// (MMD keeps them side by side; a name leading outside the folder is refused).
pub(crate) fn from_vac(vac: &Vac, path: &Path, folder: &Path) -> Result<Accessory, PlaybackError> {
    let relative = inside_folder(&vac.x_file).ok_or_else(|| {
        FormatError::new(
            Location {
                format: Format::Vac,
                section: "accessory",
                element: None,
                field: "x file",
                offset: 0,
            },
            ErrorKind::Syntax(format!(
                "the .x file {:?} is not inside the .vac's folder",
                vac.x_file
            )),
        )
        .with_path(path)
    })?;
    let x_path = folder.join(relative);
    let file = XFile::read(&x_path)?;
    let x_folder = x_path
        .parent()
        .map_or_else(|| folder.to_path_buf(), Path::to_path_buf);
    Ok(from_x(&file, &x_path, x_folder))
}

/// `name` (MMD writes `\` or `/`) as a relative path that stays inside its folder.
fn inside_folder(name: &str) -> Option<PathBuf> {
    let path: PathBuf = name.split(['\\', '/']).filter(|p| !p.is_empty()).collect();
    let normal = path.components().all(|c| matches!(c, Component::Normal(_)));
    (normal && path.components().next().is_some()).then_some(path)
}
