//! A scene from the files a user drops on the page (or picks): models (PMX/PMD) with their
//! textures, motions (VMD dances, VPD poses) and a camera VMD. Files arrive as (path, bytes):
//! the path is relative to what was dropped (`Gene/light/arm.png` for a dropped folder, the
//! bare name for picked files). Audio is the page's business (WebAudio decodes it) and never
//! reaches here.

use odori_format::Document;
use odori_playback::asset::ModelFile;
use odori_playback::load::unmatched_summary;
use odori_playback::{ModelAsset, MotionFile, Scene};
use odori_render::TextureSource;
use odori_render::textures::files::FileSet;
use std::sync::Arc;

/// What a drop made: the scene, and every warning met (each naming its file).
pub struct Loaded {
    pub scene: Scene,
    pub warnings: Vec<String>,
}

/// What kind of file a name is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Model,
    Motion,
    Audio,
    /// Anything else: a texture, or a file no model names (ignored).
    Other,
}

/// The kind of `path` by its extension, any case.
pub fn kind_of(path: &str) -> Kind {
    let ext = path
        .rsplit_once('.')
        .map_or("", |(_, e)| e)
        .to_ascii_lowercase();
    match ext.as_str() {
        "pmx" | "pmd" => Kind::Model,
        "vmd" | "vpd" => Kind::Motion,
        "mp3" | "wav" | "ogg" | "m4a" | "aac" | "flac" => Kind::Audio,
        _ => Kind::Other,
    }
}

/// Build a scene from dropped files: every model gets every motion (merged in name order; a
/// camera VMD's keys become the scene's camera), models stand side by side. Textures are
/// looked up among the files under each model's folder ([`FileSet`]). `Err` is one message
/// naming the file that could not be used; nothing is half-loaded.
pub fn scene_from_files(mut files: Vec<(String, Vec<u8>)>) -> Result<Loaded, String> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut warnings = Vec::new();
    let mut motions = Vec::new();
    for (path, bytes) in files.iter().filter(|f| kind_of(&f.0) == Kind::Motion) {
        let (doc, diagnostics) = parse(path, bytes)?;
        warnings.extend(diagnostics.iter().map(|d| format!("{path}: {d}")));
        motions.push(match doc {
            Document::Vmd(v) => MotionFile::Vmd(v),
            Document::Vpd(v) => MotionFile::Vpd(v),
            _ => return Err(format!("{path}: not a motion (VMD or VPD)")),
        });
    }
    let model_paths: Vec<&String> = (files.iter())
        .filter(|f| kind_of(&f.0) == Kind::Model)
        .map(|f| &f.0)
        .collect();
    if model_paths.is_empty() {
        let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).take(5).collect();
        return Err(format!(
            "no model among the files given ({}): drop a PMX or PMD with its textures, and \
             its motions",
            names.join(", ")
        ));
    }
    let mut scene = Scene::new();
    for model_path in model_paths {
        let bytes = &files.iter().find(|f| &f.0 == model_path).unwrap().1;
        let (doc, diagnostics) = parse(model_path, bytes)?;
        let file = match &doc {
            Document::Pmx(p) => ModelFile::Pmx(p),
            Document::Pmd(p) => ModelFile::Pmd(p),
            _ => return Err(format!("{model_path}: not a model (PMX or PMD)")),
        };
        let textures = textures_for(model_path, &files);
        let asset = ModelAsset::compile(file, TextureSource::Files(Arc::new(textures)), model_path)
            .map_err(|e| e.to_string())?;
        warnings.extend(diagnostics.iter().map(|d| format!("{model_path}: {d}")));
        warnings.extend(asset.warnings().iter().cloned());
        let i = scene.add_model_files(Arc::new(asset), &motions);
        let unbound = scene.models()[i].motion().unbound();
        warnings.extend(unmatched_summary(model_path, unbound));
    }
    scene.arrange_side_by_side();
    Ok(Loaded { scene, warnings })
}

/// Parse any MMD file, the error naming it.
fn parse(path: &str, bytes: &[u8]) -> Result<(Document, Vec<odori_format::Diagnostic>), String> {
    odori_format::parse_any(bytes).map_err(|e| e.with_path(path).to_string())
}

/// The non-model, non-motion files, by their path relative to the folder of `model_path`
/// (files outside it keep their whole path: found by base name only).
fn textures_for(model_path: &str, files: &[(String, Vec<u8>)]) -> FileSet {
    let folder = model_path.rsplit_once(['/', '\\']).map_or("", |(d, _)| d);
    let mut set = FileSet::new();
    for (path, bytes) in files.iter().filter(|f| kind_of(&f.0) == Kind::Other) {
        let relative = match path.strip_prefix(folder) {
            Some(rest) if !folder.is_empty() => rest.trim_start_matches(['/', '\\']),
            _ => path.as_str(),
        };
        set.insert(relative, bytes.clone());
    }
    set
}
