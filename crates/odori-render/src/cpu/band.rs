//! One band of the main pass: every binned triangle's 2×2 quads tested sample by sample
//! (coverage from the stepped edge functions, then depth), the quads with a sample left handed
//! to the shading.

use super::models::CpuModel;
use super::raster::{ATTRS, SUB, Tri};
use super::texture::DepthMap;
use crate::shading::FrameValues;
use glam::Mat4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Ground,
    Model,
    Edge,
}

/// What a triangle belongs to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Draw {
    pub(super) kind: Kind,
    pub(super) model: u32,
    pub(super) material: u32,
}

/// What the bands read while they are drawn.
pub(super) struct Ctx<'a> {
    pub(super) width: u32,
    pub(super) samples: usize,
    pub(super) offsets: &'static [(i64, i64)],
    pub(super) tris: &'a [Tri],
    pub(super) draws: &'a [Draw],
    pub(super) attrs: &'a [[f32; ATTRS]],
    pub(super) models: &'a [CpuModel],
    pub(super) frame: &'a FrameValues,
    pub(super) lvp: Mat4,
    pub(super) shadow: &'a DepthMap,
    pub(super) ground: &'a DepthMap,
    pub(super) background: u32,
    /// Shade in SIMD lanes (`Ctx::quad::<true>`), else one value at a time.
    pub(super) lanes: bool,
    /// Test each pixel's four samples in AVX2 lanes (`cover_lanes`): set only with four
    /// samples, `lanes`, and a CPU that has AVX2 (never read off x86-64, where it is false).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(super) avx2: bool,
}

/// What one band did: quads shaded, and quads whose samples were tested in AVX2 lanes.
#[derive(Clone, Copy, Default)]
pub(super) struct BandCounts {
    pub(super) shaded: u64,
    pub(super) avx2_tested: u64,
}

impl std::iter::Sum for BandCounts {
    fn sum<I: Iterator<Item = BandCounts>>(iter: I) -> BandCounts {
        iter.fold(BandCounts::default(), |a, b| BandCounts {
            shaded: a.shaded + b.shaded,
            avx2_tested: a.avx2_tested + b.avx2_tested,
        })
    }
}

impl Ctx<'_> {
    /// Draw every binned triangle into one band (`BAND` rows from `y0`, fewer at the bottom).
    pub(super) fn band(
        &self,
        y0: u32,
        color: &mut [u32],
        depth: &mut [f32],
        bin: &[u32],
    ) -> BandCounts {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the CPU has AVX2.
            return unsafe { self.band_avx2(y0, color, depth, bin) };
        }
        self.band_with::<false>(y0, color, depth, bin)
    }

    /// [`Ctx::band`] compiled for AVX2, its samples tested in AVX2 lanes.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn band_avx2(
        &self,
        y0: u32,
        color: &mut [u32],
        depth: &mut [f32],
        bin: &[u32],
    ) -> BandCounts {
        self.band_with::<true>(y0, color, depth, bin)
    }

    /// [`Ctx::band`]; `AVX2`: four samples a pixel, tested in AVX2 lanes.
    #[inline(always)]
    fn band_with<const AVX2: bool>(
        &self,
        y0: u32,
        color: &mut [u32],
        depth: &mut [f32],
        bin: &[u32],
    ) -> BandCounts {
        let mut counts = BandCounts::default();
        color.fill(self.background);
        depth.fill(1.0);
        let s = self.samples;
        let w = self.width as i32;
        let rows = (color.len() / (self.width as usize * s)) as i32;
        let y0 = y0 as i32;
        // Edge-function offsets of each quad pixel's samples from the quad's corner, per
        // triangle: the loops below only add (the same integers as `Tri::edges` computes;
        // the unit tests' build checks each against it).
        let mut off = [[[0i64; 3]; 4]; 4];
        for &t in bin {
            let tri = &self.tris[t as usize];
            let draw = self.draws[tri.draw as usize];
            let ys = tri.bbox[1].max(y0) & !1;
            let ye = tri.bbox[3].min(y0 + rows - 1);
            let xs = tri.bbox[0] & !1;
            let xe = tri.bbox[2];
            for (p, row) in off.iter_mut().enumerate() {
                let (dx, dy) = ((p & 1) as i64 * SUB, (p >> 1) as i64 * SUB);
                for (k, &(ox, oy)) in self.offsets.iter().enumerate() {
                    row[k] = std::array::from_fn(|i| tri.a[i] * (dx + ox) + tri.b[i] * (dy + oy));
                }
            }
            // The same offsets sample by sample for the lanes: [pixel][edge][sample].
            #[cfg(target_arch = "x86_64")]
            let lanes_off: [[[i64; 4]; 3]; 4] = std::array::from_fn(|p| {
                std::array::from_fn(|i| std::array::from_fn(|k| off[p][k][i]))
            });
            // `Tri::may_cover_quad`: the quad's centre is a corner plus (SUB, SUB); an edge
            // can reach no sample when its value there is below −(|a| + |b|)·SUB.
            let centre: [i64; 3] = std::array::from_fn(|i| (tri.a[i] + tri.b[i]) * SUB);
            let reach: [i64; 3] = std::array::from_fn(|i| (tri.a[i].abs() + tri.b[i].abs()) * SUB);
            let step: [i64; 3] = std::array::from_fn(|i| tri.a[i] * 2 * SUB);
            let mut qy = ys;
            while qy <= ye {
                // Edge values at the quad corner (qx, qy), stepped along the row.
                let mut corner = tri.edges(xs as i64 * SUB, qy as i64 * SUB);
                let mut qx = xs;
                while qx <= xe {
                    let e0 = corner;
                    corner = std::array::from_fn(|i| corner[i] + step[i]);
                    let may_cover = (0..3).all(|i| e0[i] + centre[i] + reach[i] >= 0);
                    #[cfg(test)]
                    assert_eq!(may_cover, tri.may_cover_quad(qx as i64, qy as i64));
                    if !may_cover {
                        qx += 2;
                        continue;
                    }
                    // Coverage and depth test of the quad's samples.
                    let mut mask = [0u8; 4];
                    let mut zs = [[0f32; 4]; 4];
                    for p in 0..4 {
                        let (px, py) = (qx + (p & 1) as i32, qy + (p >> 1) as i32);
                        if px >= w || py >= y0 + rows {
                            continue;
                        }
                        let base = (((py - y0) * w + px) as usize) * s;
                        #[cfg(target_arch = "x86_64")]
                        if AVX2 {
                            // SAFETY: `AVX2` is true only inside `band_avx2`; with four samples
                            // the pixel has four depths from `base`.
                            mask[p] = unsafe {
                                super::cover_lanes::samples4(
                                    tri,
                                    e0,
                                    &lanes_off[p],
                                    &depth[base..base + 4],
                                    &mut zs[p],
                                )
                            };
                            continue;
                        }
                        for k in 0..s {
                            let o = &off[p][k];
                            let e = [e0[0] + o[0], e0[1] + o[1], e0[2] + o[2]];
                            #[cfg(test)]
                            assert_eq!(
                                e,
                                tri.edges(
                                    px as i64 * SUB + self.offsets[k].0,
                                    py as i64 * SUB + self.offsets[k].1
                                )
                            );
                            if e[0] < 0 || e[1] < 0 || e[2] < 0 {
                                continue;
                            }
                            let z = tri.depth(e);
                            if z <= depth[base + k] {
                                mask[p] |= 1 << k;
                                zs[p][k] = z;
                            }
                        }
                    }
                    if AVX2 {
                        counts.avx2_tested += 1;
                    }
                    if mask != [0; 4] {
                        counts.shaded += 1;
                        if self.lanes {
                            self.quad::<true>(tri, draw, qx, qy, y0, mask, &zs, color, depth);
                        } else {
                            self.quad::<false>(tri, draw, qx, qy, y0, mask, &zs, color, depth);
                        }
                    }
                    qx += 2;
                }
                qy += 2;
            }
        }
        counts
    }
}
