//! The model's mesh, skin and bone nodes: one glTF mesh with a primitive per material (all
//! sharing the vertex accessors), a skin whose joints are the bones in the model's order, and
//! morph targets from the vertex morphs.

use crate::buffer::{
    self, ARRAY_BUFFER, Buffer, ELEMENT_ARRAY_BUFFER, FLOAT, UNSIGNED_INT, UNSIGNED_SHORT,
};
use crate::space;
use glam::Vec3;
use odori_playback::ModelAsset;
use odori_pose::model::NONE;
use serde_json::{Value, json};

/// What the mesh part of an export produced.
pub struct MeshOut {
    pub mesh: Value,
    /// The skin, when the model has bones.
    pub skin: Option<Value>,
    /// Per morph target, the model morph it comes from.
    pub target_morphs: Vec<usize>,
    /// SDEF and QDEF vertices written as their BDEF form.
    pub sdef: usize,
    pub qdef: usize,
    /// Triangles dropped because two of their corners are the same vertex (they draw
    /// nothing; the validator flags them).
    pub degenerate: usize,
    pub triangles: usize,
}

/// The bone nodes at rest: each bone's translation from its parent (glTF space), named as in
/// the model, with its children. Node `base + b` is bone `b`.
pub fn bone_nodes(asset: &ModelAsset, base: usize) -> Vec<Value> {
    let pose = asset.pose();
    let rest = pose.rest_positions();
    let parents = pose.parents();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); pose.bone_count()];
    for (b, &p) in parents.iter().enumerate() {
        if p != NONE {
            children[p as usize].push(b);
        }
    }
    (0..pose.bone_count())
        .map(|b| {
            let parent = match parents[b] {
                NONE => Vec3::ZERO,
                p => Vec3::from(rest[p as usize]),
            };
            let t = space::point(Vec3::from(rest[b]) - parent);
            let mut node = json!({
                "name": pose.bone_names()[b],
                "translation": [t.x, t.y, t.z],
            });
            if !children[b].is_empty() {
                node["children"] = json!(children[b].iter().map(|c| base + c).collect::<Vec<_>>());
            }
            node
        })
        .collect()
}

/// Write the mesh (positions, normals, UVs, joints, weights, per-material indices, morph
/// targets) and the skin into `buf`. `material_count` primitives at most: a material that
/// draws no triangle gets none. The model's materials are glTF materials `first_material..`
/// and its bones nodes `first_joint..`.
pub fn mesh(
    asset: &ModelAsset,
    buf: &mut Buffer,
    first_material: usize,
    first_joint: usize,
) -> MeshOut {
    let mesh = asset.mesh();
    let pose = asset.pose();
    let n = mesh.vertex_count();
    let bones = pose.bone_count();

    let positions: Vec<f32> = (mesh.rest_positions().iter())
        .flat_map(|&p| space::array(p))
        .collect();
    let normals: Vec<f32> = (mesh.rest_normals().iter())
        .flat_map(|&p| {
            // glTF requires unit normals; a zero normal (a degenerate vertex in the file)
            // becomes +Y.
            let v = Vec3::from(space::array(p))
                .try_normalize()
                .unwrap_or(Vec3::Y);
            v.to_array()
        })
        .collect();
    let uvs: Vec<f32> = mesh.rest_uvs().iter().flatten().copied().collect();
    let mut attributes = serde_json::Map::new();
    attributes.insert(
        "POSITION".into(),
        json!(buf.floats(&positions, 3, Some(ARRAY_BUFFER), true)),
    );
    attributes.insert(
        "NORMAL".into(),
        json!(buf.floats(&normals, 3, Some(ARRAY_BUFFER), false)),
    );
    attributes.insert(
        "TEXCOORD_0".into(),
        json!(buf.floats(&uvs, 2, Some(ARRAY_BUFFER), false)),
    );

    let [_, _, _, sdef, qdef] = mesh.weight_type_counts();
    let skin = if bones > 0 {
        let mut joints = Vec::with_capacity(n * 4);
        let mut weights = Vec::with_capacity(n * 4);
        for v in 0..n {
            let (j, w, _) = mesh.linear_skin(v);
            let (j, w) = normalised(j, w);
            joints.extend(j.iter().map(|&b| b as u16));
            weights.extend_from_slice(&w);
        }
        let view = buf.view(&buffer::u16_bytes(&joints), Some(ARRAY_BUFFER));
        let joints = buf.accessor(json!({
            "bufferView": view, "componentType": UNSIGNED_SHORT, "count": n, "type": "VEC4",
        }));
        attributes.insert("JOINTS_0".into(), json!(joints));
        attributes.insert(
            "WEIGHTS_0".into(),
            json!(buf.floats(&weights, 4, Some(ARRAY_BUFFER), false)),
        );
        let rest = pose.rest_positions();
        let ibm: Vec<f32> = (0..bones)
            .flat_map(|b| {
                let t = -space::point(Vec3::from(rest[b]));
                glam::Mat4::from_translation(t).to_cols_array()
            })
            .collect();
        let view = buf.view(&buffer::f32_bytes(&ibm), None);
        let ibm = buf.accessor(json!({
            "bufferView": view, "componentType": FLOAT, "count": bones, "type": "MAT4",
        }));
        Some(json!({
            "name": pose.name(),
            "joints": (first_joint..first_joint + bones).collect::<Vec<_>>(),
            "inverseBindMatrices": ibm,
        }))
    } else {
        None
    };

    let (targets, target_morphs) = morph_targets(asset, buf);
    let target_names: Vec<&str> = (target_morphs.iter())
        .map(|&m| pose.morphs()[m].name.as_str())
        .collect();

    let indices = mesh.indices();
    let wide = n > u16::MAX as usize;
    let mut primitives = Vec::new();
    let (mut degenerate, mut triangles) = (0, 0);
    for (m, range) in mesh.material_ranges().iter().enumerate() {
        let mut list: Vec<u32> = Vec::with_capacity(range.len());
        for t in indices[range.start as usize..range.end as usize].chunks_exact(3) {
            if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
                degenerate += 1;
                continue;
            }
            // Reversed winding: the mirror into glTF's frame turns faces around.
            list.extend_from_slice(&[t[0], t[2], t[1]]);
        }
        if list.is_empty() {
            continue;
        }
        triangles += list.len() / 3;
        let (bytes, kind) = if wide {
            (buffer::u32_bytes(&list), UNSIGNED_INT)
        } else {
            let short: Vec<u16> = list.iter().map(|&i| i as u16).collect();
            (buffer::u16_bytes(&short), UNSIGNED_SHORT)
        };
        let view = buf.view(&bytes, Some(ELEMENT_ARRAY_BUFFER));
        let acc = buf.accessor(json!({
            "bufferView": view, "componentType": kind, "count": list.len(), "type": "SCALAR",
        }));
        let mut p = json!({
            "attributes": attributes,
            "indices": acc,
            "material": first_material + m,
            "mode": 4,
        });
        if !targets.is_empty() {
            p["targets"] = json!(targets);
        }
        primitives.push(p);
    }

    let mut mesh_json = json!({ "name": pose.name(), "primitives": primitives });
    if !targets.is_empty() {
        mesh_json["weights"] = json!(vec![0.0; targets.len()]);
        mesh_json["extras"] = json!({ "targetNames": target_names });
    }
    MeshOut {
        mesh: mesh_json,
        skin,
        target_morphs,
        sdef,
        qdef,
        degenerate,
        triangles,
    }
}

/// Unused slots bone 0 (the validator warns of a joint with zero weight that is not 0), a
/// bone named twice merged, weights summing to one in f32.
fn normalised(j: [u32; 4], w: [f32; 4]) -> ([u32; 4], [f32; 4]) {
    let mut bones = [0u32; 4];
    let mut weights = [0f32; 4];
    let mut used = 0;
    for (&b, &x) in j.iter().zip(&w) {
        if x <= 0.0 {
            continue;
        }
        match bones[..used].iter().position(|&o| o == b) {
            Some(i) => weights[i] += x,
            None => {
                bones[used] = b;
                weights[used] = x;
                used += 1;
            }
        }
    }
    if used == 0 {
        return ([j[0], 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
    }
    let sum: f32 = weights.iter().sum();
    for x in &mut weights[..used] {
        *x /= sum;
    }
    // The first weight takes up what rounding left, so the four add to 1 in f32.
    let rest: f32 = weights[1..].iter().sum();
    weights[0] = 1.0 - rest;
    (bones, weights)
}

/// One target per vertex morph with any non-zero offset; sparse where that is smaller than
/// the dense array. Returns the targets and, per target, its model morph.
fn morph_targets(asset: &ModelAsset, buf: &mut Buffer) -> (Vec<Value>, Vec<usize>) {
    let n = asset.mesh().vertex_count();
    let mut targets = Vec::new();
    let mut morphs = Vec::new();
    for (morph, offsets) in asset.mesh().vertex_morphs() {
        // Offsets come sorted by vertex; a vertex listed twice adds.
        let mut merged: Vec<(u32, [f32; 3])> = Vec::with_capacity(offsets.len());
        for (v, o) in offsets {
            match merged.last_mut() {
                Some((last, acc)) if *last == v => {
                    for i in 0..3 {
                        acc[i] += o[i];
                    }
                }
                _ => merged.push((v, o)),
            }
        }
        merged.retain(|(_, o)| o.iter().any(|&x| x != 0.0));
        if merged.is_empty() {
            continue;
        }
        let values: Vec<f32> = merged.iter().flat_map(|(_, o)| space::array(*o)).collect();
        let (mut lo, mut hi) = buffer::min_max(&values, 3);
        if merged.len() < n {
            for i in 0..3 {
                lo[i] = lo[i].min(0.0);
                hi[i] = hi[i].max(0.0);
            }
        }
        let index_size = if n > u16::MAX as usize { 4 } else { 2 };
        let sparse_bytes = merged.len() * (12 + index_size);
        let accessor = if sparse_bytes < n * 12 {
            let (bytes, kind) = if index_size == 4 {
                let idx: Vec<u32> = merged.iter().map(|(v, _)| *v).collect();
                (buffer::u32_bytes(&idx), UNSIGNED_INT)
            } else {
                let idx: Vec<u16> = merged.iter().map(|(v, _)| *v as u16).collect();
                (buffer::u16_bytes(&idx), UNSIGNED_SHORT)
            };
            let iv = buf.view(&bytes, None);
            let vv = buf.view(&buffer::f32_bytes(&values), None);
            buf.accessor(json!({
                "componentType": FLOAT, "count": n, "type": "VEC3", "min": lo, "max": hi,
                "sparse": {
                    "count": merged.len(),
                    "indices": { "bufferView": iv, "componentType": kind },
                    "values": { "bufferView": vv },
                },
            }))
        } else {
            let mut dense = vec![0f32; n * 3];
            for (v, o) in &merged {
                dense[*v as usize * 3..*v as usize * 3 + 3].copy_from_slice(&space::array(*o));
            }
            let view = buf.view(&buffer::f32_bytes(&dense), Some(ARRAY_BUFFER));
            buf.accessor(json!({
                "bufferView": view, "componentType": FLOAT, "count": n, "type": "VEC3",
                "min": lo, "max": hi,
            }))
        };
        targets.push(json!({ "POSITION": accessor }));
        morphs.push(morph);
    }
    (targets, morphs)
}
