//! Transforms handed to JavaScript as column-major 4×4 matrices in place, mirrored into a
//! right-handed frame when asked: the npm package's per-frame copy (plain Rust, so its test
//! runs natively).

use glam::Affine3A;

/// Write `m` into `out` as a column-major 4×4 matrix, mirrored when asked
/// (`odori_pose::space::affine`: C·M·C, which negates the Z row and the Z column but not their
/// crossing). Written element by element: through glam's conversions this was a quarter of
/// an evaluation's time in wasm.
#[inline]
pub fn write_matrix(out: &mut [f32], m: &Affine3A, mirror: bool) {
    let Ok(out) = <&mut [f32; 16]>::try_from(out) else {
        return;
    };
    let s = if mirror { -1.0 } else { 1.0 };
    let (x, y, z, t) = (
        m.matrix3.x_axis,
        m.matrix3.y_axis,
        m.matrix3.z_axis,
        m.translation,
    );
    *out = [
        x.x,
        x.y,
        s * x.z,
        0.0, //
        y.x,
        y.y,
        s * y.z,
        0.0, //
        s * z.x,
        s * z.y,
        z.z,
        0.0, //
        t.x,
        t.y,
        s * t.z,
        1.0,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat4;
    use odori_pose::space;

    /// The element-by-element write is glam's matrix, mirrored by the one rule.
    #[test]
    fn written_matrix_is_the_mirrored_transform() {
        let m = Affine3A::from_scale_rotation_translation(
            glam::Vec3::new(1.0, 2.0, 3.0),
            glam::Quat::from_euler(glam::EulerRot::YXZ, 0.3, -1.1, 2.0),
            glam::Vec3::new(4.0, -5.0, 6.0),
        );
        for mirror in [false, true] {
            let mut out = [0.0; 16];
            write_matrix(&mut out, &m, mirror);
            let want = Mat4::from(if mirror { space::affine(m) } else { m });
            assert_eq!(out, want.to_cols_array(), "mirror {mirror}");
        }
    }
}
