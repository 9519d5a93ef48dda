//! What the player hands out for one frame: per model its pose products (deformed vertices,
//! or skinning matrices and morph weights for a GPU skinner), material states, visibility and
//! bounds; for the scene the camera and the light. Owned and reusable: buffers keep their
//! capacity from frame to frame, and a frame can cross threads.

use glam::{Affine3A, BVec3A, Vec3, Vec3A};
use odori_deform::Deformed;
use odori_pose::MaterialState;
use odori_pose::camera::CameraPose;
use odori_render::renderer::FrameView;
use odori_render::{AnyRenderer, Light};

/// One model's share of a frame.
#[derive(Default, Clone)]
pub struct ModelFrame {
    pub(crate) vertices: Deformed,
    pub(crate) skinning: Vec<Affine3A>,
    pub(crate) morph_weights: Vec<f32>,
    pub(crate) materials: Vec<MaterialState>,
    pub(crate) visible: bool,
    pub(crate) bounds: (Vec3, Vec3),
    /// A stage: left out of [`Frame::bounds`].
    pub(crate) stage: bool,
}

impl ModelFrame {
    /// CPU-deformed vertices, in scene space (left empty when the player does not deform:
    /// a GPU skinner works from [`ModelFrame::skinning`]).
    pub fn vertices(&self) -> &Deformed {
        &self.vertices
    }

    /// Skinning matrices (world × inverse bind) in scene space, by file bone index.
    pub fn skinning(&self) -> &[Affine3A] {
        &self.skinning
    }

    /// Effective morph weights (group and flip morphs expanded): what a skinner applies.
    pub fn morph_weights(&self) -> &[f32] {
        &self.morph_weights
    }

    /// Material-morph state per material.
    pub fn materials(&self) -> &[MaterialState] {
        &self.materials
    }

    /// The motion's visibility keys.
    pub fn visible(&self) -> bool {
        self.visible
    }

    /// A box around the posed skeleton in scene space, padded for the skin around the bones.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        self.bounds
    }
}

/// Everything one frame of a scene shows.
#[derive(Default, Clone)]
pub struct Frame {
    pub(crate) frame: f32,
    pub(crate) models: Vec<ModelFrame>,
    pub(crate) camera: Option<CameraPose>,
    pub(crate) light: Option<Light>,
}

impl Frame {
    /// The MMD frame (30 per second) this frame shows.
    pub fn frame(&self) -> f32 {
        self.frame
    }

    /// Per model, in the scene's order.
    pub fn models(&self) -> &[ModelFrame] {
        &self.models
    }

    /// The scene's camera motion at this frame, if it has one.
    pub fn camera(&self) -> Option<CameraPose> {
        self.camera
    }

    /// The light at this frame (MMD's default light when the scene has no light motion).
    pub fn light(&self) -> Light {
        self.light.unwrap_or(Light::DEFAULT)
    }

    /// A box around every posed model but the stages (every model's when all are stages):
    /// what the light's shadow map covers, so that a room does not spread the map's texels
    /// thin over floor and walls far from the dancers.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let dancers = self.models.iter().any(|m| !m.stage);
        union_of(
            (self.models.iter())
                .filter(|m| !m.stage || !dancers)
                .map(|m| m.bounds),
        )
    }

    /// The renderer's view of this frame; `fallback` is the camera when the scene has none.
    pub fn view(&self, fallback: CameraPose) -> FrameView {
        FrameView {
            camera: self.camera.unwrap_or(fallback),
            light: self.light(),
            bounds: self.bounds(),
        }
    }

    /// Hand this frame's per-model state to `renderer` (material morphs, visibility, and the
    /// CPU-deformed vertices when `vertices` is true), ready for [`AnyRenderer::render`].
    pub fn prepare(&self, renderer: &mut AnyRenderer, vertices: bool) {
        for (i, m) in self.models.iter().enumerate() {
            renderer.set_model_state(i, &m.materials, m.visible);
            if vertices {
                let v = &m.vertices;
                renderer.upload_vertices(i, &v.positions, &v.normals, &v.uvs);
            }
        }
    }
}

/// A box around the posed skeleton (bone positions moved by `placement`), widened by
/// `margin` for the skin around the bones.
pub(crate) fn skeleton_bounds(positions: &[Vec3A], placement: Vec3, margin: f32) -> (Vec3, Vec3) {
    // In Vec3A, whose min and max are one instruction for all three axes. A non-finite
    // position (a broken model) is left out: the box of all positions and a flag of whether
    // every one was finite are gathered without a branch per bone, and the rare box that
    // saw a non-finite one is gathered again without it.
    let (mut lo, mut hi) = (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY));
    let mut finite = BVec3A::TRUE;
    for &p in positions {
        lo = lo.min(p);
        hi = hi.max(p);
        finite &= p.is_finite_mask();
    }
    if !finite.all() {
        (lo, hi) = (Vec3A::splat(f32::INFINITY), Vec3A::splat(f32::NEG_INFINITY));
        for p in positions.iter().copied().filter(|p| p.is_finite()) {
            lo = lo.min(p);
            hi = hi.max(p);
        }
    }
    let (lo, hi) = (Vec3::from(lo), Vec3::from(hi));
    if lo.x > hi.x {
        return (
            placement - Vec3::splat(margin),
            placement + Vec3::splat(margin),
        );
    }
    (
        lo + placement - Vec3::splat(margin),
        hi + placement + Vec3::splat(margin),
    )
}

/// The smallest box holding every box of `boxes` (min, max); a zero box when there are none.
pub(crate) fn union_of(boxes: impl Iterator<Item = (Vec3, Vec3)>) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for (a, b) in boxes {
        lo = lo.min(a);
        hi = hi.max(b);
    }
    if lo.x > hi.x {
        return (Vec3::ZERO, Vec3::ZERO);
    }
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The box is the componentwise min and max of the finite positions, widened by the
    /// margin and moved by the placement, with and without a non-finite position among them
    /// (the branch-free gathering and its second pass agree with the definition).
    #[test]
    fn skeleton_bounds_hold_the_finite_positions() {
        let finite = [
            Vec3A::new(1.0, -2.0, 0.5),
            Vec3A::new(-3.0, 4.0, -0.25),
            Vec3A::new(0.0, 1.0, 2.0),
        ];
        let placement = Vec3::new(10.0, 0.0, -1.0);
        let want = (
            Vec3::new(-3.0, -2.0, -0.25) + placement - Vec3::splat(0.5),
            Vec3::new(1.0, 4.0, 2.0) + placement + Vec3::splat(0.5),
        );
        assert_eq!(skeleton_bounds(&finite, placement, 0.5), want);
        let mut broken = finite.to_vec();
        broken.insert(1, Vec3A::new(f32::NAN, 0.0, 0.0));
        broken.push(Vec3A::new(0.0, f32::INFINITY, 0.0));
        assert_eq!(skeleton_bounds(&broken, placement, 0.5), want);
        let none = [Vec3A::splat(f32::NAN)];
        assert_eq!(
            skeleton_bounds(&none, placement, 0.5),
            (placement - Vec3::splat(0.5), placement + Vec3::splat(0.5))
        );
    }
}
