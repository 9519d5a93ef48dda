//! Identities of compiled models and bound motions, so that an instance can tell the model
//! and motion it was sized for from any other.

use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(1);

/// A number no other call in this process returns (a model's or a motion's identity). A
/// clone keeps its original's identity: it is the same model or motion.
pub(crate) fn next() -> u64 {
    NEXT.fetch_add(1, Ordering::Relaxed)
}
