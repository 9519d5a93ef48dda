//! A tiny software rasteriser for the examples: depth-tested flat triangles, lines, and a
//! 3×5 pixel font. Enough to look at a deformed mesh without a GPU.

#![allow(dead_code)]

use glam::{Vec2, Vec3};
use image::{Rgb, RgbImage};

pub struct Canvas {
    pub img: RgbImage,
    depth: Vec<f32>,
}

impl Canvas {
    pub fn new(w: u32, h: u32) -> Canvas {
        Canvas {
            img: RgbImage::from_pixel(w, h, Rgb([255, 255, 255])),
            depth: vec![f32::NEG_INFINITY; (w * h) as usize],
        }
    }
}

impl Canvas {
    pub fn put(&mut self, x: i32, y: i32, c: [u8; 3]) {
        if x >= 0 && y >= 0 && (x as u32) < self.img.width() && (y as u32) < self.img.height() {
            self.img.put_pixel(x as u32, y as u32, Rgb(c));
        }
    }

    /// A filled, depth-tested triangle (screen x, y; larger z is nearer).
    pub fn triangle(&mut self, v: [Vec3; 3], c: [u8; 3]) {
        let (w, h) = (self.img.width() as i32, self.img.height() as i32);
        let min = v[0].min(v[1]).min(v[2]);
        let max = v[0].max(v[1]).max(v[2]);
        let area = (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[2].x - v[0].x) * (v[1].y - v[0].y);
        if area.abs() < 1e-9 {
            return;
        }
        for y in (min.y.floor() as i32).max(0)..=(max.y.ceil() as i32).min(h - 1) {
            for x in (min.x.floor() as i32).max(0)..=(max.x.ceil() as i32).min(w - 1) {
                let p = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
                let e = |a: Vec3, b: Vec3| (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y);
                let (b0, b1, b2) = (
                    e(v[1], v[2]) / area,
                    e(v[2], v[0]) / area,
                    e(v[0], v[1]) / area,
                );
                if b0 < 0.0 || b1 < 0.0 || b2 < 0.0 {
                    continue;
                }
                let z = b0 * v[0].z + b1 * v[1].z + b2 * v[2].z;
                let d = &mut self.depth[(y * w + x) as usize];
                if z > *d {
                    *d = z;
                    self.put(x, y, c);
                }
            }
        }
    }

    pub fn line(&mut self, a: Vec2, b: Vec2, c: [u8; 3]) {
        let steps = (b - a).length().ceil().max(1.0) as i32;
        for i in 0..=steps {
            let p = a + (b - a) * (i as f32 / steps as f32);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                self.put(p.x as i32 + dx, p.y as i32 + dy, c);
            }
        }
    }

    /// Text in a 3×5 pixel font, scaled ×3.
    pub fn text(&mut self, x: i32, y: i32, s: &str, c: [u8; 3]) {
        for (i, ch) in s.chars().enumerate() {
            let rows = glyph(ch);
            for (r, bits) in rows.iter().enumerate() {
                for col in 0..3 {
                    if bits >> (2 - col) & 1 == 1 {
                        for sy in 0..3 {
                            for sx in 0..3 {
                                let px = x + i as i32 * 12 + col * 3 + sx;
                                self.put(px, y + r as i32 * 3 + sy, c);
                            }
                        }
                    }
                }
            }
        }
    }
}

pub fn glyph(c: char) -> [u8; 5] {
    match c {
        '0' | 'O' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [7, 4, 4, 4, 7],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [7, 4, 5, 5, 7],
        'I' => [7, 2, 2, 2, 7],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        '%' => [5, 1, 2, 4, 5],
        '.' => [0, 0, 0, 0, 2],
        '-' => [0, 0, 7, 0, 0],
        '=' => [0, 7, 0, 7, 0],
        _ => [0; 5],
    }
}
