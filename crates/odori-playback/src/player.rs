//! The player: per-dancer state for a scene, a clock, and the stages of a frame in MMD's
//! order — sample and morph, the before-physics pass (FK, append, IK), the physics stage, the
//! after-physics pass, then deformation — handing out a [`Frame`].

use crate::frame::{Frame, ModelFrame, skeleton_bounds};
use crate::scene::Scene;
use glam::{Affine3A, Vec3, Vec3A};
use odori_physics::{PhysicsConfig, PhysicsWorld};
use odori_pose::Instance;
use std::sync::Arc;

/// MMD's animation rate: VMD frames per second.
pub const FPS: f64 = 30.0;

/// How a player makes its frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerOptions {
    /// Run rigid-body physics for models that have bodies.
    pub physics: bool,
    /// Deform vertices on the CPU (SIMD, rayon). Off when a GPU skinner deforms from the
    /// frame's skinning matrices.
    pub deform: bool,
}

impl Default for PlayerOptions {
    fn default() -> Self {
        PlayerOptions {
            physics: true,
            deform: true,
        }
    }
}

/// One model's per-instance state.
struct Dancer {
    inst: Instance,
    physics: Option<PhysicsWorld>,
    /// How far the skeleton's box is widened for the skin around the bones.
    margin: f32,
}

/// Plays a scene: seek, advance in real time or frame by frame, and evaluate the current
/// frame into a caller-owned [`Frame`].
pub struct Player {
    scene: Arc<Scene>,
    dancers: Vec<Dancer>,
    /// Current position in MMD frames (30 per second); fractional between keys.
    frame: f64,
    options: PlayerOptions,
    warnings: Vec<String>,
}

impl Player {
    /// A player at frame 0. Physics worlds are built for models with rigid bodies when
    /// `options.physics` is on; a build without a physics engine plays without and says so in
    /// [`Player::warnings`].
    pub fn new(scene: Arc<Scene>, options: PlayerOptions) -> Player {
        let mut warnings = Vec::new();
        let dancers = (scene.models().iter())
            .map(|m| {
                let asset = m.asset();
                let model = asset.pose();
                let rig = asset.physics();
                let physics = match (options.physics, rig.bodies.is_empty()) {
                    (true, false) => {
                        match PhysicsWorld::new(rig, model, PhysicsConfig::default()) {
                            Ok(w) => {
                                // The world's list starts with the rig's own problems, which
                                // are the asset's warnings already.
                                let own = &w.diagnostics()[rig.diagnostics.len()..];
                                warnings.extend(
                                    own.iter()
                                        .map(|d| format!("{}: physics: {d}", asset.label())),
                                );
                                Some(w)
                            }
                            Err(e) => {
                                warnings.push(format!(
                                    "{}: running without physics: {e}",
                                    asset.label()
                                ));
                                None
                            }
                        }
                    }
                    _ => None,
                };
                let (lo, hi) = asset.render().bounds;
                Dancer {
                    inst: Instance::new(model, m.motion()),
                    physics,
                    margin: (hi - lo).length() * 0.1,
                }
            })
            .collect();
        Player {
            scene,
            dancers,
            frame: 0.0,
            options,
            warnings,
        }
    }

    pub fn scene(&self) -> &Arc<Scene> {
        &self.scene
    }

    pub fn options(&self) -> PlayerOptions {
        self.options
    }

    /// Problems met while setting up (a model that plays without physics, and why).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Whether any model runs physics.
    pub fn has_physics(&self) -> bool {
        self.dancers.iter().any(|d| d.physics.is_some())
    }

    /// The current position, in MMD frames.
    pub fn position(&self) -> f64 {
        self.frame
    }

    /// Jump to `frame` (MMD frames). Physics follows MMD's rule at the next evaluation: a
    /// step backwards or a long jump resets the bodies onto the pose and settles them.
    pub fn seek(&mut self, frame: f64) {
        self.frame = if frame.is_finite() {
            frame.max(0.0)
        } else {
            0.0
        };
    }

    /// Move the clock on by `seconds` of real time (30 MMD frames per second).
    pub fn advance(&mut self, seconds: f64) {
        self.seek(self.frame + seconds * FPS);
    }

    /// Put every rigid body back on its bone at the next evaluation.
    pub fn reset_physics(&mut self) {
        for d in &mut self.dancers {
            if let Some(w) = &mut d.physics {
                w.invalidate();
            }
        }
    }

    /// Model `i`'s pose at the last evaluation.
    pub fn instance(&self, i: usize) -> &Instance {
        &self.dancers[i].inst
    }

    /// Evaluate the current frame into `out` (its buffers are reused; after the first frame
    /// nothing is allocated).
    pub fn evaluate(&mut self, out: &mut Frame) {
        let frame = self.frame as f32;
        out.frame = frame;
        out.models
            .resize_with(self.dancers.len(), ModelFrame::default);
        let scene = &self.scene;
        for ((m, d), o) in (scene.models().iter())
            .zip(&mut self.dancers)
            .zip(&mut out.models)
        {
            let model = m.asset().pose();
            let motion = m.motion();
            d.inst
                .before_physics(model, motion, frame)
                .expect("the player sized each instance for its scene model and motion");
            if let Some(world) = &mut d.physics {
                world.simulate(model, &mut d.inst, frame);
            }
            d.inst.after_physics(model);
            fill(o, &d.inst, m.placement(), d.margin);
            if self.options.deform {
                odori_deform::deform(
                    m.asset().mesh(),
                    &o.skinning,
                    &o.morph_weights,
                    &mut o.vertices,
                );
            }
        }
        out.camera = scene.camera().map(|c| c.sample(frame));
        out.light = scene.light().map(|l| l.sample(frame));
    }

    /// [`Player::seek`] to `frame`, then [`Player::evaluate`].
    pub fn evaluate_at(&mut self, frame: f64, out: &mut Frame) {
        self.seek(frame);
        self.evaluate(out);
    }
}

/// Copy an evaluated instance's products into `out`, moved to the model's place in the scene.
fn fill(out: &mut ModelFrame, inst: &Instance, placement: Vec3, margin: f32) {
    out.skinning.clear();
    out.skinning.extend_from_slice(inst.skinning());
    if placement != Vec3::ZERO {
        let shift = Vec3A::from(placement);
        for s in &mut out.skinning {
            *s = Affine3A::from_translation(shift.into()) * *s;
        }
    }
    out.morph_weights.clear();
    out.morph_weights
        .extend_from_slice(inst.effective_morph_weights());
    out.materials.clear();
    out.materials.extend_from_slice(inst.materials());
    out.visible = inst.visible();
    out.bounds = skeleton_bounds(inst.world_positions(), placement, margin);
}
