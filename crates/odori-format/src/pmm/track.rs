//! Walking a section's keys track by track, as MMD links them.
//!
//! A track starts at its initial key and follows `next` indices (initial keys counted first,
//! then the section's linked list) until 0. A hostile or damaged file can point outside the
//! list, back at an initial key, or into a loop; every linked key may belong to one track only,
//! so the walk marks the keys it has taken and stops at the first one taken before. That bounds
//! the work of all tracks together by the number of keys, whatever the links say.

use super::{
    AccessoryKey, BoneKey, CameraKey, GravityKey, KeyLink, LightKey, Linked, ModelKey, MorphKey,
    SelfShadowKey,
};
use std::fmt;

/// A key type with the frame and links every PMM key starts with.
pub trait Keyed {
    fn link(&self) -> &KeyLink;
}

macro_rules! keyed {
    ($($t:ty),*) => {$(
        impl Keyed for $t {
            fn link(&self) -> &KeyLink {
                &self.link
            }
        }
    )*};
}
keyed!(
    BoneKey,
    MorphKey,
    ModelKey,
    CameraKey,
    LightKey,
    AccessoryKey,
    GravityKey,
    SelfShadowKey
);

/// Why a track's walk stopped before a 0 link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkProblem {
    /// `next` is negative or past the section's keys.
    OutOfRange { next: i32 },
    /// `next` names an initial key (another track's start).
    ToInitial { next: i32 },
    /// `next` names a key this or another track already took: a cycle or a shared key.
    Revisited { next: i32 },
}

impl fmt::Display for LinkProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkProblem::OutOfRange { next } => write!(f, "next key {next} is out of range"),
            LinkProblem::ToInitial { next } => {
                write!(f, "next key {next} is another track's initial key")
            }
            LinkProblem::Revisited { next } => {
                write!(
                    f,
                    "next key {next} was already taken (a cycle in the key links)"
                )
            }
        }
    }
}

/// One track's keys in link order (the initial key first), and what stopped the walk early.
#[derive(Debug, Clone, PartialEq)]
pub struct Track<'a, K> {
    pub keys: Vec<&'a K>,
    pub problem: Option<LinkProblem>,
}

/// Every track of a section: one per initial key, in order.
pub fn track<'a, K: Keyed>(initial: &'a [K], linked: &'a [Linked<K>]) -> Vec<Track<'a, K>> {
    let mut taken = vec![false; linked.len()];
    initial
        .iter()
        .map(|first| {
            let mut keys = vec![first];
            let mut problem = None;
            let mut next = first.link().next;
            while next != 0 {
                let Some(at) = usize::try_from(next).ok() else {
                    problem = Some(LinkProblem::OutOfRange { next });
                    break;
                };
                if at < initial.len() {
                    problem = Some(LinkProblem::ToInitial { next });
                    break;
                }
                let Some(slot) = taken.get_mut(at - initial.len()) else {
                    problem = Some(LinkProblem::OutOfRange { next });
                    break;
                };
                if *slot {
                    problem = Some(LinkProblem::Revisited { next });
                    break;
                }
                *slot = true;
                let key = &linked[at - initial.len()].key;
                keys.push(key);
                next = key.link().next;
            }
            Track { keys, problem }
        })
        .collect()
}
