//! A model file read once into one compiled value: the pose model, the deformation mesh, the
//! render model and the physics model, each built from the same parsed file and never from
//! the file again. Every front end (command line, window player, web page, Python, glTF
//! export) takes its model data from here, so the PMX/PMD split lives in this one file.

use crate::accessory_model;
use crate::error::{PlaybackError, kind_of};
use odori_deform::Mesh;
use odori_format::{Document, Pmd, Pmx};
use odori_physics::PhysicsModel;
use odori_pose::Model;
use odori_render::{RenderModel, TextureSource};
use std::path::Path;

/// One compiled model: immutable, shared (`Arc`) by every scene and dancer that uses it.
pub struct ModelAsset {
    label: String,
    pose: Model,
    mesh: Mesh,
    render: RenderModel,
    physics: PhysicsModel,
    textures: TextureSource,
    warnings: Vec<String>,
}

/// The parsed model file, either format (borrowed while compiling).
#[derive(Clone, Copy)]
pub enum ModelFile<'a> {
    Pmx(&'a Pmx),
    Pmd(&'a Pmd),
}

impl ModelAsset {
    /// Read and compile the PMX, PMD or DirectX `.x` file at `path` (a `.x` accessory becomes
    /// a static model with one root bone, see `odori_format::x::to_pmx`; a `.vac` loads the
    /// `.x` it names, without its placement); textures are looked up in its folder
    /// (as MMD resolves them, never outside it). Problems that MMD would load past are
    /// [`ModelAsset::warnings`], each naming the file.
    pub fn load(path: &Path) -> Result<ModelAsset, PlaybackError> {
        let (doc, diagnostics) = odori_format::read_path(path)?;
        let label = path.display().to_string();
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => ".".into(),
        };
        // A `.x` accessory (or a `.vac` naming one) is drawn as the static model MMD draws.
        let accessory = match &doc {
            Document::X(x) => Some(accessory_model::from_x(x, path, folder.clone())),
            Document::Vac(v) => Some(accessory_model::from_vac(v, path, &folder)?),
            _ => None,
        };
        let (file, folder) = match (&doc, &accessory) {
            (_, Some(a)) => (ModelFile::Pmx(&a.pmx), a.folder.clone()),
            (Document::Pmx(p), None) => (ModelFile::Pmx(p), folder),
            (Document::Pmd(p), None) => (ModelFile::Pmd(p), folder),
            (other, None) => {
                return Err(PlaybackError::NotAModel {
                    path: path.to_path_buf(),
                    found: kind_of(other),
                });
            }
        };
        let mut asset = ModelAsset::compile(file, TextureSource::Folder(folder), &label)?;
        let file_warnings = (diagnostics.iter().map(|d| format!("{label}: {d}")))
            .chain(accessory.into_iter().flat_map(|a| a.warnings));
        asset.warnings.splice(0..0, file_warnings);
        Ok(asset)
    }

    /// Compile a parsed model; `label` names it in messages, `textures` is where its texture
    /// names lead.
    pub fn compile(
        file: ModelFile<'_>,
        textures: TextureSource,
        label: &str,
    ) -> Result<ModelAsset, PlaybackError> {
        let compile_error = |source| PlaybackError::Compile {
            name: label.to_string(),
            source,
        };
        let (pose, mesh, render) = match file {
            ModelFile::Pmx(p) => (
                Model::from_pmx(p).map_err(compile_error)?,
                Mesh::from_pmx(p),
                RenderModel::from_pmx(p),
            ),
            ModelFile::Pmd(p) => (
                Model::from_pmd(p).map_err(compile_error)?,
                Mesh::from_pmd(p),
                RenderModel::from_pmd(p),
            ),
        };
        let physics = match file {
            ModelFile::Pmx(p) => PhysicsModel::from_pmx(p, &pose),
            ModelFile::Pmd(p) => PhysicsModel::from_pmd(p, &pose),
        };
        let warnings = (pose.diagnostics().iter())
            .chain(mesh.diagnostics())
            .map(|d| format!("{label}: {d}"))
            .chain(
                physics
                    .diagnostics
                    .iter()
                    .map(|d| format!("{label}: physics: {d}")),
            )
            .collect();
        Ok(ModelAsset {
            label: label.to_string(),
            pose,
            mesh,
            render,
            physics,
            textures,
            warnings,
        })
    }

    /// The embedded demo's character (generated in code, textures in memory).
    pub fn demo(demo: &odori_render::demo::Demo) -> ModelAsset {
        ModelAsset::compile(
            ModelFile::Pmx(&demo.pmx),
            demo.textures.clone(),
            "embedded demo",
        )
        .expect("the generated demo model compiles")
    }

    /// This model with every material's shadow casting off (self-shadow and ground shadow):
    /// an accessory whose panel's shadow switch is off. It still receives self-shadow.
    pub fn without_shadows(mut self) -> ModelAsset {
        for m in &mut self.render.materials {
            m.cast_shadow = false;
            m.ground_shadow = false;
        }
        self
    }

    /// This model drawn with additive blending (加算合成: MMD's switch for an accessory or a
    /// model): every material's colour added to what is behind it.
    pub fn with_additive_blending(mut self) -> ModelAsset {
        for m in &mut self.render.materials {
            m.additive = true;
        }
        self
    }

    /// This model with every edge `width` times as thick (MikuMikuDance's per-model edge
    /// width; 0 draws no edges).
    pub fn with_edge_width(mut self, width: f32) -> ModelAsset {
        self.render.edge_width = width;
        self
    }

    /// The file path (or "embedded demo"), for messages.
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The pose runtime's compiled model.
    pub fn pose(&self) -> &Model {
        &self.pose
    }

    /// Skin weights, SDEF terms, morph offsets: what deformation reads.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// Materials, draw ranges and static vertex data: what the renderer reads.
    pub fn render(&self) -> &RenderModel {
        &self.render
    }

    /// Rigid bodies and joints (empty for a model without physics).
    pub fn physics(&self) -> &PhysicsModel {
        &self.physics
    }

    /// Where the model's texture names lead.
    pub fn textures(&self) -> &TextureSource {
        &self.textures
    }

    /// What was repaired or dropped while reading and compiling, one line each, naming the
    /// file.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}
