//! PMM reader.
//!
//! The file is one run of fields with no section table: header, models, camera, light,
//! accessories, playback state, audio, background video and image, display settings, then (in
//! version 2) physics, gravity, self-shadow and the view's last settings. Per-bone, per-morph
//! and per-IK runs take their counts from the model's name tables (version 2) or from the
//! caller (version 1). Errors inside a model name the model's slot as their element.

use super::{
    Accessory, AccessoryKey, Audio, BackgroundImage, BackgroundVideo, BoneKey, BoneState, Camera,
    CameraKey, Curve, Display, Gravity, GravityKey, Header, KeyLink, Light, LightKey, Linked,
    MAGIC_V1, MAGIC_V2, Model, ModelKey, ModelName, ModelSelection, MorphKey, OutsideParentState,
    ParentRef, Playback, Pmm, SelfShadow, SelfShadowKey, V2Tail, VarText,
};
use crate::cursor::Cursor;
use crate::error::{Diagnostic, ErrorKind, Format, Result};
use crate::sjis::SjisName;

/// Bytes of a key's frame and links.
const LINK: usize = 12;
/// Bytes of a linked key's own index.
const INDEX: usize = 4;

/// What a version 1 file needs from a model's file to size its per-bone runs: version 1 does
/// not store the model's bone, morph and IK counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelShape {
    pub bones: usize,
    pub morphs: usize,
    pub iks: usize,
}

/// Parse a PMM file; diagnostics are dropped (see [`parse_with_diagnostics`]).
pub fn parse(bytes: &[u8]) -> Result<Pmm> {
    parse_with_diagnostics(bytes).map(|(p, _)| p)
}

/// Parse a PMM file, also returning what was wrong but tolerated (non-finite floats, which
/// are kept as stored). A version 1 file fails here: see [`parse_v1`].
pub fn parse_with_diagnostics(bytes: &[u8]) -> Result<(Pmm, Vec<Diagnostic>)> {
    read_file(bytes, None)
}

/// Parse a PMM file of either version; for version 1, `shape(slot, path)` gives the bone,
/// morph and IK counts of the model file at `path` (None: the model cannot be read, which
/// fails the read at that model).
pub fn parse_v1(
    bytes: &[u8],
    shape: &mut dyn FnMut(usize, &SjisName<256>) -> Option<ModelShape>,
) -> Result<(Pmm, Vec<Diagnostic>)> {
    read_file(bytes, Some(shape))
}

type ShapeFn<'a> = &'a mut dyn FnMut(usize, &SjisName<256>) -> Option<ModelShape>;

fn read_file(bytes: &[u8], mut shape: Option<ShapeFn<'_>>) -> Result<(Pmm, Vec<Diagnostic>)> {
    let mut c = Cursor::new(bytes, Format::Pmm);
    let head = bytes.get(..MAGIC_V2.len()).unwrap_or(bytes);
    if !MAGIC_V2.starts_with(head) && !MAGIC_V1.starts_with(head) {
        return Err(c.error_at(
            "magic",
            0,
            ErrorKind::BadMagic {
                expected: "\"Polygon Movie maker 0002\" or \"... 0001\"",
                found: bytes.iter().take(30).copied().collect(),
            },
        ));
    }
    let magic: [u8; 30] = c.array("magic")?;
    let v2 = magic.starts_with(MAGIC_V2);
    if !v2 && shape.is_none() {
        return Err(c.error_at(
            "magic",
            0,
            ErrorKind::Unsupported(
                "a version 1 project does not store its models' bone counts: read it with \
                 pmm::parse_v1 and the model files"
                    .into(),
            ),
        ));
    }
    let header = header(&mut c, v2)?;

    c.section("models");
    let selected_model = c.u8("selected model")?;
    let model_count = c.count_u8("model count", 1)?;
    let mut v1_model_names = Vec::new();
    if !v2 {
        for i in 0..model_count {
            c.element(i);
            v1_model_names.push(SjisName(c.array("model name list")?));
        }
    }
    let mut models = Vec::with_capacity(model_count);
    for slot in 0..model_count {
        models.push(model(&mut c, slot, v2, &mut shape)?);
    }

    let camera = camera(&mut c, v2)?;
    let light = light(&mut c)?;

    c.section("accessories");
    let selected_accessory = c.u8("selected accessory")?;
    let accessory_scroll = c.i32("accessory scroll")?;
    let accessory_count = c.count_u8("accessory count", 100)?;
    let mut accessory_names = Vec::with_capacity(accessory_count);
    for i in 0..accessory_count {
        c.element(i);
        accessory_names.push(SjisName(c.array("accessory name list")?));
    }
    let mut accessories = Vec::with_capacity(accessory_count);
    for i in 0..accessory_count {
        c.element(i);
        accessories.push(accessory(&mut c, v2)?);
    }

    c.section("playback");
    let playback = Playback {
        current_frame: c.i32("current frame")?,
        horizontal_scroll: c.i32("horizontal scroll")?,
        horizontal_scroll_thumb: c.i32("horizontal scroll thumb")?,
        editing_mode: c.i32("editing mode")?,
        camera_look_mode: c.u8("camera look mode")?,
        repeat: c.u8("repeat")?,
        begin_enabled: c.u8("begin enabled")?,
        end_enabled: c.u8("end enabled")?,
        begin_frame: c.i32("begin frame")?,
        end_frame: c.i32("end frame")?,
    };
    c.section("audio");
    let audio = Audio {
        enabled: c.u8("enabled")?,
        path: SjisName(c.array("path")?),
    };
    c.section("background video");
    let background_video = BackgroundVideo {
        offset: [c.i32("offset x")?, c.i32("offset y")?],
        scale: c.f32_lenient("scale")?,
        path: SjisName(c.array("path")?),
        enabled: c.i32("enabled")?,
    };
    c.section("background image");
    let background_image = BackgroundImage {
        offset: [c.i32("offset x")?, c.i32("offset y")?],
        scale: c.f32_lenient("scale")?,
        path: SjisName(c.array("path")?),
        enabled: c.u8("enabled")?,
    };
    c.section("display");
    let display = Display {
        info_shown: c.u8("info shown")?,
        grid_shown: c.u8("grid shown")?,
        ground_shadow_shown: c.u8("ground shadow shown")?,
        fps: c.f32_lenient("fps")?,
        screen_capture_mode: c.i32("screen capture mode")?,
        accessories_before_models: c.i32("accessories before models")?,
        ground_shadow_brightness: c.f32_lenient("ground shadow brightness")?,
    };
    let v2_tail = if v2 {
        Some(tail(&mut c, model_count)?)
    } else {
        None
    };
    let trailing = c.bytes("trailing", c.remaining())?.to_vec();
    let pmm = Pmm {
        magic,
        header,
        selected_model,
        v1_model_names,
        models,
        camera,
        light,
        selected_accessory,
        accessory_scroll,
        accessory_names,
        accessories,
        playback,
        audio,
        background_video,
        background_image,
        display,
        v2: v2_tail,
        trailing,
    };
    Ok((pmm, c.diagnostics))
}

fn header(c: &mut Cursor, v2: bool) -> Result<Header> {
    c.section("header");
    let mut h = Header {
        output_width: c.i32("output width")?,
        output_height: c.i32("output height")?,
        timeline_width: c.i32("timeline width")?,
        view_fov: c.f32_lenient("view fov")?,
        camera_mode: c.u8("camera mode")?,
        panels_expanded: [0; 6],
    };
    let panels = if v2 { 6 } else { 5 };
    for p in &mut h.panels_expanded[..panels] {
        *p = c.u8("panel expanded")?;
    }
    Ok(h)
}

fn var_text(c: &mut Cursor, field: &'static str) -> Result<VarText> {
    let n = c.u8(field)?;
    Ok(VarText(c.bytes(field, usize::from(n))?.to_vec()))
}

fn link(c: &mut Cursor) -> Result<KeyLink> {
    Ok(KeyLink {
        frame: c.i32("frame")?,
        previous: c.i32("previous key")?,
        next: c.i32("next key")?,
    })
}

fn curves<const N: usize>(c: &mut Cursor) -> Result<[Curve; N]> {
    let mut out = [[0u8; 4]; N];
    for curve in &mut out {
        *curve = c.array("interpolation")?;
    }
    Ok(out)
}

fn parent(c: &mut Cursor, field: &'static str) -> Result<ParentRef> {
    Ok(ParentRef {
        model: c.i32(field)?,
        bone: c.i32(field)?,
    })
}

/// `count` fixed-size records, checked against the bytes left before allocating.
fn run<T>(
    c: &mut Cursor,
    field: &'static str,
    count: usize,
    min_size: usize,
    mut one: impl FnMut(&mut Cursor) -> Result<T>,
) -> Result<Vec<T>> {
    let n = c.check_count(field, c.pos(), count as u64, min_size)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(one(c)?);
    }
    Ok(v)
}

/// A section's linked keys: an i32 count, then per key its own index and the key.
fn linked<K>(
    c: &mut Cursor,
    min_size: usize,
    mut one: impl FnMut(&mut Cursor) -> Result<K>,
) -> Result<Vec<Linked<K>>> {
    let n = c.count_i32("key count", INDEX + min_size)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        let index = c.i32("key index")?;
        v.push(Linked {
            index,
            key: one(c)?,
        });
    }
    Ok(v)
}

fn bone_key(c: &mut Cursor, v2: bool) -> Result<BoneKey> {
    Ok(BoneKey {
        link: link(c)?,
        curves: curves(c)?,
        translation: c.f32s_lenient("translation")?,
        rotation: c.f32s_lenient("rotation")?,
        selected: c.u8("selected")?,
        physics_disabled: if v2 { c.u8("physics disabled")? } else { 0 },
    })
}

fn morph_key(c: &mut Cursor) -> Result<MorphKey> {
    Ok(MorphKey {
        link: link(c)?,
        weight: c.f32_lenient("weight")?,
        selected: c.u8("selected")?,
    })
}

fn model_key(c: &mut Cursor, iks: usize, outside_parents: usize) -> Result<ModelKey> {
    let link = link(c)?;
    let visible = c.u8("visible")?;
    let ik_enabled = c.bytes("ik enabled", iks)?.to_vec();
    let outside_parents = run(c, "outside parent", outside_parents, 8, |c| {
        parent(c, "outside parent")
    })?;
    Ok(ModelKey {
        link,
        visible,
        ik_enabled,
        outside_parents,
        selected: c.u8("selected")?,
    })
}

fn bone_state(c: &mut Cursor, v2: bool) -> Result<BoneState> {
    let translation = c.f32s_lenient("translation")?;
    let rotation = c.f32s_lenient("rotation")?;
    let v1_unknown = if v2 { 0 } else { c.i32("unknown")? };
    let dirty = c.u8("dirty")?;
    let physics_disabled = if v2 { c.u8("physics disabled")? } else { 0 };
    Ok(BoneState {
        translation,
        rotation,
        v1_unknown,
        dirty,
        physics_disabled,
        tracks_selected: c.u8("tracks selected")?,
    })
}

fn bone_indices(c: &mut Cursor, field: &'static str) -> Result<Vec<i32>> {
    let n = c.count_i32(field, 4)?;
    run(c, field, n, 4, |c| c.i32(field))
}

fn model(c: &mut Cursor, slot: usize, v2: bool, shape: &mut Option<ShapeFn<'_>>) -> Result<Model> {
    c.section("models");
    c.element(slot);
    let index = c.u8("index")?;
    let (name, path, fixed_tracks, bone_names, morph_names, ik_bones, outside_parent_bones);
    let (bones, morphs, iks);
    if v2 {
        name = ModelName::V2 {
            japanese: var_text(c, "name")?,
            english: var_text(c, "english name")?,
        };
        path = SjisName(c.array("path")?);
        fixed_tracks = c.u8("fixed tracks")?;
        let n = c.count_i32("bone count", 1)?;
        bone_names = run(c, "bone name", n, 1, |c| var_text(c, "bone name"))?;
        let n = c.count_i32("morph count", 1)?;
        morph_names = run(c, "morph name", n, 1, |c| var_text(c, "morph name"))?;
        ik_bones = bone_indices(c, "ik bone")?;
        outside_parent_bones = bone_indices(c, "outside parent bone")?;
        (bones, morphs, iks) = (bone_names.len(), morph_names.len(), ik_bones.len());
    } else {
        name = ModelName::V1(SjisName(c.array("name")?));
        let at = c.pos();
        path = SjisName(c.array("path")?);
        let Some(s) = shape.as_mut().and_then(|f| f(slot, &path)) else {
            return Err(c.error_at(
                "path",
                at,
                ErrorKind::Unsupported(format!(
                    "version 1 needs the bone counts of {:?}, which is not available",
                    path.text()
                )),
            ));
        };
        fixed_tracks = 0;
        (bone_names, morph_names, ik_bones, outside_parent_bones) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        (bones, morphs, iks) = (s.bones, s.morphs, s.iks);
    }
    let outside_parents = outside_parent_bones.len();
    let draw_order = c.u8("draw order")?;
    let visible = c.u8("visible")?;
    let selected_bone = c.i32("selected bone")?;
    let selected_morphs = [
        c.i32("selected morph")?,
        c.i32("selected morph")?,
        c.i32("selected morph")?,
        c.i32("selected morph")?,
    ];
    let n = c.count_u8("expanded count", 1)?;
    let expanded = c.bytes("expanded", n)?.to_vec();
    let vertical_scroll = c.i32("vertical scroll")?;
    let last_frame = c.i32("last frame")?;

    let bone_key_size = LINK + 16 + 12 + 16 + 1 + usize::from(v2);
    c.section("model bone keys");
    let initial_bone_keys = run(c, "initial bone key", bones, bone_key_size, |c| {
        bone_key(c, v2)
    })?;
    let bone_keys = linked(c, bone_key_size, |c| bone_key(c, v2))?;
    c.section("model morph keys");
    let initial_morph_keys = run(c, "initial morph key", morphs, LINK + 5, morph_key)?;
    let morph_keys = linked(c, LINK + 5, morph_key)?;
    c.section("model keys");
    let model_key_size = LINK + 2 + iks + 8 * outside_parents;
    let initial_model_key = model_key(c, iks, outside_parents)?;
    let model_keys = linked(c, model_key_size, |c| model_key(c, iks, outside_parents))?;
    c.section("model states");
    let bone_state_size = if v2 { 31 } else { 34 };
    let bone_states = run(c, "bone state", bones, bone_state_size, |c| {
        bone_state(c, v2)
    })?;
    let morph_states = run(c, "morph state", morphs, 4, |c| {
        c.f32_lenient("morph state")
    })?;
    let ik_states = c.bytes("ik state", iks)?.to_vec();
    let outside_parent_states = run(c, "outside parent state", outside_parents, 16, |c| {
        Ok(OutsideParentState {
            begin: c.i32("outside parent begin")?,
            end: c.i32("outside parent end")?,
            parent: parent(c, "outside parent")?,
        })
    })?;
    let (add_blend, edge_width, self_shadow, evaluation_order) = if v2 {
        (
            c.u8("add blend")?,
            c.f32_lenient("edge width")?,
            c.u8("self shadow")?,
            c.u8("evaluation order")?,
        )
    } else {
        (0, 0.0, 0, 0)
    };
    Ok(Model {
        index,
        name,
        path,
        fixed_tracks,
        bone_names,
        morph_names,
        ik_bones,
        outside_parent_bones,
        draw_order,
        visible,
        selected_bone,
        selected_morphs,
        expanded,
        vertical_scroll,
        last_frame,
        initial_bone_keys,
        bone_keys,
        initial_morph_keys,
        morph_keys,
        initial_model_key,
        model_keys,
        bone_states,
        morph_states,
        ik_states,
        outside_parent_states,
        add_blend,
        edge_width,
        self_shadow,
        evaluation_order,
    })
}

fn camera_key(c: &mut Cursor, v2: bool) -> Result<CameraKey> {
    Ok(CameraKey {
        link: link(c)?,
        distance: c.f32_lenient("distance")?,
        target: c.f32s_lenient("target")?,
        rotation: c.f32s_lenient("rotation")?,
        parent: if v2 {
            parent(c, "parent")?
        } else {
            ParentRef::NONE
        },
        curves: curves(c)?,
        perspective_off: c.u8("perspective")?,
        fov: c.i32("fov")?,
        selected: c.u8("selected")?,
    })
}

fn camera(c: &mut Cursor, v2: bool) -> Result<Camera> {
    c.section("camera");
    let initial_key = camera_key(c, v2)?;
    let size = LINK + 4 + 24 + 24 + 6 + if v2 { 8 } else { 0 };
    let keys = linked(c, size, |c| camera_key(c, v2))?;
    Ok(Camera {
        initial_key,
        keys,
        target: c.f32s_lenient("target")?,
        position: c.f32s_lenient("position")?,
        rotation: c.f32s_lenient("rotation")?,
        perspective_off: c.u8("perspective")?,
    })
}

fn light_key(c: &mut Cursor) -> Result<LightKey> {
    Ok(LightKey {
        link: link(c)?,
        color: c.f32s_lenient("color")?,
        direction: c.f32s_lenient("direction")?,
        selected: c.u8("selected")?,
    })
}

fn light(c: &mut Cursor) -> Result<Light> {
    c.section("light");
    let initial_key = light_key(c)?;
    let keys = linked(c, LINK + 25, light_key)?;
    Ok(Light {
        initial_key,
        keys,
        color: c.f32s_lenient("color")?,
        direction: c.f32s_lenient("direction")?,
    })
}

fn accessory_key(c: &mut Cursor) -> Result<AccessoryKey> {
    Ok(AccessoryKey {
        link: link(c)?,
        opacity_visible: c.u8("opacity and visible")?,
        parent: parent(c, "parent")?,
        translation: c.f32s_lenient("translation")?,
        rotation: c.f32s_lenient("rotation")?,
        scale: c.f32_lenient("scale")?,
        shadow: c.u8("shadow")?,
        selected: c.u8("selected")?,
    })
}

fn accessory(c: &mut Cursor, v2: bool) -> Result<Accessory> {
    let index = c.u8("index")?;
    let name = SjisName(c.array("name")?);
    let path = SjisName(c.array("path")?);
    let draw_order = c.u8("draw order")?;
    let initial_key = accessory_key(c)?;
    let keys = linked(c, LINK + 39, accessory_key)?;
    Ok(Accessory {
        index,
        name,
        path,
        draw_order,
        initial_key,
        keys,
        opacity_visible: c.u8("opacity and visible")?,
        parent: parent(c, "parent")?,
        translation: c.f32s_lenient("translation")?,
        scale: c.f32_lenient("scale")?,
        rotation: c.f32s_lenient("rotation")?,
        shadow: c.u8("shadow")?,
        add_blend: if v2 { c.u8("add blend")? } else { 0 },
    })
}

fn gravity_key(c: &mut Cursor) -> Result<GravityKey> {
    Ok(GravityKey {
        link: link(c)?,
        noise_enabled: c.u8("noise enabled")?,
        noise: c.i32("noise")?,
        acceleration: c.f32_lenient("acceleration")?,
        direction: c.f32s_lenient("direction")?,
        selected: c.u8("selected")?,
    })
}

fn self_shadow_key(c: &mut Cursor) -> Result<SelfShadowKey> {
    Ok(SelfShadowKey {
        link: link(c)?,
        mode: c.u8("mode")?,
        distance: c.f32_lenient("distance")?,
        selected: c.u8("selected")?,
    })
}

fn tail(c: &mut Cursor, model_count: usize) -> Result<V2Tail> {
    c.section("physics");
    let translucent_ground_shadow = c.u8("translucent ground shadow")?;
    let physics_mode = c.u8("physics mode")?;
    c.section("gravity");
    let gravity = Gravity {
        acceleration: c.f32_lenient("acceleration")?,
        noise: c.i32("noise")?,
        direction: c.f32s_lenient("direction")?,
        noise_enabled: c.u8("noise enabled")?,
        initial_key: gravity_key(c)?,
        keys: linked(c, LINK + 22, gravity_key)?,
    };
    c.section("self shadow");
    let self_shadow = SelfShadow {
        enabled: c.u8("enabled")?,
        distance: c.f32_lenient("distance")?,
        initial_key: self_shadow_key(c)?,
        keys: linked(c, LINK + 6, self_shadow_key)?,
    };
    c.section("view");
    let edge_color = [
        c.i32("edge color")?,
        c.i32("edge color")?,
        c.i32("edge color")?,
    ];
    let black_background = c.u8("black background")?;
    let camera_look_at = parent(c, "camera look at")?;
    let unknown_matrix = c.f32s_lenient("unknown matrix")?;
    let follow_look_at = c.u8("follow look at")?;
    let unknown_flag = c.u8("unknown flag")?;
    let physics_ground = c.u8("physics ground")?;
    let frame_in_text_field = c.i32("frame in text field")?;
    c.section("selection");
    let selection_flag = if c.at_end() {
        None
    } else {
        Some(c.u8("selection flag")?)
    };
    let mut selections = Vec::new();
    if selection_flag.is_some_and(|f| f != 0) {
        selections = run(c, "selection", model_count, 5, |c| {
            Ok(ModelSelection {
                model: c.u8("selection model")?,
                selection: c.i32("selection")?,
            })
        })?;
    }
    Ok(V2Tail {
        translucent_ground_shadow,
        physics_mode,
        gravity,
        self_shadow,
        edge_color,
        black_background,
        camera_look_at,
        unknown_matrix,
        follow_look_at,
        unknown_flag,
        physics_ground,
        frame_in_text_field,
        selection_flag,
        selections,
    })
}
