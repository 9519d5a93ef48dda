//! Vertex and UV morph tables in CSR form.
//!
//! Each morph's offsets are one contiguous run of a shared offset array, sorted by vertex
//! (stably, so repeated vertices keep file order). A pass over vertices `a..b` finds a
//! morph's offsets for that range by binary search, which lets vertex ranges be morphed in
//! parallel with no scatter conflicts, and adds them in the same order as a plain sequential
//! loop over morphs and offsets: results match the scalar reference bit for bit.

use std::ops::Range;

/// One morph's run of offsets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MorphRun {
    /// Index into the morph weights.
    pub morph: u32,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Offset<const N: usize> {
    pub vertex: u32,
    pub offset: [f32; N],
}

pub(crate) type PositionOffset = Offset<3>;
/// UV offsets are vec4 for every channel; channel 0 (the main UV) uses x and y.
pub(crate) type UvOffset = Offset<4>;

#[derive(Debug, Clone, Default)]
pub(crate) struct MorphTable {
    /// Length of the weight slice the table is indexed by.
    pub morph_count: usize,
    /// Vertex morphs, in morph order.
    pub vertex: Vec<MorphRun>,
    pub vertex_offsets: Vec<PositionOffset>,
    /// UV morphs per channel (0 = main UV, 1..=4 = additional UVs), in morph order.
    pub uv: [Vec<MorphRun>; 5],
    pub uv_offsets: Vec<UvOffset>,
}

/// The weight of morph `m`; weights past the end of the slice count as 0.
#[inline]
pub(crate) fn weight(weights: &[f32], m: u32) -> f32 {
    weights.get(m as usize).copied().unwrap_or(0.0)
}

/// Sort one morph's offsets by vertex, dropping those past the last vertex. Returns how many
/// were dropped.
fn sorted<const N: usize>(
    list: impl Iterator<Item = (u32, [f32; N])>,
    vertex_count: usize,
    out: &mut Vec<Offset<N>>,
) -> (u32, u32, usize) {
    let start = out.len();
    let mut dropped = 0;
    for (vertex, offset) in list {
        if (vertex as usize) < vertex_count {
            out.push(Offset { vertex, offset });
        } else {
            dropped += 1;
        }
    }
    out[start..].sort_by_key(|o| o.vertex); // stable: repeats keep file order
    (start as u32, out.len() as u32, dropped)
}

impl MorphTable {
    /// Add vertex morph `morph` (an index into the weights).
    pub fn add_vertex(
        &mut self,
        morph: usize,
        list: impl Iterator<Item = (u32, [f32; 3])>,
        vertex_count: usize,
    ) -> usize {
        let (start, end, dropped) = sorted(list, vertex_count, &mut self.vertex_offsets);
        self.vertex.push(MorphRun {
            morph: morph as u32,
            start,
            end,
        });
        dropped
    }

    /// Add UV morph `morph` on `channel` (0 main, 1..=4 additional).
    pub fn add_uv(
        &mut self,
        morph: usize,
        channel: usize,
        list: impl Iterator<Item = (u32, [f32; 4])>,
        vertex_count: usize,
    ) -> usize {
        let (start, end, dropped) = sorted(list, vertex_count, &mut self.uv_offsets);
        self.uv[channel].push(MorphRun {
            morph: morph as u32,
            start,
            end,
        });
        dropped
    }

    /// The offsets of `run` whose vertex lies in `vertices`.
    #[inline]
    pub fn vertex_run_in(&self, run: &MorphRun, vertices: &Range<u32>) -> &[PositionOffset] {
        in_range(
            &self.vertex_offsets[run.start as usize..run.end as usize],
            vertices,
        )
    }

    #[inline]
    pub fn uv_run_in(&self, run: &MorphRun, vertices: &Range<u32>) -> &[UvOffset] {
        in_range(
            &self.uv_offsets[run.start as usize..run.end as usize],
            vertices,
        )
    }

    /// True when some UV morph on `channel` has a non-zero weight.
    pub fn uv_channel_active(&self, channel: usize, weights: &[f32]) -> bool {
        self.uv[channel]
            .iter()
            .any(|r| weight(weights, r.morph) != 0.0 && r.end > r.start)
    }
}

#[inline]
fn in_range<'a, const N: usize>(
    offsets: &'a [Offset<N>],
    vertices: &Range<u32>,
) -> &'a [Offset<N>] {
    let a = offsets.partition_point(|o| o.vertex < vertices.start);
    let b = offsets.partition_point(|o| o.vertex < vertices.end);
    &offsets[a..b]
}
