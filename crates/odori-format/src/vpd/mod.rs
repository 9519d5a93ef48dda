//! VPD poses: Shift-JIS text holding one pose (bones, and optionally morphs).

mod lines;
mod read;
pub(crate) mod write;

pub use read::parse;
pub use write::write;

#[derive(Debug, Clone, PartialEq)]
pub struct BonePose {
    pub name: String,
    pub translation: [f32; 3],
    /// Quaternion (x, y, z, w).
    pub rotation: [f32; 4],
}

#[derive(Debug, Clone, PartialEq)]
pub struct MorphPose {
    pub name: String,
    pub weight: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Vpd {
    /// The model file name line ("miku.osm").
    pub model_name: String,
    pub bones: Vec<BonePose>,
    pub morphs: Vec<MorphPose>,
}
