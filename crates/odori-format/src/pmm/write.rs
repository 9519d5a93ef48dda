//! PMM writer: the mirror of `read.rs`.
//!
//! Floats are written as stored (the reader keeps non-finite ones too). The writer refuses a
//! value the reader could not read back the same: a per-bone, per-morph or per-IK run whose
//! length disagrees with the model's name tables, a count over its field, a version 2 file
//! without its version 2 sections (or the reverse).

use super::{
    Accessory, AccessoryKey, BoneKey, BoneState, Camera, CameraKey, Curve, KeyLink, Light,
    LightKey, Linked, Model, ModelKey, ModelName, MorphKey, ParentRef, Pmm, V2Tail, VarText,
};
use crate::error::{Format, Result};
use crate::sink::Sink;

/// Write a PMM file.
pub fn write(pmm: &Pmm) -> Result<Vec<u8>> {
    let v2 = !pmm.is_version1();
    let mut s = Sink::new(Format::Pmm, 1 << 16);
    s.bytes(&pmm.magic);
    let h = &pmm.header;
    s.i32(h.output_width);
    s.i32(h.output_height);
    s.i32(h.timeline_width);
    s.f32(h.view_fov);
    s.u8(h.camera_mode);
    let panels = if v2 { 6 } else { 5 };
    if !v2 && h.panels_expanded[5] != 0 {
        return Err(s.error("panel expanded", "version 1 stores five panel flags".into()));
    }
    s.bytes(&h.panels_expanded[..panels]);

    s.section("models");
    s.u8(pmm.selected_model);
    u8_count(&mut s, "model count", pmm.models.len())?;
    let names = if v2 { 0 } else { pmm.models.len() };
    if pmm.v1_model_names.len() != names {
        return Err(s.error(
            "model name list",
            "version 1 files, and only they, list one 20-byte name per model".into(),
        ));
    }
    for n in &pmm.v1_model_names {
        s.bytes(&n.0);
    }
    for (slot, m) in pmm.models.iter().enumerate() {
        s.section("models");
        s.element(slot);
        model(&mut s, m, v2)?;
    }

    s.section("camera");
    camera(&mut s, &pmm.camera, v2)?;
    s.section("light");
    light(&mut s, &pmm.light)?;

    s.section("accessories");
    s.u8(pmm.selected_accessory);
    s.i32(pmm.accessory_scroll);
    u8_count(&mut s, "accessory count", pmm.accessories.len())?;
    if pmm.accessory_names.len() != pmm.accessories.len() {
        return Err(s.error("accessory name list", "one name per accessory".into()));
    }
    for n in &pmm.accessory_names {
        s.bytes(&n.0);
    }
    for (i, a) in pmm.accessories.iter().enumerate() {
        s.element(i);
        accessory(&mut s, a, v2)?;
    }

    let p = &pmm.playback;
    for v in [
        p.current_frame,
        p.horizontal_scroll,
        p.horizontal_scroll_thumb,
        p.editing_mode,
    ] {
        s.i32(v);
    }
    s.bytes(&[p.camera_look_mode, p.repeat, p.begin_enabled, p.end_enabled]);
    s.i32(p.begin_frame);
    s.i32(p.end_frame);
    s.u8(pmm.audio.enabled);
    s.bytes(&pmm.audio.path.0);
    let bv = &pmm.background_video;
    s.i32(bv.offset[0]);
    s.i32(bv.offset[1]);
    s.f32(bv.scale);
    s.bytes(&bv.path.0);
    s.i32(bv.enabled);
    let bi = &pmm.background_image;
    s.i32(bi.offset[0]);
    s.i32(bi.offset[1]);
    s.f32(bi.scale);
    s.bytes(&bi.path.0);
    s.u8(bi.enabled);
    let d = &pmm.display;
    s.bytes(&[d.info_shown, d.grid_shown, d.ground_shadow_shown]);
    s.f32(d.fps);
    s.i32(d.screen_capture_mode);
    s.i32(d.accessories_before_models);
    s.f32(d.ground_shadow_brightness);
    match (&pmm.v2, v2) {
        (Some(t), true) => {
            tail(&mut s, t, pmm.models.len())?;
            if t.selection_flag.is_none() && !pmm.trailing.is_empty() {
                return Err(s.error(
                    "trailing",
                    "bytes after the view settings would read as the selection flag".into(),
                ));
            }
        }
        (None, false) => {}
        _ => {
            s.section("physics");
            return Err(s.error(
                "version 2 sections",
                "present in version 2 files and only there".into(),
            ));
        }
    }
    s.bytes(&pmm.trailing);
    Ok(s.buf)
}

fn u8_count(s: &mut Sink, field: &'static str, n: usize) -> Result<u8> {
    let v = u8::try_from(n).map_err(|_| s.error(field, format!("{n} do not fit a byte")))?;
    s.u8(v);
    Ok(v)
}

/// A run whose length the file does not store: it must match the length it is read with.
fn expect_len(s: &Sink, field: &'static str, len: usize, expected: usize) -> Result<()> {
    if len != expected {
        return Err(s.error(
            field,
            format!("{len} entries where the model's tables give {expected}"),
        ));
    }
    Ok(())
}

fn var_text(s: &mut Sink, field: &'static str, t: &VarText) -> Result<()> {
    u8_count(s, field, t.0.len())?;
    s.bytes(&t.0);
    Ok(())
}

fn link(s: &mut Sink, l: &KeyLink) {
    s.i32(l.frame);
    s.i32(l.previous);
    s.i32(l.next);
}

fn curves(s: &mut Sink, c: &[Curve]) {
    for curve in c {
        s.bytes(curve);
    }
}

fn parent(s: &mut Sink, p: &ParentRef) {
    s.i32(p.model);
    s.i32(p.bone);
}

fn linked<K>(
    s: &mut Sink,
    keys: &[Linked<K>],
    mut one: impl FnMut(&mut Sink, &K) -> Result<()>,
) -> Result<()> {
    s.count_i32("key count", keys.len())?;
    for k in keys {
        s.i32(k.index);
        one(s, &k.key)?;
    }
    Ok(())
}

fn bone_key(s: &mut Sink, k: &BoneKey, v2: bool) -> Result<()> {
    link(s, &k.link);
    curves(s, &k.curves);
    s.f32s(&k.translation);
    s.f32s(&k.rotation);
    s.u8(k.selected);
    if v2 {
        s.u8(k.physics_disabled);
    } else if k.physics_disabled != 0 {
        return Err(s.error("physics disabled", "version 1 has no physics flag".into()));
    }
    Ok(())
}

fn morph_key(s: &mut Sink, k: &MorphKey) -> Result<()> {
    link(s, &k.link);
    s.f32(k.weight);
    s.u8(k.selected);
    Ok(())
}

fn model_key(s: &mut Sink, k: &ModelKey, iks: usize, outside_parents: usize) -> Result<()> {
    link(s, &k.link);
    s.u8(k.visible);
    expect_len(s, "ik enabled", k.ik_enabled.len(), iks)?;
    s.bytes(&k.ik_enabled);
    expect_len(
        s,
        "outside parent",
        k.outside_parents.len(),
        outside_parents,
    )?;
    for p in &k.outside_parents {
        parent(s, p);
    }
    s.u8(k.selected);
    Ok(())
}

fn bone_state(s: &mut Sink, b: &BoneState, v2: bool) {
    s.f32s(&b.translation);
    s.f32s(&b.rotation);
    if !v2 {
        s.i32(b.v1_unknown);
    }
    s.u8(b.dirty);
    if v2 {
        s.u8(b.physics_disabled);
    }
    s.u8(b.tracks_selected);
}

fn bone_indices(s: &mut Sink, field: &'static str, v: &[i32]) -> Result<()> {
    s.count_i32(field, v.len())?;
    for &i in v {
        s.i32(i);
    }
    Ok(())
}

fn model(s: &mut Sink, m: &Model, v2: bool) -> Result<()> {
    s.u8(m.index);
    match (&m.name, v2) {
        (ModelName::V2 { japanese, english }, true) => {
            var_text(s, "name", japanese)?;
            var_text(s, "english name", english)?;
            s.bytes(&m.path.0);
            s.u8(m.fixed_tracks);
            s.count_i32("bone count", m.bone_names.len())?;
            for n in &m.bone_names {
                var_text(s, "bone name", n)?;
            }
            s.count_i32("morph count", m.morph_names.len())?;
            for n in &m.morph_names {
                var_text(s, "morph name", n)?;
            }
            bone_indices(s, "ik bone", &m.ik_bones)?;
            bone_indices(s, "outside parent bone", &m.outside_parent_bones)?;
        }
        (ModelName::V1(name), false) => {
            s.bytes(&name.0);
            s.bytes(&m.path.0);
            if !m.outside_parent_bones.is_empty() {
                return Err(s.error(
                    "outside parent bone",
                    "version 1 has no outside parents".into(),
                ));
            }
        }
        _ => {
            return Err(s.error(
                "name",
                "the model's name fields are of the other version".into(),
            ));
        }
    }
    let (bones, morphs, iks) = if v2 {
        (m.bone_names.len(), m.morph_names.len(), m.ik_bones.len())
    } else {
        // Version 1 runs are sized by the model file; the lists themselves are the record.
        (
            m.initial_bone_keys.len(),
            m.initial_morph_keys.len(),
            m.ik_states.len(),
        )
    };
    let outside_parents = m.outside_parent_bones.len();
    s.u8(m.draw_order);
    s.u8(m.visible);
    s.i32(m.selected_bone);
    for &v in &m.selected_morphs {
        s.i32(v);
    }
    u8_count(s, "expanded count", m.expanded.len())?;
    s.bytes(&m.expanded);
    s.i32(m.vertical_scroll);
    s.i32(m.last_frame);

    s.section("model bone keys");
    expect_len(s, "initial bone key", m.initial_bone_keys.len(), bones)?;
    for k in &m.initial_bone_keys {
        bone_key(s, k, v2)?;
    }
    linked(s, &m.bone_keys, |s, k| bone_key(s, k, v2))?;
    s.section("model morph keys");
    expect_len(s, "initial morph key", m.initial_morph_keys.len(), morphs)?;
    for k in &m.initial_morph_keys {
        morph_key(s, k)?;
    }
    linked(s, &m.morph_keys, morph_key)?;
    s.section("model keys");
    model_key(s, &m.initial_model_key, iks, outside_parents)?;
    linked(s, &m.model_keys, |s, k| {
        model_key(s, k, iks, outside_parents)
    })?;
    s.section("model states");
    expect_len(s, "bone state", m.bone_states.len(), bones)?;
    for b in &m.bone_states {
        bone_state(s, b, v2);
    }
    expect_len(s, "morph state", m.morph_states.len(), morphs)?;
    s.f32s(&m.morph_states);
    expect_len(s, "ik state", m.ik_states.len(), iks)?;
    s.bytes(&m.ik_states);
    expect_len(
        s,
        "outside parent state",
        m.outside_parent_states.len(),
        outside_parents,
    )?;
    for o in &m.outside_parent_states {
        s.i32(o.begin);
        s.i32(o.end);
        parent(s, &o.parent);
    }
    if v2 {
        s.u8(m.add_blend);
        s.f32(m.edge_width);
        s.u8(m.self_shadow);
        s.u8(m.evaluation_order);
    }
    Ok(())
}

fn camera_key(s: &mut Sink, k: &CameraKey, v2: bool) -> Result<()> {
    link(s, &k.link);
    s.f32(k.distance);
    s.f32s(&k.target);
    s.f32s(&k.rotation);
    if v2 {
        parent(s, &k.parent);
    } else if k.parent != ParentRef::NONE {
        return Err(s.error("parent", "version 1 cameras have no parent".into()));
    }
    curves(s, &k.curves);
    s.u8(k.perspective_off);
    s.i32(k.fov);
    s.u8(k.selected);
    Ok(())
}

fn camera(s: &mut Sink, c: &Camera, v2: bool) -> Result<()> {
    camera_key(s, &c.initial_key, v2)?;
    linked(s, &c.keys, |s, k| camera_key(s, k, v2))?;
    s.f32s(&c.target);
    s.f32s(&c.position);
    s.f32s(&c.rotation);
    s.u8(c.perspective_off);
    Ok(())
}

fn light_key(s: &mut Sink, k: &LightKey) -> Result<()> {
    link(s, &k.link);
    s.f32s(&k.color);
    s.f32s(&k.direction);
    s.u8(k.selected);
    Ok(())
}

fn light(s: &mut Sink, l: &Light) -> Result<()> {
    light_key(s, &l.initial_key)?;
    linked(s, &l.keys, light_key)?;
    s.f32s(&l.color);
    s.f32s(&l.direction);
    Ok(())
}

fn accessory_key(s: &mut Sink, k: &AccessoryKey) -> Result<()> {
    link(s, &k.link);
    s.u8(k.opacity_visible);
    parent(s, &k.parent);
    s.f32s(&k.translation);
    s.f32s(&k.rotation);
    s.f32(k.scale);
    s.u8(k.shadow);
    s.u8(k.selected);
    Ok(())
}

fn accessory(s: &mut Sink, a: &Accessory, v2: bool) -> Result<()> {
    s.u8(a.index);
    s.bytes(&a.name.0);
    s.bytes(&a.path.0);
    s.u8(a.draw_order);
    accessory_key(s, &a.initial_key)?;
    linked(s, &a.keys, accessory_key)?;
    s.u8(a.opacity_visible);
    parent(s, &a.parent);
    s.f32s(&a.translation);
    s.f32(a.scale);
    s.f32s(&a.rotation);
    s.u8(a.shadow);
    if v2 {
        s.u8(a.add_blend);
    } else if a.add_blend != 0 {
        return Err(s.error("add blend", "version 1 has no add-blend flag".into()));
    }
    Ok(())
}

fn tail(s: &mut Sink, t: &V2Tail, models: usize) -> Result<()> {
    s.section("physics");
    s.u8(t.translucent_ground_shadow);
    s.u8(t.physics_mode);
    s.section("gravity");
    let g = &t.gravity;
    s.f32(g.acceleration);
    s.i32(g.noise);
    s.f32s(&g.direction);
    s.u8(g.noise_enabled);
    let gravity_key = |s: &mut Sink, k: &super::GravityKey| {
        link(s, &k.link);
        s.u8(k.noise_enabled);
        s.i32(k.noise);
        s.f32(k.acceleration);
        s.f32s(&k.direction);
        s.u8(k.selected);
        Ok(())
    };
    gravity_key(s, &g.initial_key)?;
    linked(s, &g.keys, gravity_key)?;
    s.section("self shadow");
    let ss = &t.self_shadow;
    s.u8(ss.enabled);
    s.f32(ss.distance);
    let self_shadow_key = |s: &mut Sink, k: &super::SelfShadowKey| {
        link(s, &k.link);
        s.u8(k.mode);
        s.f32(k.distance);
        s.u8(k.selected);
        Ok(())
    };
    self_shadow_key(s, &ss.initial_key)?;
    linked(s, &ss.keys, self_shadow_key)?;
    s.section("view");
    for &c in &t.edge_color {
        s.i32(c);
    }
    s.u8(t.black_background);
    parent(s, &t.camera_look_at);
    s.f32s(&t.unknown_matrix);
    s.bytes(&[t.follow_look_at, t.unknown_flag, t.physics_ground]);
    s.i32(t.frame_in_text_field);
    s.section("selection");
    match t.selection_flag {
        None if t.selections.is_empty() => {}
        Some(0) if t.selections.is_empty() => s.u8(0),
        Some(f) if f != 0 && t.selections.len() == models => {
            s.u8(f);
            for sel in &t.selections {
                s.u8(sel.model);
                s.i32(sel.selection);
            }
        }
        _ => {
            return Err(s.error(
                "selection",
                "a nonzero flag, and only it, is followed by one entry per model".into(),
            ));
        }
    }
    Ok(())
}
