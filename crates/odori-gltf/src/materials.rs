//! Materials and their textures. glTF's metallic-roughness material cannot say what MMD's
//! toon shading does, so each material gets what any viewer shows sensibly (base colour,
//! texture, alpha mode, double-sided) and keeps MMD's own values in `extras.mmd`.

use crate::buffer::Buffer;
use odori_playback::ModelAsset;
use odori_render::model::ToonRef;
use serde_json::{Value, json};
use std::collections::HashMap;

/// MMD's default light colour (0.6 grey): what diffuse is multiplied by under it.
const MMD_LIGHT: f32 = 0.6;

/// Where texture images go.
pub enum ImageStore<'a> {
    /// Inside the binary buffer (GLB).
    Embedded,
    /// Files beside the .gltf, named `{stem}_{n}.png`; their bytes are collected here.
    Beside {
        stem: &'a str,
        files: &'a mut Vec<(String, Vec<u8>)>,
    },
}

/// Every model's materials, textures and images, added to model by model.
#[derive(Default)]
pub struct MaterialsOut {
    pub materials: Vec<Value>,
    pub textures: Vec<Value>,
    pub images: Vec<Value>,
    pub samplers: Vec<Value>,
    /// Textures that could not be read (the material is written without: MMD draws it so).
    pub warnings: Vec<String>,
}

/// Add `asset`'s materials (and the textures they use) to `out`, every alpha times
/// `opacity` (an accessory's Tr).
pub fn materials(
    asset: &ModelAsset,
    buf: &mut Buffer,
    store: &mut ImageStore<'_>,
    opacity: f32,
    out: &mut MaterialsOut,
) {
    // Texture name → (texture index, has translucent pixels).
    let mut loaded: HashMap<String, Option<(usize, bool)>> = HashMap::new();
    for m in &asset.render().materials {
        let texture = m.texture.as_deref().filter(|t| !t.is_empty()).and_then(|name| {
            *loaded.entry(name.to_string()).or_insert_with(|| {
                match load_png(asset, name) {
                    Ok((png, translucent)) => {
                        if out.samplers.is_empty() {
                            // MMD samples with linear filtering and repeats.
                            out.samplers.push(json!({ "magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497 }));
                        }
                        let image = out.images.len();
                        let mut img = json!({ "name": name });
                        match store {
                            ImageStore::Embedded => {
                                img["bufferView"] = json!(buf.view(&png, None));
                                img["mimeType"] = json!("image/png");
                            }
                            ImageStore::Beside { stem, files } => {
                                let file = format!("{stem}_{image}.png");
                                img["uri"] = json!(uri_escape(&file));
                                files.push((file, png));
                            }
                        }
                        out.images.push(img);
                        out.textures.push(json!({ "sampler": 0, "source": image }));
                        Some((out.textures.len() - 1, translucent))
                    }
                    Err(e) => {
                        out.warnings.push(format!("{}: texture {e}; the material is written without it", asset.label()));
                        None
                    }
                }
            })
        });
        let d = m.diffuse;
        // The colour MMD shows a fully lit surface in under its default light.
        let lit =
            (m.diffuse.truncate() * MMD_LIGHT + m.ambient).clamp(glam::Vec3::ZERO, glam::Vec3::ONE);
        let alpha = (d.w * opacity).clamp(0.0, 1.0);
        let blend = alpha < 1.0 || texture.is_some_and(|(_, t)| t);
        let mut pbr = json!({
            "baseColorFactor": [lit.x, lit.y, lit.z, alpha],
            "metallicFactor": 0.0,
            "roughnessFactor": 0.9,
        });
        if let Some((t, _)) = texture {
            pbr["baseColorTexture"] = json!({ "index": t });
        }
        let mut mat = json!({
            "name": m.name,
            "pbrMetallicRoughness": pbr,
            "extras": { "mmd": mmd_values(m) },
        });
        if blend {
            mat["alphaMode"] = json!("BLEND");
        }
        if m.double_sided {
            mat["doubleSided"] = json!(true);
        }
        out.materials.push(mat);
    }
}

fn mmd_values(m: &odori_render::model::MaterialDesc) -> Value {
    json!({
        "diffuse": m.diffuse.to_array(),
        "ambient": m.ambient.to_array(),
        "specular": m.specular.to_array(),
        "specularPower": m.specular_power,
        "texture": m.texture,
        "sphere": m.sphere,
        "sphereMode": m.sphere_mode.name(),
        "toon": match &m.toon {
            ToonRef::None => Value::Null,
            ToonRef::Shared(i) => json!(format!("toon{:02}.bmp", i + 1)),
            ToonRef::File(f) => json!(f),
        },
        "toonShared": matches!(m.toon, ToonRef::Shared(_)),
        "edge": m.edge,
        "edgeColor": m.edge_color.to_array(),
        "edgeSize": m.edge_size,
        "groundShadow": m.ground_shadow,
        "castShadow": m.cast_shadow,
        "additive": m.additive,
        "receiveShadow": m.receive_shadow,
    })
}

/// Read a texture as MMD resolves it and encode it as PNG; also whether any pixel is not
/// fully opaque (then the material blends).
fn load_png(asset: &ModelAsset, name: &str) -> Result<(Vec<u8>, bool), String> {
    let img = asset.textures().load(name)?;
    let translucent = img.pixels().any(|p| p.0[3] < 255);
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|e| format!("{name}: encoding as PNG: {e}"))?;
    Ok((png, translucent))
}

/// A file name as a relative URI (spaces and non-ASCII percent-encoded).
fn uri_escape(name: &str) -> String {
    let mut s = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}
