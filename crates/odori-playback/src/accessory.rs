//! MikuMikuDance's accessories: a model held by a bone of another model, or standing at the
//! world origin, with the accessory panel's transform: position X/Y/Z, rotation Rx/Ry/Rz,
//! scale Si, opacity Tr, and the visibility, additive-blending and shadow switches.
//!
//! Where it is drawn: its root's world = the parent bone's world (after physics, with the
//! parent's placement) × translation × Rz × Ry × Rx × uniform scale Si. The order is nanoem's
//! `Accessory::fullWorldTransform` (emapp/src/Accessory.cc: `boneTransform * (translateMatrix
//! * rotateMatrix * scaleMatrix)`, `rotateMatrix = rotateZ * rotateY * rotateX`), the one open
//! reimplementation of MMD's accessory panel; a `.x` file's own 10× scale (nanoem's
//! `kInitialWorldMatrix`) belongs to reading the `.x`, not to this transform.

use glam::{Affine3A, Quat, Vec3};

/// A model's bone holding an accessory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParentBone {
    /// The holding model's index in the scene.
    pub model: usize,
    /// The bone's index in that model.
    pub bone: usize,
}

/// The accessory panel's values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccessoryTransform {
    /// X, Y, Z in the parent bone's space (MMD units).
    pub position: Vec3,
    /// Rx, Ry, Rz in radians (the panel shows degrees).
    pub rotation: Vec3,
    /// Si: a uniform scale.
    pub scale: f32,
    /// Tr: opacity, 0..1, multiplying every material's alpha.
    pub opacity: f32,
    /// The panel's display switch.
    pub visible: bool,
    /// 加算合成: drawn with additive blending.
    pub additive: bool,
    /// Whether it casts shadows (self-shadow and ground shadow).
    pub shadow: bool,
}

impl AccessoryTransform {
    /// MMD's values for a newly loaded accessory: at the origin, unrotated, Si 1, Tr 1,
    /// shown, not additive, casting shadows.
    pub const DEFAULT: AccessoryTransform = AccessoryTransform {
        position: Vec3::ZERO,
        rotation: Vec3::ZERO,
        scale: 1.0,
        opacity: 1.0,
        visible: true,
        additive: false,
        shadow: true,
    };

    /// Translation × Rz × Ry × Rx × scale (a negative Si counts as 0, as nanoem clamps it).
    pub fn matrix(&self) -> Affine3A {
        let r = self.rotation;
        let rotation =
            Quat::from_rotation_z(r.z) * Quat::from_rotation_y(r.y) * Quat::from_rotation_x(r.x);
        Affine3A::from_scale_rotation_translation(
            Vec3::splat(self.scale.max(0.0)),
            rotation,
            self.position,
        )
    }
}

impl Default for AccessoryTransform {
    fn default() -> Self {
        AccessoryTransform::DEFAULT
    }
}

/// An accessory in a scene: what holds it and its panel values.
#[derive(Debug, Clone, PartialEq)]
pub struct Accessory {
    /// `None`: at the world origin.
    pub parent: Option<ParentBone>,
    pub transform: AccessoryTransform,
}

impl Accessory {
    /// The accessory's root world transform, given its parent bone's world transform (the
    /// identity for an accessory at the origin).
    pub fn world(&self, parent_world: Affine3A) -> Affine3A {
        parent_world * self.transform.matrix()
    }
}

/// Which model holds an accessory, as a user names it: its index among the models given
/// (0 is the first) or its file's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelRef {
    Index(usize),
    Name(String),
}

/// An accessory as a front end asks for it: `FILE[@MODEL:BONE]`, with the panel's values.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessorySpec {
    pub path: std::path::PathBuf,
    /// The holding model and the bone's name; `None`: the world origin.
    pub parent: Option<(ModelRef, String)>,
    /// The accessory panel's values ([`AccessoryTransform::DEFAULT`] from the command line).
    pub transform: AccessoryTransform,
}

impl AccessorySpec {
    /// Read `FILE[@MODEL:BONE]`: MODEL an index (0 is the first model) or a model's file
    /// name, BONE a bone's name (e.g. `右手首`). The split is at the last `@` followed by a
    /// `:`, so file names holding an `@` still work.
    pub fn parse(s: &str) -> Result<AccessorySpec, String> {
        if s.is_empty() {
            return Err("an accessory needs a file: FILE[@MODEL:BONE]".into());
        }
        let Some((file, holder)) = s.rsplit_once('@').filter(|(_, h)| h.contains(':')) else {
            return Ok(AccessorySpec {
                path: s.into(),
                parent: None,
                transform: AccessoryTransform::DEFAULT,
            });
        };
        let (model, bone) = holder.split_once(':').expect("checked above");
        if file.is_empty() || model.is_empty() || bone.is_empty() {
            return Err(format!(
                "`{s}`: expected FILE@MODEL:BONE, e.g. leek.pmx@0:右手首 (MODEL an index from 0 \
                 or a model's file name)"
            ));
        }
        let model = match model.parse::<usize>() {
            Ok(i) => ModelRef::Index(i),
            Err(_) => ModelRef::Name(model.to_string()),
        };
        Ok(AccessorySpec {
            path: file.into(),
            parent: Some((model, bone.to_string())),
            transform: AccessoryTransform::DEFAULT,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's three shapes, and `@` inside a file name.
    #[test]
    fn parses_file_model_bone() {
        let a = AccessorySpec::parse("mic.pmx").unwrap();
        assert_eq!((a.path.to_str(), a.parent), (Some("mic.pmx"), None));
        let a = AccessorySpec::parse("props/mic.pmx@1:右手首").unwrap();
        assert_eq!(a.parent, Some((ModelRef::Index(1), "右手首".to_string())));
        let a = AccessorySpec::parse("a@b.pmx@Gene_light.pmx:左手首").unwrap();
        assert_eq!(a.path.to_str(), Some("a@b.pmx"));
        assert_eq!(
            a.parent,
            Some((
                ModelRef::Name("Gene_light.pmx".into()),
                "左手首".to_string()
            ))
        );
        assert_eq!(AccessorySpec::parse("me@home.pmx").unwrap().parent, None);
        assert!(AccessorySpec::parse("mic.pmx@0:").is_err());
        assert!(AccessorySpec::parse("").is_err());
    }

    /// The matrix is T × Rz × Ry × Rx × S: checked on a point against the product of the
    /// five matrices built one by one (glam's Mat4 constructors, not the Affine3A path).
    #[test]
    fn transform_composes_translate_rotate_zyx_scale() {
        use glam::Mat4;
        let t = AccessoryTransform {
            position: Vec3::new(1.0, 2.0, 3.0),
            rotation: Vec3::new(0.3, -0.7, 1.1),
            scale: 2.5,
            ..AccessoryTransform::DEFAULT
        };
        let want = Mat4::from_translation(t.position)
            * Mat4::from_rotation_z(1.1)
            * Mat4::from_rotation_y(-0.7)
            * Mat4::from_rotation_x(0.3)
            * Mat4::from_scale(Vec3::splat(2.5));
        let p = Vec3::new(0.5, -1.0, 2.0);
        let got = t.matrix().transform_point3(p);
        assert!((got - want.transform_point3(p)).length() < 1e-5, "{got}");
        let neg = AccessoryTransform {
            scale: -1.0,
            ..AccessoryTransform::DEFAULT
        };
        assert_eq!(neg.matrix().transform_point3(p), Vec3::ZERO);
    }
}
