//! A renderer for a scene: every front end (the offline pipeline, the window player, the web
//! page) draws a [`crate::Scene`] through one made here.

use crate::scene::Scene;
use odori_render::{AnyRenderer, Device, RenderOptions};

/// A renderer on `device` (wgpu or the CPU rasteriser: [`Device::open`]) for every model of
/// `scene`, in the scene's order, with the textures each model's asset names.
pub fn renderer_for(scene: &Scene, device: Device, options: RenderOptions) -> AnyRenderer {
    let models = (scene.models().iter())
        .map(|m| (m.asset().render().clone(), m.asset().textures()))
        .collect();
    AnyRenderer::with_models(device, models, options)
}
