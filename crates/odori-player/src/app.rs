//! The window: winit's event loop around a [`Session`] — each redraw reads the clock, poses
//! the scene at that instant (frames between MMD's 30 per second are interpolated, so motion
//! is as smooth as the display), draws it, and lays egui's panels over it. Keys, mouse,
//! dropped files and `--script` lines all become [`Action`]s handled in one place.

use crate::actions::{Action, Key};
use crate::orbit::Orbit;
use crate::panel::{self, Marker, ModelPanel, PanelState};
use crate::pick::{self, Projection};
use crate::pointer::{Drag, Pointer};
use crate::script_runner::{ScriptRunner, Step};
use crate::selection::Selection;
use crate::session::{Added, Session};
use crate::stats::{FrameTimes, Stats};
use crate::view::View;
use crate::{Options, PlayerError};
use glam::Vec3;
use odori_playback::Frame;
use odori_render::CameraPose;
use odori_render::renderer::FrameView;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key as WinitKey, ModifiersState, NamedKey};
use winit::window::{Fullscreen, Window, WindowId};

/// MMD frames per second.
const FPS: f64 = odori_playback::FPS as f64;

struct App {
    options: Options,
    session: Session,
    view: Option<View>,
    egui: Option<egui_winit::State>,
    egui_ctx: egui::Context,
    frame: Frame,
    orbit: Orbit,
    /// Show the motion's camera (when the scene has one) rather than the orbit camera.
    motion_camera: bool,
    looping: bool,
    panels: bool,
    stats: Stats,
    /// What the last drawn picture showed; a redraw with the same key reuses it.
    drawn: Option<(f64, CameraPose, (u32, u32))>,
    /// The scene changed (files, physics): evaluate and draw anew.
    dirty: bool,
    /// Frame shown, for the panel and `status`.
    shown_frame: f64,
    script: ScriptRunner,
    pending_screenshot: Vec<Option<PathBuf>>,
    modifiers: ModifiersState,
    pointer: Pointer,
    error: Option<PlayerError>,
    frame_started: Option<Instant>,
    selection: Selection,
    /// The clock was moved by hand (seek, step, jump) since the last evaluation: physics
    /// follows MMD's seek rule rather than stepping on.
    jumped: bool,
    /// The user turned, panned, zoomed or refocused the orbit camera: a model dropped later
    /// leaves the view where the user put it (else the view reframes the grown scene).
    orbit_moved: bool,
    /// Timeline second at which the picture on screen was posed (a script's `wait Ns`
    /// waits for it).
    shown_at: f64,
}

/// Open the window and play until it is closed (or a script quits).
pub fn run(options: Options) -> Result<(), PlayerError> {
    let commands = match &options.script {
        Some(p) => crate::script::read(p)?,
        None => Vec::new(),
    };
    let timeline = crate::audio::Timeline::new();
    let session = Session::new(
        &options.files,
        options.camera.as_deref(),
        options.audio.as_deref(),
        options.physics,
        options.scene.clone(),
        timeline,
    )
    .map_err(PlayerError::Load)?;
    let event_loop = EventLoop::new().map_err(|e| PlayerError::NoDisplay(e.to_string()))?;
    let orbit = Orbit::new(session.scene.framing_camera(aspect(options.size)));
    let mut app = App {
        session,
        view: None,
        egui: None,
        egui_ctx: egui::Context::default(),
        frame: Frame::default(),
        orbit,
        motion_camera: true,
        looping: true,
        panels: !options.hide_panels,
        stats: Stats::default(),
        drawn: None,
        dirty: true,
        shown_frame: 0.0,
        script: ScriptRunner::new(commands),
        pending_screenshot: Vec::new(),
        modifiers: ModifiersState::empty(),
        pointer: Pointer::default(),
        error: None,
        frame_started: None,
        selection: Selection::default(),
        jumped: true,
        orbit_moved: false,
        shown_at: f64::NEG_INFINITY,
        options,
    };
    // What loading said is printed, not kept for the panel.
    app.session.messages.print_new();
    app.session.messages.clear();
    if let Some(m) = crate::fonts::add_japanese(&app.egui_ctx) {
        app.session.messages.warn(m);
        app.session.messages.print_new();
    }
    event_loop
        .run_app(&mut app)
        .map_err(|e| PlayerError::NoDisplay(e.to_string()))?;
    eprintln!("{}", app.stats.summary());
    match app.error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// egui's window state for `window`, on `ctx`.
fn egui_state(ctx: &egui::Context, window: &Window) -> egui_winit::State {
    egui_winit::State::new(
        ctx.clone(),
        egui::ViewportId::ROOT,
        window,
        Some(window.scale_factor() as f32),
        None,
        None,
    )
}

fn aspect((w, h): (u32, u32)) -> f32 {
    w as f32 / h.max(1) as f32
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.view.is_some() {
            return;
        }
        let (w, h) = self.options.size;
        let attrs = Window::default_attributes()
            .with_title(self.session.title())
            .with_inner_size(winit::dpi::PhysicalSize::new(w, h));
        let window = match event_loop.create_window(attrs) {
            Ok(w) => Arc::new(w),
            Err(e) => {
                self.error = Some(PlayerError::NoDisplay(e.to_string()));
                event_loop.exit();
                return;
            }
        };
        match View::new(window.clone(), &self.session.scene, &self.options) {
            Ok(view) => {
                self.egui = Some(egui_state(&self.egui_ctx, &window));
                eprintln!("odori play: {}", view.adapter);
                (self.session.messages).warn_all(view.renderer.warnings().iter().cloned());
                self.session.messages.print_new();
                self.view = Some(view);
                let now = self.session.timeline.now();
                if !self.options.paused {
                    self.session.clock.play(now);
                }
                window.request_redraw();
            }
            Err(e) => {
                self.error = Some(PlayerError::Gpu(e));
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(view) = &self.view else { return };
        let window = view.window.clone();
        let consumed = match &mut self.egui {
            Some(state) => state.on_window_event(&window, &event).consumed,
            None => false,
        };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(v) = &mut self.view {
                    v.resize(&self.session.scene, size.width, size.height);
                }
                window.request_redraw();
            }
            WindowEvent::DroppedFile(path) => {
                self.act(Action::Drop(path, Some(self.pointer.cursor)), event_loop)
            }
            WindowEvent::ModifiersChanged(m) => self.modifiers = m.state(),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed && !consumed =>
            {
                let key = match &event.logical_key {
                    WinitKey::Named(NamedKey::Space) => Some(Key::Space),
                    WinitKey::Named(NamedKey::ArrowLeft) => Some(Key::Left),
                    WinitKey::Named(NamedKey::ArrowRight) => Some(Key::Right),
                    WinitKey::Named(NamedKey::Home) => Some(Key::Home),
                    WinitKey::Named(NamedKey::End) => Some(Key::End),
                    WinitKey::Named(NamedKey::Escape) => Some(Key::Escape),
                    WinitKey::Named(NamedKey::Tab) => Some(Key::Tab),
                    WinitKey::Character(s) => s.chars().next().map(Key::Char),
                    _ => None,
                };
                // Held keys repeat frame steps; toggles act once.
                let repeats_ok = matches!(key, Some(Key::Left | Key::Right));
                if let Some(action) = key.and_then(|k| k.action(self.modifiers.shift_key()))
                    && (!event.repeat || repeats_ok)
                {
                    self.act(action, event_loop);
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                if let Some((drag, dx, dy)) =
                    (self.pointer).moved(position.x as f32, position.y as f32)
                {
                    self.take_orbit_camera();
                    self.orbit_moved = true;
                    match drag {
                        Drag::Orbit => self.orbit.orbit(dx, dy),
                        Drag::Pan => {
                            let h = self.view.as_ref().map_or(720, |v| v.size().1);
                            self.orbit.pan(dx, dy, h as f32)
                        }
                    }
                    window.request_redraw();
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                if state == ElementState::Released {
                    self.pointer.released();
                } else if !consumed
                    && let Some((x, y)) = self.pointer.pressed(button, Instant::now())
                {
                    self.act(Action::Refocus(x, y), event_loop);
                }
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.take_orbit_camera();
                self.orbit_moved = true;
                self.orbit.zoom(steps);
                window.request_redraw();
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {}
        }
        if consumed {
            window.request_redraw();
        }
    }
}

impl App {
    /// Leave the motion's camera for the orbit camera, starting where the view is now.
    fn take_orbit_camera(&mut self) {
        if self.motion_camera {
            if let Some(c) = self.frame.camera() {
                self.orbit = Orbit::new(c);
            }
            self.motion_camera = false;
        }
    }

    /// The camera the picture is drawn with: the motion's when chosen and there is one,
    /// else the orbit camera.
    fn shown_camera(&self) -> CameraPose {
        match self.frame.camera() {
            Some(c) if self.motion_camera => c,
            _ => self.orbit.pose,
        }
    }

    fn projection(&self) -> Projection {
        let size = self.view.as_ref().map_or(self.options.size, |v| v.size());
        Projection::new(&self.shown_camera(), size)
    }

    /// The model under window pixel `at`: the one whose posed skin the ray through it meets
    /// first, else the nearest whose posed box holds it (boxes of dancers side by side
    /// overlap, the skin does not).
    fn model_at(&self, at: (f32, f32)) -> Option<usize> {
        let projection = self.projection();
        let (origin, dir) = projection.ray(at.0, at.1);
        if let Some((i, _)) = self.skin_hit(origin, dir) {
            return Some(i);
        }
        let boxes = self.frame.models().iter().map(|m| m.bounds());
        pick::box_under(&projection, boxes, at)
    }

    /// The model whose posed skin the ray (`origin`, `dir`) meets first, and how far along.
    fn skin_hit(&self, origin: Vec3, dir: Vec3) -> Option<(usize, f32)> {
        let models = self.session.scene.models().iter().zip(self.frame.models());
        let mut best: Option<(usize, f32)> = None;
        for (i, (sm, mf)) in models.enumerate() {
            if !mf.visible() || pick::ray_box(origin, dir, mf.bounds()).is_none() {
                continue;
            }
            let positions = &mf.vertices().positions;
            let indices = &sm.asset().render().indices;
            if let Some(t) = pick::ray_mesh(origin, dir, positions, indices)
                && best.is_none_or(|(_, b)| t < b)
            {
                best = Some((i, t));
            }
        }
        best
    }

    /// Turn the orbit camera about the point of a model's skin under window pixel (`x`,
    /// `y`) (the nearest triangle of the posed mesh the ray meets). Off every model the view
    /// stays as it is: the skeleton's boxes reach far past the body (helper and IK bones), so
    /// their middles would be no place to look at.
    fn refocus(&mut self, x: f32, y: f32) {
        let (origin, dir) = self.projection().ray(x, y);
        if let Some((_, t)) = self.skin_hit(origin, dir) {
            self.take_orbit_camera();
            self.orbit_moved = true;
            self.orbit.focus(origin + dir * t);
        }
    }

    /// Where the picked bone is and which way its axes point, on the picture (egui points).
    fn marker(&self, pixels_per_point: f32) -> Option<Marker> {
        let b = self.selection.bone?;
        let m = self.session.scene.models().get(self.selection.model)?;
        let world = self.session.player.instance(self.selection.model).world(b);
        let at = Vec3::from(world.translation) + m.placement();
        let p = self.projection();
        let to_point = |v: Vec3| {
            p.to_pixel(v)
                .map(|(x, y, _)| egui::pos2(x / pixels_per_point, y / pixels_per_point))
        };
        let axis = |a: Vec3| to_point(at + world.transform_vector3(a).normalize_or_zero() * 1.5);
        Some(Marker {
            at: to_point(at)?,
            axes: [axis(Vec3::X)?, axis(Vec3::Y)?, axis(Vec3::Z)?],
        })
    }

    /// Look a name up on the selected model (`what`: "morph" or "bone"); an unknown one is
    /// shown in the window.
    fn find_on_selected(&mut self, name: &str, what: &str) -> Option<usize> {
        let m = self.session.scene.models().get(self.selection.model)?;
        let pose = m.asset().pose();
        let found = match what {
            "morph" => pose.find_morph(name),
            _ => pose.find_bone(name),
        };
        if found.is_none() {
            let msg = format!("{}: no {what} named {name:?}", m.asset().label());
            self.session.messages.error(msg);
        }
        found
    }

    fn end_frame(&self) -> f64 {
        self.session.scene.end_frame() as f64
    }

    /// Do what an action asks.
    fn act(&mut self, action: Action, event_loop: &ActiveEventLoop) {
        let now = self.session.timeline.now();
        let end = self.end_frame();
        let clock = &mut self.session.clock;
        let current = clock.position(now) * FPS;
        match action {
            Action::TogglePause => clock.toggle(now),
            Action::SetPlaying(true) => clock.play(now),
            Action::SetPlaying(false) => clock.pause(now),
            Action::Step(n) => {
                self.jumped = true;
                clock.pause(now);
                let to = (current.round() + n as f64).clamp(0.0, end.max(0.0));
                clock.seek(to / FPS, now);
            }
            Action::Home => {
                self.jumped = true;
                clock.seek(0.0, now)
            }
            Action::End => {
                self.jumped = true;
                clock.pause(now);
                clock.seek(end / FPS, now);
            }
            Action::Seek(f) => {
                self.jumped = true;
                clock.seek(f / FPS, now)
            }
            Action::ToggleLoop => self.looping = !self.looping,
            Action::ToggleCamera => {
                if self.motion_camera {
                    self.take_orbit_camera();
                } else {
                    self.motion_camera = true;
                }
            }
            Action::Fullscreen => {
                if let Some(v) = &self.view {
                    let full = v.window.fullscreen().is_some();
                    v.window
                        .set_fullscreen((!full).then_some(Fullscreen::Borderless(None)));
                }
            }
            Action::Screenshot(path) => self.pending_screenshot.push(path),
            Action::Drop(path, at) => self.drop_file(path, at),
            Action::Morph(name, weight) => {
                if let Some(m) = self.find_on_selected(&name, "morph") {
                    let player = &mut self.session.player;
                    player.set_morph_override(self.selection.model, m, weight);
                    self.dirty = true;
                }
            }
            Action::ResetMorphs => {
                self.session.player.clear_morph_overrides();
                self.dirty = true;
            }
            Action::PickBone(name) => {
                self.selection.bone = match name {
                    Some(n) => self.find_on_selected(&n, "bone"),
                    None => None,
                };
            }
            Action::SelectModel(n) => {
                if let Err(e) = self.selection.select(n, self.session.model_count()) {
                    self.session.messages.error(e);
                }
            }
            Action::Refocus(x, y) => self.refocus(x, y),
            Action::MakeStage => self.make_stage(),
            Action::TogglePhysics => {
                self.session.physics = !self.session.physics;
                self.session.rebuild_player();
                self.dirty = true;
            }
            Action::ResetPhysics => {
                self.session.player.reset_physics();
                self.dirty = true;
            }
            Action::Speed(s) => clock.set_speed(s, now),
            Action::TogglePanels => self.panels = !self.panels,
            Action::LoseGpu => {
                if let Some(v) = &self.view {
                    v.lose_device();
                }
            }
            Action::Quit => event_loop.exit(),
        }
        self.session.messages.print_new();
        if let Some(v) = &self.view {
            v.window.request_redraw();
        }
    }

    /// The session's models changed: the renderer takes the new scene, and the view frames it
    /// when the demo made way (`reframe`) or the user has not moved the view.
    fn scene_changed(&mut self, reframe: bool) {
        if let Some(v) = &mut self.view {
            v.replace_scene(&self.session.scene);
            (self.session.messages).warn_all(v.renderer.warnings().iter().cloned());
            v.window.set_title(&self.session.title());
        }
        if reframe || !self.orbit_moved {
            // Look at all of what is there now.
            let size = self.view.as_ref().map_or(self.options.size, |v| v.size());
            self.orbit = Orbit::new(self.session.scene.framing_camera(aspect(size)));
        }
        self.dirty = true;
    }

    /// A file dropped (or named by a script): loaded into the session; an error is shown and
    /// playing goes on with what there was.
    fn drop_file(&mut self, path: PathBuf, at: Option<(f32, f32)>) {
        let had_demo = self.session.model_count() == 1 && self.session.title().contains("demo");
        let under = at.and_then(|p| self.model_at(p));
        match self.session.add_file(&path, under) {
            Ok(added) => {
                self.session
                    .messages
                    .info(format!("loaded {}", path.display()));
                if added == Added::Model {
                    if had_demo {
                        self.selection.reset();
                    }
                    self.scene_changed(had_demo);
                }
                self.dirty = true;
            }
            Err(e) => self.session.messages.error(e),
        }
    }

    /// The selected model made the stage: the scene is rebuilt with it drawn first, and the
    /// view frames the dancers again unless the user moved it.
    fn make_stage(&mut self) {
        let label = (self.session.scene.models().get(self.selection.model))
            .map(|m| m.asset().label().to_string());
        match self.session.make_stage(self.selection.model) {
            Ok(()) => {
                if let Some(label) = label {
                    self.session.messages.info(format!("{label} is the stage"));
                }
                self.selection.reset();
                self.scene_changed(false);
            }
            Err(e) => self.session.messages.error(e),
        }
    }

    /// Run script lines until one waits.
    fn run_script(&mut self, event_loop: &ActiveEventLoop) {
        let now = self.session.timeline.now();
        self.script.start_turn(self.shown_at);
        while let Some(step) = self.script.next(now) {
            match step {
                Step::Act(a) => self.act(a, event_loop),
                Step::Status => println!("{}", self.status_line()),
            }
        }
    }

    fn status_line(&self) -> String {
        let models = self.session.scene.models();
        let names: Vec<&str> = models.iter().map(|m| m.asset().label()).collect();
        let held: Vec<String> = (self.session.player.morph_overrides().iter())
            .map(|&(m, i, w)| {
                let name = &models[m].asset().pose().morphs()[i].name;
                format!("{m}:{name}:{w:.2}")
            })
            .collect();
        let bone = match (self.selection.bone, models.get(self.selection.model)) {
            (Some(b), Some(m)) => {
                let at = self.marker(1.0).map(|k| k.at);
                let name = &m.asset().pose().bone_names()[b];
                match at {
                    Some(p) => format!("{name}@{:.0},{:.0}", p.x, p.y),
                    None => format!("{name}@behind"),
                }
            }
            _ => "none".into(),
        };
        let counts: Vec<String> = (self.session.motion_counts().iter())
            .map(|c| c.to_string())
            .collect();
        let t = self.orbit.pose.target;
        // How the last frame reached the window: copied (the fast path) or drawn.
        let surface = self.view.as_ref().map_or("none", |v| v.surface_kind());
        let extra = format!(
            " selected={} motions={} morphs={} bone={} target={:.2},{:.2},{:.2} distance={:.2} \
             surface={surface}",
            self.selection.model,
            if counts.is_empty() {
                "-".into()
            } else {
                counts.join(",")
            },
            if held.is_empty() {
                "none".into()
            } else {
                held.join(",")
            },
            bone,
            t.x,
            t.y,
            t.z,
            self.orbit.pose.distance
        );
        format!(
            "frame={:.3} playing={} models={} camera={} physics={} loop={} audio={}{extra}",
            self.shown_frame,
            self.session.clock.is_playing(),
            names.join(","),
            if self.motion_camera && self.frame.camera().is_some() {
                "motion"
            } else {
                "orbit"
            },
            self.session.physics && self.session.player.has_physics(),
            self.looping,
            match self.session.clock.output() {
                Some(o) => o.describe(),
                None => "none".into(),
            },
        )
    }

    /// One window frame, in its steps: the script's commands, the clock, the pose, the
    /// picture, screenshots, the panels (with the present), then what the panels asked for.
    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let started = Instant::now();
        let frame_time = self.frame_started.map_or(Duration::ZERO, |t| started - t);
        self.frame_started = Some(started);
        self.run_script(event_loop);
        self.survive_lost_gpu(event_loop);
        let now = self.session.timeline.now();
        self.report_lost_sound(now);
        let end = self.end_frame();
        let at = self.clock_frame(now, end);
        let mut times: FrameTimes = Default::default();
        let evaluated = self.evaluate(at, &mut times);
        if !self.draw_scene(at, evaluated, &mut times) {
            return;
        }
        self.save_screenshots(at);
        self.session.messages.print_new();
        let Some(actions) = self.panels_and_present(at, end, &mut times) else {
            return;
        };
        times[7] = frame_time;
        self.shown_at = now;
        self.stats.record(now, times, evaluated);
        for a in actions {
            self.act(a, event_loop);
        }
        // Keep drawing while playing or scripted; else wait for input.
        let busy = self.session.clock.is_playing() || self.script.busy();
        if busy {
            if let Some(v) = &self.view {
                v.window.request_redraw();
            }
            event_loop.set_control_flow(ControlFlow::Poll);
        } else {
            event_loop.set_control_flow(ControlFlow::Wait);
        }
    }

    /// Go on on odori's CPU rasteriser when the GPU device was lost (a driver reset, a
    /// removed GPU): the window gets a software surface, the picture is drawn again there,
    /// and a message says so once. The panels start on a fresh egui context, since the new
    /// painter holds none of the old one's textures.
    fn survive_lost_gpu(&mut self, event_loop: &ActiveEventLoop) {
        let Some(why) = self.view.as_ref().and_then(|v| v.lost()) else {
            return;
        };
        let Some(old) = self.view.take() else { return };
        let window = old.window.clone();
        // One surface at a time: the wgpu one goes before the software one comes.
        drop(old);
        let reason = format!("the GPU device was lost ({why})");
        match View::on_cpu(
            window.clone(),
            &self.session.scene,
            &self.options,
            reason.clone(),
        ) {
            Ok(view) => {
                (self.session.messages).warn(format!(
                    "{reason}: the window draws on odori's CPU rasteriser from here on"
                ));
                self.egui_ctx = egui::Context::default();
                // A missing font was said at start; once is enough.
                let _ = crate::fonts::add_japanese(&self.egui_ctx);
                self.egui = Some(egui_state(&self.egui_ctx, &window));
                self.view = Some(view);
                self.drawn = None;
                self.dirty = true;
            }
            Err(e) => {
                self.error = Some(PlayerError::Gpu(format!(
                    "{reason}, and odori's CPU rasteriser cannot draw in the window: {e}"
                )));
                event_loop.exit();
            }
        }
    }

    /// Say once that the sound device went away (the clock then runs on silent).
    fn report_lost_sound(&mut self, now: f64) {
        if let Some(why) = self.session.clock.take_lost(now) {
            let song =
                (self.session.audio()).map_or(String::new(), |a| format!("{}: ", a.display()));
            (self.session.messages).warn(format!("{song}{why}; playing on silent"));
        }
    }

    /// The frame the clock is at, kept within the motion: past its end it loops or stops
    /// there.
    fn clock_frame(&mut self, now: f64, end: f64) -> f64 {
        let clock = &mut self.session.clock;
        let at = clock.position(now) * FPS;
        if at <= end || !clock.is_playing() {
            return at;
        }
        if self.looping && end > 0.0 {
            clock.seek(0.0, now);
            0.0
        } else {
            clock.pause(now);
            clock.seek(end / FPS, now);
            end
        }
    }

    /// Pose frame `at` when it is not the one shown (or something changed); whether it did.
    fn evaluate(&mut self, at: f64, times: &mut FrameTimes) -> bool {
        if !(self.dirty || at != self.shown_frame || self.drawn.is_none()) {
            return false;
        }
        let player = &mut self.session.player;
        // Playing on steps physics on whatever the gap since the last frame drawn (a slow
        // adapter draws few); a seek, step or jump follows MMD's seek rule.
        if self.session.clock.is_playing() && !self.jumped && at >= self.shown_frame {
            player.play_on(at);
        } else {
            player.seek(at);
        }
        self.jumped = false;
        player.evaluate(&mut self.frame);
        let t = player.stage_times();
        times[0] = t.pose;
        times[1] = t.physics;
        times[2] = t.deform;
        self.shown_frame = at;
        true
    }

    /// Draw the posed frame when it, the camera or the size changed (or a screenshot is
    /// due); false when there is no window to draw in.
    fn draw_scene(&mut self, at: f64, evaluated: bool, times: &mut FrameTimes) -> bool {
        let size = self.view.as_ref().map_or(self.options.size, |v| v.size());
        let camera = self.shown_camera();
        let Some(view) = &mut self.view else {
            return false;
        };
        let key = (at, camera, size);
        if evaluated || self.drawn != Some(key) || !self.pending_screenshot.is_empty() {
            let t = Instant::now();
            self.frame.prepare(&mut view.renderer, true);
            let fv = FrameView {
                camera,
                light: self.frame.light(),
                bounds: self.frame.bounds(),
            };
            view.draw(&fv, !self.pending_screenshot.is_empty());
            times[3] = t.elapsed();
            self.drawn = Some(key);
            self.dirty = false;
        }
        true
    }

    /// Write the screenshots asked for, of the picture just drawn.
    fn save_screenshots(&mut self, at: f64) {
        let Some(view) = &self.view else { return };
        for path in std::mem::take(&mut self.pending_screenshot) {
            match save_screenshot(&view.renderer, path, at) {
                Ok(m) => self.session.messages.info(m),
                Err(m) => self.session.messages.error(m),
            }
        }
    }

    /// Lay out and paint the panels over the picture and present it; what the user did in
    /// them. `None` when there is no window.
    fn panels_and_present(
        &mut self,
        at: f64,
        end: f64,
        times: &mut FrameTimes,
    ) -> Option<Vec<Action>> {
        let t = Instant::now();
        let mut actions = Vec::new();
        let marker = self.marker(self.egui_ctx.pixels_per_point());
        let models = self.session.scene.models();
        let model_panel = models.get(self.selection.model).map(|m| ModelPanel {
            models,
            selected: self.selection.model,
            asset: m.asset(),
            weights: self
                .session
                .player
                .instance(self.selection.model)
                .morph_weights(),
            held: self.session.player.morph_overrides(),
            bone: self.selection.bone,
            can_be_stage: self.session.can_make_stage(self.selection.model),
        });
        let view = self.view.as_mut()?;
        let (paint, textures, ppp) = match &mut self.egui {
            // Hidden panels cost nothing: egui neither lays out nor paints (what it was
            // told meanwhile is dropped; Tab comes through winit, not egui).
            Some(state) if !self.panels => {
                drop(state.take_egui_input(&view.window));
                (Vec::new(), Default::default(), 1.0)
            }
            Some(state) => {
                let input = state.take_egui_input(&view.window);
                let panel_state = PanelState {
                    frame: at,
                    end,
                    playing: self.session.clock.is_playing(),
                    looping: self.looping,
                    motion_camera: self.motion_camera,
                    has_motion_camera: self.session.scene.camera().is_some(),
                    physics: self.session.physics,
                    speed: self.session.clock.speed(),
                    adapter: &view.adapter,
                    audio: self.session.clock.output().map(|o| o.describe()),
                    song: self.session.audio().map(|p| p.display().to_string()),
                    stats: &self.stats,
                    messages: &self.session.messages,
                    show: self.panels,
                    model: model_panel,
                    marker,
                };
                let output = self
                    .egui_ctx
                    .run_ui(input, |ui| panel::show(ui, &panel_state, &mut actions));
                state.handle_platform_output(&view.window, output.platform_output);
                let ppp = output.pixels_per_point;
                let paint = self.egui_ctx.tessellate(output.shapes, ppp);
                (paint, output.textures_delta, ppp)
            }
            None => (Vec::new(), Default::default(), 1.0),
        };
        times[4] = t.elapsed();
        if let Some((acquire, present)) = view.present(&paint, textures, ppp) {
            times[5] = acquire;
            times[6] = present;
        }
        Some(actions)
    }
}

/// Save the renderer's last frame as a PNG (written beside and renamed, so a failed save
/// leaves no partial file); the line to show.
fn save_screenshot(
    renderer: &odori_render::AnyRenderer,
    path: Option<PathBuf>,
    frame: f64,
) -> Result<String, String> {
    let path = path.unwrap_or_else(|| PathBuf::from(format!("odori-{:06.1}.png", frame)));
    let mut px = Vec::new();
    renderer.read(0, &mut px);
    let (w, h) = (renderer.options().width, renderer.options().height);
    let tmp = path.with_extension("png.part");
    let saved = image::save_buffer_with_format(
        &tmp,
        &px,
        w,
        h,
        image::ExtendedColorType::Rgba8,
        image::ImageFormat::Png,
    )
    .map_err(|e| e.to_string())
    .and_then(|()| std::fs::rename(&tmp, &path).map_err(|e| e.to_string()));
    match saved {
        Ok(()) => Ok(format!(
            "screenshot of frame {frame:.2} saved to {}",
            path.display()
        )),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(format!(
                "cannot save the screenshot {}: {e}",
                path.display()
            ))
        }
    }
}
