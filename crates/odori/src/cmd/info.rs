//! `odori info`: what a file holds.

use anyhow::Result;
use odori_format::pmx::{MorphOffsets, TextEncoding};
use odori_format::{Document, Pmd, Pmx, Vmd, Vpd};
use serde_json::{Value, json};
use std::path::Path;

pub fn run(path: &Path, as_json: bool, names: bool) -> Result<()> {
    let (doc, diagnostics) = odori_format::read_path(path)?;
    let mut summary = match &doc {
        Document::Pmx(p) => pmx(p, names),
        Document::Pmd(p) => pmd(p, names),
        Document::Vmd(v) => vmd(v, names),
        Document::Vpd(v) => vpd(v, names),
    };
    summary["file"] = json!(path.display().to_string());
    summary["diagnostics"] = json!(
        diagnostics
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    );
    if as_json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_text(&summary, 0);
    }
    Ok(())
}

fn print_text(v: &Value, indent: usize) {
    let pad = "  ".repeat(indent);
    if let Value::Object(map) = v {
        for (k, val) in map {
            match val {
                Value::Object(_) => {
                    println!("{pad}{k}:");
                    print_text(val, indent + 1);
                }
                Value::Array(items) if items.is_empty() => {}
                Value::Array(items) => {
                    println!("{pad}{k} ({}):", items.len());
                    for it in items {
                        println!(
                            "{pad}  {}",
                            it.as_str()
                                .map(str::to_owned)
                                .unwrap_or_else(|| it.to_string())
                        );
                    }
                }
                Value::String(s) => println!("{pad}{k}: {s}"),
                other => println!("{pad}{k}: {other}"),
            }
        }
    }
}

fn list<T>(names: bool, items: &[T], f: impl Fn(&T) -> String) -> Value {
    if names {
        json!(items.iter().map(f).collect::<Vec<_>>())
    } else {
        json!([])
    }
}

fn pmx(p: &Pmx, names: bool) -> Value {
    let mut morph_kinds = serde_json::Map::new();
    for m in &p.morphs {
        let k = match &m.offsets {
            MorphOffsets::Group(_) => "group",
            MorphOffsets::Vertex(_) => "vertex",
            MorphOffsets::Bone(_) => "bone",
            MorphOffsets::Uv { channel: 0, .. } => "uv",
            MorphOffsets::Uv { .. } => "additional uv",
            MorphOffsets::Material(_) => "material",
            MorphOffsets::Flip(_) => "flip",
            MorphOffsets::Impulse(_) => "impulse",
        };
        let e = morph_kinds.entry(k).or_insert(json!(0));
        *e = json!(e.as_u64().unwrap_or(0) + 1);
    }
    let h = &p.header;
    json!({
        "format": "PMX",
        "version": h.version,
        "encoding": match h.encoding { TextEncoding::Utf16Le => "UTF-16LE", TextEncoding::Utf8 => "UTF-8" },
        "additional uvs": h.additional_uvs,
        "index sizes": format!("vertex {} texture {} material {} bone {} morph {} rigid body {}",
            h.vertex_index_size, h.texture_index_size, h.material_index_size,
            h.bone_index_size, h.morph_index_size, h.rigid_body_index_size),
        "name": p.info.name,
        "name (English)": p.info.name_en,
        "counts": {
            "vertices": p.vertices.len(),
            "faces": p.indices.len() / 3,
            "textures": p.textures.len(),
            "materials": p.materials.len(),
            "bones": p.bones.len(),
            "IK bones": p.bones.iter().filter(|b| b.ik.is_some()).count(),
            "morphs": p.morphs.len(),
            "display frames": p.display_frames.len(),
            "rigid bodies": p.rigid_bodies.len(),
            "joints": p.joints.len(),
            "soft bodies": p.soft_bodies.len(),
        },
        "morph kinds": morph_kinds,
        "textures": list(names, &p.textures, |t| t.clone()),
        "materials": list(names, &p.materials, |m| m.name.clone()),
        "bones": list(names, &p.bones, |b| b.name.clone()),
        "morphs": list(names, &p.morphs, |m| m.name.clone()),
    })
}

fn pmd(p: &Pmd, names: bool) -> Value {
    json!({
        "format": "PMD",
        "version": p.header.version,
        "encoding": "Shift-JIS",
        "name": p.header.name.text(),
        "name (English)": p.english.as_ref().map(|e| e.name.text()).unwrap_or_default(),
        "counts": {
            "vertices": p.vertices.len(),
            "faces": p.indices.len() / 3,
            "materials": p.materials.len(),
            "bones": p.bones.len(),
            "IK chains": p.iks.len(),
            "morphs": p.morphs.len(),
            "rigid bodies": p.rigid_bodies.as_ref().map_or(0, Vec::len),
            "joints": p.joints.as_ref().map_or(0, Vec::len),
        },
        "sections present": {
            "English names": p.english.is_some(),
            "toon textures": p.toon_textures.is_some(),
            "physics": p.rigid_bodies.is_some(),
        },
        "toon textures": match &p.toon_textures {
            Some(t) if names => json!(t.iter().map(|n| n.text()).collect::<Vec<_>>()),
            _ => json!([]),
        },
        "materials": list(names, &p.materials, |m| m.texture.text()),
        "bones": list(names, &p.bones, |b| b.name.text()),
        "morphs": list(names, &p.morphs, |m| m.name.text()),
    })
}

fn vmd(v: &Vmd, names: bool) -> Value {
    let mut bone_names: Vec<String> = v.bones.iter().map(|k| k.name.text()).collect();
    bone_names.sort();
    bone_names.dedup();
    let mut morph_names: Vec<String> = v.morphs.iter().map(|k| k.name.text()).collect();
    morph_names.sort();
    morph_names.dedup();
    let last = v
        .bones
        .iter()
        .map(|k| k.frame)
        .chain(v.morphs.iter().map(|k| k.frame))
        .chain(v.cameras.iter().map(|k| k.frame))
        .chain(v.lights.iter().map(|k| k.frame))
        .chain(v.properties.iter().map(|k| k.frame))
        .max()
        .unwrap_or(0);
    json!({
        "format": "VMD",
        "version": if v.is_version1() { 1 } else { 2 },
        "model name": v.model_name.text(),
        "last frame": last,
        "sections present": v.sections_present,
        "counts": {
            "bone keys": v.bones.len(),
            "bones keyed": bone_names.len(),
            "morph keys": v.morphs.len(),
            "morphs keyed": morph_names.len(),
            "camera keys": v.cameras.len(),
            "light keys": v.lights.len(),
            "self-shadow keys": v.self_shadows.len(),
            "property keys": v.properties.len(),
            "bone keys with physics off": v.bones.iter().filter(|k| k.physics_disabled()).count(),
        },
        "bones": if names { json!(bone_names) } else { json!([]) },
        "morphs": if names { json!(morph_names) } else { json!([]) },
    })
}

fn vpd(v: &Vpd, names: bool) -> Value {
    json!({
        "format": "VPD",
        "model name": v.model_name,
        "counts": { "bones": v.bones.len(), "morphs": v.morphs.len() },
        "bones": list(names, &v.bones, |b| b.name.clone()),
        "morphs": list(names, &v.morphs, |m| m.name.clone()),
    })
}
