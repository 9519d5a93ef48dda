//! MMD's shading as the CPU rasteriser runs it: `shaders/mmd.wgsl` and `shaders/ground.wgsl`
//! function by function, same names, same order of operations, so the two renderers follow
//! one description. Any change here must be made in the WGSL too (and the other way round):
//! `crates/odori-playback/tests/backends.rs` renders the same frames on both and fails when
//! they drift apart by more than the golden tolerance.
//!
//! Texture lookups go through [`Samplers`]: the rasteriser implements them with the same
//! filtering the wgpu samplers are given (trilinear, repeat for the main texture, clamp for
//! sphere and toon, four-tap comparison PCF for the shadow maps).

use crate::materials::MaterialUniform;
use glam::{Vec2, Vec3, Vec4, Vec4Swizzles};

/// The per-frame values the shaders read from `Frame` (`shaders/frame.wgsl`).
#[derive(Debug, Clone, Copy)]
pub struct FrameValues {
    pub eye: Vec3,
    /// Direction light travels (unit).
    pub light_dir: Vec3,
    pub light_color: Vec3,
    pub ground_color: Vec4,
    /// Self-shadow on (`frame.viewport.w > 0.5`).
    pub self_shadow: bool,
}

/// The texture lookups of one fragment (`textureSample`, `textureSampleCompareLevel`).
pub trait Samplers {
    /// `textureSample(main_tex, wrap_sampler, uv)`.
    fn main(&self, uv: Vec2) -> Vec4;
    /// `textureSample(sphere_tex, clamp_sampler, uv)`.
    fn sphere(&self, uv: Vec2) -> Vec4;
    /// `textureSample(toon_tex, clamp_sampler, uv)`.
    fn toon(&self, uv: Vec2) -> Vec4;
    /// `textureSampleCompareLevel(shadow_map, shadow_sampler, uv, depth)`: the share of the
    /// bilinear footprint whose stored depth is ≥ `depth`.
    fn shadow_compare(&self, uv: Vec2, depth: f32) -> f32;
    /// The four diagonal comparison taps a texel either side (`texel` = 1 / map side),
    /// averaged: both WGSL files' percentage-closer filter. A sampler may compute the same sum
    /// in one pass (the CPU rasteriser compares each texel of the 4×4 footprint once).
    fn shadow_pcf4(&self, uv: Vec2, depth: f32, texel: f32) -> f32 {
        let mut lit = 0.0;
        lit += self.shadow_compare(uv + texel * Vec2::new(-1.0, -1.0), depth);
        lit += self.shadow_compare(uv + texel * Vec2::new(1.0, -1.0), depth);
        lit += self.shadow_compare(uv + texel * Vec2::new(-1.0, 1.0), depth);
        lit += self.shadow_compare(uv + texel * Vec2::new(1.0, 1.0), depth);
        lit * 0.25
    }
}

/// The interpolated inputs of `fs_model` (`ModelOut` in `mmd.wgsl`).
#[derive(Debug, Clone, Copy)]
pub struct ModelIn {
    pub world: Vec3,
    pub normal: Vec3,
    pub uv: Vec2,
    pub sphere_uv: Vec2,
    pub shadow: Vec4,
}

/// `vs_model`'s sphere-map coordinate from the view-space normal (modes 1 and 2).
pub fn sphere_uv_from_view_normal(nv: Vec3) -> Vec2 {
    Vec2::new(nv.x * 0.5 + 0.5, nv.y * -0.5 + 0.5)
}

fn saturate3(v: Vec3) -> Vec3 {
    v.clamp(Vec3::ZERO, Vec3::ONE)
}

fn saturate4(v: Vec4) -> Vec4 {
    v.clamp(Vec4::ZERO, Vec4::ONE)
}

/// WGSL's `normalize` (NaN for a zero vector, as on the GPU).
fn normalize(v: Vec3) -> Vec3 {
    v * (1.0 / v.length())
}

/// The shadow map coordinate of a light-clip position: (uv, depth), or `None` outside the
/// map (the `uv < 0 || uv > 1 || ndc.z > 1` test of `shadow_visibility` and `fs_ground`).
pub fn shadow_coord(s: Vec4) -> Option<(Vec2, f32)> {
    let ndc = s.xyz() / s.w;
    let uv = Vec2::new(ndc.x * 0.5 + 0.5, ndc.y * -0.5 + 0.5);
    if uv.x < 0.0 || uv.y < 0.0 || uv.x > 1.0 || uv.y > 1.0 || ndc.z > 1.0 {
        return None;
    }
    Some((uv, ndc.z - 0.002))
}

/// `shadow_visibility` in `mmd.wgsl`: 1 = lit, 0 = in self-shadow. `texel` is 1 / map side.
pub fn shadow_visibility(s: &impl Samplers, shadow: Vec4, texel: f32) -> f32 {
    match shadow_coord(shadow) {
        None => 1.0,
        Some((uv, depth)) => s.shadow_pcf4(uv, depth, texel),
    }
}

/// `fs_model` in `mmd.wgsl`: the fragment's colour (not premultiplied), or `None` where the
/// shader discards. `shadow_texel` is 1 / self-shadow map side.
pub fn fs_model(
    i: &ModelIn,
    material: &MaterialUniform,
    frame: &FrameValues,
    s: &impl Samplers,
    shadow_texel: f32,
) -> Option<Vec4> {
    let m = material;
    let diffuse = Vec4::from(m.diffuse);
    let n = normalize(i.normal);
    let to_light = -frame.light_dir;
    let light = frame.light_color;
    // MMD's light has no diffuse term: material diffuse × light colour is the "ambient".
    let mut color =
        saturate3(diffuse.xyz() * light + Vec4::from(m.ambient).xyz()).extend(diffuse.w);
    if m.params[2] > 0.5 {
        color *= s.main(i.uv) * Vec4::from(m.texture_tint);
    }
    let sphere = s.sphere(i.sphere_uv) * Vec4::from(m.sphere_tint);
    let mode = m.params[1];
    if mode > 0.5 && mode < 1.5 {
        color = (color.xyz() * sphere.xyz()).extend(color.w);
    } else if mode > 1.5 && mode < 2.5 {
        color = (color.xyz() + sphere.xyz()).extend(color.w);
    } else if mode > 2.5 {
        color = (color.xyz() * sphere.xyz()).extend(color.w * sphere.w);
    }
    if color.w < 0.5 / 255.0 {
        return None;
    }
    let nl = n.dot(to_light);
    let half_v = normalize(normalize(frame.eye - i.world) + to_light);
    let specular = Vec4::from(m.specular);
    let power = specular.w;
    let mut spec = Vec3::ZERO;
    if power > 0.0 {
        spec = half_v.dot(n).max(0.0).powf(power) * specular.xyz() * light;
    }
    let toon_tint = Vec4::from(m.toon_tint);
    if frame.self_shadow {
        let shade =
            (color.xyz() * Vec4::from(m.toon_shade).xyz() * toon_tint.xyz()).extend(color.w);
        let lit = (color.xyz() + spec).extend(color.w);
        let mut comp = (nl * 3.0).clamp(0.0, 1.0);
        // min(0, visibility) is 0 whatever the map says: the lookup is skipped there (the
        // WGSL does it anyway; the value is the same).
        if m.params[3] > 0.5 && (comp > 0.0 || comp.is_nan()) {
            comp = comp.min(shadow_visibility(s, i.shadow, shadow_texel));
        }
        return Some(saturate4(shade.lerp(lit, comp)));
    }
    // The toon ramp is read only without self-shadow (the WGSL reads it before the branch;
    // the value is the same).
    let toon = s.toon(toon_uv(nl)) * toon_tint;
    Some(saturate4((color.xyz() * toon.xyz() + spec).extend(color.w)))
}

/// The toon ramp coordinate `fs_model` samples at: v = 0.5 − N·L / 2.
pub fn toon_uv(nl: f32) -> Vec2 {
    Vec2::new(0.5, 0.5 - nl * 0.5)
}

/// `fs_edge` in `mmd.wgsl`.
pub fn fs_edge(material: &MaterialUniform) -> Vec4 {
    let e = Vec4::from(material.edge_color);
    e.xyz().extend(e.w * material.diffuse[3].min(1.0))
}

/// `vs_edge`'s push in clip space: `clip.xy` moves by this (times `clip.w`, included) along the
/// screen-space normal `nc`, by `pixels` (edge size × vertex scale × pixels per unit) of a
/// `viewport` (width, height) frame.
pub fn edge_push(nc: Vec2, pixels: f32, viewport: Vec2, w: f32) -> Vec2 {
    let len = nc.length();
    if len > 1e-6 {
        nc / len * pixels * 2.0 / viewport * w
    } else {
        Vec2::ZERO
    }
}

/// `vs_ground`'s corner `i` (0..4, a triangle strip) of the rectangle `area` (centre x, centre
/// z, half x, half z) on y = 0.
pub fn ground_corner(i: u32, area: [f32; 4]) -> Vec3 {
    let corner = Vec2::new((i & 1) as f32, ((i >> 1) & 1) as f32) * 2.0 - 1.0;
    Vec3::new(
        area[0] + corner.x * area[2],
        0.0,
        area[1] + corner.y * area[3],
    )
}

/// `fs_ground` in `ground.wgsl`: the shadow colour where the light map says the model stands
/// between this ground point (`s`: its light-clip position) and the light; `None` = discard.
pub fn fs_ground(
    s: Vec4,
    frame: &FrameValues,
    samplers: &impl Samplers,
    texel: f32,
) -> Option<Vec4> {
    let (uv, depth) = shadow_coord(s)?;
    let lit = samplers.shadow_pcf4(uv, depth, texel);
    let covered = 1.0 - lit;
    if covered < 0.004 {
        return None;
    }
    Some(
        frame
            .ground_color
            .xyz()
            .extend(frame.ground_color.w * covered),
    )
}
