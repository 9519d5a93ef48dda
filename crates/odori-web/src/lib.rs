//! odori on a web page. The playback library ([`odori_playback`]) compiled to
//! `wasm32-unknown-unknown` with wasm-bindgen: the page (`www/`) hands it a canvas and the
//! files a user drops, and calls it once per animation frame; it poses, simulates, deforms
//! and draws with wgpu (WebGPU where the browser has it, else WebGL2) and reports each
//! stage's time. `build.sh` builds the page.
//!
//! [`files`] (a scene from dropped files) and [`archive`] (zips) are plain Rust and builds natively too, so its tests
//! run with the workspace's; the wasm-bindgen surface ([`app`], [`canvas`]) exists only on
//! wasm32.

pub mod archive;
pub mod files;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod canvas;
