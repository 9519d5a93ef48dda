//! DirectX `.x` files, the format of MikuMikuDance's accessories (stages, props): the parts
//! MMD draws, mirrored as plain data.
//!
//! A `.x` file is a 16-byte header (`xof 0303txt 0032`: version, encoding, float size) and
//! a tree of data objects. Four encodings exist: text (`txt `), a binary token stream
//! (`bin `), and either one compressed with MSZIP (`tzip`, `bzip`); floats are 32- or 64-bit
//! (`0032`, `0064`). The reader handles all of them; the writer writes text or binary,
//! uncompressed.
//!
//! Only what MMD uses is kept: `Frame` hierarchies with their `FrameTransformMatrix`,
//! `Mesh` (positions and polygons) with `MeshNormals`, `MeshTextureCoords`,
//! `MeshVertexColors` and `MeshMaterialList`, and `Material` with its `TextureFilename`.
//! Templates, animations, skin weights and any other data object are read past and dropped.
//! Names and strings are Shift-JIS (MMD's accessories name their textures in Japanese).
//!
//! [`to_pmx`] builds a static model from a file, as MMD draws an accessory.

mod binary;
mod header;
mod lex;
mod mszip;
mod read;
mod text;
pub mod texture;
mod to_pmx;
mod tree;
mod write;

pub use header::{Encoding, FloatSize, Header};
pub use read::parse;
pub use to_pmx::{ACCESSORY_SCALE, to_pmx};
pub use write::{write, write_binary, write_text};

/// A whole `.x` file: its header and the objects MMD draws, in file order within each list.
#[derive(Debug, Clone, PartialEq)]
pub struct XFile {
    pub header: Header,
    /// Materials at the top level, which meshes name by reference (`{ Name }`).
    pub materials: Vec<Material>,
    /// Top-level frames (each a hierarchy of frames and meshes).
    pub frames: Vec<Frame>,
    /// Top-level meshes, outside any frame.
    pub meshes: Vec<Mesh>,
}

/// A node of the hierarchy: its transform applies to its meshes and child frames.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Empty when the frame has no name.
    pub name: String,
    /// `FrameTransformMatrix`: 16 floats, row-major, for row vectors (`v' = v * M`, the
    /// translation in elements 12..15), as Direct3D stores it. `None`: identity.
    pub transform: Option<[f32; 16]>,
    pub frames: Vec<Frame>,
    pub meshes: Vec<Mesh>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// Empty when the mesh has no name.
    pub name: String,
    pub positions: Vec<[f32; 3]>,
    /// Polygons as position indices (any number of corners; MMD draws them as fans).
    pub faces: Vec<Vec<u32>>,
    pub normals: Option<MeshNormals>,
    /// One (u, v) per position.
    pub uvs: Option<Vec<[f32; 2]>>,
    pub colors: Option<Vec<VertexColor>>,
    pub material_list: Option<MaterialList>,
}

/// Normals indexed per face corner: `faces[i][k]` is the normal of corner `k` of face `i`.
#[derive(Debug, Clone, PartialEq)]
pub struct MeshNormals {
    pub normals: Vec<[f32; 3]>,
    pub faces: Vec<Vec<u32>>,
}

/// `MeshVertexColors` entry: the RGBA colour of one position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexColor {
    pub vertex: u32,
    pub color: [f32; 4],
}

/// Which material each face uses.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialList {
    /// Material index per face. Direct3D lets the list be shorter than the faces: the
    /// remaining faces take the last index.
    pub face_materials: Vec<u32>,
    pub materials: Vec<MaterialSlot>,
}

/// A material of a mesh's list: given inline, or naming a top-level [`Material`].
#[derive(Debug, Clone, PartialEq)]
pub enum MaterialSlot {
    Inline(Material),
    Reference(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Empty when the material has no name.
    pub name: String,
    /// RGBA: the diffuse colour and opacity.
    pub face_color: [f32; 4],
    /// Specular exponent.
    pub power: f32,
    pub specular: [f32; 3],
    pub emissive: [f32; 3],
    /// `TextureFilename`'s text as stored: MMD's `texture.png*sphere.sph` form included (see
    /// [`texture::split`]).
    pub texture: Option<String>,
}

impl XFile {
    /// Every mesh in the file with its frame's transform composed down the hierarchy
    /// (row-major, row vectors; `None` for identity), in file order: top-level meshes first,
    /// then each frame's meshes before its child frames'.
    pub fn meshes_with_transforms(&self) -> Vec<(&Mesh, Option<[f32; 16]>)> {
        let mut out: Vec<(&Mesh, Option<[f32; 16]>)> =
            self.meshes.iter().map(|m| (m, None)).collect();
        for frame in &self.frames {
            collect_frame(frame, None, &mut out);
        }
        out
    }
}

fn collect_frame<'a>(
    frame: &'a Frame,
    parent: Option<[f32; 16]>,
    out: &mut Vec<(&'a Mesh, Option<[f32; 16]>)>,
) {
    // Row vectors: a child's world matrix is its local matrix times its parent's.
    let world = match (frame.transform, parent) {
        (Some(local), Some(p)) => Some(mul(&local, &p)),
        (Some(local), None) => Some(local),
        (None, p) => p,
    };
    out.extend(frame.meshes.iter().map(|m| (m, world)));
    for child in &frame.frames {
        collect_frame(child, world, out);
    }
}

/// `a * b` for row-major 4×4 matrices.
fn mul(a: &[f32; 16], b: &[f32; 16]) -> [f32; 16] {
    let mut out = [0.0; 16];
    for r in 0..4 {
        for c in 0..4 {
            out[r * 4 + c] = (0..4).map(|k| a[r * 4 + k] * b[k * 4 + c]).sum();
        }
    }
    out
}
