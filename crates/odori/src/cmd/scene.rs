//! The scene flags `odori render`, `play` and `export` share: stages, accessories and the
//! dancers' placement.

use odori_playback::accessory::AccessorySpec;
use odori_playback::load::{ModelInput, SceneOptions};
use std::path::PathBuf;

/// `--stage`, `--accessory`, `--side-by-side`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SceneArgs {
    /// A stage (PMX or PMD; repeatable): drawn at the origin, before the dancers, casting and
    /// receiving self-shadow; it needs no motion, and the default camera frames the dancers,
    /// not the stage.
    #[arg(long, value_name = "FILE")]
    pub stage: Vec<PathBuf>,
    /// A prop (a PMX or PMD model; repeatable), held by a bone (`@MODEL:BONE`: MODEL the
    /// model's index from 0 or its file name, BONE a bone name such as 右手首) or standing at
    /// the origin; it follows the bone after physics.
    #[arg(long, value_name = "FILE[@MODEL:BONE]", value_parser = AccessorySpec::parse)]
    pub accessory: Vec<AccessorySpec>,
    /// Stand the dancers side by side along X. By default every model stands at the origin
    /// and only its motion moves it, as in MikuMikuDance.
    #[arg(long)]
    pub side_by_side: bool,
}

impl SceneArgs {
    /// The playback library's scene options.
    pub fn options(self) -> SceneOptions {
        SceneOptions {
            stages: self.stage.into_iter().map(ModelInput::Path).collect(),
            accessories: self.accessory,
            side_by_side: self.side_by_side,
        }
    }
}
