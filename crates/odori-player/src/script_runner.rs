//! A `--script` played out over the window's redraws: lines run until one waits (for
//! frames drawn, or for a picture posed late enough), and a screenshot or quit ends a
//! redraw's turn so the lines after it do not change what it shows.

use crate::actions::Action;
use crate::script::Command;
use std::collections::VecDeque;

/// What a script line asks of the window this redraw.
pub enum Step {
    Act(Action),
    Status,
}

#[derive(Default)]
pub struct ScriptRunner {
    lines: VecDeque<Command>,
    wait_frames: u32,
    /// Timeline second a picture must have been posed at before the lines go on: `wait Ns`
    /// ends once such a picture is shown, however slowly frames come (a frame slower than
    /// the wait would otherwise leave `status` reporting the picture from before it).
    wait_until: Option<f64>,
    /// This redraw's turn ended (a wait began, or a screenshot or quit was run).
    turn_over: bool,
}

impl ScriptRunner {
    pub fn new(lines: Vec<Command>) -> ScriptRunner {
        ScriptRunner {
            lines: lines.into(),
            ..ScriptRunner::default()
        }
    }

    /// Start a redraw's turn, the picture on screen posed at timeline second `shown_at`.
    pub fn start_turn(&mut self, shown_at: f64) {
        self.turn_over = false;
        if self.wait_frames > 0 {
            self.wait_frames -= 1;
            self.turn_over = true;
        } else if let Some(t) = self.wait_until {
            if shown_at < t {
                self.turn_over = true;
            } else {
                self.wait_until = None;
            }
        }
    }

    /// The next line to run this turn, if any.
    pub fn next(&mut self, now: f64) -> Option<Step> {
        if self.turn_over {
            return None;
        }
        match self.lines.pop_front()? {
            Command::Do(a) => {
                // A screenshot is saved by this redraw: the lines after it wait for the
                // next, or it would show what they change.
                self.turn_over = matches!(a, Action::Quit | Action::Screenshot(_));
                Some(Step::Act(a))
            }
            Command::WaitFrames(n) => {
                self.wait_frames = n;
                self.turn_over = true;
                None
            }
            Command::WaitSeconds(s) => {
                self.wait_until = Some(now + s);
                self.turn_over = true;
                None
            }
            Command::Status => Some(Step::Status),
        }
    }

    /// Lines are left, or a wait is under way: keep redrawing.
    pub fn busy(&self) -> bool {
        !self.lines.is_empty() || self.wait_frames > 0 || self.wait_until.is_some()
    }
}
