//! The shading of one quad: the attributes interpolated at its pixels' centres, each
//! texture's level of detail from the quad's derivatives, the fragment shaders of
//! [`crate::shading`], and the colour blended into the covered samples.

use super::band::{Ctx, Draw, Kind};
use super::blend::{blend, blend_add, blend_lanes};
use super::models::CpuMaterial;
use super::raster::{ATTRS, SUB, Tri};
use super::texture::{DepthMap, Mip};
use crate::shading::{self, ModelIn, Samplers};
use glam::{Vec2, Vec3, Vec4};
use std::sync::Arc;

/// Attribute layout of a model vertex (`ModelOut` in `mmd.wgsl`, with both sphere sources).
const A_WORLD: usize = 0;
const A_NORMAL: usize = 3;
const A_UV: usize = 6;
/// Sphere coordinate from the view-space normal (modes 1, 2).
const A_SPHERE_NV: usize = 8;
/// Additional UV 1 (sub-texture mode 3).
const A_UV1: usize = 10;
const A_SHADOW: usize = 12;

/// The texture lookups of one quad: each texture's level of detail from the quad's
/// derivatives.
struct QuadSamplers<'a> {
    material: &'a CpuMaterial,
    lod: [f32; 3],
    map: &'a DepthMap,
}

impl Samplers for QuadSamplers<'_> {
    fn main(&self, uv: Vec2) -> Vec4 {
        (self.material.texture.as_ref()).map_or(Vec4::ONE, |t| t.sample(uv, self.lod[0], true))
    }
    fn sphere(&self, uv: Vec2) -> Vec4 {
        (self.material.sphere.as_ref()).map_or(Vec4::ONE, |t| t.sample(uv, self.lod[1], false))
    }
    fn toon(&self, uv: Vec2) -> Vec4 {
        self.material.toon.sample(uv, self.lod[2], false)
    }
    fn shadow_compare(&self, uv: Vec2, depth: f32) -> f32 {
        self.map.compare(uv, depth)
    }
    fn shadow_pcf4(&self, uv: Vec2, depth: f32, _texel: f32) -> f32 {
        self.map.pcf4(uv, depth)
    }
}

impl Ctx<'_> {
    /// Shade a quad whose pixels have `mask` samples covered and in front, and write them.
    /// `p` (0..4: top left, top right, bottom left, bottom right) indexes the quad's pixels in
    /// every per-pixel array here. `LANES`: the weights of the four pixels computed together,
    /// each pixel's attributes four at a time and each sample's channels blended together in
    /// SIMD lanes ([`quad_weights`], [`Ctx::lerp_lanes`], [`blend_lanes`]); otherwise one
    /// value at a time. Both make the same operations in the same order: the same bits.
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    pub(super) fn quad<const LANES: bool>(
        &self,
        tri: &Tri,
        draw: Draw,
        qx: i32,
        qy: i32,
        y0: i32,
        mask: [u8; 4],
        zs: &[[f32; 4]; 4],
        color: &mut [u32],
        depth: &mut [f32],
    ) {
        let s = self.samples;
        let w = self.width as i32;
        let centre = |p: usize| {
            let (px, py) = (qx + (p & 1) as i32, qy + (p >> 1) as i32);
            (px as i64 * SUB + SUB / 2, py as i64 * SUB + SUB / 2)
        };
        let m = &self.models[draw.model as usize];
        let additive =
            draw.kind == Kind::Model && m.model.materials[draw.material as usize].additive;
        let mut write = |p: usize, c: Vec4, depth_write: bool| {
            let (px, py) = (qx + (p & 1) as i32, qy + (p >> 1) as i32);
            let base = (((py - y0) * w + px) as usize) * s;
            for k in 0..s {
                if mask[p] & (1 << k) != 0 {
                    if depth_write {
                        depth[base + k] = zs[p][k];
                    }
                    color[base + k] = if additive {
                        blend_add(color[base + k], c)
                    } else if LANES {
                        blend_lanes(color[base + k], c)
                    } else {
                        blend(color[base + k], c)
                    };
                }
            }
        };
        match draw.kind {
            Kind::Edge => {
                let c = shading::fs_edge(&m.uniforms[draw.material as usize]);
                for p in 0..4 {
                    if mask[p] != 0 {
                        write(p, c, true);
                    }
                }
            }
            Kind::Ground => {
                let texel = 1.0 / self.ground.side as f32;
                let samplers = GroundSamplers { map: self.ground };
                let lanes = LANES.then(|| quad_weights(tri, qx, qy));
                for p in 0..4 {
                    if mask[p] == 0 {
                        continue;
                    }
                    let world = match lanes {
                        Some(wts) => Vec3::from_slice(&self.lerp_lanes(tri, wts[p])[A_WORLD..]),
                        None => {
                            let (x, y) = centre(p);
                            self.lerp3(tri, tri.weights(x, y), A_WORLD)
                        }
                    };
                    let sh = self.lvp * world.extend(1.0);
                    if let Some(c) = shading::fs_ground(sh, self.frame, &samplers, texel) {
                        write(p, c, false);
                    }
                }
            }
            Kind::Model => {
                let mi = draw.material as usize;
                let uniform = &m.uniforms[mi];
                let material = &m.materials[mi];
                let sub_texture = uniform.params[1] > 2.5;
                let sphere_at = if sub_texture { A_UV1 } else { A_SPHERE_NV };
                let to_light = -self.frame.light_dir;
                let mut inputs = [None::<ModelIn>; 4];
                let mut uv = [Vec2::ZERO; 4];
                let mut suv = [Vec2::ZERO; 4];
                let mut tv = [0f32; 4];
                let lanes = LANES.then(|| quad_weights(tri, qx, qy));
                for p in 0..4 {
                    // Helper pixels (p 0..2 feed the derivatives) are interpolated too.
                    if mask[p] == 0 && p == 3 {
                        continue;
                    }
                    let i = match lanes {
                        Some(wts) => {
                            let a = self.lerp_lanes(tri, wts[p]);
                            ModelIn {
                                world: Vec3::from_slice(&a[A_WORLD..]),
                                normal: Vec3::from_slice(&a[A_NORMAL..]),
                                uv: Vec2::from_slice(&a[A_UV..]),
                                sphere_uv: Vec2::from_slice(&a[sphere_at..]),
                                shadow: Vec4::from_slice(&a[A_SHADOW..]),
                            }
                        }
                        None => {
                            let (x, y) = centre(p);
                            let wts = tri.weights(x, y);
                            ModelIn {
                                world: self.lerp3(tri, wts, A_WORLD),
                                normal: self.lerp3(tri, wts, A_NORMAL),
                                uv: self.lerp2(tri, wts, A_UV),
                                sphere_uv: self.lerp2(tri, wts, sphere_at),
                                shadow: self.lerp4(tri, wts, A_SHADOW),
                            }
                        }
                    };
                    uv[p] = i.uv;
                    suv[p] = i.sphere_uv;
                    // The toon ramp is read only without self-shadow (`fs_model`).
                    if !self.frame.self_shadow {
                        let n = i.normal * (1.0 / i.normal.length());
                        tv[p] = shading::toon_uv(n.dot(to_light)).y;
                    }
                    inputs[p] = Some(i);
                }
                // Coarse derivatives: along the quad's top row and left column.
                let lod = |mip: Option<&Arc<Mip>>, v: &[Vec2; 4]| {
                    mip.map_or(0.0, |t| t.lod(v[1] - v[0], v[2] - v[0]))
                };
                let tvv = [
                    Vec2::new(0.5, tv[0]),
                    Vec2::new(0.5, tv[1]),
                    Vec2::new(0.5, tv[2]),
                    Vec2::ZERO,
                ];
                let samplers = QuadSamplers {
                    material,
                    lod: [
                        lod(material.texture.as_ref(), &uv),
                        lod(material.sphere.as_ref(), &suv),
                        if self.frame.self_shadow {
                            0.0
                        } else {
                            lod(Some(&material.toon), &tvv)
                        },
                    ],
                    map: self.shadow,
                };
                let texel = 1.0 / self.shadow.side as f32;
                for p in 0..4 {
                    if mask[p] == 0 {
                        continue;
                    }
                    let Some(i) = &inputs[p] else { continue };
                    if let Some(c) = shading::fs_model(i, uniform, self.frame, &samplers, texel) {
                        write(p, c, true);
                    }
                }
            }
        }
    }

    /// All of a vertex's attributes at weights `w`, four lanes at a time (glam's `Vec4`: SSE2,
    /// NEON or simd128 where the target has them), each lane `r0·w0 + r1·w1 + r2·w2` as
    /// [`Ctx::lerp`] computes it.
    #[inline(always)]
    fn lerp_lanes(&self, tri: &Tri, w: [f32; 3]) -> [f32; ATTRS] {
        let a = &self.attrs;
        let (r0, r1, r2) = (
            &a[tri.v[0] as usize],
            &a[tri.v[1] as usize],
            &a[tri.v[2] as usize],
        );
        let (w0, w1, w2) = (Vec4::splat(w[0]), Vec4::splat(w[1]), Vec4::splat(w[2]));
        let mut out = [0.0; ATTRS];
        for (((o, r0), r1), r2) in (out.chunks_exact_mut(4))
            .zip(r0.chunks_exact(4))
            .zip(r1.chunks_exact(4))
            .zip(r2.chunks_exact(4))
        {
            let v =
                Vec4::from_slice(r0) * w0 + Vec4::from_slice(r1) * w1 + Vec4::from_slice(r2) * w2;
            v.write_to_slice(o);
        }
        out
    }

    #[inline(always)]
    fn lerp<const N: usize>(&self, tri: &Tri, w: [f32; 3], at: usize) -> [f32; N] {
        let a = &self.attrs;
        let (r0, r1, r2) = (
            &a[tri.v[0] as usize],
            &a[tri.v[1] as usize],
            &a[tri.v[2] as usize],
        );
        std::array::from_fn(|j| r0[at + j] * w[0] + r1[at + j] * w[1] + r2[at + j] * w[2])
    }

    fn lerp2(&self, tri: &Tri, w: [f32; 3], at: usize) -> Vec2 {
        Vec2::from(self.lerp::<2>(tri, w, at))
    }

    fn lerp3(&self, tri: &Tri, w: [f32; 3], at: usize) -> Vec3 {
        Vec3::from(self.lerp::<3>(tri, w, at))
    }

    fn lerp4(&self, tri: &Tri, w: [f32; 3], at: usize) -> Vec4 {
        Vec4::from(self.lerp::<4>(tri, w, at))
    }
}

/// [`Tri::weights`] at the centres of the quad's four pixels (corner `qx`, `qy`), one pixel a
/// lane: the integer edge values per pixel, then the same products, sum and reciprocal.
#[inline(always)]
fn quad_weights(tri: &Tri, qx: i32, qy: i32) -> [[f32; 3]; 4] {
    let (x, y) = (qx as i64 * SUB + SUB / 2, qy as i64 * SUB + SUB / 2);
    let e: [[i64; 3]; 4] =
        std::array::from_fn(|p| tri.edges(x + (p & 1) as i64 * SUB, y + (p >> 1) as i64 * SUB));
    let q: [Vec4; 3] = std::array::from_fn(|i| {
        Vec4::new(
            e[0][i] as f32,
            e[1][i] as f32,
            e[2][i] as f32,
            e[3][i] as f32,
        ) * tri.inv_area
            * tri.inv_w[i]
    });
    let s = Vec4::ONE / (q[0] + q[1] + q[2]);
    let w = [q[0] * s, q[1] * s, q[2] * s];
    std::array::from_fn(|p| [w[0][p], w[1][p], w[2][p]])
}

/// The ground pass reads only the light map.
struct GroundSamplers<'a> {
    map: &'a DepthMap,
}

impl Samplers for GroundSamplers<'_> {
    fn main(&self, _: Vec2) -> Vec4 {
        Vec4::ONE
    }
    fn sphere(&self, _: Vec2) -> Vec4 {
        Vec4::ONE
    }
    fn toon(&self, _: Vec2) -> Vec4 {
        Vec4::ONE
    }
    fn shadow_compare(&self, uv: Vec2, depth: f32) -> f32 {
        self.map.compare(uv, depth)
    }
    fn shadow_pcf4(&self, uv: Vec2, depth: f32, _texel: f32) -> f32 {
        self.map.pcf4(uv, depth)
    }
}
