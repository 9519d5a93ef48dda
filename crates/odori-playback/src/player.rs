//! The player: per-dancer state for a scene, a clock, and the stages of a frame in MMD's
//! order — sample and morph, the before-physics pass (FK, append, IK), the physics stage, the
//! after-physics pass, then deformation — handing out a [`Frame`].

use crate::accessory::AccessoryState;
use crate::frame::{Frame, ModelFrame, skeleton_bounds};
use crate::scene::{Role, Scene};
use glam::{Affine3A, Vec3, Vec3A};
use odori_physics::{PhysicsConfig, PhysicsWorld};
use odori_pose::{Instance, Model, Motion, Stage};
use std::sync::Arc;
// web_time: std's Instant natively; in a browser (wasm32) std's panics, web_time reads
// performance.now().
use web_time::{Duration, Instant};

/// How a player makes its frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerOptions {
    /// Run rigid-body physics for models that have bodies.
    pub physics: bool,
    /// Deform vertices on the CPU (SIMD, rayon). Off when a GPU skinner deforms from the
    /// frame's skinning matrices.
    pub deform: bool,
    /// Seconds of simulated time physics settles for when it starts (the first frame, and
    /// every restart: see [`Preroll`]): the bodies are put on the pose and stepped with the
    /// bones held still until they hang at rest, so hair and skirts do not fall from their
    /// modelled shape in the first frames ([`odori_physics::PhysicsWorld::start`]). 0: the
    /// physics world's own rule (a reset and two steps at frame 0, sixty elsewhere:
    /// [`odori_physics::PhysicsConfig::start_settle_steps`]), as MikuMikuDance and the Bullet
    /// peers start.
    ///
    /// Default [`SETTLE_SECONDS`]; see there for how it was chosen.
    pub settle: f32,
    /// Where physics starts from when it cannot step on from the last frame: the first
    /// evaluation, a seek backwards, a jump forward of more than
    /// [`odori_physics::PhysicsConfig::max_frame_gap`] frames, [`Player::reset_physics`].
    /// Default: [`Preroll::FromStart`] one frame at a time, so that any frame looks as it does
    /// when the motion is played from its start.
    pub preroll: Preroll,
    /// Read the clock for [`Player::stage_times`] on one evaluation in this many (1, the
    /// default: every one; 0 counts as 1); the others read no clock and leave the times of
    /// the last timed one. On a web page each read is a call out of wasm to
    /// `performance.now()`, a noticeable share of a pose's time there, where natively it
    /// costs nanoseconds; a page refreshing its times line a few times a second loses nothing
    /// by timing one frame in eight.
    pub stage_times_every: u32,
}

/// Default [`PlayerOptions::settle`]: 3 s of simulated time (180 steps of 1/60 s). Chosen from
/// what is seen (`tests/settle.rs`, `measure_settle`, run with `--ignored`): by 3 s the
/// deformed vertices of Gene_light.pmx and miku_v2.pmd at frame 0 of wavefile_v2 move over a
/// frame no more than Bullet's own jitter goes on moving them, and lie close to where a 60 s
/// settle leaves them; longer settles change nothing visible. The measurements are in
/// docs/command-line.md ("Physics from the first frame").
pub const SETTLE_SECONDS: f32 = 3.0;

/// How physics reaches a frame it cannot step to from the last one (see
/// [`PlayerOptions::preroll`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Preroll {
    /// Start at the frame asked for: the bodies are put on its pose and settled there
    /// ([`PlayerOptions::settle`]), as MikuMikuDance does after a seek. Cheap, but a frame
    /// reached so shows hair at rest where the motion played from its start shows it
    /// swinging. For interactive players that scrub backwards.
    Off,
    /// Simulate from the start of the motion: physics starts (settled) at frame 0 and is
    /// stepped `step` MMD frames at a time (1 for 30 fps playback, 0.5 for 60) up to the
    /// frame asked for, pose and physics only (nothing is deformed or handed out); a jump
    /// forward steps on from the last frame the same way. The frame then has the pose it has
    /// when every frame from 0 is played in order at that step, bit for bit (after a jump
    /// forward: when the frames before it were played so). A `step` that is not a positive
    /// number counts as 1. It costs the pose and physics of every frame in between
    /// (docs/performance.md, "Physics"), so a seek back to the end of a long motion takes
    /// seconds.
    FromStart { step: f32 },
}

impl Default for PlayerOptions {
    fn default() -> Self {
        PlayerOptions {
            physics: true,
            deform: true,
            settle: SETTLE_SECONDS,
            preroll: Preroll::FromStart { step: 1.0 },
            stage_times_every: 1,
        }
    }
}

/// Where the last [`Player::evaluate`] spent its time, summed over the models: what a
/// real-time front end shows per stage.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EvalTimes {
    /// Sampling, morphs and both pose passes (FK, append, IK).
    pub pose: Duration,
    /// The physics stage, with any pre-roll a seek needed.
    pub physics: Duration,
    /// CPU deformation (zero when [`PlayerOptions::deform`] is off).
    pub deform: Duration,
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
    times: EvalTimes,
    /// Evaluations so far, wrapping: which ones read the clock
    /// ([`PlayerOptions::stage_times_every`]).
    evaluations: u32,
    /// The position was moved by [`Player::play_on`] (real-time playing), not a seek.
    playing_on: bool,
    /// Morph weights set by hand over the motion's: (model, morph, weight).
    overrides: Vec<(usize, usize, f32)>,
    /// The scene's models in the order they are evaluated ([`Scene::evaluation_order`]).
    order: Vec<usize>,
}

impl Player {
    /// A player at frame 0. Physics worlds are built for models with rigid bodies when
    /// `options.physics` is on; a build without a physics engine plays without and says so in
    /// [`Player::warnings`].
    pub fn new(scene: Arc<Scene>, options: PlayerOptions) -> Player {
        let mut warnings = Vec::new();
        let physics_config = PhysicsConfig {
            gravity: scene.gravity(),
            ..PhysicsConfig::default()
        };
        let dancers = (scene.models().iter())
            .map(|m| {
                let asset = m.asset();
                let model = asset.pose();
                let rig = asset.physics();
                // An accessory is carried by its bone: bodies of its own would be left
                // behind by the move the player gives it after the pose.
                let simulated = options.physics && m.accessory().is_none();
                let physics = match (simulated, rig.bodies.is_empty()) {
                    (true, false) => {
                        match PhysicsWorld::new(rig, model, physics_config) {
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
        let order = scene.evaluation_order();
        Player {
            scene,
            dancers,
            frame: 0.0,
            options,
            warnings,
            times: EvalTimes::default(),
            evaluations: 0,
            playing_on: false,
            overrides: Vec::new(),
            order,
        }
    }

    /// Time per stage of the last [`Player::evaluate`] that read the clock (every one, unless
    /// [`PlayerOptions::stage_times_every`] says otherwise).
    pub fn stage_times(&self) -> EvalTimes {
        self.times
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

    /// Jump to `frame` (MMD frames). At the next evaluation physics steps on when `frame` is
    /// at most [`odori_physics::PhysicsConfig::max_frame_gap`] frames after the last one
    /// evaluated; otherwise (a step backwards, a long jump) it restarts as
    /// [`PlayerOptions::preroll`] says: by default simulated from frame 0 (a jump forward:
    /// from the last frame) up to `frame`, so the frame is the one playing from the start
    /// gives; with [`Preroll::Off`] the bodies are put on `frame`'s pose and settled there,
    /// as MikuMikuDance does.
    pub fn seek(&mut self, frame: f64) {
        self.frame = if frame.is_finite() {
            frame.max(0.0)
        } else {
            0.0
        };
        self.playing_on = false;
    }

    /// Move on to `frame` as real-time playing does: like [`Player::seek`], except that
    /// physics steps on from the last frame however far ahead `frame` is (a window drawing
    /// 6 frames a second jumps 5 MMD frames at a time, which a seek would take for a jump and
    /// restart physics on every frame). A frame before the last one is a seek.
    pub fn play_on(&mut self, frame: f64) {
        self.seek(frame);
        self.playing_on = true;
    }

    /// Hold morph `morph` of model `model` at `weight` over what the motion says (`None`:
    /// the motion's again), from the next evaluation on: a front end's morph slider.
    /// Indices out of range are ignored.
    pub fn set_morph_override(&mut self, model: usize, morph: usize, weight: Option<f32>) {
        let Some(m) = self.scene.models().get(model) else {
            return;
        };
        if morph >= m.asset().pose().morph_count() {
            return;
        }
        self.overrides.retain(|&(a, b, _)| (a, b) != (model, morph));
        if let Some(w) = weight.filter(|w| w.is_finite()) {
            self.overrides.push((model, morph, w));
        }
    }

    /// The morph weights held by hand: (model, morph, weight), in the order they were set.
    pub fn morph_overrides(&self) -> &[(usize, usize, f32)] {
        &self.overrides
    }

    /// Let every morph follow the motion again.
    pub fn clear_morph_overrides(&mut self) {
        self.overrides.clear();
    }

    /// Move the clock on by `seconds` of real time (30 MMD frames per second).
    pub fn advance(&mut self, seconds: f64) {
        self.seek(self.frame + seconds * f64::from(odori_pose::FPS));
    }

    /// Restart physics at the next evaluation, as after a seek backwards (see
    /// [`Player::seek`]).
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
    /// nothing is allocated). Physics that cannot step on from the last frame restarts first,
    /// as [`PlayerOptions::preroll`] says.
    pub fn evaluate(&mut self, out: &mut Frame) {
        let frame = self.frame as f32;
        out.frame = frame;
        out.models
            .resize_with(self.dancers.len(), ModelFrame::default);
        let scene = &self.scene;
        let options = &self.options;
        let mut times = EvalTimes::default();
        let overrides = &self.overrides;
        // One clock read between stages (the end of one is the start of the next), none for
        // a stage that does not run, none at all in an evaluation that is not timed: each read
        // is a call out of wasm on a web page.
        let timed = self
            .evaluations
            .is_multiple_of(options.stage_times_every.max(1));
        self.evaluations = self.evaluations.wrapping_add(1);
        let mut mark = timed.then(Instant::now);
        let mut lap = |stage: &mut Duration| {
            if let Some(mark) = &mut mark {
                let now = Instant::now();
                *stage += now - *mark;
                *mark = now;
            }
        };
        for &i in &self.order {
            let m = &scene.models()[i];
            follow_outside_parents(scene, &mut self.dancers, i, frame);
            let (d, o) = (&mut self.dancers[i], &mut out.models[i]);
            let model = m.asset().pose();
            let motion = m.motion();
            // Playing on steps physics on from the last frame, whatever the gap.
            let steps_on = self.playing_on
                && (d.physics.as_ref())
                    .and_then(|w| w.last_frame())
                    .is_some_and(|last| frame >= last);
            let start_here = match &mut d.physics {
                Some(world) if !steps_on => {
                    let start = catch_up(world, scene, i, &mut d.inst, frame, options);
                    lap(&mut times.physics);
                    start
                }
                _ => false,
            };
            pose_before_physics(&mut d.inst, model, motion, frame, overrides, i);
            lap(&mut times.pose);
            if let Some(world) = &mut d.physics {
                world.set_gravity(scene.gravity_at(frame));
                if start_here {
                    world.start(model, &mut d.inst, frame, options.settle);
                } else if steps_on {
                    world.simulate_on(model, &mut d.inst, frame);
                } else {
                    world.simulate(model, &mut d.inst, frame);
                }
                lap(&mut times.physics);
            }
            d.inst.after_physics(model);
            fill(o, &d.inst, m.placement(), d.margin);
            o.stage = *m.role() == Role::Stage;
            lap(&mut times.pose);
            // An accessory is deformed once its parent bone has placed it, below.
            if options.deform && m.accessory().is_none() {
                odori_deform::deform(
                    m.asset().mesh(),
                    &o.skinning,
                    &o.morph_weights,
                    &mut o.vertices,
                );
                lap(&mut times.deform);
            }
        }
        // Accessories after every model is posed (their parent may come later in the draw
        // order), each moved onto its parent bone's world after physics.
        for (m, i) in scene.models().iter().zip(0..) {
            let Some(accessory) = m.accessory() else {
                continue;
            };
            let state = accessory.at(frame);
            let parent_world = state.parent.map_or(Affine3A::IDENTITY, |p| {
                let holder = &scene.models()[p.model];
                let world = self.dancers[p.model].inst.world(p.bone);
                Affine3A::from_translation(holder.placement()) * world
            });
            let o = &mut out.models[i];
            place_accessory(o, &state, parent_world, m.asset().render().bounds);
            lap(&mut times.pose);
            if options.deform {
                odori_deform::deform(
                    m.asset().mesh(),
                    &o.skinning,
                    &o.morph_weights,
                    &mut o.vertices,
                );
                lap(&mut times.deform);
            }
        }
        if timed {
            self.times = times;
        }
        out.camera = scene.camera().map(|c| {
            let mut pose = c.sample(frame);
            if let Some(p) = scene.camera_follow_at(frame) {
                let world = self.dancers[p.model].inst.world(p.bone).translation;
                pose.target += Vec3::from(world) + scene.models()[p.model].placement();
            }
            pose
        });
        let light = scene.light();
        out.light = (!light.is_empty()).then(|| light.sample(frame));
    }

    /// [`Player::seek`] to `frame`, then [`Player::evaluate`].
    pub fn evaluate_at(&mut self, frame: f64, out: &mut Frame) {
        self.seek(frame);
        self.evaluate(out);
    }
}

/// Give model `i`'s instance the outside parents its keys hold at `frame`: each followed
/// bone's skinning matrix as its model's instance holds it now (this frame's when that model
/// came first in the evaluation order, else the last frame's), moved into model `i`'s space.
fn follow_outside_parents(scene: &Scene, dancers: &mut [Dancer], i: usize, frame: f32) {
    let keys = scene.models()[i].outside_parents();
    if keys.is_empty() {
        return;
    }
    dancers[i].inst.clear_outside_parents();
    let own = scene.models()[i].placement();
    // Keys in frame order: a later key of the same bone replaces an earlier one.
    for k in keys.iter().take_while(|k| k.frame <= frame) {
        let skin = k.parent.map(|(m, b)| {
            let shift = scene.models()[m].placement() - own;
            Affine3A::from_translation(shift) * dancers[m].inst.skinning()[b]
        });
        dancers[i].inst.set_outside_parent(k.bone, skin);
    }
}

/// Sample, morph and run the before-physics pass for model `index`, with the morph weights
/// `overrides` holds for it put in place of the sampled ones before the morphs apply.
fn pose_before_physics(
    inst: &mut Instance,
    model: &Model,
    motion: &Motion,
    frame: f32,
    overrides: &[(usize, usize, f32)],
    index: usize,
) {
    const SIZED: &str = "the player sized each instance for its scene model and motion";
    if !overrides.iter().any(|o| o.0 == index) {
        inst.before_physics(model, motion, frame).expect(SIZED);
        return;
    }
    inst.run_stage(model, motion, frame, Stage::Sample)
        .expect(SIZED);
    for &(_, m, w) in overrides.iter().filter(|o| o.0 == index) {
        inst.set_morph_weight(m, w);
    }
    for stage in [Stage::Morphs, Stage::BeforePhysics] {
        inst.run_stage(model, motion, frame, stage).expect(SIZED);
    }
}

/// Bring `world` to just before `frame` when it cannot step there from its last frame, as
/// `options.preroll` says; true when physics is instead to start at `frame` itself (with
/// [`PhysicsWorld::start`], in place of [`PhysicsWorld::simulate`]). Pre-rolled frames are
/// whole evaluations (both pose passes around the physics stage), since the pose carries
/// state from frame to frame too (IK).
fn catch_up(
    world: &mut PhysicsWorld,
    scene: &Scene,
    index: usize,
    inst: &mut Instance,
    frame: f32,
    options: &PlayerOptions,
) -> bool {
    let (model, motion) = (
        scene.models()[index].asset().pose(),
        scene.models()[index].motion(),
    );
    if world.continues_to(frame) {
        return false;
    }
    let settle = options.settle > 0.0;
    let Preroll::FromStart { step } = options.preroll else {
        return settle;
    };
    let step = if step.is_finite() && step > 0.0 {
        step
    } else {
        1.0
    };
    let pose_before = |inst: &mut Instance, at: f32| {
        inst.before_physics(model, motion, at)
            .expect("the player sized each instance for its scene model and motion");
    };
    let origin = match world.last_frame() {
        // A jump forward: step on from where the world is.
        Some(last) if last < frame => last,
        _ if frame <= 0.0 => return settle,
        _ => {
            pose_before(inst, 0.0);
            world.set_gravity(scene.gravity_at(0.0));
            if settle {
                world.start(model, inst, 0.0, options.settle);
            } else {
                world.simulate(model, inst, 0.0);
            }
            inst.after_physics(model);
            0.0
        }
    };
    // Frames as an in-order playback at this step computes them (start + k × step).
    for k in 1u32.. {
        let at = origin + k as f32 * step;
        if at >= frame {
            break;
        }
        pose_before(inst, at);
        world.set_gravity(scene.gravity_at(at));
        world.simulate(model, inst, at);
        inst.after_physics(model);
    }
    false
}

/// Move an accessory's frame (filled at the origin) onto `parent_world` × its transform:
/// every skinning matrix, and its box (its rest box's corners carried along); its opacity
/// multiplies every material's alpha and its switch hides it.
fn place_accessory(
    out: &mut ModelFrame,
    accessory: &AccessoryState,
    parent_world: Affine3A,
    (lo, hi): (Vec3, Vec3),
) {
    let root = parent_world * accessory.matrix;
    for s in &mut out.skinning {
        *s = root * *s;
    }
    let corners = (0..8).map(|c| {
        let pick = |bit: usize, a: f32, b: f32| if c & bit == 0 { a } else { b };
        Vec3A::from(root.transform_point3(Vec3::new(
            pick(1, lo.x, hi.x),
            pick(2, lo.y, hi.y),
            pick(4, lo.z, hi.z),
        )))
    });
    let (mut min, mut max) = (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY));
    for p in corners {
        min = min.min(p);
        max = max.max(p);
    }
    out.bounds = (min.into(), max.into());
    if accessory.opacity != 1.0 {
        for m in &mut out.materials {
            m.mul.diffuse.w *= accessory.opacity;
            m.add.diffuse.w *= accessory.opacity;
        }
    }
    out.visible &= accessory.visible;
}

/// Copy an evaluated instance's products into `out`, moved to the model's place in the scene.
fn fill(out: &mut ModelFrame, inst: &Instance, placement: Vec3, margin: f32) {
    out.skinning.clear();
    out.skinning.extend_from_slice(inst.skinning());
    if placement != Vec3::ZERO {
        let shift = Vec3A::from(placement);
        for s in &mut out.skinning {
            s.translation += shift;
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
