//! `odori info`: what a file holds, as text or JSON. Both come from one ordered tree, so the
//! JSON keys keep their order (file and format first) and numbers stay numbers.

use crate::stdout::stdout;
use anyhow::Result;
use odori_format::pmx::{MorphOffsets, TextEncoding};
use odori_format::x::XFile;
use odori_format::{Document, Pmd, Pmx, Vac, Vmd, Vpd};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A value in the summary. Maps keep the order they are built in.
enum Node {
    Text(String),
    Int(u64),
    /// A number as the file stores it (an f32 version such as 2.1), printed in its shortest
    /// form.
    Float(f32),
    Bool(bool),
    List(Vec<String>),
    Map(Vec<(&'static str, Node)>),
}

use Node::{Bool, Float, Int, List, Map};

fn text(s: impl Into<String>) -> Node {
    Node::Text(s.into())
}

fn count(n: usize) -> Node {
    Int(n as u64)
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Text(t) => s.serialize_str(t),
            Int(n) => s.serialize_u64(*n),
            // Through its shortest decimal form: 2.1, not 2.0999999046325684.
            Float(v) => match v.to_string().parse::<f64>() {
                Ok(d) if d.is_finite() => s.serialize_f64(d),
                _ => s.serialize_none(),
            },
            Bool(b) => s.serialize_bool(*b),
            List(items) => items.serialize(s),
            Map(entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

pub fn run(path: &Path, as_json: bool, names: bool, search: &[PathBuf]) -> Result<()> {
    if is_project(path) {
        return print(&Map(project(path, search)?), as_json);
    }
    let (doc, diagnostics) = odori_format::read_path(path)?;
    let (format, mut entries) = match &doc {
        Document::Pmx(p) => ("PMX", pmx(p)),
        Document::Pmd(p) => ("PMD", pmd(p)),
        Document::Vmd(v) => ("VMD", vmd(v)),
        Document::Vpd(v) => ("VPD", vpd(v)),
        Document::X(x) => ("X", x_file(x)),
        Document::Vac(v) => ("VAC", vac(v)),
    };
    entries.splice(
        0..0,
        [
            ("file", text(path.display().to_string())),
            ("format", text(format)),
        ],
    );
    entries.push((
        "diagnostics",
        List(diagnostics.iter().map(|d| d.to_string()).collect()),
    ));
    // Name lists are there only when asked for (`--names`).
    entries.retain(|(k, v)| names || !matches!(v, List(_)) || *k == "diagnostics");
    print(&Map(entries), as_json)
}

fn print(summary: &Node, as_json: bool) -> Result<()> {
    let mut out = stdout();
    if as_json {
        let json = serde_json::to_string_pretty(summary)?;
        writeln!(out, "{json}")?;
    } else {
        print_text(&mut out, summary, 0)?;
    }
    out.flush()?;
    Ok(())
}

/// A MikuMikuDance project, by its magic.
fn is_project(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 24];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && odori_format::detect(&head) == Some(odori_format::Format::Pmm)
}

/// A project: its models and accessories with each file found or missing (the lists are
/// always shown: they are the point of asking), key counts, range, output size, audio.
fn project(path: &Path, search: &[PathBuf]) -> Result<Vec<(&'static str, Node)>> {
    use odori_playback::project::Project;
    let p = Project::load(path, search)?;
    let found = |r: &odori_playback::project::paths::Resolved| match r.path() {
        Some(f) => format!("found {}", f.display()),
        None => "MISSING".to_string(),
    };
    let models = p
        .models
        .iter()
        .zip(&p.pmm.models)
        .map(|(m, raw)| {
            format!(
                "{}: {} ({}); {} bone keys, {} morph keys, {} model keys; edge {}, draw {}",
                m.name,
                raw.path.text(),
                found(&m.file),
                m.motion.bones.len(),
                m.motion.morphs.len(),
                m.motion.properties.len(),
                m.edge_width,
                m.draw_order
            )
        })
        .collect();
    let accessories = p
        .accessories
        .iter()
        .zip(&p.pmm.accessories)
        .map(|(a, raw)| {
            format!(
                "{}: {} ({}); {} keys",
                a.name,
                raw.path.text(),
                found(&a.file),
                a.keys.len()
            )
        })
        .collect();
    let frame = |f: Option<u32>| f.map_or_else(|| "-".to_string(), |f| f.to_string());
    Ok(vec![
        ("file", text(path.display().to_string())),
        ("format", text("PMM")),
        ("version", Int(if p.pmm.is_version1() { 1 } else { 2 })),
        (
            "output_size",
            text(format!("{}x{}", p.output_size.0, p.output_size.1)),
        ),
        (
            "range",
            text(format!("{}:{}", frame(p.range.0), frame(p.range.1))),
        ),
        (
            "audio",
            text(p.audio.as_ref().map_or_else(|| "none".to_string(), found)),
        ),
        ("camera_keys", count(p.camera.cameras.len())),
        ("light_keys", count(p.camera.lights.len())),
        ("self_shadow_keys", count(p.camera.self_shadows.len())),
        ("models", List(models)),
        ("accessories", List(accessories)),
        ("warnings", List(p.warnings)),
    ])
}

fn print_text(out: &mut impl Write, node: &Node, indent: usize) -> std::io::Result<()> {
    let pad = "  ".repeat(indent);
    let Map(entries) = node else {
        return Ok(());
    };
    for (k, v) in entries {
        let k = k.replace('_', " ");
        match v {
            Map(_) => {
                writeln!(out, "{pad}{k}:")?;
                print_text(out, v, indent + 1)?;
            }
            List(items) if items.is_empty() => {}
            List(items) => {
                writeln!(out, "{pad}{k} ({}):", items.len())?;
                for it in items {
                    writeln!(out, "{pad}  {it}")?;
                }
            }
            Node::Text(s) => writeln!(out, "{pad}{k}: {s}")?,
            Int(n) => writeln!(out, "{pad}{k}: {n}")?,
            Float(f) => writeln!(out, "{pad}{k}: {f:?}")?,
            Bool(b) => writeln!(out, "{pad}{k}: {}", if *b { "yes" } else { "no" })?,
        }
    }
    Ok(())
}

fn names_of<T>(items: &[T], f: impl Fn(&T) -> String) -> Node {
    List(items.iter().map(f).collect())
}

fn pmx(p: &Pmx) -> Vec<(&'static str, Node)> {
    const KINDS: [&str; 8] = [
        "group",
        "vertex",
        "bone",
        "uv",
        "additional_uv",
        "material",
        "flip",
        "impulse",
    ];
    let mut kinds = [0usize; 8];
    for m in &p.morphs {
        kinds[match &m.offsets {
            MorphOffsets::Group(_) => 0,
            MorphOffsets::Vertex(_) => 1,
            MorphOffsets::Bone(_) => 2,
            MorphOffsets::Uv { channel: 0, .. } => 3,
            MorphOffsets::Uv { .. } => 4,
            MorphOffsets::Material(_) => 5,
            MorphOffsets::Flip(_) => 6,
            MorphOffsets::Impulse(_) => 7,
        }] += 1;
    }
    let morph_kinds = KINDS
        .iter()
        .zip(kinds)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (*k, count(n)))
        .collect();
    let h = &p.header;
    vec![
        ("version", Float(h.version)),
        (
            "encoding",
            text(match h.encoding {
                TextEncoding::Utf16Le => "UTF-16LE",
                TextEncoding::Utf8 => "UTF-8",
            }),
        ),
        ("name", text(&p.info.name)),
        ("name_english", text(&p.info.name_en)),
        ("additional_uvs", Int(h.additional_uvs as u64)),
        (
            "index_sizes",
            Map(vec![
                ("vertex", Int(h.vertex_index_size as u64)),
                ("texture", Int(h.texture_index_size as u64)),
                ("material", Int(h.material_index_size as u64)),
                ("bone", Int(h.bone_index_size as u64)),
                ("morph", Int(h.morph_index_size as u64)),
                ("rigid_body", Int(h.rigid_body_index_size as u64)),
            ]),
        ),
        (
            "counts",
            Map(vec![
                ("vertices", count(p.vertices.len())),
                ("faces", count(p.indices.len() / 3)),
                ("textures", count(p.textures.len())),
                ("materials", count(p.materials.len())),
                ("bones", count(p.bones.len())),
                (
                    "ik_bones",
                    count(p.bones.iter().filter(|b| b.ik.is_some()).count()),
                ),
                ("morphs", count(p.morphs.len())),
                ("display_frames", count(p.display_frames.len())),
                ("rigid_bodies", count(p.rigid_bodies.len())),
                ("joints", count(p.joints.len())),
                ("soft_bodies", count(p.soft_bodies.len())),
            ]),
        ),
        ("morph_kinds", Map(morph_kinds)),
        ("textures", names_of(&p.textures, |t| t.clone())),
        ("materials", names_of(&p.materials, |m| m.name.clone())),
        ("bones", names_of(&p.bones, |b| b.name.clone())),
        ("morphs", names_of(&p.morphs, |m| m.name.clone())),
    ]
}

fn pmd(p: &Pmd) -> Vec<(&'static str, Node)> {
    vec![
        ("version", Float(p.header.version)),
        ("encoding", text("Shift-JIS")),
        ("name", text(p.header.name.text())),
        (
            "name_english",
            text(
                p.english
                    .as_ref()
                    .map(|e| e.name.text())
                    .unwrap_or_default(),
            ),
        ),
        (
            "counts",
            Map(vec![
                ("vertices", count(p.vertices.len())),
                ("faces", count(p.indices.len() / 3)),
                ("materials", count(p.materials.len())),
                ("bones", count(p.bones.len())),
                ("ik_chains", count(p.iks.len())),
                ("morphs", count(p.morphs.len())),
                (
                    "rigid_bodies",
                    count(p.rigid_bodies.as_ref().map_or(0, Vec::len)),
                ),
                ("joints", count(p.joints.as_ref().map_or(0, Vec::len))),
            ]),
        ),
        (
            "sections_present",
            Map(vec![
                ("english_names", Bool(p.english.is_some())),
                ("toon_textures", Bool(p.toon_textures.is_some())),
                ("physics", Bool(p.rigid_bodies.is_some())),
            ]),
        ),
        (
            "toon_textures",
            List(
                (p.toon_textures.iter().flatten())
                    .map(|n| n.text())
                    .collect(),
            ),
        ),
        ("materials", names_of(&p.materials, |m| m.texture.text())),
        ("bones", names_of(&p.bones, |b| b.name.text())),
        ("morphs", names_of(&p.morphs, |m| m.name.text())),
    ]
}

fn vmd(v: &Vmd) -> Vec<(&'static str, Node)> {
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
    vec![
        ("version", Int(if v.is_version1() { 1 } else { 2 })),
        ("model_name", text(v.model_name.text())),
        ("last_frame", Int(last as u64)),
        ("sections_present", Int(v.sections_present as u64)),
        (
            "counts",
            Map(vec![
                ("bone_keys", count(v.bones.len())),
                ("bones_keyed", count(bone_names.len())),
                ("morph_keys", count(v.morphs.len())),
                ("morphs_keyed", count(morph_names.len())),
                ("camera_keys", count(v.cameras.len())),
                ("light_keys", count(v.lights.len())),
                ("self_shadow_keys", count(v.self_shadows.len())),
                ("property_keys", count(v.properties.len())),
                (
                    "bone_keys_with_physics_off",
                    count(v.bones.iter().filter(|k| k.physics_disabled()).count()),
                ),
            ]),
        ),
        ("bones", List(bone_names)),
        ("morphs", List(morph_names)),
    ]
}

fn vpd(v: &Vpd) -> Vec<(&'static str, Node)> {
    vec![
        ("model_name", text(&v.model_name)),
        (
            "counts",
            Map(vec![
                ("bones", count(v.bones.len())),
                ("morphs", count(v.morphs.len())),
            ]),
        ),
        ("bones", names_of(&v.bones, |b| b.name.clone())),
        ("morphs", names_of(&v.morphs, |m| m.name.clone())),
    ]
}

fn x_file(x: &XFile) -> Vec<(&'static str, Node)> {
    let meshes = x.meshes_with_transforms();
    let mut textures: Vec<String> = Vec::new();
    let mut add_texture = |t: &Option<String>| {
        if let Some(t) = t
            && !textures.contains(t)
        {
            textures.push(t.clone());
        }
    };
    let mut inline_materials = 0;
    for (mesh, _) in &meshes {
        for slot in mesh.material_list.iter().flat_map(|l| &l.materials) {
            if let odori_format::x::MaterialSlot::Inline(m) = slot {
                inline_materials += 1;
                add_texture(&m.texture);
            }
        }
    }
    for m in &x.materials {
        add_texture(&m.texture);
    }
    let sum = |f: fn(&odori_format::x::Mesh) -> usize| -> usize {
        meshes.iter().map(|(m, _)| f(m)).sum()
    };
    let frames = {
        fn frame_count(frames: &[odori_format::x::Frame]) -> usize {
            frames.iter().map(|f| 1 + frame_count(&f.frames)).sum()
        }
        frame_count(&x.frames)
    };
    vec![
        (
            "version",
            text(format!("{}.{}", x.header.major, x.header.minor)),
        ),
        ("encoding", text(x.header.encoding.describe())),
        (
            "float_bits",
            Int(match x.header.float_size {
                odori_format::x::FloatSize::F32 => 32,
                odori_format::x::FloatSize::F64 => 64,
            }),
        ),
        (
            "counts",
            Map(vec![
                ("frames", count(frames)),
                ("meshes", count(meshes.len())),
                ("vertices", count(sum(|m| m.positions.len()))),
                ("faces", count(sum(|m| m.faces.len()))),
                ("materials", count(inline_materials + x.materials.len())),
                ("textures", count(textures.len())),
            ]),
        ),
        ("textures", List(textures)),
    ]
}

fn vac(v: &Vac) -> Vec<(&'static str, Node)> {
    let three = |a: [f32; 3]| {
        Map(vec![
            ("x", Float(a[0])),
            ("y", Float(a[1])),
            ("z", Float(a[2])),
        ])
    };
    let mut entries = vec![
        ("name", text(&v.name)),
        ("x_file", text(&v.x_file)),
        ("scale", Float(v.scale)),
        ("position", three(v.position)),
        ("rotation_degrees", three(v.rotation)),
        ("bone", text(&v.bone)),
    ];
    if let Some(shadow) = v.shadow {
        entries.push(("shadow", Bool(shadow)));
    }
    entries
}
