//! GPU-side records (`#[repr(C)]`, matching the structs in `skin.wgsl`) and their
//! construction from a [`Mesh`].

use crate::Mesh;
use bytemuck::{Pod, Zeroable};

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct Params {
    pub vertex_count: u32,
    pub row_threads: u32,
    pub additional_uvs: u32,
    pub pad: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct RestVertex {
    pub position: [f32; 4],
    pub normal: [f32; 4],
    pub uv: [f32; 4],
    pub bones: [u32; 4],
    pub weights: [f32; 4],
    pub info: [u32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct Sdef {
    pub c: [f32; 4],
    pub cr0: [f32; 4],
    pub cr1: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub(crate) struct MorphEntry {
    pub morph: u32,
    pub channel: u32,
    pub pad: [u32; 2],
    pub offset: [f32; 4],
}

/// One skinning matrix: rotation columns, then translation (each padded to a vec4).
pub(crate) type Bone = [[f32; 4]; 4];

/// Bytes of one output vertex: position, normal and UV, each a 16-byte vec4.
pub(crate) const OUT_VERTEX_BYTES: u64 = 48;

fn v4(v: [f32; 3], w: f32) -> [f32; 4] {
    [v[0], v[1], v[2], w]
}

/// Per-vertex records, the gather-layout morph entries (each vertex's own list, in the order
/// the CPU adds them: morph order, then file order), and the SDEF table.
pub(crate) fn build(mesh: &Mesh) -> (Vec<RestVertex>, Vec<MorphEntry>, Vec<Sdef>) {
    let n = mesh.vertex_count();
    let table = &mesh.morphs;
    // Count entries per vertex, then lay the lists out back to back (CSR).
    let mut start = vec![0u32; n + 1];
    let channels = std::iter::once((0u32, &table.vertex)).chain(
        table
            .uv
            .iter()
            .enumerate()
            .map(|(c, runs)| (c as u32 + 1, runs)),
    );
    let mut lists: Vec<(u32, &crate::mesh::morphs::MorphRun)> = Vec::new();
    for (channel, runs) in channels {
        for run in runs {
            lists.push((channel, run));
        }
    }
    let vertices_of = |channel: u32, run: &crate::mesh::morphs::MorphRun| -> Vec<(u32, [f32; 4])> {
        let (a, b) = (run.start as usize, run.end as usize);
        if channel == 0 {
            table.vertex_offsets[a..b]
                .iter()
                .map(|o| (o.vertex, v4(o.offset, 0.0)))
                .collect()
        } else {
            table.uv_offsets[a..b]
                .iter()
                .map(|o| (o.vertex, o.offset))
                .collect()
        }
    };
    for &(channel, run) in &lists {
        for (v, _) in vertices_of(channel, run) {
            start[v as usize + 1] += 1;
        }
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut entries = vec![MorphEntry::zeroed(); start[n] as usize];
    for &(channel, run) in &lists {
        for (v, offset) in vertices_of(channel, run) {
            let slot = &mut fill[v as usize];
            entries[*slot as usize] = MorphEntry {
                morph: run.morph,
                channel,
                pad: [0; 2],
                offset,
            };
            *slot += 1;
        }
    }
    let rest = (0..n)
        .map(|v| {
            let s = &mesh.skin[v];
            RestVertex {
                position: v4(mesh.positions[v], mesh.edge_scale[v]),
                normal: v4(mesh.normals[v], 0.0),
                uv: [mesh.uvs[v][0], mesh.uvs[v][1], 0.0, 0.0],
                bones: s.bones,
                weights: s.weights,
                info: [mesh.kinds[v] as u32, 0, start[v], start[v + 1]],
            }
        })
        .collect();
    let sdef = mesh
        .sdef
        .iter()
        .map(|t| Sdef {
            c: v4(t.c, 0.0),
            cr0: v4(t.cr0, 0.0),
            cr1: v4(t.cr1, 0.0),
        })
        .collect();
    (rest, entries, sdef)
}
