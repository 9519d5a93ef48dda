//! An arm built in code: a closed cylinder along +X on two bones (upper arm at the origin,
//! forearm at the elbow), its vertices around the elbow weighted either BDEF2 or SDEF with the
//! same weights. Bending the forearm shows linear blending's "candy wrapper" collapse and
//! SDEF keeping the elbow's volume.

use super::{bone, material, pmx, vertex};
use glam::{Affine3A, Quat, Vec3, Vec3A};
use odori_format::pmx::{Pmx, Weights};

/// Elbow position along X; the arm runs from 0 to `2 · ELBOW`.
pub const ELBOW: f32 = 5.0;
pub const RADIUS: f32 = 1.0;
/// Half-width of the weight blend around the elbow.
pub const BLEND: f32 = 1.5;
pub const RINGS: usize = 81;
pub const SEGMENTS: usize = 32;
/// The ring at the elbow (weight ½ on each bone).
pub const ELBOW_RING: usize = RINGS / 2;

/// Bone-0 weight of a vertex at `x`: 1 up to the blend, 0 after it, linear in between.
pub fn upper_weight(x: f32) -> f32 {
    ((ELBOW + BLEND - x) / (2.0 * BLEND)).clamp(0.0, 1.0)
}

/// How the blend region around the elbow is skinned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Elbow {
    Bdef2,
    /// SDEF with C at the elbow joint and R0, R1 on the bone axis `spread` before and after
    /// it (0: R0 = R1 = C).
    Sdef {
        spread: f32,
    },
}

/// The arm, its blend-region vertices skinned as `elbow` with the same weights, BDEF1
/// elsewhere.
pub fn arm(elbow: Elbow) -> Pmx {
    let bones = vec![
        bone("upper", [0.0, 0.0, 0.0], -1),
        bone("lower", [ELBOW, 0.0, 0.0], 0),
    ];
    let mut vertices = Vec::new();
    for i in 0..RINGS {
        let x = 2.0 * ELBOW * i as f32 / (RINGS - 1) as f32;
        let w = upper_weight(x);
        for j in 0..SEGMENTS {
            let phi = std::f32::consts::TAU * j as f32 / SEGMENTS as f32;
            let (s, c) = phi.sin_cos();
            let weights = if w >= 1.0 {
                Weights::Bdef1 { bone: 0 }
            } else if w <= 0.0 {
                Weights::Bdef1 { bone: 1 }
            } else if let Elbow::Sdef { spread } = elbow {
                Weights::Sdef {
                    bones: [0, 1],
                    weight: w,
                    c: [ELBOW, 0.0, 0.0],
                    r0: [ELBOW - spread, 0.0, 0.0],
                    r1: [ELBOW + spread, 0.0, 0.0],
                }
            } else {
                Weights::Bdef2 {
                    bones: [0, 1],
                    weight: w,
                }
            };
            vertices.push(vertex(
                [x, RADIUS * c, RADIUS * s],
                [0.0, c, s],
                [j as f32 / SEGMENTS as f32, x / (2.0 * ELBOW)],
                weights,
            ));
        }
    }
    let start = vertices.len() as u32;
    vertices.push(vertex(
        [0.0; 3],
        [-1.0, 0.0, 0.0],
        [0.5, 0.0],
        Weights::Bdef1 { bone: 0 },
    ));
    vertices.push(vertex(
        [2.0 * ELBOW, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.5, 1.0],
        Weights::Bdef1 { bone: 1 },
    ));
    let end = start + 1;
    let s = SEGMENTS as u32;
    let mut indices = Vec::new();
    for i in 0..RINGS as u32 - 1 {
        for j in 0..s {
            let a = i * s + j;
            let b = i * s + (j + 1) % s;
            let (c, d) = (a + s, b + s);
            indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    let last = (RINGS as u32 - 1) * s;
    for j in 0..s {
        let (a, b) = (j, (j + 1) % s);
        indices.extend_from_slice(&[start, b, a]);
        indices.extend_from_slice(&[end, last + a, last + b]);
    }
    let count = indices.len() as i32;
    pmx(
        bones,
        vertices,
        indices,
        vec![material("arm", count)],
        Vec::new(),
        0,
    )
}

/// Skinning matrices with the forearm bent by `degrees` about +Z at the elbow.
pub fn bend(degrees: f32) -> Vec<Affine3A> {
    let elbow = Vec3::new(ELBOW, 0.0, 0.0);
    let q = Quat::from_rotation_z(degrees.to_radians());
    vec![
        Affine3A::IDENTITY,
        Affine3A::from_translation(elbow)
            * Affine3A::from_quat(q)
            * Affine3A::from_translation(-elbow),
    ]
}

/// Enclosed volume of a closed triangle mesh: the sum of signed tetrahedra from the origin.
pub fn volume(positions: &[[f32; 3]], indices: &[u32]) -> f64 {
    let p = |i: u32| {
        let v = positions[i as usize];
        [v[0] as f64, v[1] as f64, v[2] as f64]
    };
    let mut sum = 0.0;
    for t in indices.chunks_exact(3) {
        let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
        sum += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]);
    }
    sum / 6.0
}

/// Area enclosed by the elbow ring (the vector area of the polygon, exact when it is planar).
pub fn elbow_ring_area(positions: &[[f32; 3]]) -> f32 {
    let ring = &positions[ELBOW_RING * SEGMENTS..(ELBOW_RING + 1) * SEGMENTS];
    let centre: Vec3A = ring.iter().map(|&p| Vec3A::from(p)).sum::<Vec3A>() / SEGMENTS as f32;
    let mut area = Vec3A::ZERO;
    for j in 0..SEGMENTS {
        let a = Vec3A::from(ring[j]) - centre;
        let b = Vec3A::from(ring[(j + 1) % SEGMENTS]) - centre;
        area += a.cross(b);
    }
    area.length() / 2.0
}
