//! The player's own timing: per stage of a frame, smoothed for the panel and summed for the
//! report printed when the window closes (how the README's figures were measured; nothing is
//! asserted on time in tests).

use std::time::Duration;

/// The stages of a displayed frame: `panels` is egui laying out and tessellating (CPU),
/// `acquire` waiting for a surface image, `present` submitting the window's pass and handing
/// the image over (on a software WSI this waits for the rasteriser to finish the frame and
/// copies it to the X server), `frame` the time between frames.
pub const STAGES: [&str; 8] = [
    "pose", "physics", "skinning", "draw", "panels", "acquire", "present", "frame",
];

/// One frame's times per stage, in [`STAGES`] order.
pub type FrameTimes = [Duration; 8];

#[derive(Debug, Default)]
pub struct Stats {
    /// Smoothed milliseconds per stage (shown).
    pub smooth_ms: [f64; 8],
    /// Sums since measuring began, and the frames they cover.
    sums: [Duration; 8],
    counted: u64,
    /// Frames shown in the current second, and the last complete second's count.
    window_frames: u32,
    window_start: f64,
    pub fps: f64,
    /// The fewest frames shown in one whole second since measuring began ("sustained").
    slowest_second: Option<f64>,
    /// Timeline second when measuring began (the first second is skipped: warm-up).
    measure_from: Option<f64>,
    measured_seconds: f64,
    /// Frames in which pose and physics ran (a paused picture only redraws).
    pub evaluated: u64,
}

impl Stats {
    /// Record a frame shown at timeline second `now`.
    pub fn record(&mut self, now: f64, times: FrameTimes, evaluated: bool) {
        for (s, t) in self.smooth_ms.iter_mut().zip(times) {
            let ms = t.as_secs_f64() * 1e3;
            *s = if *s == 0.0 { ms } else { *s * 0.9 + ms * 0.1 };
        }
        self.window_frames += 1;
        if now - self.window_start >= 1.0 {
            self.fps = self.window_frames as f64 / (now - self.window_start);
            if self
                .measure_from
                .is_some_and(|from| self.window_start >= from)
            {
                let low = self.slowest_second.get_or_insert(self.fps);
                *low = low.min(self.fps);
            }
            self.window_frames = 0;
            self.window_start = now;
        }
        let from = *self.measure_from.get_or_insert(now + 1.0);
        if now >= from {
            for (s, t) in self.sums.iter_mut().zip(times) {
                *s += t;
            }
            self.counted += 1;
            self.measured_seconds = now - from;
            if evaluated {
                self.evaluated += 1;
            }
        }
    }

    /// Frames per second and mean milliseconds per stage since the first second.
    pub fn summary(&self) -> String {
        if self.counted == 0 || self.measured_seconds <= 0.0 {
            return "timing: fewer than one second shown, nothing measured".into();
        }
        let n = self.counted as f64;
        let stages: Vec<String> = (STAGES.iter().zip(self.sums))
            .map(|(name, d)| format!("{name} {:.2} ms", d.as_secs_f64() * 1e3 / n))
            .collect();
        let slowest = match self.slowest_second {
            Some(f) => format!(" (slowest second {f:.1})"),
            None => String::new(),
        };
        format!(
            "timing: {} frames in {:.1} s after the first second, {:.1} fps{slowest}; per frame: {}",
            self.counted,
            self.measured_seconds,
            n / self.measured_seconds,
            stages.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames at 30 fps, one second at 20 fps, then 30 again: the summary names the slow
    /// second, and the first (warm-up) second, however slow, is not counted.
    #[test]
    fn the_slowest_whole_second_is_reported() {
        let mut s = Stats::default();
        let mut t = 0.0;
        let mut run = |s: &mut Stats, fps: f64, seconds: f64| {
            let end = t + seconds;
            while t < end - 1e-9 {
                s.record(t, FrameTimes::default(), true);
                t += 1.0 / fps;
            }
        };
        run(&mut s, 5.0, 1.0);
        run(&mut s, 30.0, 3.0);
        run(&mut s, 20.0, 1.0);
        run(&mut s, 30.0, 3.0);
        let line = s.summary();
        let slowest: f64 = line
            .split("slowest second ")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no slowest second in {line:?}"));
        assert!((19.0..=21.5).contains(&slowest), "{line}");
    }
}
