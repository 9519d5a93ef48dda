// The per-frame uniform shared by every shader (group 0); prepended to each module.

struct Frame {
    view: mat4x4<f32>,
    proj: mat4x4<f32>,
    // World → light clip space (orthographic), for the self-shadow and ground-shadow maps.
    light_view_proj: mat4x4<f32>,
    eye: vec4<f32>,
    // Direction light travels (unit), w unused.
    light_dir: vec4<f32>,
    light_color: vec4<f32>,
    ground_color: vec4<f32>,
    // Ground rectangle: centre x, centre z, half size x, half size z.
    ground_area: vec4<f32>,
    // width, height, edge pixels per unit edge size, self-shadow on (1) / off (0).
    viewport: vec4<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;
