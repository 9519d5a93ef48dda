//! egui's panels painted on the CPU, into the window's software surface, for the window
//! drawn without any graphics driver. It does what the wgpu painter (`painter.rs`,
//! `shaders/panels.wgsl`) does, in the same colour space: each tessellated triangle
//! textured (bilinear or nearest, as the texture asks) times its interpolated vertex
//! colour, blended premultiplied (`src + dst × (1 − src.a)`) in display values, clipped by
//! its rectangle. Triangles follow the top-left fill rule, so the edges egui's meshes share
//! are covered once (a shared edge painted twice would darken feathered outlines).
//!
//! Why not a crate: the one software egui backend on crates.io is built for an older egui
//! and is a young one-person project; this is the part of it the panels need.

use std::collections::HashMap;

/// One texture egui manages, as premultiplied RGBA texels.
struct SoftTexture {
    width: usize,
    height: usize,
    texels: Vec<[u8; 4]>,
    /// Bilinear when magnified (egui's default for its font atlas and images).
    linear: bool,
}

impl SoftTexture {
    /// The texel colour at `uv` (0..1 across the texture), premultiplied, 0..255.
    fn sample(&self, u: f32, v: f32) -> [f32; 4] {
        let (w, h) = (self.width, self.height);
        let fetch = |x: usize, y: usize| self.texels[y * w + x].map(f32::from);
        if !self.linear {
            let x = ((u * w as f32) as isize).clamp(0, w as isize - 1) as usize;
            let y = ((v * h as f32) as isize).clamp(0, h as isize - 1) as usize;
            return fetch(x, y);
        }
        // Texel centres at half-integers, clamped to the edge as the wgpu sampler is.
        let x = (u * w as f32 - 0.5).clamp(0.0, (w - 1) as f32);
        let y = (v * h as f32 - 0.5).clamp(0.0, (h - 1) as f32);
        let (x0, y0) = (x as usize, y as usize);
        let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
        let (fx, fy) = (x - x0 as f32, y - y0 as f32);
        let (a, b, c, d) = (fetch(x0, y0), fetch(x1, y0), fetch(x0, y1), fetch(x1, y1));
        std::array::from_fn(|i| {
            let top = a[i] + (b[i] - a[i]) * fx;
            let bottom = c[i] + (d[i] - c[i]) * fx;
            top + (bottom - top) * fy
        })
    }
}

/// egui's textures and the painting of its meshes into a `0x00RRGGBB` frame.
#[derive(Default)]
pub struct SoftPainter {
    textures: HashMap<egui::TextureId, SoftTexture>,
}

/// A triangle's corner in window pixels with what is interpolated across it.
#[derive(Clone, Copy)]
struct Corner {
    x: f32,
    y: f32,
    u: f32,
    v: f32,
    color: [f32; 4],
}

impl SoftPainter {
    /// Take in the textures egui made or patched this frame.
    pub fn update_textures(&mut self, delta: &egui::TexturesDelta) {
        let patches = (delta.set.iter()).flat_map(|(id, list)| list.iter().map(move |d| (id, d)));
        for (id, image) in patches {
            let egui::ImageData::Color(color) = &image.image;
            let [w, h] = color.size;
            match image.pos {
                // A patch of a texture egui made before.
                Some([x0, y0]) => {
                    let Some(t) = self.textures.get_mut(id) else {
                        continue;
                    };
                    for y in 0..h.min(t.height.saturating_sub(y0)) {
                        for x in 0..w.min(t.width.saturating_sub(x0)) {
                            t.texels[(y0 + y) * t.width + x0 + x] =
                                color.pixels[y * w + x].to_array();
                        }
                    }
                }
                None => {
                    let texture = SoftTexture {
                        width: w.max(1),
                        height: h.max(1),
                        texels: if w * h == 0 {
                            vec![[0; 4]]
                        } else {
                            color.pixels.iter().map(|c| c.to_array()).collect()
                        },
                        linear: image.options.magnification == egui::TextureFilter::Linear,
                    };
                    self.textures.insert(*id, texture);
                }
            }
        }
    }

    /// Forget the textures egui freed.
    pub fn free_textures(&mut self, delta: &egui::TexturesDelta) {
        for id in &delta.free {
            self.textures.remove(id);
        }
    }

    /// Paint `paint` over `frame` (`width` × `height` pixels, `0x00RRGGBB`, rows top to
    /// bottom). Paint callbacks are not used by the panels and are skipped.
    pub fn paint(
        &self,
        frame: &mut [u32],
        (width, height): (u32, u32),
        paint: &[egui::ClippedPrimitive],
        pixels_per_point: f32,
    ) {
        for clipped in paint {
            let egui::epaint::Primitive::Mesh(mesh) = &clipped.primitive else {
                continue;
            };
            let Some(texture) = self.textures.get(&mesh.texture_id) else {
                continue;
            };
            let r = clipped.clip_rect;
            let clip = [
                (r.min.x * pixels_per_point)
                    .round()
                    .clamp(0.0, width as f32) as i32,
                (r.min.y * pixels_per_point)
                    .round()
                    .clamp(0.0, height as f32) as i32,
                (r.max.x * pixels_per_point)
                    .round()
                    .clamp(0.0, width as f32) as i32,
                (r.max.y * pixels_per_point)
                    .round()
                    .clamp(0.0, height as f32) as i32,
            ];
            if clip[0] >= clip[2] || clip[1] >= clip[3] {
                continue;
            }
            let corner = |i: u32| {
                let v = &mesh.vertices[i as usize];
                Corner {
                    x: v.pos.x * pixels_per_point,
                    y: v.pos.y * pixels_per_point,
                    u: v.uv.x,
                    v: v.uv.y,
                    color: v.color.to_array().map(f32::from),
                }
            };
            for tri in mesh.indices.chunks_exact(3) {
                let [a, b, c] = [corner(tri[0]), corner(tri[1]), corner(tri[2])];
                fill_triangle(frame, width as usize, clip, texture, a, b, c);
            }
        }
    }
}

/// Twice the signed area of (`a`, `b`, `p`) in window pixels (y down): positive when the
/// three turn clockwise on screen.
fn edge(a: (f32, f32), b: (f32, f32), p: (f32, f32)) -> f32 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

/// Whether the edge `a`→`b` (of a triangle with positive [`edge`] area) is a top or left
/// edge, which owns the pixel centres exactly on it.
fn top_left(a: (f32, f32), b: (f32, f32)) -> bool {
    (a.1 == b.1 && b.0 > a.0) || b.1 < a.1
}

/// `src + dst × (1 − src.a)` for a premultiplied `src` (0..255) over a `0x00RRGGBB` pixel.
#[inline(always)]
fn blend(dst: u32, src: [f32; 4]) -> u32 {
    let k = 1.0 - src[3] * (1.0 / 255.0);
    let ch = |s: f32, shift: u32| {
        let d = ((dst >> shift) & 0xff) as f32;
        ((s + d * k + 0.5).min(255.0) as u32) << shift
    };
    ch(src[0], 16) | ch(src[1], 8) | ch(src[2], 0)
}

fn fill_triangle(
    frame: &mut [u32],
    width: usize,
    clip: [i32; 4],
    texture: &SoftTexture,
    a: Corner,
    mut b: Corner,
    mut c: Corner,
) {
    let area = edge((a.x, a.y), (b.x, b.y), (c.x, c.y));
    if area == 0.0 || !area.is_finite() {
        return;
    }
    if area < 0.0 {
        std::mem::swap(&mut b, &mut c);
    }
    let area = area.abs();
    let (pa, pb, pc) = ((a.x, a.y), (b.x, b.y), (c.x, c.y));
    let x0 = (a.x.min(b.x).min(c.x).floor() as i32).max(clip[0]);
    let x1 = (a.x.max(b.x).max(c.x).ceil() as i32).min(clip[2]);
    let y0 = (a.y.min(b.y).min(c.y).floor() as i32).max(clip[1]);
    let y1 = (a.y.max(b.y).max(c.y).ceil() as i32).min(clip[3]);
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let owns = [top_left(pb, pc), top_left(pc, pa), top_left(pa, pb)];
    let inside = |w: f32, k: usize| w > 0.0 || (w == 0.0 && owns[k]);
    // One colour and one texel for the whole triangle: egui's plain shapes (fills, lines
    // and their feathering all sample the atlas's white texel, most with one colour).
    let flat_uv = a.u == b.u && a.u == c.u && a.v == b.v && a.v == c.v;
    let flat = flat_uv && a.color == b.color && a.color == c.color;
    let texel_at_a = texture.sample(a.u, a.v);
    let modulate = |col: [f32; 4], tex: [f32; 4]| -> [f32; 4] {
        std::array::from_fn(|i| col[i] * tex[i] * (1.0 / 255.0))
    };
    let flat_src = modulate(a.color, texel_at_a);
    let opaque = flat && flat_src[3] >= 254.5;
    let flat_pixel = ((flat_src[0] + 0.5) as u32) << 16
        | ((flat_src[1] + 0.5) as u32) << 8
        | (flat_src[2] + 0.5) as u32;
    let inv = 1.0 / area;
    for y in y0..y1 {
        let row = &mut frame[y as usize * width..][..width];
        let py = y as f32 + 0.5;
        for x in x0..x1 {
            let p = (x as f32 + 0.5, py);
            let (w0, w1, w2) = (edge(pb, pc, p), edge(pc, pa, p), edge(pa, pb, p));
            if !(inside(w0, 0) && inside(w1, 1) && inside(w2, 2)) {
                continue;
            }
            let px = &mut row[x as usize];
            if opaque {
                *px = flat_pixel;
                continue;
            }
            if flat {
                *px = blend(*px, flat_src);
                continue;
            }
            let (l0, l1, l2) = (w0 * inv, w1 * inv, w2 * inv);
            let color: [f32; 4] =
                std::array::from_fn(|i| a.color[i] * l0 + b.color[i] * l1 + c.color[i] * l2);
            let texel = if flat_uv {
                texel_at_a
            } else {
                texture.sample(
                    a.u * l0 + b.u * l1 + c.u * l2,
                    a.v * l0 + b.v * l1 + c.v * l2,
                )
            };
            *px = blend(*px, modulate(color, texel));
        }
    }
}

#[cfg(test)]
mod tests {
    //! The painter against hand-worked expectations: the premultiplied blend formula on
    //! known values, a square of two triangles covering each pixel centre exactly once (the
    //! fill rule), the clip rectangle, and bilinear filtering halfway between two texels.
    use super::*;

    fn white_texture(painter: &mut SoftPainter) -> egui::TextureId {
        let id = egui::TextureId::Managed(0);
        let mut delta = egui::TexturesDelta::default();
        delta.set.insert(
            id,
            [egui::epaint::ImageDelta::full(
                egui::ColorImage::new([1, 1], vec![egui::Color32::WHITE]),
                egui::TextureOptions::NEAREST,
            )]
            .into_iter()
            .collect(),
        );
        painter.update_textures(&delta);
        delta.clear();
        id
    }

    fn square(
        id: egui::TextureId,
        color: egui::Color32,
        clip: egui::Rect,
    ) -> egui::ClippedPrimitive {
        let mut mesh = egui::Mesh::with_texture(id);
        mesh.add_rect_with_uv(
            egui::Rect::from_min_max(egui::pos2(1.0, 1.0), egui::pos2(5.0, 5.0)),
            egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(0.0, 0.0)),
            color,
        );
        egui::ClippedPrimitive {
            clip_rect: clip,
            primitive: egui::epaint::Primitive::Mesh(mesh),
        }
    }

    #[test]
    fn premultiplied_blend_is_src_plus_dst_times_one_minus_alpha() {
        // Half-transparent red (premultiplied: 128, 0, 0, 128) over grey 200.
        let out = blend(0x00c8c8c8, [128.0, 0.0, 0.0, 128.0]);
        let k = 1.0 - 128.0 / 255.0;
        let grey = (200.0 * k + 0.5) as u32;
        assert_eq!(
            out,
            ((128.0 + 200.0 * k + 0.5) as u32) << 16 | grey << 8 | grey
        );
    }

    #[test]
    fn a_square_of_two_triangles_covers_each_pixel_once_inside_its_clip() {
        let mut p = SoftPainter::default();
        let id = white_texture(&mut p);
        let everywhere = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(8.0, 8.0));
        // Half-transparent white over black: a pixel covered twice would read 191, not 128.
        let half = egui::Color32::from_white_alpha(128);
        let mut frame = vec![0u32; 64];
        p.paint(&mut frame, (8, 8), &[square(id, half, everywhere)], 1.0);
        for y in 0..8 {
            for x in 0..8 {
                let want = if (1..5).contains(&x) && (1..5).contains(&y) {
                    0x0080_8080
                } else {
                    0
                };
                assert_eq!(frame[y * 8 + x], want, "pixel {x},{y}");
            }
        }
        let mut frame = vec![0u32; 64];
        let left = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(3.0, 8.0));
        p.paint(
            &mut frame,
            (8, 8),
            &[square(id, egui::Color32::RED, left)],
            1.0,
        );
        assert_eq!(frame[2 * 8 + 2], 0x00ff_0000, "inside the clip");
        assert_eq!(frame[2 * 8 + 3], 0, "right of the clip");
    }

    #[test]
    fn bilinear_sampling_halfway_between_texels_is_their_mean() {
        let t = SoftTexture {
            width: 2,
            height: 1,
            texels: vec![[0, 0, 0, 255], [200, 100, 50, 255]],
            linear: true,
        };
        assert_eq!(t.sample(0.5, 0.5), [100.0, 50.0, 25.0, 255.0]);
        assert_eq!(t.sample(0.25, 0.5), [0.0, 0.0, 0.0, 255.0]);
    }
}
