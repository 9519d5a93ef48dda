//! `odori play`: a scene in a window, in real time, with its music.
//!
//! A thin front end on the playback library ([`odori_playback`]): a [`session::Session`]
//! holds the files, the scene, the [`odori_playback::Player`] and the
//! [`audio::PlaybackClock`]; each redraw asks the clock where the song is (the sound card's
//! position when there is sound, the system clock otherwise), poses the scene there and
//! draws it onto the window (`view::View`) with egui's panels over it: with wgpu on a
//! GPU, or with odori's CPU rasteriser on a software surface when there is no hardware
//! adapter (no graphics driver needed). Keys, the mouse, dropped files and
//! `--script` lines become [`actions::Action`]s handled in one place.

pub mod actions;
mod app;
pub mod audio;
mod fonts;
pub mod messages;
pub mod orbit;
mod painter;
mod panel;
pub mod pick;
mod pointer;
pub mod script;
mod script_runner;
mod selection;
pub mod session;
mod soft_painter;
pub mod stats;
mod view;

use std::path::PathBuf;

/// How the window starts.
#[derive(Clone)]
pub struct Options {
    /// Each model followed by its motions (none: the embedded demo).
    pub files: Vec<PathBuf>,
    pub camera: Option<PathBuf>,
    pub audio: Option<PathBuf>,
    pub script: Option<PathBuf>,
    /// Window size in pixels.
    pub size: (u32, u32),
    pub physics: bool,
    /// Stages, accessories and placement (default: none, and every model at the origin, as
    /// in MMD), as `odori render` takes them.
    pub scene: odori_playback::load::SceneOptions,
    /// Wait for the display's refresh (off: draw as fast as possible, for measuring).
    pub vsync: bool,
    /// Start paused.
    pub paused: bool,
    pub hide_panels: bool,
    /// MSAA samples (the adapter's best up to this), as `odori render --msaa`.
    pub msaa: u32,
    /// Side of the shadow maps in texels (0: follow the window, as `odori render` does).
    pub shadow_map_size: u32,
    /// Which renderer draws (auto: a GPU when there is one, else odori's CPU rasteriser
    /// on a software surface).
    pub backend: odori_render::Backend,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            files: Vec::new(),
            camera: None,
            audio: None,
            script: None,
            size: (1280, 720),
            physics: true,
            scene: odori_playback::load::SceneOptions::default(),
            vsync: true,
            paused: false,
            hide_panels: false,
            msaa: 4,
            shadow_map_size: 0,
            backend: odori_render::Backend::Auto,
        }
    }
}

/// Why the player could not run.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error("{0}")]
    Load(String),
    #[error(transparent)]
    Script(#[from] script::ScriptError),
    #[error("cannot open a window ({0}); `odori play` needs a display (X11 or Wayland)")]
    NoDisplay(String),
    #[error("{0}")]
    Gpu(String),
}

pub use app::run;
