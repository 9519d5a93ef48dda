//! No code: this package exists to pin wasm-bindgen-cli's dependencies (see Cargo.toml).
