//! The physics stage of one displayed frame, between the pose passes, with seeks detected.

use crate::PhysicsWorld;
use odori_pose::{FPS, Instance, Model, Motion, PoseError};

impl PhysicsWorld {
    /// The physics stage of frame `frame`, run between the pose runtime's two passes
    /// (`Instance::before_physics` and `Instance::after_physics`): a step of the time since
    /// the previous call, with kinematic bodies on their bones and simulated bodies written
    /// back into theirs. Frames may be fractional (60 fps output steps by 0.5).
    ///
    /// The first call, a step backwards, or a jump of more than
    /// [`crate::PhysicsConfig::max_frame_gap`] frames resets the world to the pose instead,
    /// and settles it ([`crate::PhysicsConfig::start_settle_steps`] at frame 0,
    /// [`crate::PhysicsConfig::seek_settle_steps`] elsewhere).
    pub fn simulate(&mut self, model: &Model, inst: &mut Instance, frame: f32) {
        match self.last_frame {
            Some(last) if frame >= last && frame - last <= self.config().max_frame_gap => {
                self.step(model, inst, (frame - last) / FPS);
            }
            _ => {
                self.reset(model, inst);
                let c = self.config();
                let steps = if frame <= 0.0 {
                    c.start_settle_steps
                } else {
                    c.seek_settle_steps
                };
                self.settle(model, inst, steps);
            }
        }
        self.last_frame = Some(frame);
    }

    /// One whole frame for a single instance: the before-physics pass, [`Self::simulate`],
    /// the after-physics pass. The playback library runs the three itself (so crowds
    /// evaluated in groups get physics too); this is for tools that play one model.
    ///
    /// # Errors
    /// As [`Instance::evaluate`]: `inst` was not sized for `model` and `motion` (nothing is
    /// evaluated or stepped).
    pub fn evaluate(
        &mut self,
        model: &Model,
        motion: &Motion,
        inst: &mut Instance,
        frame: f32,
    ) -> Result<(), PoseError> {
        inst.before_physics(model, motion, frame)?;
        self.simulate(model, inst, frame);
        inst.after_physics(model);
        Ok(())
    }

    /// Step on from the last frame to `frame` however far ahead it is, where
    /// [`Self::simulate`] would reset after a gap over `max_frame_gap`: a real-time player
    /// that draws fewer frames than MMD's 30 a second is still playing on, not seeking (the
    /// world runs at most `max_substeps` fixed steps, so it falls behind in slow motion rather
    /// than restarting every frame). No last frame, or `frame` before it: as
    /// [`Self::simulate`].
    pub fn simulate_on(&mut self, model: &Model, inst: &mut Instance, frame: f32) {
        match self.last_frame {
            Some(last) if frame >= last => {
                self.step(model, inst, (frame - last) / FPS);
                self.last_frame = Some(frame);
            }
            _ => self.simulate(model, inst, frame),
        }
    }

    /// Forget the previous frame: the next [`PhysicsWorld::simulate`] resets the world.
    pub fn invalidate(&mut self) {
        self.last_frame = None;
    }

    /// The frame of the last [`Self::simulate`] or [`Self::start`] (`None`: none since the
    /// world was built or invalidated).
    pub fn last_frame(&self) -> Option<f32> {
        self.last_frame
    }

    /// Whether [`Self::simulate`] at `frame` would step on from the last frame (rather than
    /// reset): there is a last frame, and `frame` is not before it nor more than
    /// [`crate::PhysicsConfig::max_frame_gap`] after it.
    pub fn continues_to(&self, frame: f32) -> bool {
        self.last_frame
            .is_some_and(|last| frame >= last && frame - last <= self.config().max_frame_gap)
    }

    /// Start the world at `frame` with its bodies at rest, in place of [`Self::simulate`]
    /// (between the pose passes, `inst` holding frame `frame`'s before-physics pose): reset
    /// every body onto the pose, then run `seconds` of simulated time in fixed steps
    /// (rounded to whole steps) with the bones held where they are, so hair and skirts hang
    /// as gravity and their joints leave them instead of falling from their modelled shape.
    /// The next [`Self::simulate`] steps on from `frame`.
    ///
    /// `seconds` of 0 is [`Self::simulate`]'s own rule for a reset
    /// ([`crate::PhysicsConfig::start_settle_steps`] at frame 0,
    /// [`crate::PhysicsConfig::seek_settle_steps`] elsewhere).
    pub fn start(&mut self, model: &Model, inst: &mut Instance, frame: f32, seconds: f32) {
        if !(seconds.is_finite() && seconds > 0.0) {
            self.invalidate();
            self.simulate(model, inst, frame);
            return;
        }
        self.reset(model, inst);
        let steps = (seconds / self.config().fixed_step).round() as u32;
        self.settle(model, inst, steps);
        self.last_frame = Some(frame);
    }
}
