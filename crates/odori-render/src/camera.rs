//! The camera the renderer draws from: a sampled [`CameraPose`] from the pose runtime, which
//! also samples the VMD's camera keys and frames a box.

pub use odori_pose::camera::{CameraPose, framing};
