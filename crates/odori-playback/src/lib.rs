//! odori's playback library: what every front end (the command line, the window player, the
//! web page, the Python module, glTF export) stands on.
//!
//! - [`ModelAsset`]: a PMX or PMD file read once into one compiled value that owns the pose
//!   model, the deformation mesh, the render model and the physics model.
//! - [`Scene`]: one or more models, each with its motions, stages and accessories
//!   ([`accessory`]), a camera motion, a light motion and a soundtrack. Every model stands at
//!   the origin, as in MMD, unless the dancers are stood side by side.
//! - [`Player`]: seeks and advances a scene (in real time or frame by frame) and hands out,
//!   per frame, each model's deformed vertices or skinning matrices, material states and
//!   bounds, and the camera and light ([`Frame`]). Physics is a stage it runs between the
//!   pose runtime's two passes; it starts settled at frame 0, and a frame reached by a seek is
//!   simulated from there ([`PlayerOptions::settle`], [`Preroll`]).
//! - [`render_job::RenderJob`] and [`bake_job::bake`]: a render or bake with every option of
//!   the command line and its defaults, shared by `odori render`/`bake` and Python's
//!   `odori.render`/`bake`.
//! - [`offline::render`]: the offline pipeline, evaluate → draw → encode on three threads,
//!   into a [`sink::FrameSink`] (MP4, PNG, a folder of PNGs).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use odori_playback::{ModelAsset, MotionFile, Player, PlayerOptions, Scene, Frame};
//! use std::{path::Path, sync::Arc};
//! let mut scene = Scene::new();
//! for (model, dance) in [("Gene_light.pmx", "wavefile_v2.vmd"), ("miku_v2.pmd", "wavefile_v2.vmd")] {
//!     let asset = Arc::new(ModelAsset::load(Path::new(model))?);
//!     scene.add_model_files(asset, &[MotionFile::read(Path::new(dance))?.0]);
//! }
//! scene.set_camera(&odori_playback::load::camera_file(Path::new("wavefile_camera.vmd"))?);
//! scene.arrange_side_by_side(); // MMD puts both at the origin; here they stand apart
//! let mut player = Player::new(Arc::new(scene), PlayerOptions::default()); // physics on
//! let mut frame = Frame::default();
//! player.advance(1.0 / 60.0);                  // real time: a 60 Hz display tick
//! player.evaluate(&mut frame);                 // allocates nothing after the first frame
//! let vertices = frame.models()[0].vertices(); // deformed, with physics; camera: frame.camera()
//! # Ok(()) }
//! ```

pub mod accessory;
mod accessory_model;
pub mod asset;
pub mod cast;
// The bake job shares the render job's option naming, and both sit behind `video`.
#[cfg(feature = "video")]
pub mod bake_job;
pub mod choice;
#[cfg(feature = "video")]
pub mod chunked;
pub mod digest;
pub mod error;
pub mod frame;
pub mod load;
#[cfg(feature = "video")]
pub mod offline;
pub mod output;
pub mod player;
#[cfg(feature = "video")]
pub mod pose_stream;
pub mod project;
pub mod render;
#[cfg(feature = "video")]
pub mod render_job;
pub mod requested_frames;
pub mod scene;
#[cfg(feature = "video")]
pub mod sink;

pub use asset::{ModelAsset, ModelFile};
pub use error::PlaybackError;
pub use frame::{Frame, ModelFrame};
pub use load::MotionFile;
/// MikuMikuDance's 30 motion frames a second, for front ends that turn time into frames.
pub use odori_pose::FPS;
pub use player::{EvalTimes, Player, PlayerOptions, Preroll, SETTLE_SECONDS};
pub use scene::{OutsideParent, Role, Scene, SceneModel};

/// The README's Rust example, run as a doctest so that it follows the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;

/// The library guide's examples (`docs/library.md`), compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/library.md")]
struct LibraryGuideExamples;
