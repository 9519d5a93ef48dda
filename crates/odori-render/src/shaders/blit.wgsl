// The renderer's frame (RGBA8, display values as a PNG stores them) copied onto the window's
// surface, pixel for pixel. On an sRGB surface the values are decoded first, so that the
// surface's own encoding gives back the renderer's exact bytes.

@group(0) @binding(0) var frame: texture_2d<f32>;

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    // One triangle covering the screen.
    let x = f32((i << 1u) & 2u) * 2.0 - 1.0;
    let y = f32(i & 2u) * 2.0 - 1.0;
    return vec4<f32>(x, y, 0.0, 1.0);
}

fn load(p: vec4<f32>) -> vec4<f32> {
    let size = vec2<i32>(textureDimensions(frame));
    let xy = clamp(vec2<i32>(p.xy), vec2<i32>(0), size - vec2<i32>(1));
    return textureLoad(frame, xy, 0);
}

@fragment
fn fs_plain(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(load(p).rgb, 1.0);
}

@fragment
fn fs_decode(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    let c = load(p).rgb;
    let low = c / 12.92;
    let high = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return vec4<f32>(select(high, low, c <= vec3<f32>(0.04045)), 1.0);
}
