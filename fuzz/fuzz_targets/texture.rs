#![no_main]
//! Fuzz odori's texture decoding (PNG, JPEG, BMP with MMD's alpha byte, TGA, DDS through the
//! `image` crate, as the renderers load a model's textures): any input must decode or fail
//! with an error, never panic, and a decoded image must be within the size limits and hold
//! exactly width × height RGBA pixels.
//!
//! The decoder's source file is compiled in here as it ships (`#[path]`), so that this target
//! builds without the renderer's GPU dependencies. The first byte picks the extension the
//! file is named with (TGA has no magic: only its name says what it is).
use libfuzzer_sys::fuzz_target;
use odori_format::limits::TEXTURE_SIDE;

#[path = "../../crates/odori-render/src/textures/decode.rs"]
mod decode;

const EXTENSIONS: [&str; 6] = ["png", "bmp", "tga", "dds", "jpg", "spa"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let ext = EXTENSIONS[pick as usize % EXTENSIONS.len()];
    if let Ok(image) = decode::decode(bytes, ext) {
        let (w, h) = image.dimensions();
        assert!(u64::from(w) <= TEXTURE_SIDE.value() && u64::from(h) <= TEXTURE_SIDE.value());
        assert_eq!(image.as_raw().len(), w as usize * h as usize * 4);
    }
});
