//! The window's fast path: a renderer drawing in BGRA (the byte order X11 and Windows
//! surfaces offer) gives the same RGBA pixels as one drawing in RGBA, and `Blit` copies its
//! frame onto a BGRA surface instead of drawing it, with the same surface bytes as the
//! shader path gives for an RGBA frame.
//!
//! Evidence: the RGBA renderer is the one the goldens and the peer comparisons hold; the
//! shader path is the one the window used before the copy. Needs a GPU adapter (lavapipe
//! in CI); without one it prints SKIPPED (a failure under `ODORI_REQUIRE_GPU=1`).

use odori_playback::offline::renderer_for;
use odori_playback::{Frame, Player, PlayerOptions, Preroll, Scene};
use odori_render::blit::Blit;
use odori_render::target::ColorOrder;
use odori_render::{Device, RenderOptions, Renderer, device_for_tests, wgpu};
use std::sync::Arc;

const W: u32 = 96;
const H: u32 = 128;

/// The demo at frame 40 drawn by a renderer in `order`; its read-back RGBA pixels.
fn demo_renderer(device: Device, order: ColorOrder) -> (odori_render::AnyRenderer, Vec<u8>) {
    let scene = Arc::new(Scene::demo());
    let options = PlayerOptions {
        preroll: Preroll::Off,
        ..PlayerOptions::default()
    };
    let mut player = Player::new(scene.clone(), options);
    let mut f = Frame::default();
    player.evaluate_at(40.0, &mut f);
    let mut r = renderer_for(
        &scene,
        device,
        RenderOptions {
            width: W,
            height: H,
            msaa: 4,
            color_order: order,
            slots: 1,
            ..RenderOptions::default()
        },
    );
    f.prepare(&mut r, true);
    let image = r.render_image(&f.view(scene.framing_camera(W as f32 / H as f32)));
    (r, image.into_raw())
}

/// A stand-in for a surface image: BGRA8, a render target that can be copied to and read.
fn surface(gpu: &Renderer) -> wgpu::Texture {
    gpu.gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("surface"),
        size: wgpu::Extent3d {
            width: W,
            height: H,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Bgra8Unorm,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Put `r`'s frame on a fresh BGRA surface through `Blit`; whether it copied, and the
/// surface's bytes (BGRA).
fn blit_onto_surface(r: &Renderer) -> (bool, Vec<u8>) {
    let device = &r.gpu.device;
    let target = surface(r);
    let mut blit = Blit::new(device, wgpu::TextureFormat::Bgra8Unorm);
    blit.set_source(device, r.color_texture());
    let mut encoder = device.create_command_encoder(&Default::default());
    drop(blit.pass(&mut encoder, &target));
    let row = W * 4;
    let padded =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("surface read"),
        size: (padded * H) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(H),
            },
        },
        target.size(),
    );
    r.gpu.queue.submit([encoder.finish()]);
    buffer
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.unwrap());
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let data = buffer.slice(..).get_mapped_range().unwrap();
    let mut out = Vec::with_capacity((row * H) as usize);
    for y in 0..H as usize {
        let start = y * padded as usize;
        out.extend_from_slice(&data[start..start + row as usize]);
    }
    (blit.copied(), out)
}

#[test]
fn a_bgra_frame_reads_as_rgba_and_is_copied_onto_a_bgra_surface() {
    let Device::Gpu(gpu) = device_for_tests() else {
        println!("SKIPPED: no GPU adapter (the copy onto a surface is a GPU path)");
        return;
    };
    let (rgba, rgba_pixels) = demo_renderer(Device::Gpu(gpu.clone()), ColorOrder::Rgba);
    let (bgra, bgra_pixels) = demo_renderer(Device::Gpu(gpu), ColorOrder::Bgra);
    let (rgba, bgra) = (rgba.as_gpu().unwrap(), bgra.as_gpu().unwrap());
    assert_eq!(
        bgra.color_texture().format(),
        wgpu::TextureFormat::Bgra8Unorm,
        "the BGRA renderer draws in BGRA"
    );
    let drawn = rgba_pixels.chunks_exact(4).filter(|p| p[..3] != [255; 3]);
    assert!(drawn.count() > 1000, "the demo is on the picture");
    assert!(
        rgba_pixels == bgra_pixels,
        "BGRA frames read back as the RGBA frame's bytes"
    );

    let (copied, by_copy) = blit_onto_surface(bgra);
    let (drawn, by_shader) = blit_onto_surface(rgba);
    assert!(copied, "a BGRA frame is copied onto a BGRA surface");
    assert!(!drawn, "an RGBA frame is drawn through the shader");
    assert!(
        by_copy == by_shader,
        "the copy puts the shader's bytes on the surface"
    );
    let swizzled: Vec<u8> = (by_copy.chunks_exact(4))
        .flat_map(|p| [p[2], p[1], p[0], p[3]])
        .collect();
    assert!(swizzled == rgba_pixels, "the surface holds the frame");
}
