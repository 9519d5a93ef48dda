//! A motion bound to one model: keyframe tracks keyed by bone, morph and IK solver index.
//!
//! Binding happens once (names matched as Shift-JIS bytes, as MMD matches them; several VMDs
//! merged; fixed-axis projection applied to the keys), so sampling a frame only indexes.
//! Keys are stored flat, structure of arrays, with a key range per track.

mod bind;

use crate::bezier::Curve;
use glam::{Quat, Vec3A};
use std::ops::Range;

pub use bind::Source;

/// The keys of one bone.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoneTrack {
    pub(crate) bone: u32,
    pub(crate) keys: Range<usize>,
}

/// The keys of one morph.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MorphTrack {
    pub(crate) morph: u32,
    pub(crate) keys: Range<usize>,
}

/// Flat bone keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BoneKeys {
    pub(crate) frames: Vec<f32>,
    pub(crate) translations: Vec<Vec3A>,
    pub(crate) rotations: Vec<Quat>,
    /// The curves of the segment that ends at this key: X, Y, Z, rotation.
    pub(crate) curves: Vec<[Curve; 4]>,
    /// All four of the key's curves are linear (most keys): sampling reads this byte
    /// instead of four curves.
    pub(crate) linear: Vec<bool>,
    /// MMD's per-bone physics switch, from this key on.
    pub(crate) physics_off: Vec<bool>,
}

/// Flat morph keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct MorphKeys {
    pub(crate) frames: Vec<f32>,
    pub(crate) weights: Vec<f32>,
}

/// Property keys: visibility and IK on/off per solver (step functions).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PropertyKeys {
    pub(crate) frames: Vec<f32>,
    pub(crate) visible: Vec<bool>,
    /// For key k, solver s: `ik_enabled[k * solver_count + s]`.
    pub(crate) ik_enabled: Vec<bool>,
}

/// A motion bound to a model. Immutable once bound; an [`crate::Instance`] sized for it
/// ([`crate::Instance::new`]) plays it and no other.
#[derive(Debug, Clone, PartialEq)]
pub struct Motion {
    /// Identity (unique in the process; a clone keeps it).
    pub(crate) id: u64,
    /// Identity of the model it was bound to.
    pub(crate) model: u64,
    pub(crate) bone_tracks: Vec<BoneTrack>,
    pub(crate) bone_keys: BoneKeys,
    pub(crate) morph_tracks: Vec<MorphTrack>,
    pub(crate) morph_keys: MorphKeys,
    pub(crate) properties: PropertyKeys,
    pub(crate) solver_count: usize,
    /// The last key's frame over every track.
    pub(crate) end_frame: f32,
    /// Track names that matched no bone or morph of the model (decoded), for reports.
    pub(crate) unbound: Vec<String>,
}

impl Motion {
    /// A motion with no keys: every bone at rest, every IK on.
    pub fn empty(model: &crate::Model) -> Motion {
        Motion {
            id: crate::identity::next(),
            model: model.id,
            bone_tracks: Vec::new(),
            bone_keys: BoneKeys::default(),
            morph_tracks: Vec::new(),
            morph_keys: MorphKeys::default(),
            properties: PropertyKeys::default(),
            solver_count: model.solvers.len(),
            end_frame: 0.0,
            unbound: Vec::new(),
        }
    }

    /// The last key's frame over every track.
    #[inline]
    pub fn end_frame(&self) -> f32 {
        self.end_frame
    }

    /// Track names that matched no bone or morph of the model (decoded), for reports.
    #[inline]
    pub fn unbound(&self) -> &[String] {
        &self.unbound
    }
}
