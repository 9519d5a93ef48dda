//! Materials on the GPU: each material's textures (main, sphere, toon) in one bind group, and
//! one uniform buffer holding every material's morphed values at 256-byte strides (dynamic
//! offsets), rewritten each frame because material morphs change them.

use crate::model::{MaterialDesc, RenderModel, SphereMode, ToonRef};
use crate::textures::TextureSource;
use crate::toon;
use bytemuck::{Pod, Zeroable};
use glam::Vec4;
use image::RgbaImage;
use odori_pose::material::{MaterialState, MaterialValues};
use std::collections::HashMap;

/// Uniform stride: wgpu's minimum dynamic-offset alignment.
pub const STRIDE: u64 = 256;

/// Matches `Material` in `mmd.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
pub struct MaterialUniform {
    pub diffuse: [f32; 4],
    pub specular: [f32; 4],
    pub ambient: [f32; 4],
    pub edge_color: [f32; 4],
    pub texture_tint: [f32; 4],
    pub sphere_tint: [f32; 4],
    pub toon_tint: [f32; 4],
    pub toon_shade: [f32; 4],
    pub params: [f32; 4],
}

/// The base (unmorphed) values of a material, in `odori-pose`'s material-morph terms.
pub fn base_values(m: &MaterialDesc) -> MaterialValues {
    MaterialValues {
        diffuse: m.diffuse,
        specular: m.specular,
        specular_power: m.specular_power,
        ambient: m.ambient,
        edge_color: m.edge_color,
        edge_size: m.edge_size,
        ..MaterialValues::ONE
    }
}

/// One material's GPU side.
pub struct GpuMaterial {
    pub bind_group: wgpu::BindGroup,
    has_texture: bool,
    /// False when the material names a sphere map that did not load: draw it without one
    /// (a white stand-in would brighten "add" spheres).
    sphere_loaded: bool,
    toon_shade: [f32; 4],
}

/// Loads textures once per name (several materials often share one).
struct Cache<'a> {
    source: &'a TextureSource,
    images: HashMap<String, Option<wgpu::TextureView>>,
    warnings: Vec<String>,
}

impl Cache<'_> {
    fn get(&mut self, gpu: &(wgpu::Device, wgpu::Queue), name: &str) -> Option<wgpu::TextureView> {
        if let Some(v) = self.images.get(name) {
            return v.clone();
        }
        let view = match self.source.load(name) {
            Ok(img) => Some(upload(gpu, &img, name)),
            Err(e) => {
                self.warnings.push(format!("texture {e}"));
                None
            }
        };
        self.images.insert(name.to_string(), view.clone());
        view
    }
}

/// Upload an RGBA image with a full mip chain (box-filtered on the CPU), so distant textures
/// do not shimmer.
pub fn upload(
    gpu: &(wgpu::Device, wgpu::Queue),
    img: &RgbaImage,
    label: &str,
) -> wgpu::TextureView {
    let (device, queue) = gpu;
    let levels = 32 - img.width().max(img.height()).max(1).leading_zeros();
    let tex = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: img.width().max(1),
            height: img.height().max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: levels,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut level = img.clone();
    for mip in 0..levels {
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &tex,
                mip_level: mip,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            level.as_raw(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(4 * level.width()),
                rows_per_image: Some(level.height()),
            },
            wgpu::Extent3d {
                width: level.width(),
                height: level.height(),
                depth_or_array_layers: 1,
            },
        );
        if mip + 1 < levels {
            level = image::imageops::resize(
                &level,
                (level.width() / 2).max(1),
                (level.height() / 2).max(1),
                image::imageops::FilterType::Triangle,
            );
        }
    }
    tex.create_view(&Default::default())
}

/// The darkest texel of a toon ramp (its bottom row in MMD's convention): the shade colour
/// self-shadow mode multiplies by.
fn toon_shade(img: &RgbaImage) -> [f32; 4] {
    let y = img.height().saturating_sub(1);
    let p = img.get_pixel(0, y).0;
    [
        p[0] as f32 / 255.0,
        p[1] as f32 / 255.0,
        p[2] as f32 / 255.0,
        1.0,
    ]
}

pub struct Materials {
    pub list: Vec<GpuMaterial>,
    pub uniforms: wgpu::Buffer,
    base: Vec<MaterialValues>,
    /// Texture problems met while loading (for the caller to print).
    pub warnings: Vec<String>,
}

impl Materials {
    pub fn new(
        gpu: &(wgpu::Device, wgpu::Queue),
        layout: &wgpu::BindGroupLayout,
        model: &RenderModel,
        source: &TextureSource,
    ) -> Materials {
        let (device, _) = gpu;
        let sampler = |mode| {
            device.create_sampler(&wgpu::SamplerDescriptor {
                address_mode_u: mode,
                address_mode_v: mode,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                mipmap_filter: wgpu::MipmapFilterMode::Linear,
                ..Default::default()
            })
        };
        let wrap = sampler(wgpu::AddressMode::Repeat);
        let clamp = sampler(wgpu::AddressMode::ClampToEdge);
        let white = upload(
            gpu,
            &RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])),
            "white",
        );
        let mut shared_toons: HashMap<u8, (wgpu::TextureView, [f32; 4])> = HashMap::new();
        let mut shared = |i: u8| {
            shared_toons
                .entry(i)
                .or_insert_with(|| {
                    let img = toon::shared(i);
                    (upload(gpu, &img, "shared toon"), toon_shade(&img))
                })
                .clone()
        };
        let mut cache = Cache {
            source,
            images: HashMap::new(),
            warnings: Vec::new(),
        };
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("materials"),
            size: STRIDE * model.materials.len().max(1) as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let list = model
            .materials
            .iter()
            .map(|m| {
                let texture = m.texture.as_deref().and_then(|n| cache.get(gpu, n));
                let sphere = match m.sphere_mode {
                    SphereMode::None => None,
                    _ => m.sphere.as_deref().and_then(|n| cache.get(gpu, n)),
                };
                let (toon_view, shade) = match &m.toon {
                    ToonRef::None => (white.clone(), [1.0; 4]),
                    ToonRef::Shared(i) => shared(*i),
                    // A model's own file wins over the shared ramp of the same name.
                    ToonRef::File(name) => match toon::shared_index(name) {
                        Some(i) if !source.exists(name) => shared(i),
                        _ => match source.load(name) {
                            Ok(img) => (upload(gpu, &img, name), toon_shade(&img)),
                            Err(e) => {
                                cache.warnings.push(format!("toon {e}"));
                                (white.clone(), [1.0; 4])
                            }
                        },
                    },
                };
                let has_texture = texture.is_some();
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&m.name),
                    layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                buffer: &uniforms,
                                offset: 0,
                                size: wgpu::BufferSize::new(
                                    std::mem::size_of::<MaterialUniform>() as u64
                                ),
                            }),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(
                                texture.as_ref().unwrap_or(&white),
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(
                                sphere.as_ref().unwrap_or(&white),
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: wgpu::BindingResource::TextureView(&toon_view),
                        },
                        wgpu::BindGroupEntry {
                            binding: 4,
                            resource: wgpu::BindingResource::Sampler(&wrap),
                        },
                        wgpu::BindGroupEntry {
                            binding: 5,
                            resource: wgpu::BindingResource::Sampler(&clamp),
                        },
                    ],
                });
                GpuMaterial {
                    bind_group,
                    has_texture,
                    sphere_loaded: sphere.is_some(),
                    toon_shade: shade,
                }
            })
            .collect();
        Materials {
            list,
            uniforms,
            base: model.materials.iter().map(base_values).collect(),
            warnings: cache.warnings,
        }
    }

    /// Write every material's morphed values for this frame.
    pub fn update(&self, queue: &wgpu::Queue, model: &RenderModel, states: &[MaterialState]) {
        let mut bytes = vec![0u8; STRIDE as usize * self.list.len()];
        for (i, (desc, gpu)) in model.materials.iter().zip(&self.list).enumerate() {
            let v = match states.get(i) {
                Some(s) => s.resolve(&self.base[i]),
                None => self.base[i],
            };
            let sphere_mode = match desc.sphere_mode {
                _ if !gpu.sphere_loaded => 0.0,
                SphereMode::None => 0.0,
                SphereMode::Multiply => 1.0,
                SphereMode::Add => 2.0,
                SphereMode::SubTexture => 3.0,
            };
            let u = MaterialUniform {
                diffuse: v.diffuse.to_array(),
                specular: v.specular.extend(v.specular_power).to_array(),
                ambient: v.ambient.extend(1.0).to_array(),
                edge_color: v.edge_color.to_array(),
                texture_tint: v.texture_tint.to_array(),
                sphere_tint: v.sphere_tint.to_array(),
                toon_tint: v.toon_tint.to_array(),
                toon_shade: [gpu.toon_shade[0], gpu.toon_shade[1], gpu.toon_shade[2], 1.0],
                params: Vec4::new(
                    v.edge_size,
                    sphere_mode,
                    if gpu.has_texture { 1.0 } else { 0.0 },
                    if desc.receive_shadow { 1.0 } else { 0.0 },
                )
                .to_array(),
            };
            let at = i * STRIDE as usize;
            bytes[at..at + std::mem::size_of::<MaterialUniform>()]
                .copy_from_slice(bytemuck::bytes_of(&u));
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.uniforms, 0, &bytes);
        }
    }
}
