// egui's panels: textured, vertex-coloured triangles in points, blended with premultiplied
// alpha over the scene. Straight-line code on purpose: Mesa's llvmpipe (lavapipe, the
// software Vulkan driver) runs both sides of every branch for every pixel, so a shader with
// optional paths (egui-wgpu's own carries a manual bilinear filter and dithering behind
// uniform flags) costs several times the work it does. The surface's encoding picks the
// entry point when the pipeline is made, not a branch per pixel.

struct Screen {
    // Window size in points (egui's unit).
    size: vec2<f32>,
    pad: vec2<f32>,
};

@group(0) @binding(0) var<uniform> screen: Screen;
@group(1) @binding(0) var image: texture_2d<f32>;
@group(1) @binding(1) var image_sampler: sampler;

struct Varyings {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
    // Premultiplied, sRGB-encoded (egui's Color32).
    @location(1) color: vec4<f32>,
};

@vertex
fn vs_main(
    @location(0) pos: vec2<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) color: vec4<f32>,
) -> Varyings {
    var out: Varyings;
    out.position = vec4<f32>(
        2.0 * pos.x / screen.size.x - 1.0,
        1.0 - 2.0 * pos.y / screen.size.y,
        0.0,
        1.0,
    );
    out.uv = uv;
    out.color = color;
    return out;
}

// A surface that stores values as they are: egui's colours are already display values.
@fragment
fn fs_plain(v: Varyings) -> @location(0) vec4<f32> {
    return v.color * textureSample(image, image_sampler, v.uv);
}

// An sRGB surface encodes on store: decode first so that the stored bytes are egui's.
@fragment
fn fs_decode(v: Varyings) -> @location(0) vec4<f32> {
    let c = v.color * textureSample(image, image_sampler, v.uv);
    let low = c.rgb / 12.92;
    let high = pow((c.rgb + 0.055) / 1.055, vec3<f32>(2.4));
    return vec4<f32>(select(high, low, c.rgb <= vec3<f32>(0.04045)), c.a);
}
