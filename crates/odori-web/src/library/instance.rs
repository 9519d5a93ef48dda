//! One dancing model: a player over a one-model scene, evaluated frame by frame, its results
//! left in buffers that JavaScript reads through views into wasm memory (no copies).

use super::error;
use super::model::Model;
use super::motion::Motion;
use crate::matrix::write_matrix;
use crate::options::player_options;
use odori_playback::{Frame, Player, PlayerOptions, Scene};
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// A model dancing a motion, with or without physics. Evaluating a frame refreshes the
/// buffers the `*Ptr` methods point at (zeros before the first evaluation: nothing is
/// evaluated ahead, since an evaluation leaves IK state that the next one starts from);
/// their addresses never change, but wasm memory may grow, so the package re-makes its views
/// when `memory.buffer` changes.
#[wasm_bindgen(js_name = RawInstance)]
pub struct Instance {
    player: Player,
    frame: Frame,
    mirror: bool,
    /// Each bone's world matrix (16 floats, column-major).
    world: Vec<f32>,
    /// Each bone's skinning matrix (world × inverse bind, 16 floats, column-major).
    skinning: Vec<f32>,
    /// Each morph's weight (group morphs resolved).
    morphs: Vec<f32>,
    /// Each material's diffuse colour after material morphs (RGBA).
    diffuse: Vec<f32>,
    visible: bool,
}

#[wasm_bindgen(js_class = RawInstance)]
impl Instance {
    /// `model` standing at rest (no motion), with rigid-body physics when `physics` and the
    /// model has bodies; `mirror`: results in a right-handed frame.
    #[wasm_bindgen(constructor)]
    pub fn new(model: &Model, physics: bool, mirror: bool) -> Instance {
        let mut scene = Scene::new();
        scene.add_model(model.asset.clone(), &[]);
        Instance::of(model, scene, physics, mirror)
    }

    /// `model` dancing `motion`, as [`Instance::new`]. A seek starts physics where it lands,
    /// as MikuMikuDance does (the page's player rule). Refused when the motion was loaded
    /// for another model.
    pub fn dancing(
        model: &Model,
        motion: &Motion,
        physics: bool,
        mirror: bool,
    ) -> Result<Instance, JsError> {
        if !Arc::ptr_eq(&motion.model, &model.asset) {
            return Err(error(format!(
                "this motion was loaded for another model ({}): load it for {} with \
                 Motion.load(model, files)",
                motion.model.label(),
                model.asset.label()
            )));
        }
        let mut scene = Scene::new();
        scene.add_bound(model.asset.clone(), motion.motion.clone());
        Ok(Instance::of(model, scene, physics, mirror))
    }

    /// Whether the model has rigid bodies and physics is on.
    #[wasm_bindgen(getter, js_name = hasPhysics)]
    pub fn has_physics(&self) -> bool {
        self.player.has_physics()
    }

    /// The current MMD frame (30 a second).
    #[wasm_bindgen(getter)]
    pub fn position(&self) -> f64 {
        self.player.position()
    }

    /// The motion's last keyed frame.
    #[wasm_bindgen(getter, js_name = endFrame)]
    pub fn end_frame(&self) -> f64 {
        self.player.scene().end_frame() as f64
    }

    /// Jump to `frame` (physics restarts there unless it is the next frames on).
    pub fn seek(&mut self, frame: f64) {
        self.player.seek(frame);
    }

    /// Move the clock to `frame` as playing does ([`crate::clock::play_to`]: a step forward
    /// of up to three seconds is played through, so physics steps on instead of restarting).
    #[wasm_bindgen(js_name = playTo)]
    pub fn play_to(&mut self, frame: f64) {
        crate::clock::play_to(&mut self.player, &mut self.frame, frame);
    }

    /// Move the clock on by `seconds` of real time, as playing does.
    pub fn advance(&mut self, seconds: f64) {
        self.play_to(self.player.position() + seconds * f64::from(odori_playback::FPS));
    }

    /// Evaluate the current frame (pose, morphs, IK, physics) into the buffers.
    pub fn evaluate(&mut self) {
        self.player.evaluate(&mut self.frame);
        let inst = self.player.instance(0);
        for (out, w) in self.world.chunks_exact_mut(16).zip(inst.world_transforms()) {
            write_matrix(out, &w, self.mirror);
        }
        let m = &self.frame.models()[0];
        for (out, s) in self.skinning.chunks_exact_mut(16).zip(m.skinning()) {
            write_matrix(out, s, self.mirror);
        }
        self.morphs.copy_from_slice(m.morph_weights());
        self.visible = m.visible();
        let model = self.player.scene().models()[0].asset().render();
        for ((out, state), desc) in (self.diffuse.chunks_exact_mut(4))
            .zip(m.materials())
            .zip(&model.materials)
        {
            let base = odori_render::materials::base_values(desc);
            out.copy_from_slice(&state.resolve(&base).diffuse.to_array());
        }
    }

    /// Where the world matrices are (bytes into wasm memory; 16 floats a bone).
    #[wasm_bindgen(js_name = worldPtr)]
    pub fn world_ptr(&self) -> usize {
        self.world.as_ptr() as usize
    }

    /// Where the skinning matrices are (16 floats a bone).
    #[wasm_bindgen(js_name = skinningPtr)]
    pub fn skinning_ptr(&self) -> usize {
        self.skinning.as_ptr() as usize
    }

    /// Where the morph weights are (one float a morph, group morphs resolved).
    #[wasm_bindgen(js_name = morphWeightsPtr)]
    pub fn morph_weights_ptr(&self) -> usize {
        self.morphs.as_ptr() as usize
    }

    /// How many morph weights there are.
    #[wasm_bindgen(js_name = morphCount)]
    pub fn morph_count(&self) -> usize {
        self.morphs.len()
    }

    /// Where the materials' diffuse colours are (RGBA a material, after material morphs).
    #[wasm_bindgen(js_name = diffusePtr)]
    pub fn diffuse_ptr(&self) -> usize {
        self.diffuse.as_ptr() as usize
    }

    /// Whether the model is shown at this frame (VMD's visibility keys).
    #[wasm_bindgen(getter)]
    pub fn visible(&self) -> bool {
        self.visible
    }
}

impl Instance {
    fn of(model: &Model, scene: Scene, physics: bool, mirror: bool) -> Instance {
        let bones = model.asset.pose().bone_count();
        let materials = model.asset.render().materials.len();
        let player = Player::new(
            Arc::new(scene),
            PlayerOptions {
                deform: false,
                ..player_options(physics)
            },
        );
        Instance {
            player,
            frame: Frame::default(),
            mirror,
            world: vec![0.0; bones * 16],
            skinning: vec![0.0; bones * 16],
            morphs: vec![0.0; model.asset.pose().morph_count()],
            diffuse: vec![0.0; materials * 4],
            visible: true,
        }
    }
}
