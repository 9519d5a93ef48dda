//! odori on a web page. The playback library ([`odori_playback`]) compiled to
//! `wasm32-unknown-unknown` with wasm-bindgen: the page (`www/`) hands it a canvas and the
//! files a user drops, and calls it once per animation frame; it poses, simulates, deforms
//! and draws with wgpu (WebGPU where the browser has it, else WebGL2) and reports each
//! stage's time. `build.sh` builds the page.
//!
//! [`files`] (a scene from dropped files), [`archive`] (zips), [`options`] (the page's player
//! options) and [`digest`] (a digest of what the player hands out) are plain Rust and build
//! natively too, so their tests
//! run with the workspace's; the wasm-bindgen surface (`app`, `canvas`) exists only on
//! wasm32.

pub mod archive;
pub mod digest;
pub mod files;
pub mod options;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod canvas;
