//! Texture lookups as the wgpu samplers are set up (`materials.rs`): linear magnification and
//! minification, linear between mip levels, repeat (main texture) or clamp to edge (sphere
//! and toon), over the same mip chain the GPU gets ([`crate::materials::mip_chain`]); the level
//! comes from the 2×2 quad's coarse derivatives, one level of detail per quad as lavapipe
//! computes it. And the comparison lookup of the shadow maps.

use glam::{Vec2, Vec4};
use image::RgbaImage;

/// One texture and its mip levels, RGBA8.
pub struct Mip {
    levels: Vec<Level>,
}

struct Level {
    w: u32,
    h: u32,
    texels: Vec<[u8; 4]>,
}

impl Mip {
    pub fn new(img: &RgbaImage) -> Mip {
        let levels = crate::materials::mip_chain(img)
            .into_iter()
            .map(|l| Level {
                w: l.width().max(1),
                h: l.height().max(1),
                texels: if l.width() == 0 || l.height() == 0 {
                    vec![[255; 4]]
                } else {
                    l.pixels().map(|p| p.0).collect()
                },
            })
            .collect();
        Mip { levels }
    }

    /// Level 0's size in texels.
    pub fn size(&self) -> Vec2 {
        Vec2::new(self.levels[0].w as f32, self.levels[0].h as f32)
    }

    /// The level of detail for coordinate derivatives `ddx`, `ddy` across a pixel:
    /// log2 of the longer footprint axis in level-0 texels.
    pub fn lod(&self, ddx: Vec2, ddy: Vec2) -> f32 {
        let size = self.size();
        let rho = (ddx * size).length_squared().max((ddy * size).length_squared());
        0.5 * rho.log2()
    }

    /// Trilinear lookup at `uv` with level of detail `lod`; `wrap`: repeat, else clamp.
    pub fn sample(&self, uv: Vec2, lod: f32, wrap: bool) -> Vec4 {
        let top = (self.levels.len() - 1) as f32;
        // NaN (no derivative) counts as level 0.
        let lod = if lod > 0.0 { lod.min(top) } else { 0.0 };
        let l0 = lod.floor();
        let t = lod - l0;
        let a = self.bilinear(l0 as usize, uv, wrap);
        if t > 0.0 && (l0 as usize) < self.levels.len() - 1 {
            let b = self.bilinear(l0 as usize + 1, uv, wrap);
            a + (b - a) * t
        } else {
            a
        }
    }

    fn bilinear(&self, level: usize, uv: Vec2, wrap: bool) -> Vec4 {
        let l = &self.levels[level];
        let x = uv.x * l.w as f32 - 0.5;
        let y = uv.y * l.h as f32 - 0.5;
        let (fx, fy) = (x.floor(), y.floor());
        let (tx, ty) = (x - fx, y - fy);
        let (x0, y0) = (fx as i64, fy as i64);
        let addr = |i: i64, n: u32| -> usize {
            let n = n as i64;
            if wrap {
                i.rem_euclid(n) as usize
            } else {
                i.clamp(0, n - 1) as usize
            }
        };
        let (xa, xb) = (addr(x0, l.w), addr(x0 + 1, l.w));
        let (ya, yb) = (addr(y0, l.h), addr(y0 + 1, l.h));
        let w = l.w as usize;
        let px = |x: usize, y: usize| {
            let t = l.texels[y * w + x];
            Vec4::new(t[0] as f32, t[1] as f32, t[2] as f32, t[3] as f32)
        };
        let top = px(xa, ya) + (px(xb, ya) - px(xa, ya)) * tx;
        let bottom = px(xa, yb) + (px(xb, yb) - px(xa, yb)) * tx;
        (top + (bottom - top) * ty) * (1.0 / 255.0)
    }
}

/// A light-space depth map (Depth32Float), rows top to bottom.
pub struct DepthMap {
    pub side: u32,
    pub depth: Vec<f32>,
}

impl DepthMap {
    pub fn new(side: u32) -> DepthMap {
        DepthMap {
            side,
            depth: vec![1.0; (side * side) as usize],
        }
    }

    /// `textureSampleCompareLevel` with a linear `LessEqual` comparison sampler, clamped to the
    /// edge: the four texels around `uv` compared with `reference` (1 where
    /// `reference <= stored`), bilinearly weighted.
    pub fn compare(&self, uv: Vec2, reference: f32) -> f32 {
        let n = self.side as i64;
        let x = uv.x * self.side as f32 - 0.5;
        let y = uv.y * self.side as f32 - 0.5;
        let (fx, fy) = (x.floor(), y.floor());
        let (tx, ty) = (x - fx, y - fy);
        let (x0, y0) = (fx as i64, fy as i64);
        let c = |i: i64| i.clamp(0, n - 1) as usize;
        let side = self.side as usize;
        let t = |x: i64, y: i64| {
            if reference <= self.depth[c(y) * side + c(x)] {
                1.0
            } else {
                0.0
            }
        };
        let top = t(x0, y0) + (t(x0 + 1, y0) - t(x0, y0)) * tx;
        let bottom = t(x0, y0 + 1) + (t(x0 + 1, y0 + 1) - t(x0, y0 + 1)) * tx;
        top + (bottom - top) * ty
    }
}
