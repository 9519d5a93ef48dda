//! What can go wrong while exporting: every message names the file or the model it is about.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    #[error(transparent)]
    Playback(#[from] odori_playback::PlaybackError),
    #[error("{path}: the output must end in .glb or .gltf")]
    BadExtension { path: PathBuf },
    #[error("glTF export needs a model; the scene has none")]
    NoModel,
    #[error("bad range {start}:{stop}: {why}")]
    BadRange {
        start: f32,
        stop: f32,
        why: &'static str,
    },
    #[error("{model}: the model has {what}, more than glTF export handles ({limit})")]
    TooLarge {
        model: String,
        what: String,
        limit: usize,
    },
    #[error("{model}: texture {name}: {message}")]
    Texture {
        model: String,
        name: String,
        message: String,
    },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("encoding the glTF JSON: {0}")]
    Json(#[from] serde_json::Error),
}
