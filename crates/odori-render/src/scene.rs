//! From a model, its motions and a frame number to everything one frame's draw needs:
//! evaluated pose, deformed vertices, material morph state, camera and light. Evaluation is
//! separate from drawing so `odori render` can run it on another thread.

use crate::camera::{self, CameraMotion, CameraPose};
use crate::light::{Light, LightMotion};
use crate::model::RenderModel;
use crate::renderer::FrameInput;
use glam::Vec3;
use odori_deform::{Deformed, Mesh};
use odori_format::{Pmd, Pmx, Vmd};
use odori_pose::motion::Source;
use odori_pose::{Instance, MaterialState, Model, Motion};

/// A model ready to evaluate: compiled pose model, bound motion, deformation mesh.
pub struct Scene {
    pub model: Model,
    pub motion: Motion,
    pub render: RenderModel,
    pub camera: Option<CameraMotion>,
    pub light: Option<LightMotion>,
    /// Deformation data (skin weights, SDEF terms, morph offsets), built once.
    pub mesh: Mesh,
    margin: f32,
}

/// One evaluated frame, owned (it crosses threads).
#[derive(Default, Clone)]
pub struct Posed {
    pub frame: f32,
    /// CPU-deformed vertices (left as they were when skinning runs on the GPU).
    pub vertices: Deformed,
    /// Skinning matrices and effective morph weights, for a GPU skinner.
    pub skinning: Vec<glam::Affine3A>,
    pub morph_weights: Vec<f32>,
    pub materials: Vec<MaterialState>,
    pub visible: bool,
    pub camera: Option<CameraPose>,
    pub light: Option<Light>,
    /// Box around the posed skeleton, padded for the skin around the bones.
    pub bounds: (Vec3, Vec3),
}

impl Posed {
    /// The renderer's view of this frame; `fallback` is the camera when the motion has none.
    pub fn input(&self, fallback: CameraPose) -> FrameInput<'_> {
        FrameInput {
            camera: self.camera.unwrap_or(fallback),
            light: self.light.unwrap_or(Light::DEFAULT),
            materials: &self.materials,
            visible: self.visible,
            bounds: self.bounds,
        }
    }
}

/// The model file, either format.
pub enum ModelFile<'a> {
    Pmx(&'a Pmx),
    Pmd(&'a Pmd),
}

impl Scene {
    /// `motions` are merged in order; the camera and light come from the first motion that has
    /// camera (light) keys, `camera` overrides.
    pub fn new(
        file: ModelFile<'_>,
        motions: &[&Vmd],
        camera: Option<&Vmd>,
    ) -> Result<Scene, odori_pose::PoseError> {
        let (model, render, mesh) = match file {
            ModelFile::Pmx(p) => (
                Model::from_pmx(p)?,
                RenderModel::from_pmx(p),
                Mesh::from_pmx(p),
            ),
            ModelFile::Pmd(p) => (
                Model::from_pmd(p)?,
                RenderModel::from_pmd(p),
                Mesh::from_pmd(p),
            ),
        };
        let sources: Vec<Source<'_>> = motions.iter().map(|v| Source::Vmd(v)).collect();
        let motion = Motion::bind(&model, &sources);
        let cam_keys = camera
            .into_iter()
            .chain(motions.iter().copied())
            .find(|v| !v.cameras.is_empty());
        let light_keys = camera
            .into_iter()
            .chain(motions.iter().copied())
            .find(|v| !v.lights.is_empty());
        let (lo, hi) = render.bounds;
        Ok(Scene {
            camera: cam_keys.and_then(|v| CameraMotion::from_keys(&v.cameras)),
            light: light_keys.and_then(|v| LightMotion::from_keys(&v.lights)),
            margin: (hi - lo).length() * 0.1,
            model,
            motion,
            render,
            mesh,
        })
    }

    /// The last frame with any key (bones, morphs or camera).
    pub fn end_frame(&self) -> f32 {
        self.motion
            .end_frame()
            .max(self.camera.as_ref().map_or(0.0, |c| c.end_frame()))
    }

    /// A camera that frames the model at rest (used when no camera motion is given).
    pub fn framing_camera(&self, aspect: f32) -> CameraPose {
        let (lo, hi) = self.render.bounds;
        camera::framing(lo, hi, aspect)
    }

    /// A fresh pose instance for this scene (one per evaluating thread).
    pub fn instance(&self) -> Instance {
        Instance::new(&self.model, &self.motion)
    }

    /// Evaluate `frame` into `out` (buffers reused), deforming on the CPU.
    pub fn evaluate(&self, inst: &mut Instance, frame: f32, out: &mut Posed) {
        self.evaluate_with(inst, frame, out, true);
    }

    /// Evaluate `frame` into `out`; with `cpu_deform` false only the skinning matrices and
    /// morph weights are produced (a GPU skinner deforms).
    pub fn evaluate_with(
        &self,
        inst: &mut Instance,
        frame: f32,
        out: &mut Posed,
        cpu_deform: bool,
    ) {
        inst.evaluate(&self.model, &self.motion, frame)
            .expect("an instance from Scene::instance");
        self.fill(inst, frame, out, cpu_deform);
    }

    /// Fill `out` from an instance already posed at `frame` (by `Instance::evaluate`, or by a
    /// physics world that steps between the pose passes): deformation, materials, camera,
    /// light and bounds.
    pub fn fill(&self, inst: &Instance, frame: f32, out: &mut Posed, cpu_deform: bool) {
        if cpu_deform {
            odori_deform::deform(
                &self.mesh,
                inst.skinning(),
                inst.effective_morph_weights(),
                &mut out.vertices,
            );
        }
        out.skinning.clear();
        out.skinning.extend_from_slice(inst.skinning());
        out.morph_weights.clear();
        out.morph_weights
            .extend_from_slice(inst.effective_morph_weights());
        out.frame = frame;
        out.materials.clear();
        out.materials.extend_from_slice(inst.materials());
        out.visible = inst.visible();
        out.camera = self.camera.as_ref().map(|c| c.sample(frame));
        out.light = self.light.as_ref().map(|l| l.sample(frame));
        out.bounds = bounds(inst, self.margin);
    }
}

/// A box around the posed skeleton, widened by `margin` for the skin around the bones.
fn bounds(inst: &Instance, margin: f32) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for &w in inst.world_positions() {
        let p = Vec3::from(w);
        if p.is_finite() {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    if lo.x > hi.x {
        return (Vec3::splat(-margin), Vec3::splat(margin));
    }
    (lo - Vec3::splat(margin), hi + Vec3::splat(margin))
}
