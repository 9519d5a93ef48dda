//! PMD models (MMD's original format): plain data mirroring the file.
//!
//! Names are fixed-size Shift-JIS fields kept byte for byte ([`SjisName`]), so garbage after the
//! NUL terminator survives a round trip. The sections after the morph display lists (English
//! names, toon textures, rigid bodies and joints) are each optional at the end of the file;
//! which ones were present is kept so the file writes back identically.

mod read;
mod read_tail;
mod write;

pub use read::{parse, parse_with_diagnostics};
pub use write::write;

use crate::sjis::SjisName;

#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub version: f32,
    pub name: SjisName<20>,
    pub comment: SjisName<256>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
    pub bones: [u16; 2],
    /// Bone 0's weight in percent, 0..=100.
    pub weight: u8,
    /// Non-zero: no edge for this vertex.
    pub edge_off: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub diffuse: [f32; 4],
    pub specular_power: f32,
    pub specular: [f32; 3],
    pub ambient: [f32; 3],
    /// 0..=9 selects the model's toon texture list entry; 255 = none.
    pub toon_index: u8,
    /// Non-zero: draw the edge (and, for PMD, the ground shadow).
    pub edge_flag: u8,
    pub index_count: u32,
    /// "texture.bmp", "texture.bmp*sphere.sph", or "sphere.spa".
    pub texture: SjisName<20>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    pub name: SjisName<20>,
    /// 0xFFFF = none.
    pub parent: u16,
    /// 0 or 0xFFFF = none.
    pub tail: u16,
    /// 0 rotate, 1 rotate+move, 2 IK, 3 unknown, 4 under IK, 5 rotation follow, 6 IK target,
    /// 7 invisible, 8 twist, 9 rotation movement.
    pub kind: u8,
    /// For kind 4 (under IK) the IK bone; for kind 5 (rotation follow) the followed bone;
    /// for kind 9 the rotation ratio × 100 (stored in this field by PMD Editor).
    pub ik_parent: u16,
    pub position: [f32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ik {
    /// The IK (goal) bone.
    pub bone: u16,
    /// The effector bone.
    pub target: u16,
    pub iterations: u16,
    /// Unit angle as stored: a quarter of the radians MMD applies (multiply by 4).
    pub limit: f32,
    /// From the effector side to the root side.
    pub links: Vec<u16>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Morph {
    pub name: SjisName<20>,
    /// 0 = base, 1 = eyebrow, 2 = eye, 3 = mouth, 4 = other.
    pub panel: u8,
    /// For the base morph: (model vertex index, rest position). For the others:
    /// (index into the base morph's list, offset).
    pub vertices: Vec<(u32, [f32; 3])>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BoneDisplay {
    pub bone: u16,
    /// 1-based index into the bone display frame names.
    pub frame: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct English {
    pub name: SjisName<20>,
    pub comment: SjisName<256>,
    /// One per bone.
    pub bone_names: Vec<SjisName<20>>,
    /// One per morph except the base morph.
    pub morph_names: Vec<SjisName<20>>,
    /// One per bone display frame name.
    pub display_names: Vec<SjisName<50>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody {
    pub name: SjisName<20>,
    /// 0xFFFF = none (PMD tools also use the centre bone here).
    pub bone: u16,
    pub group: u8,
    /// Bit i set = collides with group i.
    pub collision_mask: u16,
    /// 0 = sphere, 1 = box, 2 = capsule.
    pub shape: u8,
    pub size: [f32; 3],
    /// Relative to the bone's position (PMX stores absolute positions).
    pub position: [f32; 3],
    pub rotation: [f32; 3],
    pub mass: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub restitution: f32,
    pub friction: f32,
    /// 0 = follows bone, 1 = physics, 2 = physics + bone position.
    pub mode: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    pub name: SjisName<20>,
    pub body_a: u32,
    pub body_b: u32,
    pub position: [f32; 3],
    pub rotation: [f32; 3],
    pub translation_min: [f32; 3],
    pub translation_max: [f32; 3],
    pub rotation_min: [f32; 3],
    pub rotation_max: [f32; 3],
    pub spring_translation: [f32; 3],
    pub spring_rotation: [f32; 3],
}

/// A whole PMD file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pmd {
    pub header: Header,
    pub vertices: Vec<Vertex>,
    pub indices: Vec<u16>,
    pub materials: Vec<Material>,
    pub bones: Vec<Bone>,
    pub iks: Vec<Ik>,
    pub morphs: Vec<Morph>,
    /// Morph indices shown in the expression panel.
    pub morph_display: Vec<u16>,
    pub bone_display_names: Vec<SjisName<50>>,
    pub bone_display: Vec<BoneDisplay>,
    /// `None` when the file ends before the English flag, or the flag is 0.
    pub english: Option<English>,
    /// `true` when the file has the English flag byte even though it is 0.
    pub english_flag_present: bool,
    /// `None` when the file ends before the toon list.
    pub toon_textures: Option<[SjisName<100>; 10]>,
    /// `None` when the file ends before the physics sections.
    pub rigid_bodies: Option<Vec<RigidBody>>,
    /// `None` when the file ends after the rigid bodies.
    pub joints: Option<Vec<Joint>>,
}

/// PMD's morph rule, in one place for every crate that reads morphs: the first morph on
/// panel 0 is the *base* morph, which lists (vertex index, rest position) pairs; every other
/// morph's entries index into the base list rather than into the vertices. Panel-0 morphs are
/// not keyable: a motion's morph weights are indexed over the others, in file order.
impl Pmd {
    /// The base morph's (vertex, rest position) list (empty when the file has none).
    pub fn base_morph(&self) -> &[(u32, [f32; 3])] {
        self.morphs
            .iter()
            .find(|m| m.panel == 0)
            .map(|m| m.vertices.as_slice())
            .unwrap_or(&[])
    }

    /// The morphs a motion can key (every morph not on panel 0), in file order.
    pub fn keyed_morphs(&self) -> impl Iterator<Item = &Morph> {
        self.morphs.iter().filter(|m| m.panel != 0)
    }

    /// A keyed morph's entries as (model vertex index, offset), resolved through the base
    /// morph; `None` for an entry whose base index is past the base list.
    pub fn resolve_morph<'a>(
        &'a self,
        morph: &'a Morph,
    ) -> impl Iterator<Item = Option<(u32, [f32; 3])>> + 'a {
        let base = self.base_morph();
        morph
            .vertices
            .iter()
            .map(move |&(i, offset)| base.get(i as usize).map(|&(v, _)| (v, offset)))
    }
}
