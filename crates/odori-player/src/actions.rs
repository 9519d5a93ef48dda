//! What the user can ask of the player. Keys, buttons, dropped files and script lines all
//! become [`Action`]s and go through one handler, so a scripted test exercises the code a
//! real key press does.

use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    TogglePause,
    /// Play (true) or pause (false) whatever the state.
    SetPlaying(bool),
    /// Step by this many MMD frames (pauses first).
    Step(i32),
    /// Jump to the first frame.
    Home,
    /// Jump to the last frame.
    End,
    /// Jump to an MMD frame.
    Seek(f64),
    ToggleLoop,
    /// Between the motion's camera and the orbit camera.
    ToggleCamera,
    Fullscreen,
    /// Save the current frame as PNG (no path: `odori-<frame>.png` in the working folder).
    Screenshot(Option<PathBuf>),
    /// A file dropped on the window (or named by a script's `drop`), at a window pixel
    /// when known (a motion goes to the model under it).
    Drop(PathBuf, Option<(f32, f32)>),
    /// Hold a morph of the selected model (by name) at a weight over the motion's; `None`:
    /// the motion's weight again.
    Morph(String, Option<f32>),
    /// Every morph back to the motion's weights.
    ResetMorphs,
    /// Highlight a bone of the selected model (by name; `None`: none).
    PickBone(Option<String>),
    /// Show model `n` (0-based, in loading order) in the morph and bone lists.
    SelectModel(usize),
    /// A double-click at a window pixel: the orbit camera turns about the point of the model
    /// under it.
    Refocus(f32, f32),
    /// Make the selected model (given or dropped, with no motion) a stage.
    MakeStage,
    TogglePhysics,
    ResetPhysics,
    /// Playback speed (1 = real time).
    Speed(f64),
    /// Show or hide the panels.
    TogglePanels,
    /// Destroy the GPU device as a driver reset would, so the window's fall back to the CPU
    /// rasteriser can be seen and tested (the script's `lose-gpu`; nothing on the CPU
    /// rasteriser).
    LoseGpu,
    Quit,
}

/// A key, as the player names it (`Space`, `Left`, `Right`, `Home`, `End`, `Escape`, or a
/// letter), from a real keyboard or a script's `key` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Space,
    Left,
    Right,
    Home,
    End,
    Escape,
    Tab,
    Char(char),
}

impl Key {
    /// A key by its name (case-insensitive for named keys; a single letter for letters).
    pub fn from_name(name: &str) -> Option<Key> {
        let key = match name.to_ascii_lowercase().as_str() {
            "space" => Key::Space,
            "left" => Key::Left,
            "right" => Key::Right,
            "home" => Key::Home,
            "end" => Key::End,
            "escape" | "esc" => Key::Escape,
            "tab" => Key::Tab,
            s if s.chars().count() == 1 => Key::Char(s.chars().next()?),
            _ => return None,
        };
        Some(key)
    }

    /// What the key does (`shift`: ← → step ten frames).
    pub fn action(self, shift: bool) -> Option<Action> {
        let step = if shift { 10 } else { 1 };
        Some(match self {
            Key::Space => Action::TogglePause,
            Key::Left => Action::Step(-step),
            Key::Right => Action::Step(step),
            Key::Home => Action::Home,
            Key::End => Action::End,
            Key::Escape => Action::Quit,
            Key::Tab => Action::TogglePanels,
            Key::Char(c) => match c.to_ascii_lowercase() {
                'l' => Action::ToggleLoop,
                'c' => Action::ToggleCamera,
                'f' => Action::Fullscreen,
                's' => Action::Screenshot(None),
                'p' => Action::TogglePhysics,
                'r' => Action::ResetPhysics,
                'q' => Action::Quit,
                _ => return None,
            },
        })
    }
}

/// The keys and what they do, for `--help` and the panel.
pub const KEY_HELP: &[(&str, &str)] = &[
    ("Space", "play / pause"),
    ("← →", "one frame back / on (Shift: ten)"),
    ("Home End", "first / last frame"),
    ("L", "loop on / off"),
    ("C", "motion camera / orbit camera"),
    ("F", "fullscreen"),
    ("S", "screenshot (PNG)"),
    ("P R", "physics on / off, reset"),
    ("Tab", "hide / show the panels"),
    ("Esc Q", "quit"),
    (
        "mouse",
        "drag: orbit, wheel: zoom, right/middle drag: pan, double-click: refocus",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key named in the help does something, and the script's names reach the same
    /// actions as the keys themselves.
    #[test]
    fn named_keys_map_to_their_actions() {
        let cases = [
            ("Space", Action::TogglePause),
            ("left", Action::Step(-1)),
            ("Right", Action::Step(1)),
            ("Home", Action::Home),
            ("End", Action::End),
            ("l", Action::ToggleLoop),
            ("C", Action::ToggleCamera),
            ("f", Action::Fullscreen),
            ("s", Action::Screenshot(None)),
            ("p", Action::TogglePhysics),
            ("r", Action::ResetPhysics),
            ("Tab", Action::TogglePanels),
            ("Escape", Action::Quit),
        ];
        for (name, want) in cases {
            let key = Key::from_name(name).unwrap_or_else(|| panic!("{name} is no key"));
            assert_eq!(key.action(false), Some(want), "{name}");
        }
        assert_eq!(Key::Right.action(true), Some(Action::Step(10)));
        assert_eq!(Key::from_name("nonsense"), None);
        assert_eq!(Key::Char('z').action(false), None);
    }
}
