//! Which frame numbers a caller may ask a pose for, one rule for every front end (`odori
//! pose --frames`, Python's `Instance.evaluate`): finite, from MMD's frame 0 on, short of ten
//! million (92 hours at 30 frames a second: past any motion, where the last pose holds), and,
//! when physics steps from frame to frame, in order. Anything else is refused with the frame
//! and its place in the list, rather than clamped or played some other way without a word.

/// The largest frame number taken.
pub const MAX_FRAME: f32 = 10_000_000.0;

/// `Ok` when every frame may be asked for; `in_order`: physics simulates them one after the
/// other, so each must be at or after the one before it.
pub fn check(frames: &[f32], in_order: bool) -> Result<(), String> {
    for (i, &f) in frames.iter().enumerate() {
        if !f.is_finite() {
            return Err(format!("frame {f} (at index {i}) is not a finite number"));
        }
        if f < 0.0 {
            return Err(format!(
                "frame {f} (at index {i}) is before the first frame: MMD frames count from 0"
            ));
        }
        if f > MAX_FRAME {
            return Err(format!(
                "frame {f} (at index {i}) is past any motion (at most {MAX_FRAME}; after a \
                 motion's last key its last pose holds)"
            ));
        }
        if in_order && i > 0 && f < frames[i - 1] {
            return Err(format!(
                "with physics the frames are simulated in order, and frame {f} (at index {i}) \
                 comes after frame {} (at index {}): sort them, or evaluate without physics",
                frames[i - 1],
                i - 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    /// Each refusal names the frame and its index; in order only matters with physics.
    #[test]
    fn refuses_what_no_motion_has_and_disorder_under_physics() {
        assert!(check(&[0.0, 1.5, 30.0, 1e7], true).is_ok());
        assert!(check(&[10.0, 5.0], false).is_ok());
        let e = check(&[10.0, 5.0], true).unwrap_err();
        assert!(e.contains("frame 5 (at index 1)"), "{e}");
        assert!(check(&[-5.0], false).unwrap_err().contains("count from 0"));
        assert!(
            check(&[1e30], false)
                .unwrap_err()
                .contains("past any motion")
        );
        assert!(
            check(&[0.0, f32::NAN], false)
                .unwrap_err()
                .contains("index 1")
        );
    }
}
