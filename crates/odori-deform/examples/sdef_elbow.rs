//! Draw the SDEF elbow test: `cargo run -p odori-deform --example sdef_elbow` writes
//! `out/sdef_elbow.png` (at the workspace root) and prints the measurements.
//!
//! Rows: the forearm bent 90° and 150°. Columns: the arm skinned BDEF2, the same weights as
//! SDEF (C at the elbow joint, R0 = R1 = C), both seen from the side (flat-shaded, lit from
//! the upper left, back faces dark red), and the elbow ring (the vertices at weight ½) in its
//! own plane: rest circle grey, BDEF2 orange, SDEF blue.

#[path = "../tests/common/mod.rs"]
mod common;

use common::arm::{self, Elbow};
#[path = "support/canvas.rs"]
mod canvas;

use canvas::Canvas;
use glam::{Vec2, Vec3};
use image::Rgb;
use odori_deform::{Deformed, Mesh, deform};

const PANEL_W: u32 = 480;
const PANEL_H: u32 = 270;
const RING_W: u32 = 270;
const ORANGE: [u8; 3] = [230, 140, 40];
const BLUE: [u8; 3] = [60, 120, 230];
const GREY: [u8; 3] = [150, 150, 150];

struct Result {
    positions: Vec<[f32; 3]>,
    indices: Vec<u32>,
    volume: f64,
    ring: f32,
}

fn run(elbow: Elbow, degrees: f32) -> Result {
    let mesh = Mesh::from_pmx(&arm::arm(elbow));
    let mut out = Deformed::new(&mesh);
    deform(&mesh, &arm::bend(degrees), &[], &mut out);
    Result {
        volume: arm::volume(&out.positions, mesh.indices()),
        ring: arm::elbow_ring_area(&out.positions),
        indices: mesh.indices().to_vec(),
        positions: out.positions,
    }
}

/// The arm seen from +Z, in the panel whose top-left corner is (ox, oy).
fn draw_side(canvas: &mut Canvas, r: &Result, ox: i32, oy: i32, tint: [u8; 3]) {
    let scale = 36.0;
    let to_screen = |p: [f32; 3]| {
        Vec3::new(
            ox as f32 + 40.0 + p[0] * scale,
            oy as f32 + PANEL_H as f32 - 70.0 - p[1] * scale,
            p[2],
        )
    };
    let light = Vec3::new(-0.4, 0.6, 1.0).normalize();
    for t in r.indices.chunks_exact(3) {
        let p: Vec<Vec3> = t
            .iter()
            .map(|&i| Vec3::from(r.positions[i as usize]))
            .collect();
        let n = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
        let c = if n.z < 0.0 {
            [120, 20, 20]
        } else {
            let k = 0.3 + 0.7 * n.dot(light).max(0.0);
            tint.map(|x| (x as f32 * k) as u8)
        };
        let s = [t[0], t[1], t[2]].map(|i| to_screen(r.positions[i as usize]));
        canvas.triangle(s, c);
    }
}

/// The elbow ring in its own plane (spanned by Z and the bend's bisector), centred.
fn draw_ring(canvas: &mut Canvas, r: &Result, degrees: f32, ox: i32, oy: i32, c: [u8; 3]) {
    let ring = &r.positions[arm::ELBOW_RING * arm::SEGMENTS..(arm::ELBOW_RING + 1) * arm::SEGMENTS];
    let centre: Vec3 = ring.iter().map(|&p| Vec3::from(p)).sum::<Vec3>() / ring.len() as f32;
    let half = (degrees / 2.0).to_radians();
    let u = Vec3::new(-half.sin(), half.cos(), 0.0);
    let scale = 90.0;
    let at = |p: Vec3| {
        let d = p - centre;
        Vec2::new(
            ox as f32 + RING_W as f32 / 2.0 + d.dot(u) * scale,
            oy as f32 + PANEL_H as f32 / 2.0 + 10.0 - d.z * scale,
        )
    };
    for j in 0..ring.len() {
        let a = at(Vec3::from(ring[j]));
        let b = at(Vec3::from(ring[(j + 1) % ring.len()]));
        canvas.line(a, b, c);
    }
}

fn main() {
    let rest = run(Elbow::Bdef2, 0.0);
    let blend_volume = rest.volume * (arm::BLEND / arm::ELBOW) as f64;
    let angles = [90.0f32, 150.0];
    let (w, h) = (2 * PANEL_W + RING_W, PANEL_H * angles.len() as u32);
    let mut canvas = Canvas::new(w, h);
    println!(
        "rest volume {:.3} (blend region {:.3}), elbow ring area {:.4}",
        rest.volume, blend_volume, rest.ring
    );
    for (row, &deg) in angles.iter().enumerate() {
        let oy = row as i32 * PANEL_H as i32;
        let bdef = run(Elbow::Bdef2, deg);
        let sdef = run(Elbow::Sdef { spread: 0.0 }, deg);
        let spread = run(Elbow::Sdef { spread: arm::BLEND }, deg);
        let lost = |r: &Result| 100.0 * (rest.volume - r.volume) / blend_volume;
        let area = |r: &Result| 100.0 * r.ring / rest.ring;
        println!(
            "{deg}°: BDEF2 volume {:.3} (−{:.1}% of the blend region), ring {:.1}% | SDEF \
             volume {:.3} (−{:.1}%), ring {:.1}% | SDEF with R0, R1 ±{}: volume {:.3} \
             (−{:.1}%), ring {:.1}%",
            bdef.volume,
            lost(&bdef),
            area(&bdef),
            sdef.volume,
            lost(&sdef),
            area(&sdef),
            arm::BLEND,
            spread.volume,
            lost(&spread),
            area(&spread)
        );
        draw_side(&mut canvas, &bdef, 0, oy, ORANGE);
        draw_side(&mut canvas, &sdef, PANEL_W as i32, oy, BLUE);
        let ring_x = 2 * PANEL_W as i32;
        draw_ring(&mut canvas, &rest, 0.0, ring_x, oy, GREY);
        draw_ring(&mut canvas, &bdef, deg, ring_x, oy, ORANGE);
        draw_ring(&mut canvas, &sdef, deg, ring_x, oy, BLUE);
        let label = |s: &str| s.to_string();
        canvas.text(10, oy + 8, &label(&format!("BDEF2 {deg}")), [0, 0, 0]);
        canvas.text(
            10,
            oy + PANEL_H as i32 - 26,
            &format!("VOL -{:.1}% RING {:.0}%", lost(&bdef), area(&bdef)),
            [0, 0, 0],
        );
        canvas.text(
            PANEL_W as i32 + 10,
            oy + 8,
            &format!("SDEF {deg}"),
            [0, 0, 0],
        );
        canvas.text(
            PANEL_W as i32 + 10,
            oy + PANEL_H as i32 - 26,
            &format!("VOL -{:.1}% RING {:.0}%", lost(&sdef), area(&sdef)),
            [0, 0, 0],
        );
        canvas.text(ring_x + 10, oy + 8, "ELBOW RING", [0, 0, 0]);
    }
    for row in 1..angles.len() as u32 {
        for x in 0..w {
            canvas.img.put_pixel(x, row * PANEL_H, Rgb([0, 0, 0]));
        }
    }
    for x in [PANEL_W, 2 * PANEL_W] {
        for y in 0..h {
            canvas.img.put_pixel(x, y, Rgb([0, 0, 0]));
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../out");
    std::fs::create_dir_all(&dir).expect("creating out/");
    let path = dir.join("sdef_elbow.png");
    canvas.img.save(&path).expect("writing the PNG");
    println!("wrote {}", path.canonicalize().unwrap_or(path).display());
}
