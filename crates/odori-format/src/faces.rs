//! The face rules every consumer of a model's triangles shares (deformation, drawing, mesh
//! export), so a damaged file is repaired the same way everywhere: a face index past the last
//! vertex names vertex 0, and a material whose index count overruns the index buffer draws
//! what the buffer has, in whole triangles.

use std::ops::Range;

/// `indices` with every index at or past `vertex_count` replaced by 0, and how many were.
pub fn repair_indices(indices: impl Iterator<Item = u32>, vertex_count: u32) -> (Vec<u32>, usize) {
    let mut bad = 0;
    let repaired = indices
        .map(|i| {
            if i < vertex_count {
                i
            } else {
                bad += 1;
                0
            }
        })
        .collect();
    (repaired, bad)
}

/// Each material's range of the index buffer (`total` indices), consecutive from 0 in file
/// order, from the file's per-material index counts (negative counts as 0); clamped to the
/// buffer and cut to whole triangles. Also the materials whose count ran past the buffer.
pub fn material_ranges(
    counts: impl Iterator<Item = i64>,
    total: usize,
) -> (Vec<Range<u32>>, Vec<usize>) {
    let total = total as u64;
    let mut start = 0u64;
    let mut overran = Vec::new();
    let ranges = counts
        .enumerate()
        .map(|(m, c)| {
            let s = start.min(total);
            start = start.saturating_add(c.max(0) as u64);
            if start > total {
                overran.push(m);
            }
            let e = start.min(total);
            let e = s + (e - s) / 3 * 3;
            s as u32..e as u32
        })
        .collect();
    (ranges, overran)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_indices_name_vertex_zero() {
        assert_eq!(
            repair_indices([0, 5, 2, 3].into_iter(), 3),
            (vec![0, 0, 2, 0], 2)
        );
    }

    #[test]
    fn ranges_clamp_and_keep_whole_triangles() {
        let (r, over) = material_ranges([3, 6, -1, 9].into_iter(), 14);
        assert_eq!(r, vec![0..3, 3..9, 9..9, 9..12]);
        assert_eq!(over, vec![3]);
        // A count past the buffer draws what is left, in whole triangles.
        let (r, over) = material_ranges([3, 6, 9].into_iter(), 10);
        assert_eq!(r, vec![0..3, 3..9, 9..9]);
        assert_eq!(over, vec![2]);
    }
}
