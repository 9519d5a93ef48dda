//! Compile a PMX model's mesh.

use super::skin::{Compiler, Repairs, declared_type};
use super::{Mesh, unit};
use odori_format::pmx::{MorphOffsets, Pmx};

impl Mesh {
    /// Compile a PMX model's mesh. Morph weights are then indexed like the file's morphs
    /// (which is how `odori_pose::Model::morphs` orders them).
    pub fn from_pmx(pmx: &Pmx) -> Mesh {
        let mut mesh = Mesh::empty();
        let n = pmx.vertices.len();
        mesh.bone_count = pmx.bones.len();
        mesh.additional_uv_count = pmx.header.additional_uvs.min(4) as usize;
        let mut compiler = Compiler {
            bone_count: pmx.bones.len(),
            repairs: Repairs::default(),
        };
        mesh.positions.reserve(n);
        mesh.normals.reserve(n);
        mesh.uvs.reserve(n);
        mesh.edge_scale.reserve(n);
        mesh.kinds.reserve(n);
        mesh.skin.reserve(n);
        for v in &pmx.vertices {
            mesh.positions.push(v.position);
            mesh.normals.push(unit(v.normal));
            mesh.uvs.push(v.uv);
            if mesh.additional_uv_count > 0 {
                let mut a = [[0.0; 4]; 4];
                a[..mesh.additional_uv_count]
                    .copy_from_slice(&v.additional_uvs[..mesh.additional_uv_count]);
                mesh.additional_uvs.push(a);
            }
            mesh.edge_scale.push(v.edge_scale);
            mesh.declared_counts[declared_type(&v.weights)] += 1;
            let (kind, skin) = compiler.compile(&v.weights, &mut mesh.sdef);
            mesh.kinds.push(kind);
            mesh.skin.push(skin);
        }
        compiler.repairs.report(&mut mesh.diagnostics);
        mesh.set_faces(
            pmx.indices.clone(),
            pmx.materials.iter().map(|m| m.index_count as i64),
        );
        mesh.morphs.morph_count = pmx.morphs.len();
        let mut dropped = 0;
        for (m, morph) in pmx.morphs.iter().enumerate() {
            match &morph.offsets {
                MorphOffsets::Vertex(list) => {
                    dropped +=
                        mesh.morphs
                            .add_vertex(m, list.iter().map(|o| (o.vertex, o.offset)), n);
                }
                MorphOffsets::Uv { channel, offsets } => {
                    let c = *channel as usize;
                    // An additional-UV morph on a channel the model does not have changes
                    // nothing anyone can see: leave it out.
                    if c == 0 || c <= mesh.additional_uv_count {
                        dropped += mesh.morphs.add_uv(
                            m,
                            c,
                            offsets.iter().map(|o| (o.vertex, o.offset)),
                            n,
                        );
                    }
                }
                _ => {}
            }
        }
        if dropped > 0 {
            mesh.diagnostics.push(format!(
                "{dropped} morph offsets name a vertex past the last one; dropped"
            ));
        }
        mesh
    }
}
