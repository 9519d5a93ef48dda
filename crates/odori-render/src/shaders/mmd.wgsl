// MMD's look, after MikuMikuDance's own default effect (full.fx), in MMD's gamma space:
//   colour        = saturate(diffuse · light + ambient), alpha = diffuse alpha
//   × main texture, then sphere map (multiply / add / sub-texture) by view-space normal
//   × toon ramp at v = 0.5 − N·L/2 (no self-shadow), + specular (Blinn, material power)
//   self-shadow:  lerp(colour × toon shade, colour, min(saturate(3 N·L), shadow-map test))
// Entry points: the model pass, the inverted-hull edge pass and the self-shadow depth pass.
// `frame.wgsl` (the frame uniform, group 0) is prepended.
// The CPU rasteriser runs the same functions transcribed in `src/shading.rs` (same names,
// same order of operations): change both together; `odori-playback/tests/backends.rs` fails
// when they drift apart.

struct Material {
    diffuse: vec4<f32>,
    // rgb, power
    specular: vec4<f32>,
    ambient: vec4<f32>,
    edge_color: vec4<f32>,
    texture_tint: vec4<f32>,
    sphere_tint: vec4<f32>,
    toon_tint: vec4<f32>,
    // The toon ramp's darkest texel (MMD's MaterialToon), for self-shadow.
    toon_shade: vec4<f32>,
    // edge size, sphere mode (0 none, 1 mul, 2 add, 3 sub-texture), has texture, receives shadow
    params: vec4<f32>,
};

@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var main_tex: texture_2d<f32>;
@group(1) @binding(2) var sphere_tex: texture_2d<f32>;
@group(1) @binding(3) var toon_tex: texture_2d<f32>;
@group(1) @binding(4) var wrap_sampler: sampler;
@group(1) @binding(5) var clamp_sampler: sampler;

@group(2) @binding(0) var shadow_map: texture_depth_2d;
@group(2) @binding(1) var shadow_sampler: sampler_comparison;

struct VertexIn {
    // Deformed by skinning and morphs (odori-deform's layout: vec4 each).
    @location(0) position: vec4<f32>,
    @location(1) normal: vec4<f32>,
    @location(2) uv: vec4<f32>,
    // Static: additional UV 1 (sub-texture sphere), and x = per-vertex edge scale.
    @location(3) uv1: vec4<f32>,
    @location(4) extra: vec4<f32>,
};

struct ModelOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) sphere_uv: vec2<f32>,
    @location(4) shadow: vec4<f32>,
};

@vertex
fn vs_model(v: VertexIn) -> ModelOut {
    var o: ModelOut;
    let world = vec4<f32>(v.position.xyz, 1.0);
    o.clip = frame.proj * frame.view * world;
    o.world = v.position.xyz;
    o.normal = v.normal.xyz;
    o.uv = v.uv.xy;
    if (material.params.y > 2.5) {
        o.sphere_uv = v.uv1.xy;
    } else {
        let nv = (frame.view * vec4<f32>(v.normal.xyz, 0.0)).xyz;
        o.sphere_uv = vec2<f32>(nv.x * 0.5 + 0.5, nv.y * -0.5 + 0.5);
    }
    o.shadow = frame.light_view_proj * world;
    return o;
}

// 1 = lit, 0 = in self-shadow. Percentage-closer filtering: four linear-filtered comparison
// taps a texel either side diagonally, each itself a 2×2 PCF, so the edge is a smooth ramp
// about two texels wide over a 4×4 footprint instead of a one-texel stair step. A software
// rasteriser pays for every tap, so four and not more.
fn shadow_visibility(s: vec4<f32>) -> f32 {
    let ndc = s.xyz / s.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, ndc.y * -0.5 + 0.5);
    if (any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0) {
        return 1.0;
    }
    let texel = 1.0 / vec2<f32>(textureDimensions(shadow_map));
    let depth = ndc.z - 0.002;
    var lit = 0.0;
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + texel * vec2<f32>(-1.0, -1.0), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + texel * vec2<f32>(1.0, -1.0), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + texel * vec2<f32>(-1.0, 1.0), depth);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + texel * vec2<f32>(1.0, 1.0), depth);
    return lit * 0.25;
}

@fragment
fn fs_model(i: ModelOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = normalize(i.normal);
    let to_light = -frame.light_dir.xyz;
    let light = frame.light_color.rgb;
    // MMD's light has no diffuse term: material diffuse × light colour is the "ambient".
    var color = vec4<f32>(saturate(material.diffuse.rgb * light + material.ambient.rgb),
                          material.diffuse.a);
    if (material.params.z > 0.5) {
        color *= textureSample(main_tex, wrap_sampler, i.uv) * material.texture_tint;
    }
    let sphere = textureSample(sphere_tex, clamp_sampler, i.sphere_uv) * material.sphere_tint;
    let mode = material.params.y;
    if (mode > 0.5 && mode < 1.5) {
        color = vec4<f32>(color.rgb * sphere.rgb, color.a);
    } else if (mode > 1.5 && mode < 2.5) {
        color = vec4<f32>(color.rgb + sphere.rgb, color.a);
    } else if (mode > 2.5) {
        color = vec4<f32>(color.rgb * sphere.rgb, color.a * sphere.a);
    }
    if (color.a < 0.5 / 255.0) {
        discard;
    }
    let nl = dot(n, to_light);
    let half_v = normalize(normalize(frame.eye.xyz - i.world) + to_light);
    let power = material.specular.w;
    var spec = vec3<f32>(0.0);
    if (power > 0.0) {
        spec = pow(max(dot(half_v, n), 0.0), power) * material.specular.rgb * light;
    }
    // The toon texel must be sampled in uniform control flow.
    let toon = textureSample(toon_tex, clamp_sampler, vec2<f32>(0.5, 0.5 - nl * 0.5))
        * material.toon_tint;
    if (frame.viewport.w > 0.5) {
        let shade = vec4<f32>(color.rgb * material.toon_shade.rgb * material.toon_tint.rgb,
                              color.a);
        let lit = vec4<f32>(color.rgb + spec, color.a);
        var comp = saturate(nl * 3.0);
        if (material.params.w > 0.5) {
            comp = min(comp, shadow_visibility(i.shadow));
        }
        return saturate(mix(shade, lit, comp));
    }
    return saturate(vec4<f32>(color.rgb * toon.rgb + spec, color.a));
}

// Inverted hull: push each vertex out along its screen-space normal by a fixed number of
// pixels (edge size × per-vertex scale), then draw back faces in the edge colour.
@vertex
fn vs_edge(v: VertexIn) -> @builtin(position) vec4<f32> {
    let vp = frame.proj * frame.view;
    var clip = vp * vec4<f32>(v.position.xyz, 1.0);
    let nc = (vp * vec4<f32>(v.normal.xyz, 0.0)).xy;
    let len = length(nc);
    if (len > 1e-6) {
        let px = material.params.x * v.extra.x * frame.viewport.z;
        clip = vec4<f32>(clip.xy + nc / len * px * 2.0 / frame.viewport.xy * clip.w, clip.zw);
    }
    return clip;
}

@fragment
fn fs_edge() -> @location(0) vec4<f32> {
    return vec4<f32>(material.edge_color.rgb,
                     material.edge_color.a * min(material.diffuse.a, 1.0));
}

// Self-shadow depth pass: depth from the light.
@vertex
fn vs_shadow(v: VertexIn) -> @builtin(position) vec4<f32> {
    return frame.light_view_proj * vec4<f32>(v.position.xyz, 1.0);
}
