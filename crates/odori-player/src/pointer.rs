//! The mouse over the window: where it is, which drag is under way, and double-clicks.

use std::time::{Duration, Instant};
use winit::event::MouseButton;

/// Two clicks closer than this are a double-click.
const DOUBLE_CLICK: Duration = Duration::from_millis(350);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drag {
    Orbit,
    Pan,
}

#[derive(Default)]
pub struct Pointer {
    /// Window pixel under the mouse.
    pub cursor: (f32, f32),
    drag: Option<Drag>,
    last_click: Option<Instant>,
}

impl Pointer {
    /// The mouse moved to (`x`, `y`): the drag under way and how far it moved.
    pub fn moved(&mut self, x: f32, y: f32) -> Option<(Drag, f32, f32)> {
        let (dx, dy) = (x - self.cursor.0, y - self.cursor.1);
        self.cursor = (x, y);
        self.drag.map(|d| (d, dx, dy))
    }

    /// A button went down on the picture (not on a panel): a drag starts; the window pixel
    /// of a double-click.
    pub fn pressed(&mut self, button: MouseButton, now: Instant) -> Option<(f32, f32)> {
        self.drag = match button {
            MouseButton::Left => Some(Drag::Orbit),
            MouseButton::Right | MouseButton::Middle => Some(Drag::Pan),
            _ => None,
        };
        if button != MouseButton::Left {
            return None;
        }
        if self.last_click.is_some_and(|t| now - t < DOUBLE_CLICK) {
            self.last_click = None;
            Some(self.cursor)
        } else {
            self.last_click = Some(now);
            None
        }
    }

    pub fn released(&mut self) {
        self.drag = None;
    }
}
