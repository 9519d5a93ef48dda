//! odori on the web. The playback library ([`odori_playback`]) compiled to
//! `wasm32-unknown-unknown` with wasm-bindgen, two ways from this one crate:
//! - the page (feature `page`, on by default): `www/` hands it a canvas and the files a user
//!   drops, and calls it once per animation frame; it poses, simulates, deforms and draws
//!   with wgpu (WebGPU where the browser has it, else WebGL2) and reports each stage's time.
//!   `build.sh` builds the page;
//! - the npm package (`npm/`, `build.sh --package`, without the `page` feature): the
//!   `library` classes, which pose and simulate and leave the drawing to the web
//!   developer's engine (three.js through the package's adapter).
//!
//! [`files`] (a scene from dropped files), [`archive`] (zips), [`options`] (the page's player
//! options), [`clock`] (playing to a frame), [`matrix`] (matrices handed to JavaScript) and [`digest`] (a digest of what the
//! player hands out) are plain Rust and build
//! natively too, so their tests
//! run with the workspace's; the wasm-bindgen surface (`app`, `canvas`, `library`) exists
//! only on wasm32.

pub mod archive;
pub mod clock;
pub mod digest;
pub mod files;
pub mod matrix;
pub mod options;

#[cfg(all(target_arch = "wasm32", feature = "page"))]
pub mod app;
#[cfg(all(target_arch = "wasm32", feature = "page"))]
pub mod canvas;
#[cfg(target_arch = "wasm32")]
pub mod library;
