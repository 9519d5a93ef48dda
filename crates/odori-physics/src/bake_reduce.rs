//! Fewer keys in a baked motion: a baked bone gets a key per frame, 57 MB for a 6,553-frame
//! dance. Keys that linear interpolation between their neighbours reproduces are dropped, and
//! the result is checked by replaying it: every bone's origin, and the points one unit along
//! its axes (where the vertices it moves lie), stay within the stated tolerance of the replay
//! of the unreduced bake, on every frame.
//!
//! Per bone, a greedy pass keeps a key only where interpolating from the last kept key would
//! move a frame's local translation by more than `ε` or turn its local rotation by more than
//! `ε / reach` (reach: how far the bone's descendants lie from it, so a rotation error moves
//! none of them by more than `ε`). A chain of `n` baked bones can add `n` such errors at its
//! tip, so each bone gets `tolerance / 2n`. The replay decides; should it find more than the
//! tolerance, the budgets are halved and the pass runs again.

use crate::Baked;
use glam::{DQuat, DVec3, Vec3A};
use odori_format::vmd::{BoneKey, Vmd};
use odori_pose::model::NONE;
use odori_pose::{Instance, Model, Motion, PoseError};

/// What [`reduce`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reduction {
    /// Keys of the baked bones before and after.
    pub keys_before: usize,
    pub keys_after: usize,
    /// Largest distance, over every bone and frame, between where the replays of the reduced
    /// and of the full bake put the bone's origin or a point one unit along one of its axes
    /// (model units).
    pub max_error: f32,
}

/// Drop the baked keys of `baked` that its replay does not need, keeping every bone's world
/// position within `tolerance` model units of the full bake's replay on every frame
/// (MikuMikuDance units; 1e-3 is far below a pixel).
///
/// # Errors
/// [`PoseError::WrongMotion`] cannot happen for a `baked` made from `model`; it is passed on.
pub fn reduce(model: &Model, baked: &mut Baked, tolerance: f32) -> Result<Reduction, PoseError> {
    // Names as the baked keys hold them: Shift-JIS, cut to VMD's 15 bytes.
    let names: Vec<&[u8]> = baked
        .bones
        .iter()
        .map(|&b| {
            let sjis = &model.bone_sjis()[b as usize];
            &sjis[..sjis.len().min(15)]
        })
        .collect();
    let is_baked = |k: &BoneKey| names.contains(&k.name.bytes());
    let tracks: Vec<Vec<BoneKey>> = names
        .iter()
        .map(|n| {
            let mut t: Vec<BoneKey> = baked
                .vmd
                .bones
                .iter()
                .filter(|k| k.name.bytes() == *n)
                .cloned()
                .collect();
            t.sort_by_key(|k| k.frame);
            t
        })
        .collect();
    let keys_before: usize = tracks.iter().map(Vec::len).sum();
    let reference = replay(model, &baked.vmd, baked.last_frame)?;
    let budgets = budgets(model, &baked.bones, tolerance);
    let others: Vec<BoneKey> = baked
        .vmd
        .bones
        .iter()
        .filter(|k| !is_baked(k))
        .cloned()
        .collect();

    // The budgets are what the chain arithmetic guarantees; real errors come out an order of
    // magnitude under them (interpolation errors along a chain do not all point one way), so
    // the search starts 16× looser and halves until the replay is within the tolerance.
    let mut scale = 16.0;
    for _ in 0..10 {
        let mut keys = others.clone();
        for (track, &(linear, angular)) in tracks.iter().zip(&budgets) {
            keep(track, linear * scale, angular * scale, &mut keys);
        }
        let candidate = Vmd {
            bones: keys,
            ..baked.vmd.clone()
        };
        let positions = replay(model, &candidate, baked.last_frame)?;
        let max_error = positions
            .iter()
            .zip(&reference)
            .map(|(a, b)| a.distance(*b))
            .fold(0.0f32, f32::max);
        if max_error <= tolerance {
            let keys_after = candidate.bones.len() - others.len();
            baked.vmd = candidate;
            return Ok(Reduction {
                keys_before,
                keys_after,
                max_error,
            });
        }
        scale *= 0.5;
    }
    // Never reached on the models tried; the full bake is always right.
    Ok(Reduction {
        keys_before,
        keys_after: keys_before,
        max_error: 0.0,
    })
}

/// Per baked bone: (translation budget in units, rotation budget in radians).
fn budgets(model: &Model, bones: &[u32], tolerance: f32) -> Vec<(f64, f64)> {
    let parents = model.parents();
    let rest = model.rest_positions();
    let baked = |b: u32| bones.contains(&b);
    // How many baked bones lie on the path from the root to `b`, inclusive.
    let chain = |mut b: u32| {
        let mut n = 0;
        while b != NONE {
            n += usize::from(baked(b));
            b = parents[b as usize];
        }
        n
    };
    let longest = (0..model.bone_count() as u32)
        .map(chain)
        .max()
        .unwrap_or(1)
        .max(1);
    let share = tolerance as f64 / (2.0 * longest as f64);
    bones
        .iter()
        .map(|&b| {
            // The farthest descendant (or the bone itself) from this bone's rest position.
            let origin = rest[b as usize];
            let reach = (0..model.bone_count())
                .filter(|&d| is_descendant(parents, d as u32, b))
                .map(|d| rest[d].distance(origin))
                .fold(0.0f32, f32::max);
            // A vertex a bone moves lies within about a unit of it (hair strands, skirt
            // panels), so a leaf's rotation is held to that distance.
            (share, share / (reach as f64).max(1.0))
        })
        .collect()
}

fn is_descendant(parents: &[u32], mut d: u32, ancestor: u32) -> bool {
    while d != NONE {
        if d == ancestor {
            return true;
        }
        d = parents[d as usize];
    }
    false
}

/// Greedy pass over one bone's per-frame keys: extend each span while linear interpolation
/// between its ends stays within the budgets on every frame inside it.
fn keep(track: &[BoneKey], linear: f64, angular: f64, out: &mut Vec<BoneKey>) {
    /// Longest span tried: bounds the pass's work on a bone that hardly moves.
    const MAX_SPAN: usize = 600;
    let Some(first) = track.first() else {
        return;
    };
    out.push(first.clone());
    let t = |k: &BoneKey| DVec3::from(k.translation.map(f64::from));
    let q = |k: &BoneKey| DQuat::from_array(k.rotation.map(f64::from)).normalize();
    let fits = |a: &BoneKey, b: &BoneKey, between: &[BoneKey]| {
        let (ta, tb, qa, qb) = (t(a), t(b), q(a), q(b));
        let span = (b.frame - a.frame) as f64;
        between.iter().all(|k| {
            let u = (k.frame - a.frame) as f64 / span;
            let dq = qa.slerp(qb, u).dot(q(k)).abs().min(1.0);
            ta.lerp(tb, u).distance(t(k)) <= linear && 2.0 * dq.acos() <= angular
        })
    };
    let mut i = 0;
    while i + 1 < track.len() {
        let mut j = i + 1;
        while j + 1 < track.len()
            && j + 1 - i <= MAX_SPAN
            && fits(&track[i], &track[j + 1], &track[i + 1..j + 1])
        {
            j += 1;
        }
        out.push(track[j].clone());
        i = j;
    }
}

/// Frames 0..=last of `vmd` played without physics (the baked bones follow their keys, as in
/// MikuMikuDance with their physics turned off): for every bone, where its origin and the
/// points one unit along each of its axes go, so that a bone's rotation error counts as the
/// distance it moves the vertices around it, not only its children.
fn replay(model: &Model, vmd: &Vmd, last: u32) -> Result<Vec<Vec3A>, PoseError> {
    let motion = Motion::from_vmd(model, vmd);
    let mut inst = Instance::new(model, &motion);
    let mut out = Vec::with_capacity(4 * model.bone_count() * (last as usize + 1));
    for frame in 0..=last {
        inst.evaluate(model, &motion, frame as f32)?;
        for m in inst.world_transforms() {
            let o = m.translation;
            out.extend([
                o,
                o + m.matrix3.x_axis,
                o + m.matrix3.y_axis,
                o + m.matrix3.z_axis,
            ]);
        }
    }
    Ok(out)
}
