//! The compiled, immutable mesh: rest attributes, skin records, SDEF terms and morph tables,
//! laid out for the deformation passes. Built once from a PMX or PMD file and shared (it is
//! `Send + Sync`) by every instance of the model and by the GPU skinner.
//!
//! Layout, and why:
//! - Rest attributes are structures of arrays (`positions`, `normals`, `uvs`, ...), in file
//!   vertex order, so the index buffer stays valid and a pass over a vertex range reads only
//!   the arrays it needs.
//! - Every vertex has one 32-byte [`Skin`] record (four bone indices, four weights) and a
//!   one-byte [`Kind`]. BDEF1/2/4 are all "linear": their records are compacted at load (bone
//!   indices checked, weights renormalised, zero-weight slots dropped and the rest sorted by
//!   weight) so the kind says how many matrices to blend, 1, 2 or 4. SDEF and QDEF keep their
//!   bones and weights in the same record; SDEF's extra per-vertex terms live in a side table
//!   (`sdef`) whose index is stored in the record's third bone slot.
//! - Vertex and UV morphs are CSR tables ([`morphs::MorphTable`]) with each morph's offsets
//!   sorted by vertex, so a pass over a vertex range finds its offsets by binary search and
//!   ranges can be deformed in parallel without scatter conflicts.

mod from_pmd;
mod from_pmx;
pub(crate) mod morphs;
pub(crate) mod skin;

use std::ops::Range;

pub(crate) use morphs::MorphTable;
pub(crate) use skin::{Kind, SdefTerms, Skin};

/// A model's mesh compiled for deformation. See the module documentation for the layout.
#[derive(Debug, Clone)]
pub struct Mesh {
    /// Rest positions, model space.
    pub(crate) positions: Vec<[f32; 3]>,
    /// Rest normals, renormalised to unit length at load (zero normals stay zero).
    pub(crate) normals: Vec<[f32; 3]>,
    pub(crate) uvs: Vec<[f32; 2]>,
    /// How many additional vec4 UVs the file declares (0..=4).
    pub(crate) additional_uv_count: usize,
    /// Per vertex, all four channels (unused ones zero); empty when the count is 0.
    pub(crate) additional_uvs: Vec<[[f32; 4]; 4]>,
    pub(crate) edge_scale: Vec<f32>,
    pub(crate) kinds: Vec<Kind>,
    pub(crate) skin: Vec<Skin>,
    /// One entry per SDEF vertex, in vertex order.
    pub(crate) sdef: Vec<SdefTerms>,
    /// Vertices per weight type as the file declares them: BDEF1, BDEF2, BDEF4, SDEF, QDEF.
    pub(crate) declared_counts: [usize; 5],
    /// Bones the skin records may index: every index is `< bone_count.max(1)`.
    pub(crate) bone_count: usize,
    pub(crate) morphs: MorphTable,
    pub(crate) indices: Vec<u32>,
    pub(crate) material_ranges: Vec<Range<u32>>,
    pub(crate) diagnostics: Vec<String>,
}

impl Mesh {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Triangle list: three vertex indices per triangle, in file order.
    pub fn indices(&self) -> &[u32] {
        &self.indices
    }

    /// The range of [`Mesh::indices`] each material draws, in file material order.
    pub fn material_ranges(&self) -> &[Range<u32>] {
        &self.material_ranges
    }

    /// The number of bones the skinning matrices must cover.
    pub fn bone_count(&self) -> usize {
        self.bone_count
    }

    /// The number of morph weights the mesh reads (the model's morph count, indexed like
    /// `odori_pose::Model::morphs`).
    pub fn morph_count(&self) -> usize {
        self.morphs.morph_count
    }

    /// How many additional vec4 UV channels the model declares (0..=4).
    pub fn additional_uv_count(&self) -> usize {
        self.additional_uv_count
    }

    /// Rest positions (the input mesh).
    pub fn rest_positions(&self) -> &[[f32; 3]] {
        &self.positions
    }

    /// Rest normals, renormalised to unit length.
    pub fn rest_normals(&self) -> &[[f32; 3]] {
        &self.normals
    }

    /// Rest UVs (MMD convention: v grows downwards).
    pub fn rest_uvs(&self) -> &[[f32; 2]] {
        &self.uvs
    }

    /// Vertex counts per weight type: BDEF1, BDEF2, BDEF4, SDEF, QDEF as the file declares
    /// them (before compaction).
    pub fn weight_type_counts(&self) -> [usize; 5] {
        self.declared_counts
    }

    /// Bytes [`crate::deform`] reads and writes per frame when no UV morph is active:
    /// rest position, normal, skin record and kind in (57 a vertex); position and normal out
    /// (24 a vertex). Bone matrices, morph tables and SDEF terms are small and not counted.
    /// The benchmark compares a frame against a memcpy of this many bytes.
    pub fn frame_bytes(&self) -> (usize, usize) {
        let n = self.vertex_count();
        let read = n * (2 * size_of::<[f32; 3]>() + size_of::<Skin>() + size_of::<Kind>());
        (read, n * 2 * size_of::<[f32; 3]>())
    }

    /// Problems found while compiling: out-of-range bone or vertex indices replaced or
    /// dropped, weights that did not sum to one.
    pub fn diagnostics(&self) -> &[String] {
        &self.diagnostics
    }

    /// Build from per-vertex parts; the format front ends fill these in.
    pub(crate) fn empty() -> Mesh {
        Mesh {
            positions: Vec::new(),
            normals: Vec::new(),
            uvs: Vec::new(),
            additional_uv_count: 0,
            additional_uvs: Vec::new(),
            edge_scale: Vec::new(),
            kinds: Vec::new(),
            skin: Vec::new(),
            sdef: Vec::new(),
            declared_counts: [0; 5],
            bone_count: 0,
            morphs: MorphTable::default(),
            indices: Vec::new(),
            material_ranges: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// Copy indices, mapping any vertex index past the end to 0 (a degenerate triangle rather
    /// than an out-of-bounds read on the GPU), and cut material ranges to the index count.
    pub(crate) fn set_faces(&mut self, indices: Vec<u32>, counts: impl Iterator<Item = i64>) {
        let n = self.positions.len() as u32;
        let (indices, bad) = odori_format::faces::repair_indices(indices.into_iter(), n);
        if bad > 0 {
            self.diagnostics.push(format!(
                "{bad} face indices past the last vertex; replaced by vertex 0"
            ));
        }
        let (ranges, overran) = odori_format::faces::material_ranges(counts, indices.len());
        for m in overran {
            self.diagnostics.push(format!(
                "material {m} draws past the end of the index buffer; cut to it"
            ));
        }
        self.indices = indices;
        self.material_ranges = ranges;
    }
}

/// Unit length, or zero for a zero vector.
pub(crate) fn unit(n: [f32; 3]) -> [f32; 3] {
    glam::Vec3::from_array(n).normalize_or_zero().to_array()
}

/// Read-only views for exporters (glTF), which hand skinning and morphs to another runtime.
impl Mesh {
    /// Vertex `v`'s bones and weights as a linear blend skin (BDEF): up to four (bone, weight)
    /// slots, unused slots bone 0 weight 0, weights summing to one, no bone twice among the
    /// weighted slots. SDEF vertices give their two bones with the SDEF weight (the BDEF2
    /// they degrade to), QDEF vertices their four bones (a matrix blend in place of the dual
    /// quaternion one); the second value is true for those.
    pub fn linear_skin(&self, v: usize) -> ([u32; 4], [f32; 4], bool) {
        let s = self.skin[v];
        match self.kinds[v] {
            Kind::Linear1 => ([s.bones[0], 0, 0, 0], [1.0, 0.0, 0.0, 0.0], false),
            Kind::Linear2 | Kind::Linear4 => (s.bones, s.weights, false),
            Kind::Qdef => (s.bones, s.weights, true),
            Kind::Sdef => {
                let (b0, b1) = (s.bones[0], s.bones[1]);
                let (w0, w1) = (s.weights[0], s.weights[1]);
                let (bones, weights) = if b0 == b1 || w1 == 0.0 {
                    ([b0, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
                } else if w0 == 0.0 {
                    ([b1, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
                } else {
                    ([b0, b1, 0, 0], [w0, w1, 0.0, 0.0])
                };
                (bones, weights, true)
            }
        }
    }

    /// Every vertex morph with its offsets: (morph index into the weights, (vertex, offset)
    /// sorted by vertex; a vertex listed twice in the file appears twice, in file order, and
    /// the offsets add).
    pub fn vertex_morphs(&self) -> impl Iterator<Item = (usize, Vec<(u32, [f32; 3])>)> + '_ {
        self.morphs.vertex.iter().map(|run| {
            let offsets = &self.morphs.vertex_offsets[run.start as usize..run.end as usize];
            (
                run.morph as usize,
                offsets.iter().map(|o| (o.vertex, o.offset)).collect(),
            )
        })
    }
}
