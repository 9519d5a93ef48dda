//! What the page's script holds: the scene, its player and the canvas, behind wasm-bindgen.
//! The script owns the clock (requestAnimationFrame, or the audio's time when a soundtrack
//! plays) and calls [`App::advance`] or [`App::seek`], then [`App::render`].

use crate::canvas::{self, Canvas};
use crate::files::{Added, Cast};
use crate::options::player_options;
use odori_playback::{Frame, Player, PlayerOptions, Scene};
use odori_render::camera::CameraPose;
use odori_render::image::RgbaImage;
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

/// Radians of orbit per pixel dragged.
const ORBIT_PER_PIXEL: f32 = 0.008;

#[wasm_bindgen]
pub struct App {
    scene: Arc<Scene>,
    player: Player,
    frame: Frame,
    canvas: Canvas,
    aspect: f32,
    /// The viewer's own camera, used when the motion camera is off or the scene has none.
    orbit: CameraPose,
    motion_camera: bool,
    physics: bool,
    /// Milliseconds of the last [`App::render`]'s draw (recording and submitting the GPU
    /// work; the GPU's own time is not visible from here).
    draw_ms: f64,
    pending: Vec<(String, Vec<u8>)>,
    /// Images of the same drop the browser decoded (RGBA8, straight alpha).
    pending_images: Vec<(String, RgbaImage)>,
    /// The models and motions dropped so far (empty: the demo plays).
    cast: Cast,
}

fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

#[wasm_bindgen]
impl App {
    /// The embedded demo on `canvas` (its width and height are the picture's). `webgl`:
    /// WebGL2 even where the browser has WebGPU; `msaa`: samples per pixel (4; 1 for none).
    pub async fn create(canvas: HtmlCanvasElement, webgl: bool, msaa: u32) -> Result<App, JsError> {
        std::panic::set_hook(Box::new(|info| {
            web_sys::console::error_1(&format!("odori panicked: {info}").into());
        }));
        let aspect = canvas.width().max(1) as f32 / canvas.height().max(1) as f32;
        let scene = Arc::new(Scene::demo());
        let canvas = canvas::open(canvas, &scene, webgl, msaa)
            .await
            .map_err(|e| JsError::new(&e))?;
        Ok(App {
            player: Player::new(scene.clone(), player_options(true)),
            orbit: scene.framing_camera(aspect),
            scene,
            frame: Frame::default(),
            canvas,
            aspect,
            motion_camera: true,
            physics: true,
            draw_ms: 0.0,
            pending: Vec::new(),
            pending_images: Vec::new(),
            cast: Cast::new(),
        })
    }

    /// The same app drawing on a new `canvas` (the page's replacement for one whose device
    /// was lost: a canvas that had a WebGPU context cannot take WebGL2's). Scene, clock,
    /// cameras and settings stay; `webgl` as in [`App::create`], MSAA as before.
    pub async fn reopen(app: App, canvas: HtmlCanvasElement, webgl: bool) -> Result<App, JsError> {
        let msaa = app.canvas.msaa();
        let canvas = canvas::open(canvas, &app.scene, webgl, msaa)
            .await
            .map_err(|e| JsError::new(&e))?;
        Ok(App { canvas, ..app })
    }

    /// Why the GPU device was lost (the browser's words), once it is: the page then reopens
    /// on a new canvas.
    pub fn device_lost(&self) -> Option<String> {
        self.canvas.lost()
    }

    /// Whether the page draws with WebGPU (else WebGL2).
    pub fn is_webgpu(&self) -> bool {
        self.canvas.is_webgpu()
    }

    /// Destroy the GPU device as a browser losing it would: the page's recovery, under test.
    pub fn lose_device(&self) {
        self.canvas.lose();
    }

    /// The adapter and backend drawing (for the page).
    pub fn adapter(&self) -> String {
        self.canvas.adapter.clone()
    }

    /// Move the clock on by `seconds` of real time.
    pub fn advance(&mut self, seconds: f64) {
        self.play_to(self.player.position() + seconds * f64::from(odori_playback::FPS));
    }

    /// Move the clock to `frame` as playing does ([`crate::clock::play_to`]; the page calls
    /// this with the soundtrack's time).
    pub fn play_to(&mut self, frame: f64) {
        crate::clock::play_to(&mut self.player, &mut self.frame, frame);
    }

    /// Jump to MMD frame `frame` (30 per second).
    pub fn seek(&mut self, frame: f64) {
        self.player.seek(frame);
    }

    /// The current MMD frame.
    pub fn position(&self) -> f64 {
        self.player.position()
    }

    /// The scene's last keyed frame.
    pub fn end_frame(&self) -> f64 {
        self.scene.end_frame() as f64
    }

    /// Evaluate the current frame and draw it on the canvas.
    pub fn render(&mut self) {
        self.player.evaluate(&mut self.frame);
        let camera = match self.frame.camera() {
            Some(c) if self.motion_camera => c,
            _ => self.orbit,
        };
        let t = now_ms();
        self.canvas.draw(&self.frame, camera);
        self.draw_ms = now_ms() - t;
    }

    /// Stage times in milliseconds: pose, physics, deform (of the last frame the player
    /// timed, one in eight: `options::player_options`), draw (of the last frame drawn).
    pub fn stage_times(&self) -> Vec<f64> {
        let t = self.player.stage_times();
        vec![
            t.pose.as_secs_f64() * 1e3,
            t.physics.as_secs_f64() * 1e3,
            t.deform.as_secs_f64() * 1e3,
            self.draw_ms,
        ]
    }

    /// Physics on or off (takes effect from the current frame).
    pub fn set_physics(&mut self, on: bool) {
        self.physics = on;
        let at = self.player.position();
        self.player = Player::new(self.scene.clone(), player_options(on));
        self.player.seek(at);
    }

    /// True when a model of the scene has rigid bodies.
    pub fn has_physics(&self) -> bool {
        self.player.has_physics()
    }

    /// Use the motion's camera (when it has one) or the viewer's orbit camera.
    pub fn set_motion_camera(&mut self, on: bool) {
        self.motion_camera = on;
    }

    /// Whether the scene's motions have camera keys.
    pub fn has_motion_camera(&self) -> bool {
        self.scene.camera().is_some()
    }

    /// Turn the orbit camera by a drag of `dx`, `dy` pixels; it starts from the motion camera's
    /// view when that was showing, and takes over.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        if self.motion_camera {
            if let Some(c) = self.frame.camera() {
                self.orbit = c;
            }
            self.motion_camera = false;
        }
        let r = &mut self.orbit.rotation;
        r.y += dx * ORBIT_PER_PIXEL;
        r.x = (r.x + dy * ORBIT_PER_PIXEL).clamp(-1.5, 1.5);
    }

    /// Zoom the orbit camera by wheel `steps` (positive: closer), 10 % a step.
    pub fn zoom(&mut self, steps: f32) {
        let d = self.orbit.distance * 0.9f32.powf(steps);
        self.orbit.distance = if d.abs() < 0.5 {
            0.5f32.copysign(self.orbit.distance)
        } else {
            d
        };
    }

    /// Queue a dropped file (`path` relative to what was dropped) for [`App::load`].
    pub fn add_file(&mut self, path: String, bytes: Vec<u8>) {
        self.pending.push((path, bytes));
    }

    /// Queue an image of the drop that the browser decoded: `width` × `height` RGBA8 pixels,
    /// straight alpha, top row first.
    pub fn add_image(
        &mut self,
        path: String,
        width: u32,
        height: u32,
        rgba: Vec<u8>,
    ) -> Result<(), JsError> {
        let got = rgba.len();
        let image = RgbaImage::from_raw(width, height, rgba).ok_or_else(|| {
            JsError::new(&format!(
                "{path}: {got} bytes of pixels for a {width}×{height} image"
            ))
        })?;
        self.pending_images.push((path, image));
        Ok(())
    }

    /// Forget the queued files and images (a drop that failed before [`App::load`]).
    pub fn discard_pending(&mut self) {
        self.pending.clear();
        self.pending_images.clear();
    }

    /// Add the queued files to what plays ([`Cast::add`], the window's rule too: a dropped
    /// model joins the others, motions alone go to the last model, a camera VMD becomes the
    /// camera). On error (the message names the file) the current scene plays on. Returns
    /// the warnings.
    pub fn load(&mut self) -> Result<Vec<String>, JsError> {
        let files = std::mem::take(&mut self.pending);
        let images = std::mem::take(&mut self.pending_images);
        let (added, mut warnings) = (self.cast)
            .add_with_images(files, images)
            .map_err(|e| JsError::new(&e))?;
        let (scene, unbound) = self.cast.scene();
        warnings.extend(unbound);
        let scene = Arc::new(scene);
        let at = self.player.position();
        self.player = Player::new(scene.clone(), player_options(self.physics));
        if added == Added::Models {
            self.canvas.replace_scene(&scene);
            self.orbit = scene.framing_camera(self.aspect);
            warnings.extend(self.canvas.warnings().iter().cloned());
        } else {
            // Same models: the renderer stays; the dance goes on from where it was.
            self.player.seek(at);
        }
        self.scene = scene;
        self.frame = Frame::default();
        Ok(warnings)
    }

    /// Start over with the embedded demo: the models, camera and song dropped are forgotten.
    /// Dropped models join the others, so this is how a user trying models one after another
    /// sees one at a time.
    pub fn clear(&mut self) {
        self.cast.clear();
        self.pending.clear();
        self.pending_images.clear();
        let scene = Arc::new(Scene::demo());
        self.player = Player::new(scene.clone(), player_options(self.physics));
        self.canvas.replace_scene(&scene);
        self.orbit = scene.framing_camera(self.aspect);
        self.scene = scene;
        self.frame = Frame::default();
    }

    /// The file names of the scene's models, in drawing order: what the page's header names
    /// (a dropped file that was left out, such as a PMD twin of a PMX, is not among them).
    pub fn model_names(&self) -> Vec<String> {
        (self.scene.models().iter())
            .map(|m| {
                let label = m.asset().label();
                label
                    .rsplit(['/', '\\'])
                    .next()
                    .unwrap_or(label)
                    .to_string()
            })
            .collect()
    }

    /// Stand the models side by side (`true`) or every one at the origin where its motion
    /// puts it (`false`, MMD's placement and the default). The dance goes on from where it
    /// was.
    pub fn set_side_by_side(&mut self, on: bool) {
        if self.cast.side_by_side == on {
            return;
        }
        self.cast.side_by_side = on;
        let (scene, _) = self.cast.scene();
        let scene = Arc::new(scene);
        let at = self.player.position();
        self.player = Player::new(scene.clone(), player_options(self.physics));
        self.player.seek(at);
        self.orbit = scene.framing_camera(self.aspect);
        self.scene = scene;
        self.frame = Frame::default();
    }

    /// The song the last drop held inside a zip, for the page to decode: its path inside the
    /// zip (the bytes come from [`App::take_song`]).
    pub fn song_name(&self) -> Option<String> {
        self.cast.song_name().map(str::to_string)
    }

    /// The bytes of that song, taken (the next call gives `None`).
    pub fn take_song(&mut self) -> Option<Vec<u8>> {
        self.cast.take_song().map(|s| s.1)
    }

    /// The digest of frames `0..frames` of the page's scene as a fresh player evaluates them
    /// in order ([`crate::digest::pose_digest`]), in hex: the browser test holds it to the
    /// native build's.
    pub fn pose_digest(&self, frames: u32, physics: bool) -> String {
        format!(
            "{:016x}",
            crate::digest::pose_digest(self.scene.clone(), frames, physics)
        )
    }

    /// For measurements: evaluate frames `0..frames` of the scene in order with a fresh
    /// player (`physics`, CPU deformation `deform`), nothing drawn; returns the mean
    /// microseconds per frame (performance.now() around the whole run).
    pub fn bench(&mut self, frames: u32, physics: bool, deform: bool) -> f64 {
        let mut player = Player::new(
            self.scene.clone(),
            PlayerOptions {
                deform,
                ..player_options(physics)
            },
        );
        let mut frame = Frame::default();
        player.evaluate_at(0.0, &mut frame);
        let t = now_ms();
        for f in 1..=frames {
            player.evaluate_at(f as f64, &mut frame);
        }
        (now_ms() - t) * 1e3 / frames.max(1) as f64
    }
}
