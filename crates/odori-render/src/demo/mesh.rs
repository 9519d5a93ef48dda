//! Geometry for the demo character: surfaces of revolution (ellipsoids, tapered limbs, lathed
//! torso and skirt) with smooth normals and per-vertex bone weights.

use glam::{Vec2, Vec3};

/// Bone influence of one vertex: (bone a, bone b, weight of a).
pub type Weight = (i32, i32, f32);

/// A growing triangle mesh (clockwise front faces, MMD's convention).
#[derive(Default)]
pub struct MeshBuilder {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    pub weights: Vec<Weight>,
    pub indices: Vec<u32>,
}

impl MeshBuilder {
    /// Add a closed-or-open surface of revolution sampled on a `rings` × `segments` grid.
    /// `point(t, angle)` gives the position for t in 0..=1 along the surface and the angle
    /// around it; `axis(t)` the point on the axis it turns around (for outward orientation);
    /// `weight(t)` the skinning. Rows whose points coincide (poles) and the seam column get
    /// shared normals. Returns the index range added (for the caller's material).
    pub fn revolve(
        &mut self,
        rings: usize,
        segments: usize,
        point: impl Fn(f32, f32) -> Vec3,
        axis: impl Fn(f32) -> Vec3,
        weight: impl Fn(f32, Vec3) -> Weight,
    ) -> usize {
        let base = self.positions.len() as u32;
        let first_index = self.indices.len();
        let cols = segments + 1;
        for r in 0..=rings {
            let t = r as f32 / rings as f32;
            for s in 0..cols {
                let a = s as f32 / segments as f32 * std::f32::consts::TAU;
                let p = point(t, a);
                self.positions.push(p);
                self.normals.push(Vec3::ZERO);
                self.uvs.push(Vec2::new(s as f32 / segments as f32, t));
                self.weights.push(weight(t, p));
            }
        }
        let at = |r: usize, s: usize| base + (r * cols + s) as u32;
        for r in 0..rings {
            for s in 0..segments {
                let (a, b, c, d) = (at(r, s), at(r, s + 1), at(r + 1, s), at(r + 1, s + 1));
                for tri in [[a, b, d], [a, d, c]] {
                    self.push_oriented(tri, axis((r as f32 + 0.5) / rings as f32));
                }
            }
        }
        // Smooth normals: accumulate face normals, then share them across the seam column
        // and along degenerate (pole) rows.
        for tri in self.indices[first_index..].chunks_exact(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| self.positions[i as usize]);
            let n = (b - a).cross(c - a);
            for &i in tri {
                self.normals[i as usize] += n;
            }
        }
        for r in 0..=rings {
            let (s0, s1) = (at(r, 0) as usize, at(r, segments) as usize);
            let sum = self.normals[s0] + self.normals[s1];
            self.normals[s0] = sum;
            self.normals[s1] = sum;
            let row = at(r, 0) as usize..=at(r, segments) as usize;
            let p0 = self.positions[at(r, 0) as usize];
            if row.clone().all(|i| self.positions[i].distance(p0) < 1e-5) {
                let sum: Vec3 = row.clone().map(|i| self.normals[i]).sum();
                for i in row {
                    self.normals[i] = sum;
                }
            }
        }
        for n in &mut self.normals[base as usize..] {
            *n = n.normalize_or_zero();
        }
        self.indices.len() - first_index
    }

    /// Push a triangle wound so that its front (clockwise, left-handed) faces away from the
    /// axis point.
    fn push_oriented(&mut self, [a, b, c]: [u32; 3], axis: Vec3) {
        let [pa, pb, pc] = [a, b, c].map(|i| self.positions[i as usize]);
        let n = (pb - pa).cross(pc - pa);
        if n.length_squared() < 1e-14 {
            return; // degenerate at a pole
        }
        let outward = (pa + pb + pc) / 3.0 - axis;
        if n.dot(outward) >= 0.0 {
            self.indices.extend([a, b, c]);
        } else {
            self.indices.extend([a, c, b]);
        }
    }

    /// An ellipsoid around `center` with `radii`, bound to one bone.
    pub fn ellipsoid(&mut self, center: Vec3, radii: Vec3, bone: i32, detail: usize) -> usize {
        self.revolve(
            detail,
            detail * 2,
            |t, a| {
                let phi = t * std::f32::consts::PI;
                center
                    + Vec3::new(
                        radii.x * phi.sin() * a.cos(),
                        radii.y * phi.cos(),
                        radii.z * phi.sin() * a.sin(),
                    )
            },
            |_| center,
            |_, _| (bone, bone, 1.0),
        )
    }

    /// A tapered tube from `a` to `b` (radii `ra`, `rb`) with rounded ends, skinned by
    /// `weight(t)` along its length.
    pub fn limb(
        &mut self,
        a: Vec3,
        b: Vec3,
        ra: f32,
        rb: f32,
        weight: impl Fn(f32) -> Weight,
    ) -> usize {
        let axis = (b - a).normalize_or(Vec3::Y);
        let side = if axis.x.abs() < 0.9 { Vec3::X } else { Vec3::Z };
        let u = axis.cross(side).normalize();
        let v = axis.cross(u);
        let len = a.distance(b);
        // t in 0..1 covers: cap at a (first 15%), the tube, cap at b (last 15%).
        let profile = move |t: f32| -> (f32, f32) {
            if t < 0.15 {
                let k = t / 0.15 * std::f32::consts::FRAC_PI_2;
                (-ra * k.cos(), ra * k.sin())
            } else if t > 0.85 {
                let k = (1.0 - t) / 0.15 * std::f32::consts::FRAC_PI_2;
                (len + rb * k.cos(), rb * k.sin())
            } else {
                let s = (t - 0.15) / 0.7;
                (s * len, ra + (rb - ra) * s)
            }
        };
        self.revolve(
            14,
            12,
            move |t, ang| {
                let (along, r) = profile(t);
                a + axis * along + (u * ang.cos() + v * ang.sin()) * r
            },
            move |t| a + axis * profile(t).0,
            move |t, _| weight(((t - 0.15) / 0.7).clamp(0.0, 1.0)),
        )
    }

    /// A surface of revolution about the vertical line through `center.xz`: `profile` is a
    /// list of (y, radius) from bottom to top; `squash` scales the z radius.
    pub fn lathe(
        &mut self,
        center: Vec3,
        profile: &[(f32, f32)],
        squash: f32,
        weight: impl Fn(f32) -> Weight,
    ) -> usize {
        let sample = |t: f32| -> (f32, f32) {
            let f = t * (profile.len() - 1) as f32;
            let i = (f as usize).min(profile.len() - 2);
            let k = f - i as f32;
            let (y0, r0) = profile[i];
            let (y1, r1) = profile[i + 1];
            (y0 + (y1 - y0) * k, r0 + (r1 - r0) * k)
        };
        let rings = (profile.len() - 1) * 3;
        self.revolve(
            rings,
            20,
            |t, a| {
                let (y, r) = sample(t);
                Vec3::new(center.x + r * a.cos(), y, center.z + r * squash * a.sin())
            },
            |t| Vec3::new(center.x, sample(t).0, center.z),
            |_, p| weight(p.y),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faces_point_outward() {
        let mut m = MeshBuilder::default();
        m.ellipsoid(Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, 0.5), 0, 8);
        m.limb(Vec3::ZERO, Vec3::new(0.0, -3.0, 1.0), 0.5, 0.3, |_| {
            (0, 0, 1.0)
        });
        // Signed volume of a closed, outward-wound surface is positive.
        let mut vol = 0.0;
        for t in m.indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| m.positions[i as usize]);
            vol += a.dot(b.cross(c)) / 6.0;
        }
        // Face normals (b - a) × (c - a) point outward, which in a left-handed frame is a
        // clockwise front face.
        assert!(vol > 0.0, "{vol}");
        for n in &m.normals {
            assert!((n.length() - 1.0).abs() < 1e-3);
        }
    }
}
