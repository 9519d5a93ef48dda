//! A model read from files in memory, with what an engine of its own needs to draw it: the
//! mesh at rest, its linear skin, vertex morphs, materials and their decoded images.

use super::error;
use super::files::Files;
use crate::files::{Kind, kind_of, parse, textures_for};
use glam::Vec3;
use odori_format::Document;
use odori_playback::ModelAsset;
use odori_playback::asset::ModelFile;
use odori_pose::space;
use odori_render::TextureSource;
use odori_render::materials::{MaterialImages, resolve_images};
use odori_render::model::ToonRef;
use std::sync::{Arc, OnceLock};
use wasm_bindgen::prelude::*;

/// A PMX or PMD model, compiled once; motions and instances share it.
#[wasm_bindgen(js_name = RawModel)]
pub struct Model {
    pub(crate) asset: Arc<ModelAsset>,
    warnings: Vec<String>,
    /// Every material's images, decoded on first request (an engine that draws untextured
    /// never pays for them), with the warnings of images that could not be used.
    images: OnceLock<(Vec<MaterialImages>, Vec<String>)>,
}

/// An image decoded by odori (RGBA8, straight alpha, top row first): TGA, BMP, DDS, PNG, JPEG
/// and the rest MMD models use, which a browser alone cannot all decode.
#[wasm_bindgen(js_name = RawImage)]
pub struct Image {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

#[wasm_bindgen(js_class = RawImage)]
impl Image {
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u32 {
        self.width
    }

    #[wasm_bindgen(getter)]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The pixels, copied out once.
    pub fn pixels(&self) -> Vec<u8> {
        self.pixels.clone()
    }
}

/// The model files among `files`, in order.
pub(crate) fn model_paths(files: &Files) -> Vec<String> {
    (files.files.iter())
        .filter(|f| kind_of(&f.0) == Kind::Model)
        .map(|f| f.0.clone())
        .collect()
}

#[wasm_bindgen(js_class = RawModel)]
impl Model {
    /// The model files `files` holds (PMX, PMD), in order.
    #[wasm_bindgen(js_name = modelPaths)]
    pub fn model_paths(files: &Files) -> Vec<String> {
        model_paths(files)
    }

    /// The texture, sphere and toon file names the model at `path` in `files` asks for, as
    /// its file spells them (so that a caller can fetch them before [`Model::load`]).
    #[wasm_bindgen(js_name = textureNames)]
    pub fn texture_names(path: &str, files: &Files) -> Result<Vec<String>, JsError> {
        let (doc, _) = parse(path, find(path, files)?).map_err(error)?;
        let render = match &doc {
            Document::Pmx(p) => odori_render::RenderModel::from_pmx(p),
            Document::Pmd(p) => odori_render::RenderModel::from_pmd(p),
            _ => return Err(error(format!("{path}: not a model (PMX or PMD)"))),
        };
        let mut names: Vec<String> = Vec::new();
        for m in &render.materials {
            let toon = match &m.toon {
                ToonRef::File(f) => Some(f),
                _ => None,
            };
            for n in [m.texture.as_ref(), m.sphere.as_ref(), toon]
                .into_iter()
                .flatten()
            {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        Ok(names)
    }

    /// Read and compile the model at `path` in `files`; its textures are the other files,
    /// by their path relative to the model's folder (as MMD resolves them). The error names
    /// the file, the section and the byte offset.
    pub fn load(path: &str, files: &Files) -> Result<Model, JsError> {
        let (doc, diagnostics) = parse(path, find(path, files)?).map_err(error)?;
        let file = match &doc {
            Document::Pmx(p) => ModelFile::Pmx(p),
            Document::Pmd(p) => ModelFile::Pmd(p),
            _ => return Err(error(format!("{path}: not a model (PMX or PMD)"))),
        };
        let textures = textures_for(path, &files.files, &mut Vec::new(), true);
        let asset = ModelAsset::compile(file, TextureSource::Files(Arc::new(textures)), path)
            .map_err(error)?;
        let warnings = (diagnostics.iter().map(|d| format!("{path}: {d}")))
            .chain(asset.warnings().iter().cloned())
            .collect();
        Ok(Model {
            asset: Arc::new(asset),
            warnings,
            images: OnceLock::new(),
        })
    }

    /// odori's embedded demo character (generated in code, textures in memory): something to
    /// dance with no files at all.
    pub fn demo() -> Model {
        let asset = ModelAsset::demo(&odori_render::demo::Demo::new());
        Model {
            warnings: asset.warnings().to_vec(),
            asset: Arc::new(asset),
            images: OnceLock::new(),
        }
    }

    /// The model's name, as its file gives it.
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.asset.pose().name().to_string()
    }

    /// What was repaired or dropped while reading (each line names the file), and, once
    /// images were asked for, the images that could not be used.
    #[wasm_bindgen(getter)]
    pub fn warnings(&self) -> Vec<String> {
        let images = self.images.get().map_or(&[][..], |i| &i.1[..]);
        self.warnings.iter().chain(images).cloned().collect()
    }

    #[wasm_bindgen(getter, js_name = boneNames)]
    pub fn bone_names(&self) -> Vec<String> {
        self.asset.pose().bone_names().to_vec()
    }

    /// Each bone's parent, -1 for a root.
    #[wasm_bindgen(getter)]
    pub fn parents(&self) -> Vec<i32> {
        (self.asset.pose().parents().iter())
            .map(|&p| {
                if p == odori_pose::model::NONE {
                    -1
                } else {
                    p as i32
                }
            })
            .collect()
    }

    #[wasm_bindgen(getter, js_name = morphNames)]
    pub fn morph_names(&self) -> Vec<String> {
        (self.asset.pose().morphs().iter())
            .map(|m| m.name.clone())
            .collect()
    }

    #[wasm_bindgen(getter, js_name = vertexCount)]
    pub fn vertex_count(&self) -> u32 {
        self.asset.mesh().vertex_count() as u32
    }

    /// Each bone's position at rest (x, y, z per bone): where its skinning matrix's bind
    /// pose puts it (skinning = world × translation(−rest)).
    #[wasm_bindgen(js_name = restBonePositions)]
    pub fn rest_bone_positions(&self, mirror: bool) -> Vec<f32> {
        (self.asset.pose().rest_positions().iter())
            .flat_map(|p| point(Vec3::from(*p).to_array(), mirror))
            .collect()
    }

    /// Vertex positions at rest (x, y, z per vertex).
    pub fn positions(&self, mirror: bool) -> Vec<f32> {
        (self.asset.mesh().rest_positions().iter())
            .flat_map(|p| point(*p, mirror))
            .collect()
    }

    /// Vertex normals at rest (x, y, z per vertex).
    pub fn normals(&self, mirror: bool) -> Vec<f32> {
        (self.asset.mesh().rest_normals().iter())
            .flat_map(|p| point(*p, mirror))
            .collect()
    }

    /// Texture coordinates (u, v per vertex; v down, as MMD's images are stored).
    pub fn uvs(&self) -> Vec<f32> {
        (self.asset.mesh().rest_uvs().iter())
            .flatten()
            .copied()
            .collect()
    }

    /// Each vertex's edge scale (PMX's per-vertex edge magnification; 1 in PMD).
    #[wasm_bindgen(js_name = edgeScales)]
    pub fn edge_scales(&self) -> Vec<f32> {
        self.asset.render().edge_scale.clone()
    }

    /// Triangles, three vertex indices each, in material order ([`Model::materials_json`]'s
    /// ranges); mirrored, each triangle's winding is reversed so that front faces stay front.
    pub fn indices(&self, mirror: bool) -> Vec<u32> {
        let mut indices = self.asset.render().indices.clone();
        if mirror {
            for t in indices.chunks_exact_mut(3) {
                t.swap(1, 2);
            }
        }
        indices
    }

    /// Four bone indices per vertex for a linear blend skin (SDEF vertices as the two-bone
    /// blend they degrade to, QDEF as a four-bone one: `odori_deform::Mesh::linear_skin`).
    #[wasm_bindgen(js_name = skinIndices)]
    pub fn skin_indices(&self) -> Vec<u16> {
        let mesh = self.asset.mesh();
        (0..mesh.vertex_count())
            .flat_map(|v| mesh.linear_skin(v).0.map(|b| b as u16))
            .collect()
    }

    /// The four weights of [`Model::skin_indices`] per vertex (summing to one).
    #[wasm_bindgen(js_name = skinWeights)]
    pub fn skin_weights(&self) -> Vec<f32> {
        let mesh = self.asset.mesh();
        (0..mesh.vertex_count())
            .flat_map(|v| mesh.linear_skin(v).1)
            .collect()
    }

    /// The morphs that move vertices, by index into the morph list (the weights an instance
    /// hands out); group morphs act through their members.
    #[wasm_bindgen(js_name = vertexMorphs)]
    pub fn vertex_morphs(&self) -> Vec<u32> {
        (self.asset.mesh().vertex_morphs())
            .map(|(m, _)| m as u32)
            .collect()
    }

    /// The offsets of morph `morph` as a full-size array (x, y, z per vertex, zero for the
    /// vertices it leaves alone), as an engine's morph targets hold them.
    #[wasm_bindgen(js_name = vertexMorphOffsets)]
    pub fn vertex_morph_offsets(&self, morph: u32, mirror: bool) -> Vec<f32> {
        let mesh = self.asset.mesh();
        let mut out = vec![0.0; mesh.vertex_count() * 3];
        for (m, offsets) in mesh.vertex_morphs() {
            if m != morph as usize {
                continue;
            }
            for (v, o) in offsets {
                let o = point(o, mirror);
                let at = v as usize * 3;
                for k in 0..3 {
                    out[at + k] += o[k];
                }
            }
        }
        out
    }

    /// The materials as JSON: for each, its name, colours (`diffuse` RGBA, `specular`,
    /// `specularPower`, `ambient`), flags (`doubleSided`, `groundShadow`, `castShadow`,
    /// `receiveShadow`, `edge`), `edgeColor`, `edgeSize`, image names (`texture`, `sphere`,
    /// `sphereMode`: none, multiply, add or subtexture; `toon`: null, a shared ramp's
    /// index 0–9 or a file name) and its triangles (`start`, `count` into
    /// [`Model::indices`]).
    #[wasm_bindgen(js_name = materialsJson)]
    pub fn materials_json(&self) -> String {
        let list: Vec<serde_json::Value> = (self.asset.render().materials.iter())
            .map(|m| {
                let toon = match &m.toon {
                    ToonRef::None => serde_json::Value::Null,
                    ToonRef::Shared(i) => serde_json::json!(i),
                    ToonRef::File(f) => serde_json::json!(f),
                };
                serde_json::json!({
                    "name": m.name,
                    "diffuse": m.diffuse.to_array(),
                    "specular": m.specular.to_array(),
                    "specularPower": m.specular_power,
                    "ambient": m.ambient.to_array(),
                    "doubleSided": m.double_sided,
                    "groundShadow": m.ground_shadow,
                    "castShadow": m.cast_shadow,
                    "receiveShadow": m.receive_shadow,
                    "edge": m.edge,
                    "edgeColor": m.edge_color.to_array(),
                    "edgeSize": m.edge_size,
                    "texture": m.texture,
                    "sphere": m.sphere,
                    "sphereMode": m.sphere_mode.name(),
                    "toon": toon,
                    "start": m.indices.start,
                    "count": m.indices.end - m.indices.start,
                })
            })
            .collect();
        serde_json::Value::Array(list).to_string()
    }

    /// Material `material`'s image `slot` ("texture", "sphere" or "toon") as odori resolves
    /// it (the model's files, MMD's ten shared toon ramps drawn by odori); `undefined` when
    /// the material has none or it could not be read (see [`Model::warnings`]). A toon is
    /// always there (white when the material has none).
    pub fn image(&self, material: u32, slot: &str) -> Result<Option<Image>, JsError> {
        let (images, _) = self
            .images
            .get_or_init(|| resolve_images(self.asset.render(), self.asset.textures()));
        let Some(m) = images.get(material as usize) else {
            return Err(error(format!(
                "no material {material}: the model has {}",
                images.len()
            )));
        };
        let image = match slot {
            "texture" => m.texture.as_ref(),
            "sphere" => m.sphere.as_ref(),
            "toon" => Some(&m.toon),
            other => {
                return Err(error(format!(
                    "no image slot {other:?}: texture, sphere or toon"
                )));
            }
        };
        Ok(image.map(|i| Image {
            width: i.width(),
            height: i.height(),
            pixels: i.as_raw().clone(),
        }))
    }
}

/// The bytes of `path` in `files`.
pub(crate) fn find<'a>(path: &str, files: &'a Files) -> Result<&'a [u8], JsError> {
    (files.files.iter())
        .find(|f| f.0 == path)
        .map(|f| &f.1[..])
        .ok_or_else(|| error(format!("{path}: not among the files given")))
}

/// A point or direction, mirrored into a right-handed frame when asked.
fn point(p: [f32; 3], mirror: bool) -> [f32; 3] {
    if mirror { space::array(p) } else { p }
}
