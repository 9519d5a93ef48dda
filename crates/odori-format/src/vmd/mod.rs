//! VMD motions: bone, morph, camera, light, self-shadow and property keyframes.
//!
//! Names stay raw Shift-JIS bytes ([`SjisName`]) because MMD binds tracks to bones by bytes,
//! truncated to 15. The 64 interpolation bytes of a bone key are kept raw and decoded on demand
//! (`mmd-semantics.md` §2), with the per-bone physics flag that MMD hides in bytes 2 and 3.

mod read;
mod write;

pub use read::{parse, parse_with_diagnostics};
pub use write::write;

use crate::sjis::SjisName;

/// The magic of current VMD files (followed by NULs to 30 bytes).
pub const MAGIC_V2: &[u8] = b"Vocaloid Motion Data 0002";
/// The magic of the first VMD version, whose model name field is 10 bytes.
pub const MAGIC_V1: &[u8] = b"Vocaloid Motion Data file";
/// Bytes of one bone key record (name 15, frame 4, translation 12, rotation 16,
/// interpolation 64): most of a dance's file, so a file's size follows from its key count.
pub const BONE_KEY_SIZE: usize = 111;

/// A cubic Bezier easing curve from (0,0) to (1,1), control points in 0..=1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bezier {
    pub x1: f32,
    pub y1: f32,
    pub x2: f32,
    pub y2: f32,
}

impl Bezier {
    pub const LINEAR: Bezier = Bezier {
        x1: 20.0 / 127.0,
        y1: 20.0 / 127.0,
        x2: 107.0 / 127.0,
        y2: 107.0 / 127.0,
    };

    /// From four stored bytes (x1, y1, x2, y2), each 0..=127.
    pub fn from_bytes(x1: u8, y1: u8, x2: u8, y2: u8) -> Self {
        Bezier {
            x1: x1 as f32 / 127.0,
            y1: y1 as f32 / 127.0,
            x2: x2 as f32 / 127.0,
            y2: y2 as f32 / 127.0,
        }
    }

    /// A curve whose control points lie on the diagonal is the identity.
    pub fn is_linear(&self) -> bool {
        self.x1 == self.y1 && self.x2 == self.y2
    }
}

/// The four curves of a bone key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneCurves {
    pub x: Bezier,
    pub y: Bezier,
    pub z: Bezier,
    pub rotation: Bezier,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BoneKey {
    pub name: SjisName<15>,
    pub frame: u32,
    pub translation: [f32; 3],
    /// Quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    pub interpolation: [u8; 64],
}

impl BoneKey {
    /// Curves read from the row-diagonal bytes (X: 0,4,8,12; Y: 16,20,24,28; Z: 32,...;
    /// rotation: 48,...), which MMD's physics flag in bytes 2 and 3 does not touch.
    pub fn curves(&self) -> BoneCurves {
        let c = |o: usize| {
            let b = &self.interpolation;
            Bezier::from_bytes(b[o], b[o + 4], b[o + 8], b[o + 12])
        };
        BoneCurves {
            x: c(0),
            y: c(16),
            z: c(32),
            rotation: c(48),
        }
    }

    /// MMD writes `0x63 0x0F` into bytes 2 and 3 to turn physics off for this bone from this
    /// key on; anything else means on.
    pub fn physics_disabled(&self) -> bool {
        self.interpolation[2] == 0x63 && self.interpolation[3] == 0x0F
    }

    /// The canonical 64 bytes MMD writes for the given curves (rows shifted by one byte), as
    /// older MMD versions wrote them: every key of wavefile_v2.vmd matches byte for byte.
    /// MMD 9 differs in ways readers ignore: it writes `00 00` into bytes 2 and 3 when physics
    /// stays on, and zeros (sometimes stale memory) where rows 1..3 end in a 1 here.
    pub fn encode_curves(curves: &BoneCurves, physics_disabled: bool) -> [u8; 64] {
        let q = |v: f32| (v * 127.0).round().clamp(0.0, 127.0) as u8;
        let mut first = [0u8; 16];
        for (axis, c) in [curves.x, curves.y, curves.z, curves.rotation]
            .iter()
            .enumerate()
        {
            first[axis] = q(c.x1);
            first[4 + axis] = q(c.y1);
            first[8 + axis] = q(c.x2);
            first[12 + axis] = q(c.y2);
        }
        let mut out = [0u8; 64];
        for row in 0..4 {
            for i in 0..16 {
                let src = i + row;
                out[row * 16 + i] = if src < 16 { first[src] } else { 0 };
            }
        }
        // MMD's rows 1..3 end with a 1 then zeros where the shifted copy runs out.
        out[31] = 0;
        for row in 1..4 {
            out[row * 16 + 16 - row] = 1;
        }
        if physics_disabled {
            out[2] = 0x63;
            out[3] = 0x0F;
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct MorphKey {
    pub name: SjisName<15>,
    pub frame: u32,
    pub weight: f32,
}

/// Camera curves (x, y, z, rotation, distance, fov).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraCurves {
    pub x: Bezier,
    pub y: Bezier,
    pub z: Bezier,
    pub rotation: Bezier,
    pub distance: Bezier,
    pub fov: Bezier,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CameraKey {
    pub frame: u32,
    /// Negative = the eye is in front of the target.
    pub distance: f32,
    pub target: [f32; 3],
    /// Euler angles, radians.
    pub rotation: [f32; 3],
    pub interpolation: [u8; 24],
    /// Degrees.
    pub fov: u32,
    /// Stored byte: 0 = perspective on, 1 = orthographic.
    pub perspective_off: u8,
}

impl CameraKey {
    /// Six groups of four bytes, each (x1, x2, y1, y2) — MMDAgent's / babylon-mmd's reading
    /// (`mmd-semantics.md` §2, unverified against MMD itself).
    pub fn curves(&self) -> CameraCurves {
        let c = |g: usize| {
            let b = &self.interpolation[g * 4..g * 4 + 4];
            Bezier::from_bytes(b[0], b[2], b[1], b[3])
        };
        CameraCurves {
            x: c(0),
            y: c(1),
            z: c(2),
            rotation: c(3),
            distance: c(4),
            fov: c(5),
        }
    }

    /// The 24 bytes [`CameraKey::curves`] reads back as `curves` (each 0..=127 after rounding).
    pub fn encode_curves(curves: &CameraCurves) -> [u8; 24] {
        let q = |v: f32| (v * 127.0).round().clamp(0.0, 127.0) as u8;
        let mut out = [0u8; 24];
        let groups = [
            curves.x,
            curves.y,
            curves.z,
            curves.rotation,
            curves.distance,
            curves.fov,
        ];
        for (g, c) in groups.iter().enumerate() {
            out[g * 4..g * 4 + 4].copy_from_slice(&[q(c.x1), q(c.x2), q(c.y1), q(c.y2)]);
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct LightKey {
    pub frame: u32,
    pub color: [f32; 3],
    pub direction: [f32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct SelfShadowKey {
    pub frame: u32,
    /// 0 = off, 1 = mode 1, 2 = mode 2.
    pub mode: u8,
    pub distance: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IkState {
    pub name: SjisName<20>,
    pub enabled: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PropertyKey {
    pub frame: u32,
    pub visible: u8,
    pub ik: Vec<IkState>,
}

/// A whole VMD file.
#[derive(Debug, Clone, PartialEq)]
pub struct Vmd {
    /// The 30-byte magic field as stored ([`MAGIC_V2`] or [`MAGIC_V1`], NUL padded).
    pub magic: [u8; 30],
    /// 20 bytes in version 2; version 1 files store 10 (the rest is zero here).
    pub model_name: SjisName<20>,
    pub bones: Vec<BoneKey>,
    pub morphs: Vec<MorphKey>,
    pub cameras: Vec<CameraKey>,
    pub lights: Vec<LightKey>,
    pub self_shadows: Vec<SelfShadowKey>,
    pub properties: Vec<PropertyKey>,
    /// How many of the six section counts the file contains (trailing sections may be absent);
    /// the writer writes at least this many, and every non-empty section.
    pub sections_present: u8,
}

impl Vmd {
    /// True for files with the first version's 10-byte model name.
    pub fn is_version1(&self) -> bool {
        self.magic.starts_with(MAGIC_V1)
    }
}

#[cfg(test)]
mod tests;
