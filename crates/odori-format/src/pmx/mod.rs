//! PMX 2.0 / 2.1 models: plain data mirroring the file field for field.
//!
//! Indices are kept as stored: vertex indices unsigned (`u32`), every other index signed
//! (`i32`, −1 = none). Fields that only exist under a flag are `Option`s whose presence
//! follows the flag. Reading then writing a file gives back the same bytes whenever the file
//! is canonical (see `read` and `write`).

mod read;
mod write;

pub use read::{parse, parse_with_diagnostics, section_offsets};
pub use write::write;

/// `index` names one of `len` elements, or is −1 (none).
fn index_in_range(index: i32, len: usize) -> bool {
    index == -1 || usize::try_from(index).is_ok_and(|i| i < len)
}

/// Text encoding of every string in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    Utf16Le,
    Utf8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// 2.0 or 2.1.
    pub version: f32,
    pub encoding: TextEncoding,
    /// Additional vec4 UVs per vertex, 0..=4.
    pub additional_uvs: u8,
    /// Byte sizes (1, 2 or 4) of each kind of index.
    pub vertex_index_size: u8,
    pub texture_index_size: u8,
    pub material_index_size: u8,
    pub bone_index_size: u8,
    pub morph_index_size: u8,
    pub rigid_body_index_size: u8,
    /// Globals beyond the eight defined ones (the globals block declares its own length).
    pub extra_globals: Vec<u8>,
}

impl Header {
    /// PMX 2.0, UTF-16, no additional UVs and 4-byte indices everywhere: a header any model
    /// built in code can be written with.
    pub fn wide() -> Header {
        Header {
            version: 2.0,
            encoding: TextEncoding::Utf16Le,
            additional_uvs: 0,
            vertex_index_size: 4,
            texture_index_size: 4,
            material_index_size: 4,
            bone_index_size: 4,
            morph_index_size: 4,
            rigid_body_index_size: 4,
            extra_globals: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelInfo {
    pub name: String,
    pub name_en: String,
    pub comment: String,
    pub comment_en: String,
}

/// Bone weights of one vertex.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Weights {
    Bdef1 {
        bone: i32,
    },
    /// `weight` is bone 0's; bone 1 gets `1 - weight`.
    Bdef2 {
        bones: [i32; 2],
        weight: f32,
    },
    Bdef4 {
        bones: [i32; 4],
        weights: [f32; 4],
    },
    /// Spherical deformation: `weight` as BDEF2, plus the centre C and the two reference points.
    Sdef {
        bones: [i32; 2],
        weight: f32,
        c: [f32; 3],
        r0: [f32; 3],
        r1: [f32; 3],
    },
    /// Dual-quaternion skinning (PMX 2.1).
    Qdef {
        bones: [i32; 4],
        weights: [f32; 4],
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Vertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
    /// Only the first `header.additional_uvs` entries are stored in the file; the rest are zero.
    pub additional_uvs: [[f32; 4]; 4],
    pub weights: Weights,
    pub edge_scale: f32,
}

/// Material flag bits.
pub mod material_flags {
    pub const DOUBLE_SIDED: u8 = 0x01;
    pub const GROUND_SHADOW: u8 = 0x02;
    pub const CAST_SELF_SHADOW: u8 = 0x04;
    pub const RECEIVE_SELF_SHADOW: u8 = 0x08;
    pub const EDGE: u8 = 0x10;
    /// PMX 2.1.
    pub const VERTEX_COLOR: u8 = 0x20;
    pub const POINT_DRAW: u8 = 0x40;
    pub const LINE_DRAW: u8 = 0x80;
}

/// How a material's toon ramp is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toon {
    /// Index into the model's texture table (−1 = none).
    Texture(i32),
    /// One of MMD's shared `toon01.bmp`..`toon10.bmp`, 0-based (stored as a byte).
    Shared(u8),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: String,
    pub name_en: String,
    pub diffuse: [f32; 4],
    pub specular: [f32; 3],
    pub specular_power: f32,
    pub ambient: [f32; 3],
    /// See [`material_flags`].
    pub flags: u8,
    pub edge_color: [f32; 4],
    pub edge_size: f32,
    pub texture: i32,
    pub sphere_texture: i32,
    /// 0 = none, 1 = multiply, 2 = add, 3 = sub-texture (additional UV 1).
    pub sphere_mode: u8,
    pub toon: Toon,
    pub memo: String,
    /// Number of face indices (3 per triangle) this material draws, in order.
    pub index_count: i32,
}

impl Material {
    /// A material as PMX editors create it: white diffuse, ambient 0.5, no specular (power
    /// 5), black edge of size 1, shared toon 01, no textures, no flags; drawing
    /// `index_count` face indices. For models built in code: override fields with
    /// `Material { diffuse, ..Material::new(name, n) }`.
    pub fn new(name: &str, index_count: i32) -> Material {
        Material {
            name: name.into(),
            name_en: String::new(),
            diffuse: [1.0; 4],
            specular: [0.0; 3],
            specular_power: 5.0,
            ambient: [0.5; 3],
            flags: 0,
            edge_color: [0.0, 0.0, 0.0, 1.0],
            edge_size: 1.0,
            texture: -1,
            sphere_texture: -1,
            sphere_mode: 0,
            toon: Toon::Shared(0),
            memo: String::new(),
            index_count,
        }
    }
}

/// Bone flag bits.
pub mod bone_flags {
    /// Tail given as a bone index rather than an offset.
    pub const TAIL_IS_BONE: u16 = 0x0001;
    pub const ROTATABLE: u16 = 0x0002;
    pub const TRANSLATABLE: u16 = 0x0004;
    pub const VISIBLE: u16 = 0x0008;
    pub const ENABLED: u16 = 0x0010;
    pub const IK: u16 = 0x0020;
    pub const APPEND_LOCAL: u16 = 0x0080;
    pub const APPEND_ROTATE: u16 = 0x0100;
    pub const APPEND_TRANSLATE: u16 = 0x0200;
    pub const FIXED_AXIS: u16 = 0x0400;
    pub const LOCAL_AXES: u16 = 0x0800;
    pub const AFTER_PHYSICS: u16 = 0x1000;
    pub const EXTERNAL_PARENT: u16 = 0x2000;
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BoneTail {
    Offset([f32; 3]),
    Bone(i32),
}

/// Append (付与): copy `ratio` × the motion of bone `parent`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Append {
    pub parent: i32,
    pub ratio: f32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalAxes {
    pub x: [f32; 3],
    pub z: [f32; 3],
}

/// Euler-angle limits of an IK link, radians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkLimits {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IkLink {
    pub bone: i32,
    pub limits: Option<IkLimits>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ik {
    /// The effector bone that the solver moves onto this (IK) bone.
    pub target: i32,
    pub loop_count: i32,
    /// Per-step angle limit ("unit angle"), radians.
    pub limit_angle: f32,
    /// From the effector side to the root side.
    pub links: Vec<IkLink>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    pub name: String,
    pub name_en: String,
    pub position: [f32; 3],
    pub parent: i32,
    /// Deform layer (変形階層).
    pub layer: i32,
    /// See [`bone_flags`].
    pub flags: u16,
    pub tail: BoneTail,
    /// Present when APPEND_ROTATE or APPEND_TRANSLATE is set.
    pub append: Option<Append>,
    /// Present when FIXED_AXIS is set.
    pub fixed_axis: Option<[f32; 3]>,
    /// Present when LOCAL_AXES is set.
    pub local_axes: Option<LocalAxes>,
    /// Present when EXTERNAL_PARENT is set: the external parent key.
    pub external_parent: Option<i32>,
    /// Present when IK is set.
    pub ik: Option<Ik>,
}

impl Bone {
    pub fn has(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupOffset {
    pub morph: i32,
    pub ratio: f32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexOffset {
    pub vertex: u32,
    pub offset: [f32; 3],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneOffset {
    pub bone: i32,
    pub translation: [f32; 3],
    /// Quaternion (x, y, z, w).
    pub rotation: [f32; 4],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvOffset {
    pub vertex: u32,
    pub offset: [f32; 4],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialOffset {
    /// −1 = every material.
    pub material: i32,
    /// 0 = multiply, 1 = add.
    pub operation: u8,
    pub diffuse: [f32; 4],
    pub specular: [f32; 3],
    pub specular_power: f32,
    pub ambient: [f32; 3],
    pub edge_color: [f32; 4],
    pub edge_size: f32,
    pub texture_tint: [f32; 4],
    pub sphere_tint: [f32; 4],
    pub toon_tint: [f32; 4],
}

impl MaterialOffset {
    /// A multiply offset that changes nothing (every factor 1) on `material` (−1 = every
    /// material). For morphs built in code: `MaterialOffset { diffuse, ..multiply(m) }`.
    pub fn multiply(material: i32) -> MaterialOffset {
        MaterialOffset::uniform(material, 0, 1.0)
    }

    /// An add offset that changes nothing (every term 0) on `material` (−1 = every material).
    pub fn add(material: i32) -> MaterialOffset {
        MaterialOffset::uniform(material, 1, 0.0)
    }

    /// Operation `operation` on `material` with every field `value`.
    fn uniform(material: i32, operation: u8, value: f32) -> MaterialOffset {
        MaterialOffset {
            material,
            operation,
            diffuse: [value; 4],
            specular: [value; 3],
            specular_power: value,
            ambient: [value; 3],
            edge_color: [value; 4],
            edge_size: value,
            texture_tint: [value; 4],
            sphere_tint: [value; 4],
            toon_tint: [value; 4],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImpulseOffset {
    pub rigid_body: i32,
    /// Non-zero: velocity and torque are in the body's local frame.
    pub local: u8,
    pub velocity: [f32; 3],
    pub torque: [f32; 3],
}

/// The offsets of a morph; the variant is the morph type.
#[derive(Debug, Clone, PartialEq)]
pub enum MorphOffsets {
    /// Type 0.
    Group(Vec<GroupOffset>),
    /// Type 1.
    Vertex(Vec<VertexOffset>),
    /// Type 2.
    Bone(Vec<BoneOffset>),
    /// Types 3..=7: `channel` 0 is the main UV (type 3), 1..=4 the additional UVs (types 4..=7).
    Uv { channel: u8, offsets: Vec<UvOffset> },
    /// Type 8.
    Material(Vec<MaterialOffset>),
    /// Type 9 (PMX 2.1).
    Flip(Vec<GroupOffset>),
    /// Type 10 (PMX 2.1).
    Impulse(Vec<ImpulseOffset>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Morph {
    pub name: String,
    pub name_en: String,
    /// Control panel: 0 = system, 1 = eyebrow, 2 = eye, 3 = mouth, 4 = other.
    pub panel: u8,
    pub offsets: MorphOffsets,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisplayItem {
    Bone(i32),
    Morph(i32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct DisplayFrame {
    pub name: String,
    pub name_en: String,
    /// 1 = special frame (Root, 表情).
    pub special: u8,
    pub items: Vec<DisplayItem>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody {
    pub name: String,
    pub name_en: String,
    /// −1 = not attached.
    pub bone: i32,
    /// Collision group 0..=15.
    pub group: u8,
    /// Bit i set = collides with group i ("non-collision" groups are the cleared bits).
    pub collision_mask: u16,
    /// 0 = sphere, 1 = box, 2 = capsule.
    pub shape: u8,
    pub size: [f32; 3],
    pub position: [f32; 3],
    /// Euler angles, radians.
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
    pub name: String,
    pub name_en: String,
    /// 0 = spring 6-DOF (PMX 2.0's only type); 2.1: 1 = 6-DOF, 2 = point-to-point,
    /// 3 = cone twist, 4 = slider, 5 = hinge. All share one layout.
    pub kind: u8,
    pub body_a: i32,
    pub body_b: i32,
    pub position: [f32; 3],
    pub rotation: [f32; 3],
    pub translation_min: [f32; 3],
    pub translation_max: [f32; 3],
    pub rotation_min: [f32; 3],
    pub rotation_max: [f32; 3],
    pub spring_translation: [f32; 3],
    pub spring_rotation: [f32; 3],
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoftBodyAnchor {
    pub rigid_body: i32,
    pub vertex: u32,
    pub near_mode: u8,
}

/// PMX 2.1 soft body (Bullet btSoftBody parameters, stored as given).
#[derive(Debug, Clone, PartialEq)]
pub struct SoftBody {
    pub name: String,
    pub name_en: String,
    /// 0 = triangle mesh, 1 = rope.
    pub shape: u8,
    pub material: i32,
    pub group: u8,
    pub collision_mask: u16,
    /// 0x01 B-link, 0x02 cluster creation, 0x04 link crossing.
    pub flags: u8,
    pub b_link_distance: i32,
    pub cluster_count: i32,
    pub total_mass: f32,
    pub collision_margin: f32,
    pub aero_model: i32,
    /// VCF, DP, DG, LF, PR, VC, DF, MT, CHR, KHR, SHR, AHR.
    pub config: [f32; 12],
    /// SRHR_CL, SKHR_CL, SSHR_CL, SR_SPLT_CL, SK_SPLT_CL, SS_SPLT_CL.
    pub cluster: [f32; 6],
    /// V_IT, P_IT, D_IT, C_IT.
    pub iterations: [i32; 4],
    /// LST, AST, VST.
    pub material_coefficients: [f32; 3],
    pub anchors: Vec<SoftBodyAnchor>,
    /// Pinned vertex indices.
    pub pins: Vec<u32>,
}

/// A whole PMX file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pmx {
    pub header: Header,
    pub info: ModelInfo,
    pub vertices: Vec<Vertex>,
    /// Face vertex indices, three per triangle.
    pub indices: Vec<u32>,
    pub textures: Vec<String>,
    pub materials: Vec<Material>,
    pub bones: Vec<Bone>,
    pub morphs: Vec<Morph>,
    pub display_frames: Vec<DisplayFrame>,
    pub rigid_bodies: Vec<RigidBody>,
    pub joints: Vec<Joint>,
    /// PMX 2.1 only; a 2.0 file has none (and a 2.0 file with soft bodies cannot be written).
    pub soft_bodies: Vec<SoftBody>,
}
