//! Measures of how well the simulation holds together, for tests and diagnostics.

use crate::{PhysicsModel, PhysicsWorld};
use glam::Vec3A;

impl PhysicsWorld {
    /// For each joint of `rig` (the description this world was built from): how far apart
    /// its anchor on body A and its anchor on body B are, beyond what the joint's translation
    /// limits allow (measured in the joint's frame on A). 0 for a perfectly held joint;
    /// `None` for a joint whose bodies Bullet refused.
    pub fn joint_errors(&mut self, rig: &PhysicsModel) -> Vec<Option<f32>> {
        let bodies = self.body_transforms();
        rig.joints
            .iter()
            .map(|j| {
                let a = bodies.get(j.body_a as usize).copied().flatten()?;
                let b = bodies.get(j.body_b as usize).copied().flatten()?;
                let ra = rig.bodies[j.body_a as usize].rest;
                let rb = rig.bodies[j.body_b as usize].rest;
                let frame_a = a * (ra.inverse() * j.rest);
                let anchor_b = (b * (rb.inverse() * j.rest)).translation;
                // B's anchor in A's joint frame, minus the allowed range per axis. Bullet
                // treats lower > upper as a free axis.
                let local = frame_a.inverse().transform_point3a(anchor_b);
                let (lo, hi) = (Vec3A::from(j.linear_lower), Vec3A::from(j.linear_upper));
                let excess = Vec3A::select(
                    lo.cmpgt(hi),
                    Vec3A::ZERO,
                    local - local.clamp(lo.min(hi), hi.max(lo)),
                );
                Some(excess.length())
            })
            .collect()
    }
}
