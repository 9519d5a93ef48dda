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
use std::sync::Arc;

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

/// A material's values as drawn this frame: its morph state (`None` = unmorphed) over its
/// base values, then its edge size times the model's edge width. The width scales the whole
/// outline after the morphs, as nanoem applies a project model's edge width when it pushes the
/// edge out (`edgeSizeScaleFactor`), so a morph adding to the edge size is scaled too.
pub fn drawn_values(
    model: &RenderModel,
    base: &MaterialValues,
    state: Option<&MaterialState>,
) -> MaterialValues {
    let mut v = state.map_or(*base, |s| s.resolve(base));
    v.edge_size *= model.edge_width;
    v
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

/// A material's images as both renderers use them, resolved once: main texture and sphere map
/// (`None` when absent or not loadable), and the toon ramp (white when absent) with its
/// darkest texel. Images shared by several materials are the same `Arc`.
#[derive(Clone)]
pub struct MaterialImages {
    pub texture: Option<Arc<RgbaImage>>,
    pub sphere: Option<Arc<RgbaImage>>,
    pub toon: Arc<RgbaImage>,
    pub toon_shade: [f32; 4],
}

/// Resolve every material's images as MMD does (texture names through `source`, the ten shared
/// toon ramps drawn by odori unless the model has its own file of that name), loading each
/// name once. Problems become warnings and the material draws without that image.
pub fn resolve_images(
    model: &RenderModel,
    source: &TextureSource,
) -> (Vec<MaterialImages>, Vec<String>) {
    let mut images: HashMap<String, Option<Arc<RgbaImage>>> = HashMap::new();
    let mut warnings = Vec::new();
    let mut get = |name: &str, warnings: &mut Vec<String>| -> Option<Arc<RgbaImage>> {
        if let Some(v) = images.get(name) {
            return v.clone();
        }
        let img = match source.load(name) {
            Ok(img) => Some(Arc::new(img)),
            Err(e) => {
                warnings.push(format!("texture {e}"));
                None
            }
        };
        images.insert(name.to_string(), img.clone());
        img
    };
    let white = Arc::new(toon::white());
    let mut shared_toons: HashMap<u8, (Arc<RgbaImage>, [f32; 4])> = HashMap::new();
    let mut shared = |i: u8| {
        shared_toons
            .entry(i)
            .or_insert_with(|| {
                let img = toon::shared(i);
                let shade = toon_shade(&img);
                (Arc::new(img), shade)
            })
            .clone()
    };
    let list = (model.materials.iter())
        .map(|m| {
            let texture = m.texture.as_deref().and_then(|n| get(n, &mut warnings));
            let sphere = match m.sphere_mode {
                SphereMode::None => None,
                _ => m.sphere.as_deref().and_then(|n| get(n, &mut warnings)),
            };
            let (toon, toon_shade) = match &m.toon {
                ToonRef::None => (white.clone(), [1.0; 4]),
                ToonRef::Shared(i) => shared(*i),
                // A model's own file wins over the shared ramp of the same name.
                ToonRef::File(name) => match toon::shared_index(name) {
                    Some(i) if !source.exists(name) => shared(i),
                    _ => match source.load(name) {
                        Ok(img) => {
                            let shade = toon_shade(&img);
                            (Arc::new(img), shade)
                        }
                        Err(e) => {
                            warnings.push(format!("toon {e}"));
                            (white.clone(), [1.0; 4])
                        }
                    },
                },
            };
            MaterialImages {
                texture,
                sphere,
                toon,
                toon_shade,
            }
        })
        .collect();
    (list, warnings)
}

/// The mip chain of an image down to 1×1, each level box-filtered from the one above (the
/// same levels on the GPU and the CPU renderer, so their texture lookups agree).
pub fn mip_chain(img: &RgbaImage) -> Vec<RgbaImage> {
    let levels = 32 - img.width().max(img.height()).max(1).leading_zeros();
    let mut out = Vec::with_capacity(levels as usize);
    let mut level = img.clone();
    for mip in 0..levels {
        let next = (mip + 1 < levels).then(|| {
            image::imageops::resize(
                &level,
                (level.width() / 2).max(1),
                (level.height() / 2).max(1),
                image::imageops::FilterType::Triangle,
            )
        });
        out.push(level);
        match next {
            Some(n) => level = n,
            None => break,
        }
    }
    out
}

/// Upload an RGBA image with a full mip chain ([`mip_chain`]), so distant textures do not
/// shimmer.
pub fn upload(
    gpu: &(wgpu::Device, wgpu::Queue),
    img: &RgbaImage,
    label: &str,
) -> wgpu::TextureView {
    let (device, queue) = gpu;
    let chain = mip_chain(img);
    let tex = device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: img.width().max(1),
            height: img.height().max(1),
            depth_or_array_layers: 1,
        },
        mip_level_count: chain.len() as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (mip, level) in chain.iter().enumerate() {
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &tex,
                mip_level: mip as u32,
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

/// One material's uniform this frame (`Material` in `mmd.wgsl`): its morphed values `v`,
/// what loaded (`has_texture`, `sphere_loaded`) and the toon ramp's shade. Both renderers
/// shade from this.
pub fn uniform(
    desc: &MaterialDesc,
    v: &MaterialValues,
    has_texture: bool,
    sphere_loaded: bool,
    toon_shade: [f32; 4],
) -> MaterialUniform {
    let sphere_mode = match desc.sphere_mode {
        _ if !sphere_loaded => 0.0,
        SphereMode::None => 0.0,
        SphereMode::Multiply => 1.0,
        SphereMode::Add => 2.0,
        SphereMode::SubTexture => 3.0,
    };
    MaterialUniform {
        diffuse: v.diffuse.to_array(),
        specular: v.specular.extend(v.specular_power).to_array(),
        ambient: v.ambient.extend(1.0).to_array(),
        edge_color: v.edge_color.to_array(),
        texture_tint: v.texture_tint.to_array(),
        sphere_tint: v.sphere_tint.to_array(),
        toon_tint: v.toon_tint.to_array(),
        toon_shade: [toon_shade[0], toon_shade[1], toon_shade[2], 1.0],
        params: Vec4::new(
            v.edge_size,
            sphere_mode,
            if has_texture { 1.0 } else { 0.0 },
            if desc.receive_shadow { 1.0 } else { 0.0 },
        )
        .to_array(),
    }
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
        let (images, warnings) = resolve_images(model, source);
        // One texture per image, however many materials share it.
        let mut uploaded: HashMap<*const RgbaImage, wgpu::TextureView> = HashMap::new();
        let mut view = |img: &Arc<RgbaImage>| {
            uploaded
                .entry(Arc::as_ptr(img))
                .or_insert_with(|| upload(gpu, img, "material image"))
                .clone()
        };
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("materials"),
            size: STRIDE * model.materials.len().max(1) as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let list = (model.materials.iter().zip(&images))
            .map(|(m, im)| {
                let texture = im.texture.as_ref().map(&mut view);
                let sphere = im.sphere.as_ref().map(&mut view);
                let toon_view = view(&im.toon);
                let shade = im.toon_shade;
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
            warnings,
        }
    }

    /// Write every material's morphed values for this frame.
    pub fn update(&self, queue: &wgpu::Queue, model: &RenderModel, states: &[MaterialState]) {
        let mut bytes = vec![0u8; STRIDE as usize * self.list.len()];
        for (i, (desc, gpu)) in model.materials.iter().zip(&self.list).enumerate() {
            let v = drawn_values(model, &self.base[i], states.get(i));
            let u = uniform(desc, &v, gpu.has_texture, gpu.sphere_loaded, gpu.toon_shade);
            let at = i * STRIDE as usize;
            bytes[at..at + std::mem::size_of::<MaterialUniform>()]
                .copy_from_slice(bytemuck::bytes_of(&u));
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.uniforms, 0, &bytes);
        }
    }
}
