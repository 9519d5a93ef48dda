//! Texture lookups as the wgpu samplers are set up (`materials.rs`): linear magnification and
//! minification, linear between mip levels, repeat (main texture) or clamp to edge (sphere
//! and toon), over the same mip chain the GPU gets ([`crate::materials::mip_chain`]); the level
//! comes from the 2×2 quad's coarse derivatives, one level of detail per quad as lavapipe
//! computes it. And the comparison lookup of the shadow maps.

use glam::{Vec2, Vec4};
use image::RgbaImage;

/// `x.floor()` as an integer, without a libm call (no SSE4.1 `roundps` on plain x86-64).
#[inline(always)]
pub fn floor_i(x: f32) -> i64 {
    let i = x as i64;
    if (i as f32) > x { i - 1 } else { i }
}

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
        let rho = (ddx * size)
            .length_squared()
            .max((ddy * size).length_squared());
        0.5 * rho.log2()
    }

    /// Trilinear lookup at `uv` with level of detail `lod`; `wrap`: repeat, else clamp.
    pub fn sample(&self, uv: Vec2, lod: f32, wrap: bool) -> Vec4 {
        let top = (self.levels.len() - 1) as f32;
        // NaN (no derivative) counts as level 0.
        let lod = if lod > 0.0 { lod.min(top) } else { 0.0 };
        let l0 = floor_i(lod) as f32;
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
        let (x0, y0) = (floor_i(x), floor_i(y));
        let (tx, ty) = (x - x0 as f32, y - y0 as f32);
        let addr = |i: i64, n: u32| -> usize {
            let n = n as i64;
            if wrap {
                // Repeat: one step outside is the common case (a neighbour across the seam);
                // the division only for coordinates further out.
                if (0..n).contains(&i) {
                    i as usize
                } else if (n..2 * n).contains(&i) {
                    (i - n) as usize
                } else if (-n..0).contains(&i) {
                    (i + n) as usize
                } else {
                    i.rem_euclid(n) as usize
                }
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

/// Texels per side of a [`DepthMap`] summary block.
pub const BLOCK: u32 = 8;

/// A light-space depth map (Depth32Float), rows top to bottom, with a summary: the nearest
/// depth of each `BLOCK`×`BLOCK` block. Most lookups (the ground outside the model's shadow,
/// lit skin) are farther from the light than nothing in their footprint; the summary answers
/// those "fully lit" without comparing texels, with the same result as comparing them.
pub struct DepthMap {
    pub side: u32,
    pub depth: Vec<f32>,
    /// Blocks per side (`side / BLOCK` rounded up).
    bside: u32,
    /// Nearest depth of each block, rows top to bottom; [`DepthMap::summarise`] refreshes it.
    blocks: Vec<f32>,
}

impl DepthMap {
    pub fn new(side: u32) -> DepthMap {
        let bside = side.div_ceil(BLOCK);
        DepthMap {
            side,
            depth: vec![1.0; (side * side) as usize],
            bside,
            blocks: vec![1.0; (bside * bside) as usize],
        }
    }

    /// Recompute the block summary after the depth was drawn (rows of blocks in parallel).
    pub fn summarise(&mut self) {
        use rayon::prelude::*;
        let (side, bside) = (self.side as usize, self.bside as usize);
        if side == 0 {
            return;
        }
        let depth = &self.depth;
        let rows = BLOCK as usize * side;
        (self.blocks.par_chunks_mut(bside))
            .zip(depth.par_chunks(rows))
            .for_each(|(out, texels)| {
                out.fill(f32::INFINITY);
                for row in texels.chunks_exact(side) {
                    for (o, block) in out.iter_mut().zip(row.chunks(BLOCK as usize)) {
                        // A NaN texel never passes a comparison: its block never answers.
                        *o = (block.iter()).fold(*o, |m, &d| {
                            if d.is_nan() {
                                f32::NEG_INFINITY
                            } else {
                                m.min(d)
                            }
                        });
                    }
                }
            });
    }

    /// True when every texel of columns `x0..=x1`, rows `y0..=y1` (clamped to the map) holds a
    /// depth ≥ `reference`: each comparison there passes. From the block summary (a NaN
    /// reference or texel never passes).
    #[inline(always)]
    fn all_pass(&self, x0: i64, y0: i64, x1: i64, y1: i64, reference: f32) -> bool {
        let n = self.side as i64 - 1;
        let b = BLOCK as i64;
        let (bx0, bx1) = (x0.clamp(0, n) / b, x1.clamp(0, n) / b);
        let (by0, by1) = (y0.clamp(0, n) / b, y1.clamp(0, n) / b);
        let bside = self.bside as usize;
        for by in by0..=by1 {
            let row = &self.blocks[by as usize * bside..][..bside];
            for &m in &row[bx0 as usize..=bx1 as usize] {
                let pass = reference <= m && m > f32::NEG_INFINITY;
                if !pass {
                    return false;
                }
            }
        }
        true
    }

    /// `textureSampleCompareLevel` with a linear `LessEqual` comparison sampler, clamped to the
    /// edge: the four texels around `uv` compared with `reference` (1 where
    /// `reference <= stored`), bilinearly weighted.
    pub fn compare(&self, uv: Vec2, reference: f32) -> f32 {
        let x = uv.x * self.side as f32 - 0.5;
        let y = uv.y * self.side as f32 - 0.5;
        let (x0, y0) = (floor_i(x), floor_i(y));
        let (tx, ty) = (x - x0 as f32, y - y0 as f32);
        let t = |dx: i64, dy: i64| self.test(x0 + dx, y0 + dy, reference);
        let top = t(0, 0) + (t(1, 0) - t(0, 0)) * tx;
        let bottom = t(0, 1) + (t(1, 1) - t(0, 1)) * tx;
        top + (bottom - top) * ty
    }

    /// The comparison of texel (x, y), clamped to the edge.
    #[inline(always)]
    fn test(&self, x: i64, y: i64, reference: f32) -> f32 {
        let n = self.side as i64 - 1;
        let i = y.clamp(0, n) as usize * self.side as usize + x.clamp(0, n) as usize;
        if reference <= self.depth[i] { 1.0 } else { 0.0 }
    }

    /// The four diagonal taps a texel apart of `shading::pcf4`, averaged, in one pass: their
    /// footprints are the 4×4 texels around `uv` with the same bilinear weights, so each texel
    /// is compared once.
    pub fn pcf4(&self, uv: Vec2, reference: f32) -> f32 {
        self.pcf4_traced(uv, reference).0
    }

    /// [`DepthMap::pcf4`], and whether the block summary answered it (every texel of the
    /// footprint passes: each tap is exactly 1, their mean exactly 1).
    pub fn pcf4_traced(&self, uv: Vec2, reference: f32) -> (f32, bool) {
        let x = uv.x * self.side as f32 - 0.5;
        let y = uv.y * self.side as f32 - 0.5;
        let (x0, y0) = (floor_i(x), floor_i(y));
        // (A NaN position takes the texel path, which gives NaN as the GPU formula does.)
        if x.is_finite()
            && y.is_finite()
            && self.all_pass(x0 - 1, y0 - 1, x0 + 2, y0 + 2, reference)
        {
            return (1.0, true);
        }
        (self.pcf4_texels(x, y, x0, y0, reference), false)
    }

    /// The 16 comparisons of [`DepthMap::pcf4`] at map position (`x`, `y`), `x0`, `y0` their
    /// floors.
    fn pcf4_texels(&self, x: f32, y: f32, x0: i64, y0: i64, reference: f32) -> f32 {
        let (tx, ty) = (x - x0 as f32, y - y0 as f32);
        let n = self.side as i64;
        let mut c = [[0f32; 4]; 4];
        if x0 >= 1 && y0 >= 1 && x0 + 2 < n && y0 + 2 < n {
            let side = self.side as usize;
            for (r, row) in c.iter_mut().enumerate() {
                let at = (y0 as usize + r - 1) * side + x0 as usize - 1;
                let texels = &self.depth[at..at + 4];
                for (v, &d) in row.iter_mut().zip(texels) {
                    *v = if reference <= d { 1.0 } else { 0.0 };
                }
            }
        } else {
            for (r, row) in c.iter_mut().enumerate() {
                for (k, v) in row.iter_mut().enumerate() {
                    *v = self.test(x0 + k as i64 - 1, y0 + r as i64 - 1, reference);
                }
            }
        }
        // Tap (dx, dy) reads columns dx+1.. dx+2 and rows dy+1..dy+2 of the block (dx, dy ∈
        // {−1, 1} → block offsets 0 and 2).
        let tap = |bx: usize, by: usize| {
            let top = c[by][bx] + (c[by][bx + 1] - c[by][bx]) * tx;
            let bottom = c[by + 1][bx] + (c[by + 1][bx + 1] - c[by + 1][bx]) * tx;
            top + (bottom - top) * ty
        };
        (tap(0, 0) + tap(2, 0) + tap(0, 2) + tap(2, 2)) * 0.25
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block summary's answer equals the 16 comparisons bit for bit, and it does answer:
    /// a 100-texel map (blocks cut at its edge) with a random "model" in its middle and the
    /// rest clear, probed at random positions and depths both in front and behind.
    #[test]
    fn pcf4_summary_equals_the_texel_comparisons() {
        let mut x = 0x9e37_79b9u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as f32 / u32::MAX as f32
        };
        let side = 100u32;
        let mut map = DepthMap::new(side);
        for y in 30..70 {
            for x in 25..60 {
                map.depth[y * side as usize + x] = 0.3 + 0.4 * next();
            }
        }
        map.summarise();
        let (mut fast, mut slow) = (0, 0);
        for _ in 0..20_000 {
            let uv = Vec2::new(next() * 1.1 - 0.05, next() * 1.1 - 0.05);
            let reference = next();
            let (got, summary) = map.pcf4_traced(uv, reference);
            let x = uv.x * side as f32 - 0.5;
            let y = uv.y * side as f32 - 0.5;
            let want = map.pcf4_texels(x, y, floor_i(x), floor_i(y), reference);
            assert_eq!(got.to_bits(), want.to_bits(), "{uv} {reference}");
            if summary { fast += 1 } else { slow += 1 }
        }
        assert!(fast > 1000 && slow > 1000, "fast {fast}, slow {slow}");
    }
}
