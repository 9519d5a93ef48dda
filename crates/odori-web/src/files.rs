//! A scene from the files a user drops on the page (or picks): models (PMX/PMD) with their
//! textures, motions (VMD dances, VPD poses) and a camera VMD. Files arrive as (path, bytes):
//! the path is relative to what was dropped (`Gene/light/arm.png` for a dropped folder, the
//! bare name for picked files). Audio is the page's business (WebAudio decodes it) and never
//! reaches here.

use crate::archive;
use odori_format::{Document, Vmd};
use odori_playback::asset::ModelFile;
pub use odori_playback::cast::Added;
use odori_playback::cast::{Dropped, Refused};
use odori_playback::{ModelAsset, MotionFile, Scene};
use odori_render::TextureSource;
use odori_render::image::RgbaImage;
use odori_render::textures::files::FileSet;
use std::sync::Arc;

/// What kind of file a name is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Model,
    Motion,
    Audio,
    /// A zip (of a model folder, usually), opened by [`Cast::add`].
    Archive,
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
        "zip" => Kind::Archive,
        _ => Kind::Other,
    }
}

/// What the page plays: the models dropped with their motions, a camera motion, and a song a
/// zip held. What a drop does is the playback library's rule, the window's too
/// ([`odori_playback::cast`]: a dropped model joins the others, motions dropped alone go to the
/// last model, a VMD with camera keys only becomes the camera; [`Cast::clear`] starts over).
/// Here files arrive as names and bytes: zips are opened, and a PMD beside a PMX of the same
/// name in the same folder is the same model twice, so the PMX is loaded
/// (`distinct_models`).
#[derive(Default)]
pub struct Cast {
    cast: odori_playback::cast::Cast,
    /// A song found inside a dropped zip (path, bytes), until the page takes it: the browser
    /// decodes audio, so it goes back to the page ([`Cast::take_song`]).
    song: Option<(String, Vec<u8>)>,
    /// Stand the models side by side (off: every model at the origin, as in MMD).
    pub side_by_side: bool,
}

impl Cast {
    /// No models: the page plays the embedded demo.
    pub fn new() -> Cast {
        Cast::default()
    }

    /// Add dropped files (zips are opened first). `Err` names each file that could not be
    /// used (a line each), and the cast is unchanged; `Ok` has what changed and the warnings.
    pub fn add(&mut self, files: Vec<(String, Vec<u8>)>) -> Result<(Added, Vec<String>), String> {
        self.add_with_images(files, Vec::new())
    }

    /// [`Cast::add`] with some of the drop's images decoded already (by the browser), by path.
    pub fn add_with_images(
        &mut self,
        files: Vec<(String, Vec<u8>)>,
        mut images: Vec<(String, RgbaImage)>,
    ) -> Result<(Added, Vec<String>), String> {
        let mut files = expand_zips(files)?;
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let mut warnings = Vec::new();
        let song = take_song(&mut files, &mut warnings);
        // Every file that cannot be used is named, each on its line, not only the first.
        let mut errors = Vec::new();
        let (motions, camera) = read_motions(&files, &mut warnings, &mut errors);
        let has_model = files.iter().any(|f| kind_of(&f.0) == Kind::Model);
        if !has_model && !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        if !has_model {
            let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).take(5).collect();
            if motions.is_empty() && camera.is_none() && song.is_some() {
                // A zip of a song alone: the same models dance on to it.
                self.song = song;
                return Ok((Added::Motions, warnings));
            }
            let drop = Dropped {
                motions,
                camera,
                ..Dropped::default()
            };
            let added = self.cast.add(drop, None).map_err(|why| match why {
                Refused::Empty => format!(
                    "no model among the files given ({}): drop a PMX or PMD with its \
                     textures, and its motions",
                    names.join(", ")
                ),
                Refused::NoModel => format!(
                    "no model to dance {}: drop a PMX or PMD with its textures first (or \
                     together with its motions)",
                    names.join(", ")
                ),
            })?;
            if song.is_some() {
                self.song = song;
            }
            return Ok((added, warnings));
        }
        let model_paths = distinct_models(&files, &mut warnings);
        let mut models = Vec::new();
        for (i, model_path) in model_paths.iter().enumerate() {
            let bytes = &files
                .iter()
                .find(|f| &f.0 == model_path)
                .expect("a path of the drop")
                .1;
            let (doc, diagnostics) = match parse(model_path, bytes) {
                Ok(parsed) => parsed,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let file = match &doc {
                Document::Pmx(p) => ModelFile::Pmx(p),
                Document::Pmd(p) => ModelFile::Pmd(p),
                _ => {
                    errors.push(format!("{model_path}: not a model (PMX or PMD)"));
                    continue;
                }
            };
            let last = i + 1 == model_paths.len();
            let textures = textures_for(model_path, &files, &mut images, last);
            let asset = match ModelAsset::compile(
                file,
                TextureSource::Files(Arc::new(textures)),
                model_path,
            ) {
                Ok(asset) => asset,
                Err(e) => {
                    errors.push(e.to_string());
                    continue;
                }
            };
            warnings.extend(diagnostics.iter().map(|d| format!("{model_path}: {d}")));
            warnings.extend(asset.warnings().iter().cloned());
            models.push(Arc::new(asset));
        }
        if !errors.is_empty() {
            return Err(errors.join("\n"));
        }
        let drop = Dropped {
            models,
            motions,
            camera,
        };
        let added = (self.cast.add(drop, None)).expect("a drop holding a model is never refused");
        if song.is_some() {
            self.song = song;
        }
        Ok((added, warnings))
    }

    /// Start over: no model (the page plays the embedded demo), no camera, no song.
    pub fn clear(&mut self) {
        self.cast.clear();
        self.song = None;
    }

    /// Whether no model was dropped (or the cast was cleared since).
    pub fn is_empty(&self) -> bool {
        self.cast.models().is_empty()
    }

    /// The path of the song a drop held inside a zip, until it is taken.
    pub fn song_name(&self) -> Option<&str> {
        self.song.as_ref().map(|s| s.0.as_str())
    }

    /// The song (path, bytes) the last drops held inside a zip, taken out for the page to
    /// decode (`None` when there was none, or it was taken).
    pub fn take_song(&mut self) -> Option<(String, Vec<u8>)> {
        self.song.take()
    }

    /// The scene of the cast (every model at the origin, as in MMD, or side by side when
    /// [`Cast::side_by_side`] is on; empty when the cast is), with a warning per model about
    /// motion tracks it has no bone or morph for.
    pub fn scene(&self) -> (Scene, Vec<String>) {
        let mut scene = Scene::new();
        let (_, warnings) = self.cast.add_to(&mut scene);
        if self.side_by_side {
            scene.arrange_side_by_side();
        }
        (scene, warnings)
    }
}

/// The model files of a drop, in name order, without a PMD that has a PMX of the same name in
/// the same folder (model distributions often ship both; MMD users load the PMX, which carries
/// more): each PMD left out is named in a warning.
fn distinct_models(files: &[(String, Vec<u8>)], warnings: &mut Vec<String>) -> Vec<String> {
    let models: Vec<&String> = (files.iter())
        .filter(|f| kind_of(&f.0) == Kind::Model)
        .map(|f| &f.0)
        .collect();
    let stem = |p: &str| {
        p.rsplit_once('.')
            .map_or(p, |(s, _)| s)
            .replace('\\', "/")
            .to_lowercase()
    };
    let is_pmd = |p: &str| p.to_ascii_lowercase().ends_with(".pmd");
    let mut kept = Vec::new();
    for &path in &models {
        let twin = (models.iter()).find(|other| !is_pmd(other) && stem(other) == stem(path));
        match twin {
            Some(pmx) if is_pmd(path) => warnings.push(format!(
                "{path}: the same model as {pmx} (same name, same folder): {pmx} is loaded"
            )),
            _ => kept.push(path.clone()),
        }
    }
    kept
}

/// The audio files among `files` (those a zip held: the page decodes loose ones itself), taken
/// out; the first by name is the song, the others are warned about.
fn take_song(
    files: &mut Vec<(String, Vec<u8>)>,
    warnings: &mut Vec<String>,
) -> Option<(String, Vec<u8>)> {
    let mut songs = Vec::new();
    files.retain_mut(|f| {
        let audio = kind_of(&f.0) == Kind::Audio;
        if audio {
            songs.push(std::mem::take(f));
        }
        !audio
    });
    let mut songs = songs.into_iter();
    let song = songs.next();
    if let Some((first, _)) = &song {
        warnings.extend(songs.map(|(p, _)| format!("{p}: a second song; {first} plays")));
    }
    song
}

/// The files with every zip among them replaced by what it holds (paths inside the zip).
fn expand_zips(files: Vec<(String, Vec<u8>)>) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        if archive::is_zip(&path) {
            out.extend(archive::expand(&path, &bytes)?);
        } else {
            out.push((path, bytes));
        }
    }
    Ok(out)
}

/// The motions among `files`, in name order, and the last camera-only VMD (one with camera
/// keys and no bone or morph keys); each file that cannot be read is added to `errors`.
fn read_motions(
    files: &[(String, Vec<u8>)],
    warnings: &mut Vec<String>,
    errors: &mut Vec<String>,
) -> (Vec<MotionFile>, Option<Box<Vmd>>) {
    let mut motions = Vec::new();
    let mut camera = None;
    for (path, bytes) in files.iter().filter(|f| kind_of(&f.0) == Kind::Motion) {
        let (doc, diagnostics) = match parse(path, bytes) {
            Ok(parsed) => parsed,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        warnings.extend(diagnostics.iter().map(|d| format!("{path}: {d}")));
        let motion = match doc {
            Document::Vmd(v) => MotionFile::Vmd(v),
            Document::Vpd(v) => MotionFile::Vpd(v),
            _ => {
                errors.push(format!("{path}: not a motion (VMD or VPD)"));
                continue;
            }
        };
        match motion {
            MotionFile::Vmd(v) if motion.is_camera_only() => camera = Some(v),
            other => motions.push(other),
        }
    }
    (motions, camera)
}

/// Parse any MMD file, the error naming it.
pub(crate) fn parse(
    path: &str,
    bytes: &[u8],
) -> Result<(Document, Vec<odori_format::Diagnostic>), String> {
    odori_format::parse_any(bytes).map_err(|e| e.with_path(path).to_string())
}

/// The non-model, non-motion files and the decoded images, by their path relative to the
/// folder of `model_path` (files outside it keep their whole path: found by base name only).
/// The images are moved into the set for the `last` model, cloned for the others.
pub(crate) fn textures_for(
    model_path: &str,
    files: &[(String, Vec<u8>)],
    images: &mut Vec<(String, RgbaImage)>,
    last: bool,
) -> FileSet {
    let folder = model_path.rsplit_once(['/', '\\']).map_or("", |(d, _)| d);
    let relative = |path: &str| -> String {
        match path.strip_prefix(folder) {
            Some(rest) if !folder.is_empty() => rest.trim_start_matches(['/', '\\']).into(),
            _ => path.into(),
        }
    };
    let mut set = FileSet::new();
    for (path, bytes) in files.iter().filter(|f| kind_of(&f.0) == Kind::Other) {
        set.insert(&relative(path), bytes.clone());
    }
    let images = if last {
        std::mem::take(images)
    } else {
        images.clone()
    };
    for (path, image) in images {
        set.insert_decoded(&relative(&path), image);
    }
    set
}
