//! The files a model or motion is read with, by path: what a web developer has in hand
//! (fetched bytes, a `Map` of a folder, a zip) gathered in one set before anything is read.

use super::error;
use crate::archive;
use wasm_bindgen::prelude::*;

/// Files by path, in the order they were added (a zip adds what it holds, by the paths
/// inside it).
#[wasm_bindgen(js_name = RawFiles)]
#[derive(Default)]
pub struct Files {
    pub(crate) files: Vec<(String, Vec<u8>)>,
}

#[wasm_bindgen(js_class = RawFiles)]
impl Files {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Files {
        Files::default()
    }

    /// Add `bytes` as `path` (relative to the model's folder, `/` or `\` between folders); a
    /// `.zip` is opened and each file in it added under its path inside the archive. The
    /// error names the zip and what was wrong with it (odori's archive limits apply).
    pub fn add(&mut self, path: String, bytes: Vec<u8>) -> Result<(), JsError> {
        if archive::is_zip(&path) {
            self.files
                .extend(archive::expand(&path, &bytes).map_err(error)?);
        } else {
            self.files.push((path, bytes));
        }
        Ok(())
    }

    /// The paths held, in order.
    pub fn paths(&self) -> Vec<String> {
        self.files.iter().map(|f| f.0.clone()).collect()
    }
}
