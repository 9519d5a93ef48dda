//! Keyframe sampling at a real-valued frame.
//!
//! Before the first key the first key holds, after the last key the last holds. Between keys
//! A and B, the curves stored with B ease the progress; translation is lerped per axis and
//! rotation slerped along the shorter arc. Each track keeps a cursor in the instance, so
//! playing forward finds its key in O(1); a seek falls back to binary search.

use crate::motion::Motion;
use crate::unfused;
use glam::{Quat, Vec3A};

/// The index k of the last key with `frames[k] <= f` (0 when f is before the first key).
///
/// Playing forward, the cursor's key is the answer in most frames: that check is inlined
/// into the sampling loop, the rest ([`find_key_moved`]) is a call. (As one function that
/// LLVM left out of line, the call per track and frame cost the page's pose evaluation 3 %:
/// 0.97 × its time with the check inlined, A/B in headless Chromium.)
#[inline(always)]
pub fn find_key(frames: &[f32], f: f32, cursor: &mut u32) -> usize {
    let (c, n) = (*cursor as usize, frames.len());
    if c < n && frames[c] <= f && (c + 1 == n || f < frames[c + 1]) {
        return c;
    }
    find_key_moved(frames, f, cursor)
}

/// [`find_key`] when the answer is not the cursor's key: the next key, or a binary search.
#[inline(never)]
fn find_key_moved(frames: &[f32], f: f32, cursor: &mut u32) -> usize {
    let n = frames.len();
    let c = (*cursor as usize).min(n.saturating_sub(1));
    let hit = |k: usize| frames[k] <= f && (k + 1 == n || f < frames[k + 1]);
    let k = if hit(c) {
        c
    } else if c + 1 < n && hit(c + 1) {
        c + 1
    } else {
        frames.partition_point(|&x| x <= f).saturating_sub(1)
    };
    *cursor = k as u32;
    k
}

/// Sample bone track `t` of `motion` at frame `f`: (translation, rotation, physics off).
#[inline]
pub fn bone(motion: &Motion, t: usize, f: f32, cursor: &mut u32) -> (Vec3A, Quat, bool) {
    let keys = &motion.bone_keys;
    let r = motion.bone_tracks[t].keys.clone();
    let frames = &keys.frames[r.clone()];
    let k = find_key(frames, f, cursor);
    let a = r.start + k;
    if k + 1 >= frames.len() || f <= frames[k] {
        return (keys.translations[a], keys.rotations[a], keys.physics_off[a]);
    }
    let b = a + 1;
    let x = (f - frames[k]) / (frames[k + 1] - frames[k]);
    let (ta, tb) = (keys.translations[a], keys.translations[b]);
    // A linear curve eases nothing: its value is the progress itself.
    let (w, s) = if keys.linear[b] {
        (Vec3A::splat(x), x)
    } else {
        let c = &keys.curves[b];
        (
            Vec3A::new(c[0].eval(x), c[1].eval(x), c[2].eval(x)),
            c[3].eval(x),
        )
    };
    let translation = ta + (tb - ta) * w;
    let rotation = unfused::slerp(keys.rotations[a], keys.rotations[b], s);
    (translation, rotation, keys.physics_off[a])
}

/// Sample morph track `t` at frame `f` (linear between keys).
#[inline]
pub fn morph(motion: &Motion, t: usize, f: f32, cursor: &mut u32) -> f32 {
    let keys = &motion.morph_keys;
    let r = motion.morph_tracks[t].keys.clone();
    let frames = &keys.frames[r.clone()];
    let k = find_key(frames, f, cursor);
    let a = r.start + k;
    if k + 1 >= frames.len() || f <= frames[k] {
        return keys.weights[a];
    }
    let x = (f - frames[k]) / (frames[k + 1] - frames[k]);
    keys.weights[a] + (keys.weights[a + 1] - keys.weights[a]) * x
}

/// The property key in force at frame `f` (step), if any.
#[inline]
pub fn property(motion: &Motion, f: f32) -> Option<usize> {
    let frames = &motion.properties.frames;
    if frames.is_empty() || f < frames[0] {
        return None;
    }
    Some(frames.partition_point(|&x| x <= f) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_finds_keys_forward_backward_and_outside() {
        let frames = [0.0, 10.0, 20.0, 30.0];
        let mut c = 0;
        assert_eq!(find_key(&frames, -5.0, &mut c), 0);
        assert_eq!(find_key(&frames, 5.0, &mut c), 0);
        assert_eq!(find_key(&frames, 10.0, &mut c), 1);
        assert_eq!(find_key(&frames, 25.0, &mut c), 2);
        assert_eq!(find_key(&frames, 99.0, &mut c), 3);
        assert_eq!(find_key(&frames, 12.0, &mut c), 1);
    }
}
