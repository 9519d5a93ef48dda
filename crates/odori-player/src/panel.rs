//! The panels over the picture: the timeline (play, scrub, loop, speed, camera, physics,
//! screenshot) along the bottom, and a window with the frame times per stage, the adapter,
//! the sound and the messages. Clicks come back as [`Action`]s.

use crate::actions::{Action, KEY_HELP};
use crate::stats::{STAGES, Stats};

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
    pub messages: &'a [String],
    pub show: bool,
}

/// `m:ss.cc` for a frame at 30 per second.
fn clock_text(frame: f64) -> String {
    let s = (frame / 30.0).max(0.0);
    format!("{}:{:05.2}", (s / 60.0).floor(), s % 60.0)
}

/// Lay the panels out; what the user clicked goes into `actions`.
pub fn show(ui: &mut egui::Ui, s: &PanelState<'_>, actions: &mut Vec<Action>) {
    if !s.show {
        return;
    }
    egui::Panel::bottom("timeline").show(ui, |ui| {
        ui.horizontal(|ui| {
            if ui.button(if s.playing { "⏸" } else { "▶" }).clicked() {
                actions.push(Action::TogglePause);
            }
            if ui.button("⏮").clicked() {
                actions.push(Action::Home);
            }
            if ui.button("◀").clicked() {
                actions.push(Action::Step(-1));
            }
            if ui.button("▶|").clicked() {
                actions.push(Action::Step(1));
            }
            if ui.button("⏭").clicked() {
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
                for m in s.messages.iter().rev().take(6) {
                    ui.colored_label(egui::Color32::from_rgb(200, 60, 40), m);
                }
            }
        });
}
