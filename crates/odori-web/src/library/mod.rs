//! odori as a JavaScript library: the npm package's wasm surface (`npm/`, built by
//! `build.sh --package`). The same playback library the page and the command line run, with
//! no renderer: a web developer's own engine (three.js through `npm/three.js`, or any other)
//! draws. The package's `index.js` wraps these raw classes: it turns thrown errors into
//! `OdoriError`s and hands out typed-array views into wasm memory without copies, from the
//! addresses [`instance::Instance`] gives.
//!
//! Coordinates are MMD's (left-handed, Y up, Z into the screen) unless a call is asked to
//! `mirror` them into a right-handed frame (three.js, glTF) by the one rule odori's glTF
//! export follows (`odori_pose::space`): Z negated, transforms conjugated by the mirror,
//! triangle winding reversed.

pub mod camera;
pub mod files;
pub mod instance;
pub mod model;
pub mod motion;

use wasm_bindgen::JsError;

/// A JavaScript error carrying odori's located message (the package makes it an
/// `OdoriError`).
pub(crate) fn error(message: impl std::fmt::Display) -> JsError {
    JsError::new(&message.to_string())
}

/// MMD's frames a second (the motions' clock), from its one home in the playback library.
#[wasm_bindgen::prelude::wasm_bindgen(js_name = framesPerSecond)]
pub fn frames_per_second() -> f64 {
    f64::from(odori_playback::FPS)
}
