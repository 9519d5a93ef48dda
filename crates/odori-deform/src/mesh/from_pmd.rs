//! Compile a PMD model's mesh: every vertex is BDEF2 with its weight in percent, the edge
//! flag becomes an edge scale of 0 or 1, and vertex morphs are resolved through the base
//! morph.

use super::skin::{Compiler, Repairs};
use super::{Mesh, unit};
use odori_format::pmd::Pmd;
use odori_format::pmx::Weights;

impl Mesh {
    /// Compile a PMD model's mesh. Morph weights are indexed like `odori_pose::Model::morphs`
    /// for PMD: the file's morphs in order with the base morph(s) (panel 0) left out.
    pub fn from_pmd(pmd: &Pmd) -> Mesh {
        let mut mesh = Mesh::empty();
        let n = pmd.vertices.len();
        mesh.bone_count = pmd.bones.len();
        let mut compiler = Compiler {
            bone_count: pmd.bones.len(),
            repairs: Repairs::default(),
        };
        for v in &pmd.vertices {
            mesh.positions.push(v.position);
            mesh.normals.push(unit(v.normal));
            mesh.uvs.push(v.uv);
            mesh.edge_scale
                .push(if v.edge_off != 0 { 0.0 } else { 1.0 });
            mesh.declared_counts[1] += 1;
            // PMD bone indices are unsigned: 0xFFFF and anything past the end map to bone 0.
            let weights = Weights::Bdef2 {
                bones: [v.bones[0] as i32, v.bones[1] as i32],
                weight: (v.weight.min(100) as f32) / 100.0,
            };
            let (kind, skin) = compiler.compile(&weights, &mut mesh.sdef);
            mesh.kinds.push(kind);
            mesh.skin.push(skin);
        }
        compiler.repairs.report(&mut mesh.diagnostics);
        mesh.set_faces(
            pmd.indices.iter().map(|&i| i as u32).collect(),
            pmd.materials.iter().map(|m| m.index_count as i64),
        );
        // The format's base-morph rule, as odori-pose applies it (`Pmd::resolve_morph`).
        let mut dropped = 0;
        let mut index = 0;
        for morph in pmd.keyed_morphs() {
            let list = pmd.resolve_morph(morph).filter_map(|resolved| {
                if resolved.is_none() {
                    dropped += 1;
                }
                resolved
            });
            let past_end = mesh.morphs.add_vertex(index, list, n);
            dropped += past_end;
            index += 1;
        }
        mesh.morphs.morph_count = index;
        if dropped > 0 {
            mesh.diagnostics.push(format!(
                "{dropped} morph offsets name no vertex (bad base index or vertex); dropped"
            ));
        }
        mesh
    }
}
