//! PMM projects ("Polygon Movie maker"): MikuMikuDance's own project file, holding every model
//! with its keys, the camera, light, accessories, gravity, self-shadow and the editor's state.
//!
//! Raw layer: each struct holds exactly what its section of the file says, in file order, so a
//! file read then written gives back its bytes. Fixed-size name fields keep the bytes after the
//! terminating NUL ([`SjisName`]): MMD leaves the old contents of its buffers there.
//!
//! Keys are stored as MMD keeps them in memory: per track (bone, morph, model, camera, ...) an
//! *initial* key, then one flat list of *linked* keys for the whole section. Every key carries
//! the indices of its previous and next key in the track; an index counts the initial keys
//! first, then the linked list, and 0 ends a track (index 0 is always an initial key, which is
//! never anyone's successor). A linked key's frame is absolute. [`track`] walks one track.
//!
//! Version 2 (MMD 7.x and later) stores each model's bone and morph names; version 1 does not,
//! so its per-bone sections can only be sized from the model file: [`parse_v1`] takes the
//! counts from the caller.
//!
//! Layout learned from public readers: nanoem's `document.c`, PMMEditor's `PmmReader.cs`,
//! MikuMikuMethods' `PmmFileReader.cs`.

mod read;
mod to_vmd;
mod track;
mod write;

pub use read::{ModelShape, parse, parse_v1, parse_with_diagnostics};
pub use to_vmd::{
    CAMERA_MODEL_NAME, KeyTracks, Warning, camera_follow_warnings, camera_motion,
    cut_name_warnings, model_motion, model_motion_tracks,
};
pub use track::{Keyed, LinkProblem, Track, track};
pub use write::write;

use crate::sjis::{SjisName, decode_sjis};

/// Magic of version 2 files (followed by NULs and stale bytes to 30 bytes).
pub const MAGIC_V2: &[u8] = b"Polygon Movie maker 0002";
/// Magic of version 1 files (MMD 5.x and 6.x).
pub const MAGIC_V1: &[u8] = b"Polygon Movie maker 0001";

/// A name stored as a one-byte length then that many Shift-JIS bytes (version 2's model, bone
/// and morph names).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct VarText(pub Vec<u8>);

impl VarText {
    /// The decoded text.
    pub fn text(&self) -> String {
        decode_sjis(&self.0).into_owned()
    }
}

impl std::fmt::Debug for VarText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.text())
    }
}

/// The frame and the track links every key starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyLink {
    /// Absolute frame.
    pub frame: i32,
    /// Index of the previous key of the track (0 for the initial key).
    pub previous: i32,
    /// Index of the next key of the track; 0 ends the track.
    pub next: i32,
}

/// A key of a section's linked list: the index it is known by (initial keys counted first),
/// then the key.
#[derive(Debug, Clone, PartialEq)]
pub struct Linked<K> {
    pub index: i32,
    pub key: K,
}

/// Which model and which of its bones something follows (-1, -1 for none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParentRef {
    pub model: i32,
    pub bone: i32,
}

impl ParentRef {
    pub const NONE: ParentRef = ParentRef {
        model: -1,
        bone: -1,
    };
}

/// Four bytes of one cubic curve as PMM stores them: x1, y1, x2, y2, each 0..=127.
pub type Curve = [u8; 4];

#[derive(Debug, Clone, PartialEq)]
pub struct BoneKey {
    pub link: KeyLink,
    /// Curves for X, Y, Z translation and rotation.
    pub curves: [Curve; 4],
    pub translation: [f32; 3],
    /// Quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    pub selected: u8,
    /// Version 2: nonzero turns physics off for this bone from this key on (version 1: 0,
    /// not stored).
    pub physics_disabled: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MorphKey {
    pub link: KeyLink,
    pub weight: f32,
    pub selected: u8,
}

/// A model key: visibility, IK on/off per IK bone, outside parent per outside-parent bone.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelKey {
    pub link: KeyLink,
    pub visible: u8,
    /// One byte per entry of [`Model::ik_bones`] (nonzero = IK on).
    pub ik_enabled: Vec<u8>,
    /// Version 2: one per entry of [`Model::outside_parent_bones`].
    pub outside_parents: Vec<ParentRef>,
    pub selected: u8,
}

/// A bone's unkeyed editing state (what the user moved without registering a key).
#[derive(Debug, Clone, PartialEq)]
pub struct BoneState {
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    /// Version 1 only: a 4-byte field of unknown meaning (0 in version 2, not stored).
    pub v1_unknown: i32,
    pub dirty: u8,
    /// Version 2 only (0 in version 1, not stored).
    pub physics_disabled: u8,
    pub tracks_selected: u8,
}

/// The outside parent an outside-parent bone has in the editor, over a range of frames.
#[derive(Debug, Clone, PartialEq)]
pub struct OutsideParentState {
    pub begin: i32,
    pub end: i32,
    pub parent: ParentRef,
}

/// A model's name fields, which differ between the versions.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelName {
    /// Version 2: Japanese and English names, length-prefixed.
    V2 { japanese: VarText, english: VarText },
    /// Version 1: one 20-byte field.
    V1(SjisName<20>),
}

impl ModelName {
    /// The Japanese (version 1: the only) name.
    pub fn text(&self) -> String {
        match self {
            ModelName::V2 { japanese, .. } => japanese.text(),
            ModelName::V1(n) => n.text(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// The model's slot number.
    pub index: u8,
    pub name: ModelName,
    /// The model file, a Windows path (see `odori-playback`'s path resolution).
    pub path: SjisName<256>,
    /// Version 2: how many timeline rows are fixed at the top.
    pub fixed_tracks: u8,
    /// Version 2: the model's bone names, in model order (version 1: empty).
    pub bone_names: Vec<VarText>,
    /// Version 2: the model's morph names, in model order.
    pub morph_names: Vec<VarText>,
    /// Version 2: the bones (indices into `bone_names`) that are IK bones.
    pub ik_bones: Vec<i32>,
    /// Version 2: the bones that can take an outside parent.
    pub outside_parent_bones: Vec<i32>,
    pub draw_order: u8,
    pub visible: u8,
    pub selected_bone: i32,
    pub selected_morphs: [i32; 4],
    /// Timeline rows expanded (count is one byte).
    pub expanded: Vec<u8>,
    pub vertical_scroll: i32,
    pub last_frame: i32,
    /// One per bone.
    pub initial_bone_keys: Vec<BoneKey>,
    pub bone_keys: Vec<Linked<BoneKey>>,
    /// One per morph.
    pub initial_morph_keys: Vec<MorphKey>,
    pub morph_keys: Vec<Linked<MorphKey>>,
    pub initial_model_key: ModelKey,
    pub model_keys: Vec<Linked<ModelKey>>,
    /// One per bone.
    pub bone_states: Vec<BoneState>,
    /// One weight per morph.
    pub morph_states: Vec<f32>,
    /// One byte per IK bone.
    pub ik_states: Vec<u8>,
    /// One per outside-parent bone.
    pub outside_parent_states: Vec<OutsideParentState>,
    /// Version 2 (0 in version 1, not stored): the remaining fields.
    pub add_blend: u8,
    pub edge_width: f32,
    pub self_shadow: u8,
    /// Where the model sits in the evaluation order (outside parents).
    pub evaluation_order: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CameraKey {
    pub link: KeyLink,
    /// Negative = the eye is in front of the target, as in VMD.
    pub distance: f32,
    pub target: [f32; 3],
    /// Euler angles, radians.
    pub rotation: [f32; 3],
    /// Version 2: the model and bone the camera follows.
    pub parent: ParentRef,
    /// Curves for target X, Y, Z, rotation, field of view and distance (nanoem's order).
    pub curves: [Curve; 6],
    /// 0 = perspective, as in VMD.
    pub perspective_off: u8,
    /// Degrees.
    pub fov: i32,
    pub selected: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Camera {
    pub initial_key: CameraKey,
    pub keys: Vec<Linked<CameraKey>>,
    /// The unkeyed editing state.
    pub target: [f32; 3],
    pub position: [f32; 3],
    pub rotation: [f32; 3],
    pub perspective_off: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LightKey {
    pub link: KeyLink,
    pub color: [f32; 3],
    pub direction: [f32; 3],
    pub selected: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Light {
    pub initial_key: LightKey,
    pub keys: Vec<Linked<LightKey>>,
    pub color: [f32; 3],
    pub direction: [f32; 3],
}

#[derive(Debug, Clone, PartialEq)]
pub struct AccessoryKey {
    pub link: KeyLink,
    /// Bit 0: visible; bits 1..7: transparency in percent (opacity = 1 - t/100).
    pub opacity_visible: u8,
    pub parent: ParentRef,
    pub translation: [f32; 3],
    /// Euler angles, radians.
    pub rotation: [f32; 3],
    pub scale: f32,
    pub shadow: u8,
    pub selected: u8,
}

/// Opacity (0..=1) and visibility from an accessory's packed byte.
pub fn unpack_opacity_visible(byte: u8) -> (f32, bool) {
    let transparency = f32::from(byte >> 1);
    ((100.0 - transparency) * 0.01, byte & 1 != 0)
}

#[derive(Debug, Clone, PartialEq)]
pub struct Accessory {
    pub index: u8,
    pub name: SjisName<100>,
    /// The `.x` or `.vac` file, a Windows path.
    pub path: SjisName<256>,
    pub draw_order: u8,
    pub initial_key: AccessoryKey,
    pub keys: Vec<Linked<AccessoryKey>>,
    /// The unkeyed editing state.
    pub opacity_visible: u8,
    pub parent: ParentRef,
    pub translation: [f32; 3],
    pub scale: f32,
    pub rotation: [f32; 3],
    pub shadow: u8,
    /// Version 2 (0 in version 1, not stored).
    pub add_blend: u8,
}

/// The fixed header after the magic.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    pub output_width: i32,
    pub output_height: i32,
    pub timeline_width: i32,
    /// The editor view's field of view, degrees.
    pub view_fov: f32,
    /// Camera/light/accessory mode (nonzero) or model mode.
    pub camera_mode: u8,
    /// Which timeline panels are expanded: camera, light, accessory, bone, morph, and in
    /// version 2 self-shadow (version 1 stores five; the sixth is 0, not stored).
    pub panels_expanded: [u8; 6],
}

/// Playback and timeline state after the accessories.
#[derive(Debug, Clone, PartialEq)]
pub struct Playback {
    pub current_frame: i32,
    pub horizontal_scroll: i32,
    pub horizontal_scroll_thumb: i32,
    pub editing_mode: i32,
    pub camera_look_mode: u8,
    pub repeat: u8,
    pub begin_enabled: u8,
    pub end_enabled: u8,
    /// The playback range (used when the flags above are set).
    pub begin_frame: i32,
    pub end_frame: i32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Audio {
    pub enabled: u8,
    pub path: SjisName<256>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BackgroundVideo {
    pub offset: [i32; 2],
    pub scale: f32,
    pub path: SjisName<256>,
    /// A 4-byte flag.
    pub enabled: i32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BackgroundImage {
    pub offset: [i32; 2],
    pub scale: f32,
    pub path: SjisName<256>,
    pub enabled: u8,
}

/// View settings after the background.
#[derive(Debug, Clone, PartialEq)]
pub struct Display {
    pub info_shown: u8,
    pub grid_shown: u8,
    pub ground_shadow_shown: u8,
    pub fps: f32,
    pub screen_capture_mode: i32,
    /// How many accessories are drawn before the models.
    pub accessories_before_models: i32,
    pub ground_shadow_brightness: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GravityKey {
    pub link: KeyLink,
    pub noise_enabled: u8,
    pub noise: i32,
    pub acceleration: f32,
    pub direction: [f32; 3],
    pub selected: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Gravity {
    pub acceleration: f32,
    pub noise: i32,
    pub direction: [f32; 3],
    pub noise_enabled: u8,
    pub initial_key: GravityKey,
    pub keys: Vec<Linked<GravityKey>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SelfShadowKey {
    pub link: KeyLink,
    /// 0 = off, 1 = mode 1, 2 = mode 2, as in VMD.
    pub mode: u8,
    /// As VMD stores it (MMD's UI shows 10000 - distance * 100000).
    pub distance: f32,
    pub selected: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SelfShadow {
    pub enabled: u8,
    pub distance: f32,
    pub initial_key: SelfShadowKey,
    pub keys: Vec<Linked<SelfShadowKey>>,
}

/// A model's place in the selection list at the end of version 2 files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelSelection {
    pub model: u8,
    pub selection: i32,
}

/// Version 2's sections after the display settings.
#[derive(Debug, Clone, PartialEq)]
pub struct V2Tail {
    pub translucent_ground_shadow: u8,
    /// 0 off, 1 always, 2 while playing, 3 tracing (nanoem's names).
    pub physics_mode: u8,
    pub gravity: Gravity,
    pub self_shadow: SelfShadow,
    /// Edge colour, 0..=255 per channel, stored as three i32.
    pub edge_color: [i32; 3],
    pub black_background: u8,
    /// The model and bone the camera looks at (-1 for none).
    pub camera_look_at: ParentRef,
    /// 16 floats of unknown meaning (an identity matrix in MMD's sample).
    pub unknown_matrix: [f32; 16],
    pub follow_look_at: u8,
    pub unknown_flag: u8,
    pub physics_ground: u8,
    pub frame_in_text_field: i32,
    /// The flag byte before the selection list; `None` when the file ends before it.
    pub selection_flag: Option<u8>,
    /// Present when `selection_flag` is nonzero: one entry per model.
    pub selections: Vec<ModelSelection>,
}

/// A whole PMM file.
#[derive(Debug, Clone, PartialEq)]
pub struct Pmm {
    /// The 30-byte magic field as stored ([`MAGIC_V2`] or [`MAGIC_V1`], then NUL and stale
    /// bytes).
    pub magic: [u8; 30],
    pub header: Header,
    pub selected_model: u8,
    /// Version 1: the model name list stored before the models (version 2: empty).
    pub v1_model_names: Vec<SjisName<20>>,
    pub models: Vec<Model>,
    pub camera: Camera,
    pub light: Light,
    pub selected_accessory: u8,
    pub accessory_scroll: i32,
    /// The accessory name list stored before the accessories.
    pub accessory_names: Vec<SjisName<100>>,
    pub accessories: Vec<Accessory>,
    pub playback: Playback,
    pub audio: Audio,
    pub background_video: BackgroundVideo,
    pub background_image: BackgroundImage,
    pub display: Display,
    /// Version 2 only.
    pub v2: Option<V2Tail>,
    /// Bytes after the last known field (version 1's unknown tail), kept for the writer.
    pub trailing: Vec<u8>,
}

impl Pmm {
    /// True for version 1 files.
    pub fn is_version1(&self) -> bool {
        self.magic.starts_with(MAGIC_V1)
    }

    /// The bone a model's bone index names (version 2), when in range.
    pub fn bone_name(&self, model: i32, bone: i32) -> Option<&VarText> {
        let m = self.models.get(usize::try_from(model).ok()?)?;
        m.bone_names.get(usize::try_from(bone).ok()?)
    }
}
