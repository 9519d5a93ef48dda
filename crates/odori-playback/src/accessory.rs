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
        placement(self.position, self.orientation(), self.scale)
    }

    /// The rotation as a quaternion: Rz × Ry × Rx.
    pub fn orientation(&self) -> Quat {
        let r = self.rotation;
        Quat::from_rotation_z(r.z) * Quat::from_rotation_y(r.y) * Quat::from_rotation_x(r.x)
    }
}

/// Translation × rotation × uniform scale (a negative scale counts as 0, as nanoem clamps
/// it).
fn placement(position: Vec3, orientation: Quat, scale: f32) -> Affine3A {
    Affine3A::from_scale_rotation_translation(Vec3::splat(scale.max(0.0)), orientation, position)
}

impl Default for AccessoryTransform {
    fn default() -> Self {
        AccessoryTransform::DEFAULT
    }
}

/// An accessory in a scene: what holds it and its panel values, fixed or keyed.
#[derive(Debug, Clone, PartialEq)]
pub struct Accessory {
    /// `None`: at the world origin.
    pub parent: Option<ParentBone>,
    pub transform: AccessoryTransform,
    /// Keys in frame order (a project's accessory keys); when there are any they replace
    /// `parent` and `transform`.
    pub keys: Vec<AccessoryKeyframe>,
}

/// One key of an accessory: the panel's values and the bone holding it from this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccessoryKeyframe {
    pub frame: f32,
    pub parent: Option<ParentBone>,
    pub transform: AccessoryTransform,
}

/// An accessory at one frame: what holds it, where it sits on it, and how it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccessoryState {
    pub parent: Option<ParentBone>,
    /// Translation × rotation × scale in the parent's space.
    pub matrix: Affine3A,
    /// The parts of `matrix`: the translation, the rotation, and the uniform scale (not
    /// negative), for front ends that keep them apart (glTF nodes).
    pub position: Vec3,
    pub orientation: Quat,
    pub scale: f32,
    pub opacity: f32,
    pub visible: bool,
}

impl Accessory {
    /// An accessory whose panel values never change.
    pub fn fixed(parent: Option<ParentBone>, transform: AccessoryTransform) -> Accessory {
        Accessory {
            parent,
            transform,
            keys: Vec::new(),
        }
    }

    /// The accessory's root world transform, given its parent bone's world transform (the
    /// identity for an accessory at the origin), for its fixed values.
    pub fn world(&self, parent_world: Affine3A) -> Affine3A {
        parent_world * self.transform.matrix()
    }

    /// Where the accessory is at `frame`. Keys are sampled as MMD's accessory keys are
    /// (nanoem's `Accessory::synchronizeMotion`): no curves; between two keys the position,
    /// scale and opacity are mixed linearly and the rotation spherically (as quaternions),
    /// while the holder, the display switch and the shadow come from the earlier key. Before
    /// the first key the first holds, after the last the last.
    pub fn at(&self, frame: f32) -> AccessoryState {
        let state = |parent, t: &AccessoryTransform, orientation: Quat| AccessoryState {
            parent,
            matrix: placement(t.position, orientation, t.scale),
            position: t.position,
            orientation,
            scale: t.scale.max(0.0),
            opacity: t.opacity,
            visible: t.visible,
        };
        let Some(first) = self.keys.first() else {
            return state(self.parent, &self.transform, self.transform.orientation());
        };
        let next = self.keys.partition_point(|k| k.frame <= frame);
        let (a, b) = match next {
            0 => (first, first),
            n if n == self.keys.len() => (&self.keys[n - 1], &self.keys[n - 1]),
            n => (&self.keys[n - 1], &self.keys[n]),
        };
        let span = b.frame - a.frame;
        if span <= 0.0 {
            return state(a.parent, &a.transform, a.transform.orientation());
        }
        let s = (frame - a.frame) / span;
        let (ta, tb) = (&a.transform, &b.transform);
        let mixed = AccessoryTransform {
            position: ta.position.lerp(tb.position, s),
            scale: ta.scale + (tb.scale - ta.scale) * s,
            opacity: ta.opacity + (tb.opacity - ta.opacity) * s,
            ..*ta
        };
        let orientation = ta.orientation().slerp(tb.orientation(), s);
        state(a.parent, &mixed, orientation)
    }

    /// The last key's frame (0 for fixed values).
    pub fn end_frame(&self) -> f32 {
        self.keys.last().map_or(0.0, |k| k.frame)
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

    /// Keys sampled as nanoem's accessory motion: position, scale and opacity mixed linearly,
    /// rotation by quaternion slerp, the holder and display switch from the earlier key,
    /// the ends held. Evidence: the formulas, evaluated here by hand at the midpoint.
    #[test]
    fn keys_mix_linearly_and_switch_at_the_earlier_key() {
        let hand = ParentBone { model: 0, bone: 3 };
        let a = AccessoryTransform {
            position: Vec3::new(0.0, 10.0, 0.0),
            rotation: Vec3::new(0.0, 0.0, 0.0),
            scale: 1.0,
            opacity: 1.0,
            ..AccessoryTransform::DEFAULT
        };
        let b = AccessoryTransform {
            position: Vec3::new(4.0, 10.0, -2.0),
            rotation: Vec3::new(0.0, std::f32::consts::FRAC_PI_2, 0.0),
            scale: 3.0,
            opacity: 0.0,
            visible: false,
            ..AccessoryTransform::DEFAULT
        };
        let acc = Accessory {
            parent: None,
            transform: AccessoryTransform::DEFAULT,
            keys: vec![
                AccessoryKeyframe {
                    frame: 10.0,
                    parent: Some(hand),
                    transform: a,
                },
                AccessoryKeyframe {
                    frame: 20.0,
                    parent: None,
                    transform: b,
                },
            ],
        };
        let mid = acc.at(15.0);
        assert_eq!(mid.parent, Some(hand));
        assert!(mid.visible);
        assert!((mid.opacity - 0.5).abs() < 1e-6);
        // Scale 2, rotation 45° about Y, translation (2, 10, -1): +X goes to (√2, 0, -√2).
        let p = mid.matrix.transform_point3(Vec3::X);
        let h = std::f32::consts::SQRT_2;
        assert!(
            (p - Vec3::new(2.0 + h, 10.0, -1.0 - h)).length() < 1e-5,
            "{p}"
        );
        let before = acc.at(0.0);
        assert_eq!((before.parent, before.opacity), (Some(hand), 1.0));
        let after = acc.at(99.0);
        assert_eq!(
            (after.parent, after.visible, after.opacity),
            (None, false, 0.0)
        );
        assert_eq!(acc.at(20.0).parent, None);
        let fixed = Accessory::fixed(Some(hand), a);
        assert_eq!(fixed.at(7.0).matrix, a.matrix());
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
