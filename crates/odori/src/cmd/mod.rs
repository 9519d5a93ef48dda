//! One module per subcommand.

pub mod bake;
pub mod bench;
pub mod chunks;
pub mod export;
pub mod extract;
pub mod info;
pub mod mesh;
pub mod pose;
pub mod render;
pub mod scene;
