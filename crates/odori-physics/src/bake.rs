//! Baking: a motion's physics result written back as ordinary keyframes.
//!
//! The baked VMD plays in MikuMikuDance (or any runtime) with physics off for the baked bones
//! and gives the simulated motion: every bone a simulated body drives gets one key per frame,
//! its local rotation and translation relative to its parent as MMD stores them, with MMD's
//! per-bone physics-off flag set so MMD does not simulate it again.

use crate::PhysicsWorld;
use glam::{Affine3A, Quat};
use odori_format::sjis::SjisName;
use odori_format::vmd::{Bezier, BoneCurves, BoneKey, Vmd};
use odori_pose::model::NONE;
use odori_pose::{Instance, Model, Motion, PoseError};

/// What [`bake`] produced.
#[derive(Debug, Clone)]
pub struct Baked {
    /// `original` with the baked bones' keys replaced by one key per frame.
    pub vmd: Vmd,
    /// Bones baked (file indices).
    pub bones: Vec<u32>,
    /// Frames simulated: 0 through this one.
    pub last_frame: u32,
}

/// Simulate `motion` (bound from `original`) from frame 0 through its last key at 30 fps and
/// return `original` with a key per frame for every bone that a simulated body drives.
/// `world` is reset at frame 0 whatever it did before.
///
/// # Errors
/// [`PoseError::WrongMotion`] when `motion` was not bound to `model`.
pub fn bake(
    model: &Model,
    motion: &Motion,
    world: &mut PhysicsWorld,
    original: &Vmd,
) -> Result<Baked, PoseError> {
    let bones = world.driven_bones();
    let last_frame = motion.end_frame().max(0.0).ceil() as u32;
    let name = |b: u32| {
        let full = &model.bone_sjis()[b as usize];
        let mut raw = [0u8; 15];
        let n = full.len().min(15);
        raw[..n].copy_from_slice(&full[..n]);
        SjisName(raw)
    };
    let names: Vec<SjisName<15>> = bones.iter().map(|&b| name(b)).collect();
    let curves = BoneCurves {
        x: Bezier::LINEAR,
        y: Bezier::LINEAR,
        z: Bezier::LINEAR,
        rotation: Bezier::LINEAR,
    };
    let interpolation = BoneKey::encode_curves(&curves, true);

    let mut keys: Vec<BoneKey> = original
        .bones
        .iter()
        .filter(|k| !names.iter().any(|n| n.bytes() == k.name.truncated(15)))
        .cloned()
        .collect();
    keys.reserve(bones.len() * (last_frame as usize + 1));
    let mut inst = Instance::new(model, motion);
    // A bone evaluated before its parent sees the parent's previous world matrix (MMD's
    // one-frame lag, which the pose runtime reproduces): key it against that one.
    let mut previous = inst.world_transforms().collect::<Vec<_>>();
    let mut current = previous.clone();
    world.invalidate();
    for frame in 0..=last_frame {
        world.evaluate(model, motion, &mut inst, frame as f32)?;
        current.clear();
        current.extend(inst.world_transforms());
        for (&b, n) in bones.iter().zip(&names) {
            let b = b as usize;
            let parents = if model.order_dependent()[b] {
                &previous
            } else {
                &current
            };
            let (translation, rotation) = local_key(model, parents, &current[b], b);
            keys.push(BoneKey {
                name: *n,
                frame,
                translation: translation.to_array(),
                rotation: rotation.to_array(),
                interpolation,
            });
        }
        previous.copy_from_slice(&current);
    }
    let mut vmd = original.clone();
    vmd.bones = keys;
    Ok(Baked {
        vmd,
        bones,
        last_frame,
    })
}

/// World matrix `world` of bone `b` as a VMD key: rotation and translation (from its rest
/// offset) relative to its parent's matrix in `parents`.
fn local_key(
    model: &Model,
    parents: &[Affine3A],
    world: &Affine3A,
    b: usize,
) -> (glam::Vec3, Quat) {
    let p = model.parents()[b];
    let parent = if p == NONE {
        Affine3A::IDENTITY
    } else {
        parents[p as usize]
    };
    let local = parent.inverse() * *world;
    let rotation = Quat::from_mat3a(&local.matrix3).normalize();
    let translation = glam::Vec3::from(local.translation - model.offsets()[b]);
    (translation, rotation)
}
