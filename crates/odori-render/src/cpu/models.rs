//! The models as the CPU renderer holds them: each material's images (mipmapped once), this
//! frame's vertices, and the material uniforms and visibility resolved from this frame's
//! material morphs.

use crate::materials::{self, MaterialUniform};
use crate::model::RenderModel;
use odori_pose::MaterialState;
use odori_pose::material::MaterialValues;
use std::sync::Arc;

use super::texture::Mip;

/// One material's images on the CPU.
pub(super) struct CpuMaterial {
    pub(super) texture: Option<Arc<Mip>>,
    pub(super) sphere: Option<Arc<Mip>>,
    pub(super) toon: Arc<Mip>,
    pub(super) toon_shade: [f32; 4],
}

/// One model: its materials, this frame's vertices and state.
pub(super) struct CpuModel {
    pub(super) model: RenderModel,
    /// Indices repaired to stay inside the vertices.
    pub(super) indices: Vec<u32>,
    pub(super) materials: Vec<CpuMaterial>,
    pub(super) base: Vec<MaterialValues>,
    /// This frame's uniforms (morphed).
    pub(super) uniforms: Vec<MaterialUniform>,
    /// Per material: resolved diffuse alpha and edge size this frame (alpha 0 hides it).
    pub(super) alpha: Vec<(f32, f32)>,
    pub(super) visible: bool,
    pub(super) positions: Vec<[f32; 3]>,
    pub(super) normals: Vec<[f32; 3]>,
    pub(super) uvs: Vec<[f32; 2]>,
}

impl CpuModel {
    pub(super) fn shown(&self, i: usize) -> bool {
        self.visible && self.alpha[i].0 > 0.0
    }
}

/// A model's material uniforms and visibility from this frame's morph results.
pub(super) fn set_state(m: &mut CpuModel, states: &[MaterialState], visible: bool) {
    m.uniforms.clear();
    for (k, desc) in m.model.materials.iter().enumerate() {
        let v = materials::drawn_values(&m.model, &m.base[k], states.get(k));
        let im = &m.materials[k];
        m.uniforms.push(materials::uniform(
            desc,
            &v,
            im.texture.is_some(),
            im.sphere.is_some(),
            im.toon_shade,
        ));
        m.alpha[k] = (v.diffuse.w, v.edge_size);
    }
    m.visible = visible;
}
