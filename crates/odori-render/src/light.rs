//! The light the renderer draws with: a sampled [`Light`] from the pose runtime (colour,
//! direction and the self-shadow panel's state), which also samples the VMD's light and
//! self-shadow keys.

pub use odori_pose::light::{Light, SelfShadow, ShadowMode};
