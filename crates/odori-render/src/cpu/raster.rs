//! Triangles to samples, the way Vulkan (and lavapipe) rasterise them: clip-space clipping
//! against the depth range and a guard band, positions snapped to 1/256 pixel, integer edge
//! functions with the top-left fill rule, depth interpolated linearly in screen space at each
//! sample, attributes perspective-correct at the pixel centre (one shading per pixel per
//! triangle, as MSAA shades). Front faces are clockwise on screen (`FrontFace::Cw`).

use glam::Vec4;

/// Subpixel steps per pixel (lavapipe snaps to 8 fractional bits).
pub const SUB: i64 = 256;
/// Rows per band: the unit of binning and of parallel work; even, so 2×2 quads never straddle.
pub const BAND: u32 = 16;
/// Attribute floats per vertex.
pub const ATTRS: usize = 16;
/// The clip-space guard band: |x|, |y| ≤ GUARD · w (keeps snapped positions well inside i32).
const GUARD: f32 = 4.0;

/// Sample positions inside a pixel in 1/256 pixel: Vulkan's standard 4× pattern, or the
/// centre.
pub fn sample_offsets(samples: usize) -> &'static [(i64, i64)] {
    match samples {
        4 => &[(96, 32), (224, 96), (32, 160), (160, 224)],
        _ => &[(128, 128)],
    }
}

/// `x.round()` (half away from zero) as an integer, without a libm call.
#[inline(always)]
fn round_i(x: f32) -> i64 {
    (x + if x >= 0.0 { 0.5 } else { -0.5 }) as i64
}

/// Which faces are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cull {
    None,
    Back,
    Front,
}

/// A set-up triangle: edge functions `E_i = a_i·X + b_i·Y + c_i` over snapped positions
/// (`E_i ≥ 0` inside, the fill rule folded into `c_i`), `E_i / area` the barycentric weight of
/// vertex `i`.
#[derive(Debug, Clone, Copy)]
pub struct Tri {
    pub a: [i64; 3],
    pub b: [i64; 3],
    pub c: [i64; 3],
    pub inv_area: f32,
    /// NDC depth of each vertex.
    pub z: [f32; 3],
    pub inv_w: [f32; 3],
    /// Attribute rows of the vertices.
    pub v: [u32; 3],
    /// Pixels that can hold a sample: x0, y0, x1, y1 inclusive, inside the target.
    pub bbox: [i32; 4],
    pub draw: u32,
    /// Depth bias (light-space passes).
    pub bias: f32,
}

impl Tri {
    /// Edge functions at a subpixel position.
    #[inline(always)]
    pub fn edges(&self, x: i64, y: i64) -> [i64; 3] {
        [
            self.a[0] * x + self.b[0] * y + self.c[0],
            self.a[1] * x + self.b[1] * y + self.c[1],
            self.a[2] * x + self.b[2] * y + self.c[2],
        ]
    }

    /// False when no point of the 2×2 quad at pixel (qx, qy) can be inside: some edge
    /// function is negative over the whole quad (its largest value there, at the centre plus
    /// the half extents times the slopes, is below 0).
    #[inline(always)]
    pub fn may_cover_quad(&self, qx: i64, qy: i64) -> bool {
        let (cx, cy) = (qx * SUB + SUB, qy * SUB + SUB);
        let e = self.edges(cx, cy);
        (0..3).all(|i| e[i] + (self.a[i].abs() + self.b[i].abs()) * SUB >= 0)
    }

    /// Depth where the edge functions are `e` (linear in screen space).
    #[inline(always)]
    pub fn depth(&self, e: [i64; 3]) -> f32 {
        let l1 = e[1] as f32 * self.inv_area;
        let l2 = e[2] as f32 * self.inv_area;
        self.z[0] + l1 * (self.z[1] - self.z[0]) + l2 * (self.z[2] - self.z[0])
    }

    /// Perspective-correct weights of the three vertices at a subpixel position.
    #[inline(always)]
    pub fn weights(&self, x: i64, y: i64) -> [f32; 3] {
        let e = self.edges(x, y);
        let q = [
            e[0] as f32 * self.inv_area * self.inv_w[0],
            e[1] as f32 * self.inv_area * self.inv_w[1],
            e[2] as f32 * self.inv_area * self.inv_w[2],
        ];
        let s = 1.0 / (q[0] + q[1] + q[2]);
        [q[0] * s, q[1] * s, q[2] * s]
    }
}

/// Set up a triangle already inside the clip volume for a `width`×`height` target. `None`
/// when culled, empty or off the target.
pub fn setup(
    p: [Vec4; 3],
    v: [u32; 3],
    (width, height): (u32, u32),
    cull: Cull,
    draw: u32,
    depth_bias: bool,
) -> Option<Tri> {
    let (w, h) = (width as f32, height as f32);
    let mut x = [0i64; 3];
    let mut y = [0i64; 3];
    let mut z = [0f32; 3];
    let mut inv_w = [0f32; 3];
    for k in 0..3 {
        let iw = 1.0 / p[k].w;
        let sx = (p[k].x * iw * 0.5 + 0.5) * w;
        let sy = (0.5 - p[k].y * iw * 0.5) * h;
        x[k] = round_i(sx * SUB as f32);
        y[k] = round_i(sy * SUB as f32);
        z[k] = p[k].z * iw;
        inv_w[k] = iw;
    }
    let mut v = v;
    // E_0 at vertex 0: positive when the vertices run clockwise on screen (y down).
    let mut area = (x[2] - x[1]) * (y[0] - y[1]) - (y[2] - y[1]) * (x[0] - x[1]);
    if area == 0 {
        return None;
    }
    match cull {
        Cull::Back if area < 0 => return None,
        Cull::Front if area > 0 => return None,
        _ => {}
    }
    if area < 0 {
        x.swap(1, 2);
        y.swap(1, 2);
        z.swap(1, 2);
        inv_w.swap(1, 2);
        v.swap(1, 2);
        area = -area;
    }
    let mut a = [0i64; 3];
    let mut b = [0i64; 3];
    let mut c = [0i64; 3];
    for i in 0..3 {
        let (s, e) = ((i + 1) % 3, (i + 2) % 3);
        let (dx, dy) = (x[e] - x[s], y[e] - y[s]);
        a[i] = -dy;
        b[i] = dx;
        c[i] = -(a[i] * x[s] + b[i] * y[s]);
        // Top-left rule: a sample exactly on a top or left edge is inside, on others outside.
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        if !top_left {
            c[i] -= 1;
        }
    }
    let min_x = x.iter().min().unwrap().div_euclid(SUB) as i32;
    let max_x = x.iter().max().unwrap().div_euclid(SUB) as i32;
    let min_y = y.iter().min().unwrap().div_euclid(SUB) as i32;
    let max_y = y.iter().max().unwrap().div_euclid(SUB) as i32;
    let bbox = [
        min_x.max(0),
        min_y.max(0),
        max_x.min(width as i32 - 1),
        max_y.min(height as i32 - 1),
    ];
    if bbox[0] > bbox[2] || bbox[1] > bbox[3] {
        return None;
    }
    let inv_area = 1.0 / area as f32;
    let bias = if depth_bias {
        // Vulkan's depth bias for a float depth buffer: constant 2 × r (r = 2^(e − 23), e the
        // largest depth's exponent) + slope 2 × the larger depth slope per pixel.
        let dz = [z[1] - z[0], z[2] - z[0]];
        let per = SUB as f32 * inv_area;
        let dzdx = (a[1] as f32 * dz[0] + a[2] as f32 * dz[1]) * per;
        let dzdy = (b[1] as f32 * dz[0] + b[2] as f32 * dz[1]) * per;
        let max_z = z.iter().fold(0f32, |m, &v| m.max(v.abs()));
        let exp = ((max_z.to_bits() >> 23) & 0xff) as i32 - 127;
        let r = 2f32.powi(exp - 23);
        2.0 * r + 2.0 * dzdx.abs().max(dzdy.abs())
    } else {
        0.0
    };
    Some(Tri {
        a,
        b,
        c,
        inv_area,
        z,
        inv_w,
        v,
        bbox,
        draw,
        bias,
    })
}

/// Signed distances of a clip-space point to the clip volume's planes (inside: all ≥ 0):
/// depth 0..w and the guard band.
#[inline(always)]
fn planes(p: Vec4) -> [f32; 6] {
    let g = GUARD * p.w;
    [p.z, p.w - p.z, g - p.x, g + p.x, g - p.y, g + p.y]
}

/// True when the triangle needs no clipping.
#[inline(always)]
pub fn inside(p: &[Vec4; 3]) -> bool {
    p.iter().all(|&q| planes(q).iter().all(|&d| d >= 0.0))
}

/// True when the triangle lies wholly outside one plane (nothing to draw).
#[inline(always)]
pub fn outside(p: &[Vec4; 3]) -> bool {
    let d = [planes(p[0]), planes(p[1]), planes(p[2])];
    (0..6).any(|k| d[0][k] < 0.0 && d[1][k] < 0.0 && d[2][k] < 0.0)
}

/// A vertex during clipping: position and attributes.
#[derive(Clone, Copy)]
pub struct ClipVert {
    pub pos: Vec4,
    pub attr: [f32; ATTRS],
}

const MAX_POLY: usize = 12;

/// Clip a triangle against the clip volume (Sutherland–Hodgman), attributes interpolated
/// linearly in clip space. Returns the polygon's vertex count in `out` (0: nothing left).
pub fn clip(tri: [ClipVert; 3], out: &mut [ClipVert; MAX_POLY]) -> usize {
    let mut a = [tri[0]; MAX_POLY];
    a[..3].copy_from_slice(&tri);
    let mut n = 3;
    let mut b = [tri[0]; MAX_POLY];
    for k in 0..6 {
        let mut m = 0;
        for i in 0..n {
            let (p, q) = (a[i], a[(i + 1) % n]);
            let (dp, dq) = (planes(p.pos)[k], planes(q.pos)[k]);
            if dp >= 0.0 && m < MAX_POLY {
                b[m] = p;
                m += 1;
            }
            if (dp >= 0.0) != (dq >= 0.0) && m < MAX_POLY {
                let t = dp / (dp - dq);
                let mut attr = [0f32; ATTRS];
                for (j, v) in attr.iter_mut().enumerate() {
                    *v = p.attr[j] + (q.attr[j] - p.attr[j]) * t;
                }
                b[m] = ClipVert {
                    pos: p.pos + (q.pos - p.pos) * t,
                    attr,
                };
                m += 1;
            }
        }
        std::mem::swap(&mut a, &mut b);
        n = m;
        if n < 3 {
            return 0;
        }
    }
    out[..n].copy_from_slice(&a[..n]);
    n
}

/// Room for a clipped polygon.
pub fn poly_buffer() -> [ClipVert; MAX_POLY] {
    [ClipVert {
        pos: Vec4::ZERO,
        attr: [0.0; ATTRS],
    }; MAX_POLY]
}

/// Put triangle `index` into the bins of the bands its box touches.
pub fn bin(bins: &mut [Vec<u32>], tri: &Tri, index: u32) {
    let first = tri.bbox[1] as u32 / BAND;
    let last = tri.bbox[3] as u32 / BAND;
    for b in &mut bins[first as usize..=last as usize] {
        b.push(index);
    }
}

/// Depth-only rasterisation of the binned triangles into one band of a light-space map
/// (`rows`: `BAND` rows or fewer starting at row `y0`, `side` wide): one sample at each pixel
/// centre, `LessEqual`, depth + bias written.
pub fn depth_band(rows: &mut [f32], y0: u32, side: u32, tris: &[Tri], bin: &[u32]) {
    rows.fill(1.0);
    let band_rows = (rows.len() / side as usize) as i32;
    let y0 = y0 as i32;
    for &t in bin {
        let tri = &tris[t as usize];
        let ys = tri.bbox[1].max(y0);
        let ye = tri.bbox[3].min(y0 + band_rows - 1);
        for py in ys..=ye {
            let row = &mut rows[((py - y0) as u32 * side) as usize..][..side as usize];
            let sy = py as i64 * SUB + SUB / 2;
            let mut inside_run = false;
            // The edge functions at each pixel centre of the row, stepped (the same integers).
            let mut next = tri.edges(tri.bbox[0] as i64 * SUB + SUB / 2, sy);
            let step = tri.a.map(|a| a * SUB);
            for px in tri.bbox[0]..=tri.bbox[2] {
                let e = next;
                next = [next[0] + step[0], next[1] + step[1], next[2] + step[2]];
                #[cfg(test)]
                assert_eq!(e, tri.edges(px as i64 * SUB + SUB / 2, sy));
                if e[0] < 0 || e[1] < 0 || e[2] < 0 {
                    // Past the span on this row: the rest of the row is outside too.
                    if inside_run {
                        break;
                    }
                    continue;
                }
                inside_run = true;
                let z = (tri.depth(e) + tri.bias).clamp(0.0, 1.0);
                let d = &mut row[px as usize];
                if z <= *d {
                    *d = z;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fill rule: a fan of triangles around a shared centre, with edges at all angles and
    /// vertices off the pixel grid, covers every sample inside the polygon exactly once (no
    /// gaps, no double blending along shared edges), for both windings.
    #[test]
    fn shared_edges_cover_each_sample_once() {
        let size = (64u32, 64u32);
        let centre = Vec4::new(0.013, -0.021, 0.5, 1.0);
        let n = 11;
        let ring: Vec<Vec4> = (0..n)
            .map(|k| {
                let a = k as f32 / n as f32 * std::f32::consts::TAU + 0.1;
                Vec4::new(0.8 * a.cos(), 0.77 * a.sin(), 0.5, 1.0)
            })
            .collect();
        for flip in [false, true] {
            let mut hits = vec![0u8; (64 * 64 * 4) as usize];
            for k in 0..n {
                let (a, b) = (ring[k], ring[(k + 1) % n]);
                let p = if flip { [centre, b, a] } else { [centre, a, b] };
                let t = setup(p, [0, 1, 2], size, Cull::None, 0, false).unwrap();
                for py in t.bbox[1]..=t.bbox[3] {
                    for px in t.bbox[0]..=t.bbox[2] {
                        for (s, &(ox, oy)) in sample_offsets(4).iter().enumerate() {
                            let e = t.edges(px as i64 * SUB + ox, py as i64 * SUB + oy);
                            if e.iter().all(|&v| v >= 0) {
                                hits[((py * 64 + px) * 4) as usize + s] += 1;
                            }
                        }
                    }
                }
            }
            assert!(hits.iter().all(|&h| h <= 1), "a sample drawn twice");
            // Samples well inside the polygon (radius 0.7 of 0.77) are all covered.
            for py in 0..64 {
                for px in 0..64 {
                    let x = (px as f32 + 0.5) / 32.0 - 1.0;
                    let y = 1.0 - (py as f32 + 0.5) / 32.0;
                    if x * x + y * y < 0.7 * 0.7 {
                        let at = ((py * 64 + px) * 4) as usize;
                        assert_eq!(&hits[at..at + 4], &[1; 4], "gap at {px}, {py}");
                    }
                }
            }
        }
    }

    /// Clipping keeps what is inside the depth range: a triangle crossing the near plane
    /// becomes a polygon whose vertices all satisfy 0 ≤ z ≤ w, with attributes interpolated.
    #[test]
    fn clipping_at_the_near_plane() {
        let v = |z: f32, a: f32| {
            let mut attr = [0.0; ATTRS];
            attr[0] = a;
            ClipVert {
                pos: Vec4::new(0.0, 0.5, z, 1.0),
                attr,
            }
        };
        let mut tri = [v(-1.0, 0.0), v(1.0, 2.0), v(0.5, 1.0)];
        tri[1].pos.x = 0.5;
        tri[2].pos.y = -0.5;
        let mut out = poly_buffer();
        let n = clip(tri, &mut out);
        assert_eq!(n, 4);
        for c in &out[..n] {
            assert!(c.pos.z >= 0.0 && c.pos.z <= c.pos.w, "{:?}", c.pos);
        }
        // The crossing on the edge from z = −1 to z = 1 is halfway: attribute 1.0.
        assert!(
            out[..n]
                .iter()
                .any(|c| c.pos.z == 0.0 && (c.attr[0] - 1.0).abs() < 1e-6)
        );
    }
}
