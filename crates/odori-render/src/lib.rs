//! odori's renderer: MikuMikuDance's look on wgpu or on the CPU, headless.
//!
//! A [`RenderModel`] (materials, draw ranges and static vertex data from a PMX or PMD) is
//! drawn by a [`Renderer`] each frame from deformed vertices, material-morph state, a camera
//! pose ([`camera`]) and a light ([`light`]), both sampled by the pose runtime: MMD's toon shading with sphere maps and specular,
//! alpha blending in material order, inverted-hull edges, a ground shadow and a self-shadow
//! map, MSAA, read back as RGBA8. Textures resolve like MMD's ([`textures`]); the ten shared
//! toon ramps are drawn by odori ([`toon`]). [`demo`] generates a small dancing character so
//! everything runs with no files at all. [`cpu`] draws the same passes with the same formulas
//! ([`shading`]) without any graphics driver; [`AnyRenderer`] is either.

pub mod any;
pub mod backend;
pub mod blit;
pub mod camera;
pub mod cpu;
pub mod demo;
pub mod gpu;
pub mod light;
pub mod materials;
pub mod model;
mod pipelines;
pub mod renderer;
pub mod shading;
pub mod shadows;
pub mod target;
pub mod textures;
pub mod toon;

pub use any::{AnyRenderer, Backend, Device, device_for_tests, devices_for_tests};
pub use camera::CameraPose;
pub use cpu::CpuRenderer;
pub use gpu::Gpu;
/// The image crate of [`TextureSource`]'s images, for callers that hand over decoded ones.
pub use image;
pub use light::Light;
pub use model::RenderModel;
pub use renderer::{FrameView, RenderOptions, Renderer};
pub use textures::TextureSource;
/// The wgpu this crate is built on, for callers that add GPU work (skinning) to a frame.
pub use wgpu;
