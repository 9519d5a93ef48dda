//! Keyframe reduction within a stated tolerance of the world pose.
//!
//! Every channel first drops the keys that linear interpolation between its neighbours
//! reproduces within a local tolerance (a greedy walk: each kept key reaches as far as it
//! can). Errors add up down a bone chain, so the result is then checked where it matters: the
//! animation is played back as a glTF player plays it (translation lerped; rotation both
//! slerped, as the specification says, and lerped component by component and normalised, as
//! Blender's importer plays it) and composed down the hierarchy, and every bone's world
//! transform at every sampled frame is compared with the one odori computed. Where a bone is
//! off by more than the tolerance, the keys of that bone and all its ancestors at that frame
//! are put back (which makes the chain exact there), and the check runs again.

use crate::sample::Samples;
use glam::{Affine3A, Quat, Vec3};
use odori_pose::model::NONE;

/// The largest world-pose error allowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Units (MMD's, about 8 cm): a bone's world position.
    pub position: f32,
    /// Any element of a bone's world rotation matrix.
    pub rotation: f32,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            position: 1e-4,
            rotation: 1e-4,
        }
    }
}

/// Longest span between two kept keys, in frames (bounds the greedy walk's cost).
const MAX_SPAN: usize = 60;

/// Which frames each channel keeps.
pub struct Kept {
    /// Per bone, per frame.
    pub translation: Vec<Vec<bool>>,
    pub rotation: Vec<Vec<bool>>,
    /// Per frame, for all targets' weights together.
    pub weights: Vec<bool>,
    pub camera_translation: Vec<bool>,
    pub camera_rotation: Vec<bool>,
    /// Per accessory (layout order), when its pose changes over the frames.
    pub accessories: Vec<Option<AccessoryKept>>,
    /// The largest world error left over all bones and frames (position, rotation element).
    pub error: (f32, f32),
}

/// Which frames an accessory node's channels keep.
pub struct AccessoryKept {
    pub translation: Vec<bool>,
    pub rotation: Vec<bool>,
    pub scale: Vec<bool>,
    /// Hidden at some frame (scale 0): the scale steps from key to key.
    pub hidden: bool,
}

/// Per accessory, `None` when its pose is the same at every frame (the node holds it), else
/// the frames to keep: every frame, or with `tol` those linear interpolation (a step for a
/// scale that hides it) does not reproduce within it. An accessory's node hangs under its
/// bone, so its error adds to nothing below it but its own rest bones.
pub fn accessories(s: &Samples, tol: Option<Tolerance>) -> Vec<Option<AccessoryKept>> {
    let n = s.frames();
    (s.accessories.iter())
        .map(|poses| {
            let first = poses.first()?;
            if poses.iter().all(|p| p == first) {
                return None;
            }
            let hidden = poses.iter().any(|p| p.scale == 0.0);
            let Some(tol) = tol else {
                return Some(AccessoryKept {
                    translation: vec![true; n],
                    rotation: vec![true; n],
                    scale: vec![true; n],
                    hidden,
                });
            };
            let scale = if hidden {
                // A step holds each key to the next: keep the frames where the value changes.
                (0..n)
                    .map(|k| k == 0 || k + 1 == n || poses[k].scale != poses[k - 1].scale)
                    .collect()
            } else {
                greedy(n, tol.position * 0.5, |i, j, k| {
                    let x = u(i, j, k);
                    (poses[i].scale + (poses[j].scale - poses[i].scale) * x - poses[k].scale).abs()
                })
            };
            Some(AccessoryKept {
                translation: greedy(n, tol.position * 0.5, |i, j, k| {
                    lerp_error(
                        poses[i].translation,
                        poses[j].translation,
                        poses[k].translation,
                        u(i, j, k),
                    )
                }),
                rotation: greedy(n, tol.rotation * 0.25, |i, j, k| {
                    quat_error(
                        poses[i].rotation,
                        poses[j].rotation,
                        poses[k].rotation,
                        u(i, j, k),
                    )
                }),
                scale,
                hidden,
            })
        })
        .collect()
}

/// Keep every key (no reduction).
pub fn keep_all(s: &Samples, parents: &[u32]) -> Kept {
    let n = s.frames();
    Kept {
        translation: vec![vec![true; n]; s.bones],
        rotation: vec![vec![true; n]; s.bones],
        weights: vec![true; n],
        camera_translation: vec![true; if s.camera.is_empty() { 0 } else { n }],
        camera_rotation: vec![true; if s.camera.is_empty() { 0 } else { n }],
        accessories: Vec::new(),
        error: world_error(s, &all_true(s), &all_true(s), parents, &order_of(parents)),
    }
}

fn all_true(s: &Samples) -> Vec<Vec<bool>> {
    vec![vec![true; s.frames()]; s.bones]
}

/// Reduce every channel of `s` within `tol` of the world pose. `parents` are the model's
/// bone parents; `rest` its bones' rest positions (for how far a rotation reaches).
/// `weight_scale` is the largest morph offset, so that a weight error times it stays within
/// the position tolerance.
pub fn reduce(
    s: &Samples,
    parents: &[u32],
    rest: &[Vec3],
    weight_scale: f32,
    tol: Tolerance,
) -> Kept {
    let n = s.frames();
    let bones = s.bones;
    let reach = reach(parents, rest);
    let mut translation = Vec::with_capacity(bones);
    let mut rotation = Vec::with_capacity(bones);
    for (b, &reach) in reach.iter().enumerate() {
        let t = |k: usize| s.translation[k * bones + b];
        let r = |k: usize| s.rotation[k * bones + b];
        translation.push(greedy(n, tol.position * 0.5, |i, j, k| {
            lerp_error(t(i), t(j), t(k), u(i, j, k))
        }));
        let rot_tol = (tol.rotation.min(tol.position / reach.max(1.0))) * 0.25;
        rotation.push(greedy(n, rot_tol, |i, j, k| {
            quat_error(r(i), r(j), r(k), u(i, j, k))
        }));
    }
    let order = order_of(parents);
    let mut error;
    let mut rounds = 0;
    loop {
        let failing = failures(s, &translation, &rotation, parents, &order, tol);
        error = failing.1;
        if failing.0.is_empty() || rounds >= 100 {
            break;
        }
        rounds += 1;
        let mut added = false;
        for (k, b) in failing.0 {
            let mut at = b as u32;
            while at != NONE {
                let a = at as usize;
                added |= !translation[a][k] || !rotation[a][k];
                translation[a][k] = true;
                rotation[a][k] = true;
                at = parents[a];
            }
        }
        if !added {
            break;
        }
    }

    let targets = s.weights.len().checked_div(n).unwrap_or(0);
    let wtol = tol.position / weight_scale.max(1.0);
    let w = |k: usize| &s.weights[k * targets..(k + 1) * targets];
    let weights = greedy(n, wtol, |i, j, k| {
        let x = u(i, j, k);
        (w(i).iter().zip(w(j)).zip(w(k)))
            .map(|((a, b), c)| (a + (b - a) * x - c).abs())
            .fold(0.0, f32::max)
    });
    let (camera_translation, camera_rotation) = if s.camera.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        let c = |k: usize| s.camera[k];
        (
            greedy(n, tol.position, |i, j, k| {
                lerp_error(c(i).0, c(j).0, c(k).0, u(i, j, k))
            }),
            greedy(n, tol.rotation * 0.25, |i, j, k| {
                quat_error(c(i).1, c(j).1, c(k).1, u(i, j, k))
            }),
        )
    };
    Kept {
        translation,
        rotation,
        weights,
        camera_translation,
        camera_rotation,
        accessories: Vec::new(),
        error,
    }
}

fn u(i: usize, j: usize, k: usize) -> f32 {
    (k - i) as f32 / (j - i) as f32
}

fn lerp_error(a: Vec3, b: Vec3, v: Vec3, x: f32) -> f32 {
    (a.lerp(b, x) - v).length()
}

/// The larger of the slerp and the normalised-lerp errors, per quaternion component.
fn quat_error(a: Quat, b: Quat, v: Quat, x: f32) -> f32 {
    let s = a.slerp(b, x);
    let l = Quat::from_vec4(glam::Vec4::from(a).lerp(glam::Vec4::from(b), x)).normalize();
    let d = |q: Quat| {
        (glam::Vec4::from(q) - glam::Vec4::from(v))
            .abs()
            .max_element()
    };
    d(s).max(d(l))
}

/// Keys to keep: the first, the last, and for each kept key the furthest next key such that
/// every frame between them is within `tol` by `error(i, j, k)` (k strictly between).
fn greedy(n: usize, tol: f32, error: impl Fn(usize, usize, usize) -> f32) -> Vec<bool> {
    let mut keep = vec![false; n];
    if n == 0 {
        return keep;
    }
    keep[0] = true;
    keep[n - 1] = true;
    let mut i = 0;
    while i + 1 < n {
        let mut j = i + 1;
        while j + 1 < n && j + 1 - i <= MAX_SPAN && (i + 1..=j).all(|k| error(i, j + 1, k) <= tol) {
            j += 1;
        }
        keep[j] = true;
        i = j;
    }
    keep
}

/// Per bone, how far its rotation reaches: the largest rest distance to a bone below it.
fn reach(parents: &[u32], rest: &[Vec3]) -> Vec<f32> {
    let mut reach = vec![0.0f32; parents.len()];
    for b in 0..parents.len() {
        let mut at = parents[b];
        let mut guard = 0;
        while at != NONE && guard <= parents.len() {
            let a = at as usize;
            reach[a] = reach[a].max((rest[b] - rest[a]).length());
            at = parents[a];
            guard += 1;
        }
    }
    reach
}

/// Bones with every parent before its children.
pub fn order_of(parents: &[u32]) -> Vec<usize> {
    let n = parents.len();
    let mut depth = vec![0usize; n];
    for (b, d) in depth.iter_mut().enumerate() {
        let mut at = parents[b];
        while at != NONE && *d <= n {
            *d += 1;
            at = parents[at as usize];
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&b| depth[b]);
    order
}

/// Values of one channel at every frame, interpolated from its kept keys.
fn dense<T: Copy>(
    keep: &[bool],
    value: impl Fn(usize) -> T,
    lerp: impl Fn(T, T, f32) -> T,
) -> Vec<T> {
    let mut out = Vec::with_capacity(keep.len());
    let mut last = 0;
    for (k, &kept) in keep.iter().enumerate() {
        if kept {
            for m in last + 1..k {
                out.push(lerp(value(last), value(k), u(last, k, m)));
            }
            out.push(value(k));
            last = k;
        }
    }
    out
}

/// (frame, bone) pairs whose played-back world transform is off by more than `tol`, and the
/// largest errors seen.
fn failures(
    s: &Samples,
    translation: &[Vec<bool>],
    rotation: &[Vec<bool>],
    parents: &[u32],
    order: &[usize],
    tol: Tolerance,
) -> (Vec<(usize, usize)>, (f32, f32)) {
    let n = s.frames();
    let bones = s.bones;
    let mut out = Vec::new();
    let mut worst = (0.0f32, 0.0f32);
    let t: Vec<Vec<Vec3>> = (0..bones)
        .map(|b| {
            dense(
                &translation[b],
                |k| s.translation[k * bones + b],
                |a, c, x| a.lerp(c, x),
            )
        })
        .collect();
    let nlerp = |a: Quat, c: Quat, x: f32| {
        Quat::from_vec4(glam::Vec4::from(a).lerp(glam::Vec4::from(c), x)).normalize()
    };
    for mode in 0..2 {
        let r: Vec<Vec<Quat>> = (0..bones)
            .map(|b| {
                let q = |k: usize| s.rotation[k * bones + b];
                if mode == 0 {
                    dense(&rotation[b], q, |a, c, x| a.slerp(c, x))
                } else {
                    dense(&rotation[b], q, nlerp)
                }
            })
            .collect();
        let mut world = vec![Affine3A::IDENTITY; bones];
        for k in 0..n {
            for &b in order {
                let local = Affine3A::from_rotation_translation(r[b][k], t[b][k]);
                world[b] = match parents[b] {
                    NONE => local,
                    p => world[p as usize] * local,
                };
                let want = s.world[k * bones + b];
                let dp = (world[b].translation - want.translation).length();
                let dr = (world[b].matrix3 - want.matrix3)
                    .to_cols_array()
                    .iter()
                    .fold(0.0f32, |m, v| m.max(v.abs()));
                worst = (worst.0.max(dp), worst.1.max(dr));
                if dp > tol.position || dr > tol.rotation {
                    out.push((k, b));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    (out, worst)
}

/// The world error of playing `s` back from the kept keys.
fn world_error(
    s: &Samples,
    t: &[Vec<bool>],
    r: &[Vec<bool>],
    parents: &[u32],
    order: &[usize],
) -> (f32, f32) {
    failures(
        s,
        t,
        r,
        parents,
        order,
        Tolerance {
            position: f32::INFINITY,
            rotation: f32::INFINITY,
        },
    )
    .1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values on a straight line keep only their ends; a kink keeps its corner.
    #[test]
    fn lines_keep_their_ends_and_corners() {
        let line: Vec<Vec3> = (0..50)
            .map(|k| Vec3::new(k as f32 * 0.1, 1.0, 0.0))
            .collect();
        let keep = greedy(50, 1e-5, |i, j, k| {
            lerp_error(line[i], line[j], line[k], u(i, j, k))
        });
        assert_eq!(keep.iter().filter(|&&k| k).count(), 2);
        let kink: Vec<Vec3> = (0..50)
            .map(|k| Vec3::new((k as f32 - 20.0).abs(), 0.0, 0.0))
            .collect();
        let keep = greedy(50, 1e-5, |i, j, k| {
            lerp_error(kink[i], kink[j], kink[k], u(i, j, k))
        });
        assert_eq!(
            (0..50).filter(|&k| keep[k]).collect::<Vec<_>>(),
            vec![0, 20, 49]
        );
    }

    /// A turn at constant speed is exact under slerp but not under per-component lerp (what
    /// Blender plays): the reduction keeps keys for the lerp's sake.
    #[test]
    fn rotations_are_kept_for_component_lerp_too() {
        let q: Vec<Quat> = (0..31)
            .map(|k| Quat::from_rotation_y(k as f32 * 0.05))
            .collect();
        let slerp_only = |i: usize, j: usize, k: usize| {
            let s = q[i].slerp(q[j], u(i, j, k));
            (glam::Vec4::from(s) - glam::Vec4::from(q[k]))
                .abs()
                .max_element()
        };
        assert_eq!(
            greedy(31, 1e-5, slerp_only).iter().filter(|&&k| k).count(),
            2
        );
        let both = greedy(31, 1e-5, |i, j, k| quat_error(q[i], q[j], q[k], u(i, j, k)));
        assert!(both.iter().filter(|&&k| k).count() > 2);
    }
}
