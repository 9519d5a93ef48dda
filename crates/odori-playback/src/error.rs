//! What can go wrong while loading a scene or producing its frames. Every message names the
//! file it is about; the format layer's errors keep their section and byte offset.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum PlaybackError {
    /// A file could not be read or parsed (the message names the file, section and offset).
    #[error(transparent)]
    Format(#[from] odori_format::FormatError),
    #[error("{path}: not a model (PMX or PMD), it is a {found}")]
    NotAModel { path: PathBuf, found: &'static str },
    #[error("{path}: not a motion (VMD or VPD), it is a {found}")]
    NotAMotion { path: PathBuf, found: &'static str },
    #[error("{path}: a camera motion must be a VMD, it is a {found}")]
    NotACamera { path: PathBuf, found: &'static str },
    #[error("compiling {name}: {source}")]
    Compile {
        name: String,
        source: odori_pose::PoseError,
    },
    #[error("{path}: a motion must follow the model it is for (give MODEL then its motions)")]
    MotionBeforeModel { path: PathBuf },
    /// The soundtrack could not be read (the message names the audio file).
    #[cfg(feature = "video")]
    #[error(transparent)]
    Soundtrack(odori_video::audio::AudioError),
    #[cfg(feature = "video")]
    #[error("{path}: {source}")]
    Video {
        path: PathBuf,
        source: odori_video::VideoError,
    },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("writing {path}: {message}")]
    Image { path: PathBuf, message: String },
    /// An output path refused before anything loads (a missing folder, a folder where a
    /// file is wanted, an extension odori does not write, no permission).
    #[error("{path}: {message}")]
    Output { path: PathBuf, message: String },
    /// A render or bake option out of its range; the message names the option.
    #[error("{0}")]
    Option(String),
    /// Physics could not run where it is required (bake).
    #[error("{context}: {source}")]
    Physics {
        context: String,
        source: odori_physics::PhysicsError,
    },
    /// No GPU adapter opened where one was required.
    #[error("{0}")]
    NoAdapter(String),
    /// The pose runtime refused (a motion bound to another model).
    #[error(transparent)]
    Pose(#[from] odori_pose::PoseError),
    /// A pose stream that cannot be read, or does not fit the render it is given to.
    #[error("{path}: {message}")]
    Stream { path: PathBuf, message: String },
    #[error("GPU skinning needs a GPU renderer; the CPU rasteriser is drawing (skin on the CPU)")]
    GpuSkinningWithoutGpu,
}

/// What kind of file a parsed document is, for messages.
pub(crate) fn kind_of(doc: &odori_format::Document) -> &'static str {
    match doc {
        odori_format::Document::Pmx(_) => "PMX model",
        odori_format::Document::Pmd(_) => "PMD model",
        odori_format::Document::Vmd(_) => "VMD motion",
        odori_format::Document::Vpd(_) => "VPD pose",
        odori_format::Document::X(_) => "DirectX .x accessory",
        odori_format::Document::Vac(_) => "VAC accessory setting",
    }
}
