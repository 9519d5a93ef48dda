//! Outside parents (外部親): a bone of one model that follows a bone of another model, as a
//! MikuMikuDance project keys it (a prop passed from hand to hand, a rider on a vehicle, two
//! dancers holding hands).
//!
//! The followed bone takes the place of the bone's own parent, the rest offset between them
//! kept: forward kinematics composes the bone's transform relative to its rest onto the
//! followed bone's skinning matrix (its world × the inverse of its rest translation) where it
//! would compose it onto its own parent's. At the followed bone's rest the bone therefore
//! stands where its own rest puts it, and from there it moves as if it were skinned to the
//! followed bone: a hat modelled on a head stays on that head. Everything under the bone
//! comes along, and IK and append run on the moved bones within the same pass, so a leg under
//! a following センター still reaches its IK target, which stays with 全ての親.
//!
//! The caller gives the followed bone's matrix each evaluation, from the other model's
//! instance as it stands (MikuMikuDance evaluates the models in its calculation order, so a
//! model that follows one later in that order reads its previous frame).

use crate::instance::Instance;
use glam::Affine3A;

impl Instance {
    /// From the next evaluation on, bone `b`'s parent is the bone whose skinning matrix (in
    /// this model's space) is `parent_skin`; `None` gives the bone its own parent back.
    /// Allocation-free once the instance has held as many outside parents at once.
    ///
    /// # Panics
    /// When `b` is no bone of the instance's model.
    pub fn set_outside_parent(&mut self, b: usize, parent_skin: Option<Affine3A>) {
        assert!(b < self.skinning.len(), "bone {b} is no bone of this model");
        let at = self.outside_parents.iter().position(|o| o.0 as usize == b);
        match (at, parent_skin) {
            (Some(i), Some(skin)) => self.outside_parents[i].1 = skin,
            (None, Some(skin)) => self.outside_parents.push((b as u32, skin)),
            (Some(i), None) => {
                self.outside_parents.swap_remove(i);
            }
            (None, None) => {}
        }
    }

    /// Every bone follows its own parent again.
    pub fn clear_outside_parents(&mut self) {
        self.outside_parents.clear();
    }

    /// The bones that follow another model's bone, each with the skinning matrix it follows.
    pub fn outside_parents(&self) -> impl ExactSizeIterator<Item = (usize, Affine3A)> + '_ {
        self.outside_parents
            .iter()
            .map(|&(b, skin)| (b as usize, skin))
    }
}

/// The skinning matrix standing in for bone `b`'s parent's, when `b` follows an outside
/// parent.
#[inline]
pub(crate) fn stand_in(inst: &Instance, b: usize) -> Option<Affine3A> {
    if inst.outside_parents.is_empty() {
        return None;
    }
    (inst.outside_parents.iter())
        .find(|o| o.0 as usize == b)
        .map(|o| o.1)
}
