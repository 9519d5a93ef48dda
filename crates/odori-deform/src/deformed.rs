//! The caller-owned output of one deformation.

use crate::Mesh;

/// Deformed vertex attributes, in the mesh's vertex order. Created once per instance
/// ([`Deformed::new`]) and rewritten by [`crate::deform`] every frame without allocating.
///
/// The deformation owns the contents: UV channels that no active UV morph touches are left as
/// they are between frames (rewriting 16 bytes a vertex of unchanged UVs every frame would cost
/// about a sixth of the frame), so a caller that edits them must call [`Deformed::reset`].
#[derive(Debug, Clone, Default)]
pub struct Deformed {
    pub positions: Vec<[f32; 3]>,
    /// Unit normals (zero where the rest normal is zero).
    pub normals: Vec<[f32; 3]>,
    /// Main UVs with UV morphs applied (MMD convention: v grows downwards).
    pub uvs: Vec<[f32; 2]>,
    /// Additional vec4 UVs with their morphs applied; empty when the model has none. Only the
    /// first [`Mesh::additional_uv_count`] channels carry data.
    pub additional_uvs: Vec<[[f32; 4]; 4]>,
    /// Per-vertex edge (outline) scale: PMX's value, or 0/1 from PMD's edge flag.
    pub edge_scale: Vec<f32>,
    /// Which UV channels (0 main, 1..=4 additional) hold morphed values and must be rewritten
    /// even when no morph on them is active any more. `None`: not sized for a mesh yet.
    pub(crate) uv_dirty: Option<[bool; 5]>,
}

impl Deformed {
    /// Buffers for `mesh`, holding its rest pose.
    pub fn new(mesh: &Mesh) -> Deformed {
        let mut d = Deformed::default();
        d.prepare(mesh);
        d
    }

    /// Put every buffer back to the mesh's rest values.
    pub fn reset(&mut self, mesh: &Mesh) {
        self.uv_dirty = None;
        self.prepare(mesh);
    }

    /// Size the buffers for `mesh` and fill the constant ones, unless already done. Runs once:
    /// later frames find the sizes right and return at once.
    pub(crate) fn prepare(&mut self, mesh: &Mesh) {
        let n = mesh.vertex_count();
        let sized = self.positions.len() == n
            && self.normals.len() == n
            && self.uvs.len() == n
            && self.edge_scale.len() == n
            && self.additional_uvs.len() == mesh.additional_uvs.len();
        if sized && self.uv_dirty.is_some() {
            return;
        }
        self.positions.clone_from(&mesh.positions);
        self.normals.clone_from(&mesh.normals);
        self.uvs.clone_from(&mesh.uvs);
        self.additional_uvs.clone_from(&mesh.additional_uvs);
        self.edge_scale.clone_from(&mesh.edge_scale);
        self.uv_dirty = Some([false; 5]);
    }
}
