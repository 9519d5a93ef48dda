//! MMD's left-handed frame (Y up, Z into the screen) to a right-handed one (glTF's and
//! three.js's: Y up, +Z toward the viewer): the mirror C = diag(1, 1, −1). A point p becomes C·p, a transform M
//! becomes C·M·C (so that C·M·C applied to C·p is C·(M·p)), a rotation quaternion
//! (x, y, z, w) becomes (−x, −y, z, w), and each triangle's winding is reversed, since a
//! mirror turns front faces into back faces.

use glam::{Affine3A, Quat, Vec3, Vec3A};

/// A point or direction.
pub fn point(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.y, -p.z)
}

/// A point given as an array.
pub fn array(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[1], -p[2]]
}

/// A rigid transform: C·M·C.
pub fn affine(m: Affine3A) -> Affine3A {
    let c = |v: Vec3A| Vec3A::new(v.x, v.y, -v.z);
    Affine3A {
        matrix3: glam::Mat3A::from_cols(
            c(m.matrix3.x_axis),
            c(m.matrix3.y_axis),
            -c(m.matrix3.z_axis),
        ),
        translation: c(m.translation),
    }
}

/// A rotation: C·R·C as a quaternion.
pub fn quat(q: Quat) -> Quat {
    Quat::from_xyzw(-q.x, -q.y, q.z, q.w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C·M·C maps C·p to C·(M·p): checked on a transform with rotation and translation.
    #[test]
    fn mirrored_transform_maps_mirrored_points() {
        let r = Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.7, 1.1);
        let m = Affine3A::from_rotation_translation(r, Vec3::new(1.0, 2.0, 3.0));
        let p = Vec3::new(-0.5, 4.0, 2.5);
        let want = point(m.transform_point3(p));
        let got = affine(m).transform_point3(point(p));
        assert!((want - got).length() < 1e-6, "{want} vs {got}");
        let from_quat = Affine3A::from_rotation_translation(quat(r), point(m.translation.into()));
        assert!(from_quat.abs_diff_eq(affine(m), 1e-6));
    }
}
