//! What the renderer needs from a PMX or PMD model, in one shape: materials with their draw
//! ranges, flags and texture names, and the per-vertex data that deformation does not touch
//! (edge scale, additional UV 1 for sub-texture spheres).

use glam::{Vec3, Vec4};
use odori_format::pmx::{Toon, material_flags as mf};
use odori_format::{Pmd, Pmx, faces};
use odori_pose::material::MaterialValues;
use std::ops::Range;

/// How a sphere map combines with the colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SphereMode {
    None,
    Multiply,
    Add,
    /// A second texture sampled with additional UV 1, multiplied.
    SubTexture,
}

impl SphereMode {
    /// The mode's name where odori writes it for other tools (glTF `extras`, the npm
    /// package's materials): none, multiply, add or subtexture.
    pub fn name(self) -> &'static str {
        match self {
            SphereMode::None => "none",
            SphereMode::Multiply => "multiply",
            SphereMode::Add => "add",
            SphereMode::SubTexture => "subtexture",
        }
    }
}

/// Which toon ramp a material uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToonRef {
    /// White ramp: no toon shading.
    None,
    /// One of the ten shared ramps, 0-based.
    Shared(u8),
    /// A texture of the model's own.
    File(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MaterialDesc {
    pub name: String,
    pub diffuse: Vec4,
    pub specular: Vec3,
    pub specular_power: f32,
    pub ambient: Vec3,
    pub double_sided: bool,
    pub ground_shadow: bool,
    pub cast_shadow: bool,
    pub receive_shadow: bool,
    pub edge: bool,
    pub edge_color: Vec4,
    pub edge_size: f32,
    pub texture: Option<String>,
    pub sphere: Option<String>,
    pub sphere_mode: SphereMode,
    pub toon: ToonRef,
    /// 加算合成 (MMD's additive blending of an accessory or a model): the colour is added to
    /// what is behind it (source × alpha + destination) instead of laid over it; glowing
    /// effects, light beams, lens flares.
    pub additive: bool,
    /// Range into the index buffer.
    pub indices: Range<u32>,
}

/// The render-side view of a model.
#[derive(Debug, Clone)]
pub struct RenderModel {
    pub materials: Vec<MaterialDesc>,
    pub indices: Vec<u32>,
    /// Per vertex: additional UV 1 (zero when absent).
    pub uv1: Vec<[f32; 4]>,
    /// Per vertex edge scale (PMD: 0 where the vertex's edge flag is off).
    pub edge_scale: Vec<f32>,
    /// Rest-pose bounds.
    pub bounds: (Vec3, Vec3),
    /// Every edge's thickness times this: MikuMikuDance's per-model edge width (輪郭幅, kept
    /// in a project for each model; 1 = as the materials say, 0 = no edges).
    pub edge_width: f32,
}

/// A vertex count as the largest valid index plus one.
fn vertex_count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn bounds(points: impl Iterator<Item = [f32; 3]>) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in points {
        let p = Vec3::from(p);
        if p.is_finite() {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    if lo.x > hi.x {
        (Vec3::ZERO, Vec3::splat(1.0))
    } else {
        (lo, hi)
    }
}

impl RenderModel {
    pub fn from_pmx(pmx: &Pmx) -> RenderModel {
        let tex = |i: i32| {
            usize::try_from(i)
                .ok()
                .and_then(|i| pmx.textures.get(i))
                .filter(|s| !s.trim().is_empty())
                .cloned()
        };
        let (index_ranges, _) = faces::material_ranges(
            pmx.materials.iter().map(|m| m.index_count as i64),
            pmx.indices.len(),
        );
        let materials = pmx
            .materials
            .iter()
            .zip(index_ranges)
            .map(|(m, indices)| {
                let sphere = tex(m.sphere_texture);
                let values = MaterialValues::from_pmx(m);
                MaterialDesc {
                    name: m.name.clone(),
                    diffuse: values.diffuse,
                    specular: values.specular,
                    specular_power: values.specular_power,
                    ambient: values.ambient,
                    double_sided: m.flags & mf::DOUBLE_SIDED != 0,
                    ground_shadow: m.flags & mf::GROUND_SHADOW != 0,
                    cast_shadow: m.flags & mf::CAST_SELF_SHADOW != 0,
                    receive_shadow: m.flags & mf::RECEIVE_SELF_SHADOW != 0,
                    edge: m.flags & mf::EDGE != 0,
                    edge_color: values.edge_color,
                    edge_size: values.edge_size,
                    texture: tex(m.texture),
                    sphere_mode: match (sphere.is_some(), m.sphere_mode) {
                        (true, 1) => SphereMode::Multiply,
                        (true, 2) => SphereMode::Add,
                        (true, 3) => SphereMode::SubTexture,
                        _ => SphereMode::None,
                    },
                    sphere,
                    toon: match m.toon {
                        Toon::Shared(i) if i < 10 => ToonRef::Shared(i),
                        Toon::Shared(_) => ToonRef::None,
                        Toon::Texture(i) => tex(i).map_or(ToonRef::None, ToonRef::File),
                    },
                    additive: false,
                    indices,
                }
            })
            .collect();
        RenderModel {
            materials,
            indices: faces::repair_indices(
                pmx.indices.iter().copied(),
                vertex_count(pmx.vertices.len()),
            )
            .0,
            uv1: pmx.vertices.iter().map(|v| v.additional_uvs[0]).collect(),
            edge_scale: pmx.vertices.iter().map(|v| v.edge_scale).collect(),
            bounds: bounds(pmx.vertices.iter().map(|v| v.position)),
            edge_width: 1.0,
        }
    }

    pub fn from_pmd(pmd: &Pmd) -> RenderModel {
        let (index_ranges, _) = faces::material_ranges(
            pmd.materials.iter().map(|m| m.index_count as i64),
            pmd.indices.len(),
        );
        let toon_names: Vec<String> = match &pmd.toon_textures {
            Some(list) => list.iter().map(|n| n.text()).collect(),
            None => (1..=10).map(|i| format!("toon{i:02}.bmp")).collect(),
        };
        let materials = pmd
            .materials
            .iter()
            .zip(index_ranges)
            .enumerate()
            .map(|(i, (m, indices))| {
                let (texture, sphere) = split_pmd_texture(&m.texture.text());
                let sphere_mode = match &sphere {
                    Some(s) if s.to_ascii_lowercase().ends_with(".spa") => SphereMode::Add,
                    Some(_) => SphereMode::Multiply,
                    None => SphereMode::None,
                };
                let edge = m.edge_flag != 0;
                // MMD: a PMD material with diffuse alpha exactly 0.98 casts no self-shadow.
                let casts = (m.diffuse[3] - 0.98).abs() > 1e-6;
                let values = MaterialValues::from_pmd(m);
                MaterialDesc {
                    name: format!("material{i}"),
                    diffuse: values.diffuse,
                    specular: values.specular,
                    specular_power: values.specular_power,
                    ambient: values.ambient,
                    // MMD draws translucent PMD materials without culling.
                    double_sided: m.diffuse[3] < 1.0,
                    ground_shadow: edge,
                    cast_shadow: casts,
                    receive_shadow: casts,
                    edge,
                    edge_color: values.edge_color,
                    edge_size: values.edge_size,
                    texture,
                    sphere,
                    sphere_mode,
                    toon: match toon_names.get(m.toon_index as usize) {
                        Some(name) => ToonRef::File(name.clone()),
                        None => ToonRef::None,
                    },
                    additive: false,
                    indices,
                }
            })
            .collect();
        RenderModel {
            materials,
            indices: faces::repair_indices(
                pmd.indices.iter().map(|&i| u32::from(i)),
                vertex_count(pmd.vertices.len()),
            )
            .0,
            uv1: vec![[0.0; 4]; pmd.vertices.len()],
            edge_scale: pmd
                .vertices
                .iter()
                .map(|v| if v.edge_off != 0 { 0.0 } else { 1.0 })
                .collect(),
            bounds: bounds(pmd.vertices.iter().map(|v| v.position)),
            edge_width: 1.0,
        }
    }

    pub fn vertex_count(&self) -> usize {
        self.edge_scale.len()
    }
}

/// PMD packs "main*sphere" (or only a sphere, by its .sph/.spa extension) in one field.
fn split_pmd_texture(field: &str) -> (Option<String>, Option<String>) {
    let is_sphere = |s: &str| {
        let l = s.to_ascii_lowercase();
        l.ends_with(".sph") || l.ends_with(".spa")
    };
    let nonempty = |s: &str| (!s.trim().is_empty()).then(|| s.trim().to_string());
    match field.split_once('*') {
        Some((a, b)) => (nonempty(a), nonempty(b)),
        None if is_sphere(field) => (None, nonempty(field)),
        None => (nonempty(field), None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmd_texture_field() {
        assert_eq!(
            split_pmd_texture("a.bmp*b.sph"),
            (Some("a.bmp".into()), Some("b.sph".into()))
        );
        assert_eq!(split_pmd_texture("b.spa"), (None, Some("b.spa".into())));
        assert_eq!(split_pmd_texture("a.png"), (Some("a.png".into()), None));
        assert_eq!(split_pmd_texture(""), (None, None));
    }
}
