// Ground shadow: MMD flattens the model onto y = 0 along the light. The same silhouette is
// what a depth map rendered from the light sees, so instead of drawing every triangle again,
// flattened and heavily overlapping (the costliest pass on a software rasteriser), one quad on
// the ground asks the map whether the model stands between it and the light.
// Transcribed for the CPU rasteriser as `fs_ground` and `ground_corner` in `src/shading.rs`.

@group(1) @binding(0) var ground_map: texture_depth_2d;
@group(1) @binding(1) var ground_sampler: sampler_comparison;

struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
};

// Four vertices, triangle strip: a rectangle on y = 0 where the shadow can fall.
@vertex
fn vs_ground(@builtin(vertex_index) i: u32) -> GroundOut {
    let corner = vec2<f32>(f32(i & 1u), f32((i >> 1u) & 1u)) * 2.0 - 1.0;
    let a = frame.ground_area;
    let world = vec3<f32>(a.x + corner.x * a.z, 0.0, a.y + corner.y * a.w);
    var o: GroundOut;
    o.clip = frame.proj * frame.view * vec4<f32>(world, 1.0);
    o.world = world;
    return o;
}

@fragment
fn fs_ground(i: GroundOut) -> @location(0) vec4<f32> {
    let s = frame.light_view_proj * vec4<f32>(i.world, 1.0);
    let ndc = s.xyz / s.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, ndc.y * -0.5 + 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0) {
        discard;
    }
    // Percentage-closer filtering: four linear-filtered comparison taps a texel either side
    // diagonally (a 4×4-texel footprint), so the silhouette's edge is a ramp, not steps.
    let texel = 1.0 / vec2<f32>(textureDimensions(ground_map));
    let depth = ndc.z - 0.002;
    var lit = 0.0;
    lit += textureSampleCompareLevel(ground_map, ground_sampler, uv + texel * vec2<f32>(-1.0, -1.0), depth);
    lit += textureSampleCompareLevel(ground_map, ground_sampler, uv + texel * vec2<f32>(1.0, -1.0), depth);
    lit += textureSampleCompareLevel(ground_map, ground_sampler, uv + texel * vec2<f32>(-1.0, 1.0), depth);
    lit += textureSampleCompareLevel(ground_map, ground_sampler, uv + texel * vec2<f32>(1.0, 1.0), depth);
    let covered = 1.0 - lit * 0.25;
    if (covered < 0.004) {
        discard;
    }
    return vec4<f32>(frame.ground_color.rgb, frame.ground_color.a * covered);
}
