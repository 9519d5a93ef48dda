//! The panels over the picture: the timeline (play, scrub, loop, speed, camera, physics,
//! screenshot) along the bottom, a window with the frame times per stage, the adapter, the
//! sound and the messages, and MMD's model panels: the morph list with sliders and the bone
//! list, the picked bone marked over the picture. Clicks come back as [`Action`]s.

use crate::actions::{Action, KEY_HELP};
use crate::stats::{STAGES, Stats};
use odori_playback::ModelAsset;
use odori_playback::scene::SceneModel;

/// The selected model, for the morph and bone lists.
pub struct ModelPanel<'a> {
    /// Every model, in loading order.
    pub models: &'a [SceneModel],
    pub selected: usize,
    pub asset: &'a ModelAsset,
    /// Morph weights as the motion samples them now.
    pub weights: &'a [f32],
    /// Weights held by hand: (model, morph, weight).
    pub held: &'a [(usize, usize, f32)],
    pub bone: Option<usize>,
    /// The selected model can become the stage (given or dropped, no motion).
    pub can_be_stage: bool,
}

/// The picked bone on the picture, in egui points: its position and the ends of its x, y and
/// z axes.
pub struct Marker {
    pub at: egui::Pos2,
    pub axes: [egui::Pos2; 3],
}

/// What the panels show this frame.
pub struct PanelState<'a> {
    pub frame: f64,
    pub end: f64,
    pub playing: bool,
    pub looping: bool,
    pub motion_camera: bool,
    pub has_motion_camera: bool,
    pub physics: bool,
    pub speed: f64,
    pub adapter: &'a str,
    pub audio: Option<String>,
    pub song: Option<String>,
    pub stats: &'a Stats,
    pub messages: &'a crate::messages::Messages,
    pub show: bool,
    pub model: Option<ModelPanel<'a>>,
    pub marker: Option<Marker>,
}

/// `m:ss.cc` for a motion frame.
fn clock_text(frame: f64) -> String {
    let s = (frame / f64::from(odori_playback::FPS)).max(0.0);
    format!("{}:{:05.2}", (s / 60.0).floor(), s % 60.0)
}

/// Lay the panels out; what the user clicked goes into `actions`.
pub fn show(ui: &mut egui::Ui, s: &PanelState<'_>, actions: &mut Vec<Action>) {
    if !s.show {
        return;
    }
    egui::Panel::bottom("timeline").show(ui, |ui| {
        ui.horizontal(|ui| {
            if ui
                .button(if s.playing { "pause" } else { "play" })
                .clicked()
            {
                actions.push(Action::TogglePause);
            }
            if ui.button("|<").clicked() {
                actions.push(Action::Home);
            }
            if ui.button("<").clicked() {
                actions.push(Action::Step(-1));
            }
            if ui.button(">").clicked() {
                actions.push(Action::Step(1));
            }
            if ui.button(">|").clicked() {
                actions.push(Action::End);
            }
            ui.monospace(format!(
                "{:7.1} / {:.0}  {} / {}",
                s.frame,
                s.end,
                clock_text(s.frame),
                clock_text(s.end)
            ));
            let mut looping = s.looping;
            if ui.checkbox(&mut looping, "loop").changed() {
                actions.push(Action::ToggleLoop);
            }
            let mut speed = s.speed;
            egui::ComboBox::from_id_salt("speed")
                .selected_text(format!("×{speed}"))
                .show_ui(ui, |ui| {
                    for v in [0.25, 0.5, 1.0, 1.5, 2.0] {
                        ui.selectable_value(&mut speed, v, format!("×{v}"));
                    }
                });
            if speed != s.speed {
                actions.push(Action::Speed(speed));
            }
            if s.has_motion_camera {
                let mut motion = s.motion_camera;
                if ui.checkbox(&mut motion, "motion camera (C)").changed() {
                    actions.push(Action::ToggleCamera);
                }
            }
            let mut physics = s.physics;
            if ui.checkbox(&mut physics, "physics (P)").changed() {
                actions.push(Action::TogglePhysics);
            }
            if ui.button("reset physics").clicked() {
                actions.push(Action::ResetPhysics);
            }
            if ui.button("screenshot").clicked() {
                actions.push(Action::Screenshot(None));
            }
        });
        // The scrub bar: dragging seeks.
        let mut at = s.frame;
        ui.spacing_mut().slider_width = ui.available_width() - 16.0;
        let r = ui.add(
            egui::Slider::new(&mut at, 0.0..=s.end.max(1.0))
                .show_value(false)
                .smart_aim(false),
        );
        if r.changed() {
            actions.push(Action::Seek(at));
        }
    });
    egui::Window::new("odori")
        .default_pos([8.0, 8.0])
        .default_open(true)
        .resizable(false)
        .show(ui.ctx(), |ui| {
            ui.label(format!("{:.1} fps", s.stats.fps));
            egui::Grid::new("stages").striped(true).show(ui, |ui| {
                for (name, ms) in STAGES.iter().zip(s.stats.smooth_ms) {
                    ui.label(*name);
                    ui.monospace(format!("{ms:6.2} ms"));
                    ui.end_row();
                }
            });
            ui.label(s.adapter);
            match (&s.song, &s.audio) {
                (Some(song), Some(dev)) => ui.label(format!("♪ {song}\n{dev}")),
                (Some(song), None) => ui.label(format!("♪ {song} (silent: no sound device)")),
                _ => ui.label("no song"),
            };
            ui.collapsing("keys", |ui| {
                for (k, what) in KEY_HELP {
                    ui.label(format!("{k}: {what}"));
                }
            });
            if !s.messages.is_empty() {
                ui.separator();
                for m in s.messages.latest(6) {
                    ui.colored_label(m.level.color(), &m.text);
                }
            }
        });
    if let Some(m) = &s.model {
        model_window(ui.ctx(), m, actions);
    }
    if let Some(m) = &s.marker {
        draw_marker(ui.ctx(), m);
    }
}

/// MMD's morph and bone panels for the selected model.
fn model_window(ctx: &egui::Context, m: &ModelPanel<'_>, actions: &mut Vec<Action>) {
    let right = ctx.content_rect().right();
    egui::Window::new("model")
        .default_pos([right - 300.0, 8.0])
        .default_width(280.0)
        .default_open(true)
        .show(ctx, |ui| {
            if m.models.len() > 1 {
                let mut sel = m.selected;
                egui::ComboBox::from_id_salt("model")
                    .selected_text(m.asset.label())
                    .show_ui(ui, |ui| {
                        for (i, model) in m.models.iter().enumerate() {
                            ui.selectable_value(&mut sel, i, model.asset().label());
                        }
                    });
                if sel != m.selected {
                    actions.push(Action::SelectModel(sel));
                }
            } else {
                ui.label(m.asset.label());
            }
            if m.can_be_stage
                && (ui.button("make it the stage"))
                    .on_hover_text("at the origin, drawn first, out of the camera's framing")
                    .clicked()
            {
                actions.push(Action::MakeStage);
            }
            let pose = m.asset.pose();
            let morphs = pose.morphs();
            let row = ui.spacing().interact_size.y;
            egui::CollapsingHeader::new(format!("morphs ({})", morphs.len()))
                .default_open(true)
                .show(ui, |ui| {
                    if ui.button("reset morphs").clicked() {
                        actions.push(Action::ResetMorphs);
                    }
                    egui::ScrollArea::vertical()
                        .id_salt("morphs")
                        .max_height(240.0)
                        .show_rows(ui, row, morphs.len(), |ui, rows| {
                            for i in rows {
                                let held = (m.held.iter())
                                    .find(|h| (h.0, h.1) == (m.selected, i))
                                    .map(|h| h.2);
                                let mut w = held.or(m.weights.get(i).copied()).unwrap_or(0.0);
                                let name = &morphs[i].name;
                                ui.horizontal(|ui| {
                                    let slider = egui::Slider::new(&mut w, 0.0..=1.0).text(
                                        if held.is_some() {
                                            egui::RichText::new(name).strong()
                                        } else {
                                            egui::RichText::new(name)
                                        },
                                    );
                                    if ui.add(slider).changed() {
                                        actions.push(Action::Morph(name.clone(), Some(w)));
                                    }
                                    if held.is_some()
                                        && (ui.small_button("×"))
                                            .on_hover_text("back to the motion's weight")
                                            .clicked()
                                    {
                                        actions.push(Action::Morph(name.clone(), None));
                                    }
                                });
                            }
                        });
                });
            let bones = pose.bone_names();
            egui::CollapsingHeader::new(format!("bones ({})", bones.len()))
                .default_open(true)
                .show(ui, |ui| {
                    egui::ScrollArea::vertical()
                        .id_salt("bones")
                        .max_height(240.0)
                        .show_rows(ui, row, bones.len(), |ui, rows| {
                            for i in rows {
                                let picked = m.bone == Some(i);
                                if ui.selectable_label(picked, &bones[i]).clicked() {
                                    actions.push(Action::PickBone(
                                        (!picked).then(|| bones[i].clone()),
                                    ));
                                }
                            }
                        });
                });
        });
}

/// A ring on the picked bone and its axes (x red, y green, z blue), under the panels.
fn draw_marker(ctx: &egui::Context, m: &Marker) {
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::unique("bone marker"),
    ));
    let colours = [
        egui::Color32::from_rgb(230, 40, 40),
        egui::Color32::from_rgb(40, 200, 40),
        egui::Color32::from_rgb(40, 90, 240),
    ];
    for (end, c) in m.axes.iter().zip(colours) {
        painter.line_segment([m.at, *end], egui::Stroke::new(2.0, c));
    }
    painter.circle_stroke(m.at, 7.0, egui::Stroke::new(2.0, egui::Color32::YELLOW));
    painter.circle_filled(m.at, 2.5, egui::Color32::BLACK);
}
