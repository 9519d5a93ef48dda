//! Simulation settings.

use glam::Vec3;

/// How the world steps. The defaults are MMD's as babylon-mmd reproduces them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhysicsConfig {
    /// MMD units per second²: MMD's gravity is 9.8 × 10 along −Y.
    pub gravity: Vec3,
    /// Seconds per Bullet step: 1/60 s, two steps per 30 fps frame.
    pub fixed_step: f32,
    /// At most this many steps per call; time beyond is dropped (Bullet's rule), so a long
    /// stall does not make the next frame slow.
    pub max_substeps: u32,
    /// Steps of [`crate::PhysicsWorld::settle`] after a reset at any frame but 0 (a seek, or
    /// playback starting mid-motion), so hair and skirts start hanging instead of falling
    /// from their modelled shape. Frame 0 is not settled: MMD, and both Bullet peers, start a
    /// motion from the bodies at the frame-0 pose with no velocity.
    pub settle_steps: u32,
    /// Stop ERP of every joint axis (how hard limits push back per step); babylon-mmd's
    /// value, closer to MMD's Bullet 2.75 than Bullet 3's default of 0.2.
    pub joint_stop_erp: f32,
    /// A jump of more than this many frames (or any step backwards) counts as a seek in
    /// [`crate::PhysicsWorld::evaluate`]: the world is reset instead of stepped.
    pub max_frame_gap: f32,
}

impl Default for PhysicsConfig {
    fn default() -> Self {
        PhysicsConfig {
            gravity: Vec3::new(0.0, -98.0, 0.0),
            fixed_step: 1.0 / 60.0,
            max_substeps: 5,
            settle_steps: 60,
            joint_stop_erp: 0.475,
            max_frame_gap: 5.0,
        }
    }
}
