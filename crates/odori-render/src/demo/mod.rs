//! The embedded demo: a character and a short dance generated in code, so `odori render`
//! with no files still renders something MMD-like (and so golden tests need no assets).

mod dance;
mod mesh;
mod model;
mod textures;

pub use dance::FRAMES;

use crate::textures::TextureSource;
use odori_format::{Pmx, Vmd};

/// The demo's model, motion (with camera keys) and textures.
pub struct Demo {
    pub pmx: Pmx,
    pub vmd: Vmd,
    pub textures: TextureSource,
}

impl Demo {
    pub fn new() -> Demo {
        Demo {
            pmx: model::character(),
            vmd: dance::dance(),
            textures: TextureSource::Memory(textures::all()),
        }
    }
}

impl Default for Demo {
    fn default() -> Self {
        Demo::new()
    }
}
