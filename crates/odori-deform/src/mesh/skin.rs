//! Per-vertex skin records: one weight description from the file, compiled into the compact
//! form the passes read (see the `mesh` module documentation).

use odori_format::pmx::Weights;

/// How a vertex is skinned. BDEF1/2/4 become `Linear1/2/4` by how many bones actually carry
/// weight after compaction, so a BDEF4 vertex with two zero weights costs a BDEF2 blend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Linear1 = 0,
    Linear2 = 1,
    Linear4 = 2,
    Sdef = 3,
    Qdef = 4,
}

/// Bones and weights of one vertex. Linear kinds: the first 1, 2 or 4 slots are used (unused
/// slots are bone 0, weight 0). SDEF: slots 0 and 1 are the two bones with weights `w` and
/// `1 − w`; `bones[2]` is the vertex's index into `Mesh::sdef`. QDEF: all four slots, weights
/// summing to one (zero-weight slots are harmless in the blend).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[repr(C)]
pub(crate) struct Skin {
    pub bones: [u32; 4],
    pub weights: [f32; 4],
}

/// SDEF terms of one vertex: the file's C, R0 and R1, and the two points precomputed from
/// them at load (see [`sdef_terms`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SdefTerms {
    pub c: [f32; 3],
    pub r0: [f32; 3],
    pub r1: [f32; 3],
    pub cr0: [f32; 3],
    pub cr1: [f32; 3],
}

/// The weight type the file declared, for statistics: BDEF1, BDEF2, BDEF4, SDEF, QDEF.
pub(crate) fn declared_type(w: &Weights) -> usize {
    match w {
        Weights::Bdef1 { .. } => 0,
        Weights::Bdef2 { .. } => 1,
        Weights::Bdef4 { .. } => 2,
        Weights::Sdef { .. } => 3,
        Weights::Qdef { .. } => 4,
    }
}

/// Counts of the repairs made while compiling weights, reported once per mesh.
#[derive(Debug, Default)]
pub(crate) struct Repairs {
    /// Weighted slots whose bone index was out of range (mapped to bone 0).
    pub bad_bones: usize,
    /// BDEF4/QDEF vertices whose weights did not sum to 1 (renormalised).
    pub renormalised: usize,
    /// BDEF4/QDEF vertices whose weights summed to 0 (bound to their first valid bone).
    pub zero_sum: usize,
}

impl Repairs {
    pub fn report(&self, diagnostics: &mut Vec<String>) {
        if self.bad_bones > 0 {
            diagnostics.push(format!(
                "{} vertex weights name a bone that does not exist; bone 0 used instead",
                self.bad_bones
            ));
        }
        if self.renormalised > 0 {
            diagnostics.push(format!(
                "{} BDEF4/QDEF vertices have weights not summing to 1; renormalised",
                self.renormalised
            ));
        }
        if self.zero_sum > 0 {
            diagnostics.push(format!(
                "{} BDEF4/QDEF vertices have all-zero weights; bound to their first valid bone",
                self.zero_sum
            ));
        }
    }
}

/// Compiles weights against a skeleton of `bone_count` bones.
pub(crate) struct Compiler {
    pub bone_count: usize,
    pub repairs: Repairs,
}

impl Compiler {
    fn valid(&self, b: i32) -> bool {
        b >= 0 && (b as usize) < self.bone_count
    }

    /// A bone index that is safe to read: out-of-range indices become 0. Only slots that
    /// carry weight count as repairs (PMX writers fill unused BDEF4 slots with −1).
    fn bone(&mut self, b: i32, weighted: bool) -> u32 {
        if self.valid(b) {
            b as u32
        } else {
            if weighted {
                self.repairs.bad_bones += 1;
            }
            0
        }
    }

    /// Compile one vertex's weights. `sdef` receives the SDEF terms, if any.
    pub fn compile(&mut self, w: &Weights, sdef: &mut Vec<SdefTerms>) -> (Kind, Skin) {
        match *w {
            Weights::Bdef1 { bone } => linear1(self.bone(bone, true)),
            Weights::Bdef2 { bones, weight } => self.four(
                [bones[0], bones[1], -1, -1],
                [weight, 1.0 - weight, 0.0, 0.0],
                false,
            ),
            Weights::Bdef4 { bones, weights } => self.four(bones, weights, false),
            Weights::Qdef { bones, weights } => self.four(bones, weights, true),
            Weights::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            } => {
                let b0 = self.bone(bones[0], weight != 0.0);
                let b1 = self.bone(bones[1], weight != 1.0);
                let index = sdef.len() as u32;
                sdef.push(sdef_terms(c, r0, r1, weight));
                (
                    Kind::Sdef,
                    Skin {
                        bones: [b0, b1, index, 0],
                        weights: [weight, 1.0 - weight, 0.0, 0.0],
                    },
                )
            }
        }
    }

    /// Up to four weighted bones: merge repeated bones, drop zero weights, renormalise, sort
    /// by weight. QDEF keeps its kind (dual quaternions are not a matrix blend); the others
    /// become Linear1/2/4 by the number of bones left.
    fn four(&mut self, bones: [i32; 4], weights: [f32; 4], qdef: bool) -> (Kind, Skin) {
        let mut slots: Vec<(u32, f32)> = Vec::with_capacity(4);
        for (&b, &w) in bones.iter().zip(&weights) {
            if w == 0.0 {
                continue;
            }
            let b = self.bone(b, true);
            match slots.iter_mut().find(|s| s.0 == b) {
                Some(s) => s.1 += w,
                None => slots.push((b, w)),
            }
        }
        slots.retain(|s| s.1 != 0.0);
        let sum: f32 = slots.iter().map(|s| s.1).sum();
        if slots.is_empty() || sum.abs() < 1e-12 {
            self.repairs.zero_sum += 1;
            let first = bones.iter().copied().find(|&b| self.valid(b)).unwrap_or(0);
            return linear1(first as u32);
        }
        if (sum - 1.0).abs() > 1e-4 {
            self.repairs.renormalised += 1;
        }
        if sum != 1.0 {
            for s in &mut slots {
                s.1 /= sum;
            }
        }
        slots.sort_by(|a, b| b.1.total_cmp(&a.1));
        // Make the weights sum to exactly 1 in the order the blend adds them: the last
        // (smallest) one is 1 minus the others, which is exact because the others sum to at
        // least ½ (Sterbenz). An identity pose then blends to the identity matrix exactly,
        // and the rest pose reproduces the input mesh bit for bit.
        if let Some((last, rest)) = slots.split_last_mut()
            && !rest.is_empty()
        {
            let mut sum = 0.0f32;
            for s in rest.iter() {
                sum += s.1;
            }
            last.1 = 1.0 - sum;
        }
        let mut skin = Skin::default();
        for (i, &(b, w)) in slots.iter().enumerate() {
            skin.bones[i] = b;
            skin.weights[i] = w;
        }
        let kind = match (qdef, slots.len()) {
            (true, _) => Kind::Qdef,
            (false, 1) => return linear1(skin.bones[0]),
            (false, 2) => Kind::Linear2,
            (false, _) => Kind::Linear4,
        };
        (kind, skin)
    }
}

fn linear1(bone: u32) -> (Kind, Skin) {
    (
        Kind::Linear1,
        Skin {
            bones: [bone, 0, 0, 0],
            weights: [1.0, 0.0, 0.0, 0.0],
        },
    )
}

/// SDEF's per-vertex precomputation, as babylon-mmd's PMX loader does it
/// (`src/Loader/pmLoader.ts`, after mmd_tools' `core/sdef.py`): with bone-0 weight `w0` and
/// `w1 = 1 − w0`,
///
/// ```text
/// rw  = R0·w0 + R1·w1          (the weighted reference point)
/// r0' = C + R0 − rw            (R0 and R1 moved so their weighted mean is C)
/// r1' = C + R1 − rw
/// cr0 = (C + r0') / 2          (the midpoints the two bones carry)
/// cr1 = (C + r1') / 2
/// ```
///
/// At run time (`sdefVertex` in the same project) a vertex P goes to
/// `slerp(q0, q1, w1) · (P − C) + w0·M0·cr0 + w1·M1·cr1`: P is rotated about C by the blended
/// rotation, and C itself follows the weighted motion of the two midpoints. At rest
/// `w0·cr0 + w1·cr1 = C` exactly, so an unposed vertex stays where it is.
pub(crate) fn sdef_terms(c: [f32; 3], r0: [f32; 3], r1: [f32; 3], w0: f32) -> SdefTerms {
    use glam::Vec3;
    let w1 = 1.0 - w0;
    let (cv, r0v, r1v) = (Vec3::from(c), Vec3::from(r0), Vec3::from(r1));
    let rw = r0v * w0 + r1v * w1;
    let r0p = cv + r0v - rw;
    let r1p = cv + r1v - rw;
    SdefTerms {
        c,
        r0,
        r1,
        cr0: ((cv + r0p) * 0.5).to_array(),
        cr1: ((cv + r1p) * 0.5).to_array(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(w: Weights) -> (Kind, Skin, Repairs) {
        let mut c = Compiler {
            bone_count: 4,
            repairs: Repairs::default(),
        };
        let (k, s) = c.compile(&w, &mut Vec::new());
        (k, s, c.repairs)
    }

    #[test]
    fn bdef4_is_renormalised_compacted_and_sorted() {
        let (k, s, r) = compile(Weights::Bdef4 {
            bones: [1, 2, 3, -1],
            weights: [0.2, 0.6, 0.0, 0.0],
        });
        assert_eq!(k, Kind::Linear2);
        assert_eq!(s.bones[..2], [2, 1]);
        assert!((s.weights[0] - 0.75).abs() < 1e-6 && (s.weights[1] - 0.25).abs() < 1e-6);
        assert_eq!(r.renormalised, 1);
        assert_eq!(r.bad_bones, 0, "unused −1 slots are not repairs");
    }

    #[test]
    fn zero_sum_binds_to_first_valid_bone_and_bad_bones_become_0() {
        let (k, s, r) = compile(Weights::Bdef4 {
            bones: [-1, 9, 2, 3],
            weights: [0.0; 4],
        });
        assert_eq!((k, s.bones[0]), (Kind::Linear1, 2));
        assert_eq!(r.zero_sum, 1);
        let (k, s, r) = compile(Weights::Bdef1 { bone: 17 });
        assert_eq!((k, s.bones[0], r.bad_bones), (Kind::Linear1, 0, 1));
    }

    #[test]
    fn bdef2_with_a_full_weight_is_bdef1() {
        let (k, s, _) = compile(Weights::Bdef2 {
            bones: [3, 1],
            weight: 0.0,
        });
        assert_eq!((k, s.bones[0]), (Kind::Linear1, 1));
    }

    #[test]
    fn sdef_midpoints_average_to_c() {
        let t = sdef_terms([1.0, 2.0, 3.0], [0.0, 2.5, 3.0], [2.0, 1.0, 3.5], 0.3);
        for i in 0..3 {
            let mean = 0.3 * t.cr0[i] + 0.7 * t.cr1[i];
            assert!((mean - t.c[i]).abs() < 1e-6);
        }
    }
}
