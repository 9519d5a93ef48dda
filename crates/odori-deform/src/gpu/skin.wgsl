// odori-deform's skinning compute shader: one invocation per vertex. Mirrors the CPU fast path
// (src/cpu.rs, src/math.rs) line for line, so the two agree to rounding.
//
// Morphs use a gather layout: each vertex lists its own (morph, channel, offset) entries, in
// the same order the CPU adds them, and reads the frame's weight of each morph. No atomics,
// no scatter, and only the morph weights are uploaded per frame.

struct Params {
    vertex_count: u32,
    // Invocations per row of a 2D dispatch (meshes past 65,535 workgroups use rows).
    row_threads: u32,
    additional_uvs: u32,
    pad: u32,
}

struct RestVertex {
    // xyz: rest position; w: edge scale.
    position: vec4<f32>,
    normal: vec4<f32>,
    uv: vec4<f32>,
    bones: vec4<u32>,
    weights: vec4<f32>,
    // x: kind (0 Linear1, 1 Linear2, 2 Linear4, 3 SDEF, 4 QDEF); z..w: morph entry range.
    info: vec4<u32>,
}

struct Sdef {
    c: vec4<f32>,
    cr0: vec4<f32>,
    cr1: vec4<f32>,
}

struct MorphEntry {
    morph: u32,
    // 0: position, 1: main UV, 2..5: additional UV 1..4.
    channel: u32,
    pad0: u32,
    pad1: u32,
    offset: vec4<f32>,
}

// A skinning matrix: three rotation columns and the translation (w unused).
struct Bone {
    x: vec4<f32>,
    y: vec4<f32>,
    z: vec4<f32>,
    t: vec4<f32>,
}

struct OutVertex {
    position: vec4<f32>,
    normal: vec4<f32>,
    // xy: UV; z: edge scale.
    uv: vec4<f32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> rest: array<RestVertex>;
@group(0) @binding(2) var<storage, read> sdefs: array<Sdef>;
@group(0) @binding(3) var<storage, read> entries: array<MorphEntry>;
@group(0) @binding(4) var<storage, read> bones: array<Bone>;
@group(0) @binding(5) var<storage, read> morph_weights: array<f32>;
@group(0) @binding(6) var<storage, read> rest_extra_uv: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> out_vertices: array<OutVertex>;
@group(0) @binding(8) var<storage, read_write> out_extra_uv: array<vec4<f32>>;

fn transform_point(b: Bone, p: vec3<f32>) -> vec3<f32> {
    return b.x.xyz * p.x + b.y.xyz * p.y + b.z.xyz * p.z + b.t.xyz;
}

fn transform_vector(b: Bone, v: vec3<f32>) -> vec3<f32> {
    return b.x.xyz * v.x + b.y.xyz * v.y + b.z.xyz * v.z;
}

fn scaled(b: Bone, w: f32) -> Bone {
    return Bone(b.x * w, b.y * w, b.z * w, b.t * w);
}

fn added(a: Bone, b: Bone) -> Bone {
    return Bone(a.x + b.x, a.y + b.y, a.z + b.z, a.t + b.t);
}

// Weighted sum of the first `count` bones' matrices.
fn blend(v: RestVertex, count: u32) -> Bone {
    var m = scaled(bones[v.bones.x], v.weights.x);
    for (var k = 1u; k < count; k++) {
        m = added(m, scaled(bones[v.bones[k]], v.weights[k]));
    }
    return m;
}

// Unit quaternion (x, y, z, w) of a rotation matrix; same branches as glam's
// Quat::from_rotation_axes (after DirectXMath's XMQuaternionRotationMatrix).
fn rotation(b: Bone) -> vec4<f32> {
    let m00 = b.x.x;
    let m01 = b.x.y;
    let m02 = b.x.z;
    let m10 = b.y.x;
    let m11 = b.y.y;
    let m12 = b.y.z;
    let m20 = b.z.x;
    let m21 = b.z.y;
    let m22 = b.z.z;
    var q: vec4<f32>;
    if (m22 <= 0.0) {
        let dif10 = m11 - m00;
        let omm22 = 1.0 - m22;
        if (dif10 <= 0.0) {
            let four_xsq = omm22 - dif10;
            let inv = 0.5 / sqrt(four_xsq);
            q = vec4<f32>(four_xsq * inv, (m01 + m10) * inv, (m02 + m20) * inv, (m12 - m21) * inv);
        } else {
            let four_ysq = omm22 + dif10;
            let inv = 0.5 / sqrt(four_ysq);
            q = vec4<f32>((m01 + m10) * inv, four_ysq * inv, (m12 + m21) * inv, (m20 - m02) * inv);
        }
    } else {
        let sum10 = m11 + m00;
        let opm22 = 1.0 + m22;
        if (sum10 <= 0.0) {
            let four_zsq = opm22 - sum10;
            let inv = 0.5 / sqrt(four_zsq);
            q = vec4<f32>((m02 + m20) * inv, (m12 + m21) * inv, four_zsq * inv, (m01 - m10) * inv);
        } else {
            let four_wsq = opm22 + sum10;
            let inv = 0.5 / sqrt(four_wsq);
            q = vec4<f32>((m12 - m21) * inv, (m20 - m02) * inv, (m01 - m10) * inv, four_wsq * inv);
        }
    }
    return normalize(q);
}

// acos on [0, 1] and sin on [0, π/2] as the fixed polynomials of src/math.rs: drivers may
// approximate the built-ins (llvmpipe's are off by ~1e-4 rad).
fn acos_unit(x_in: f32) -> f32 {
    let x = clamp(x_in, 0.0, 1.0);
    let root = sqrt(1.0 - x);
    let p = ((((((-0.0012624911 * x + 0.00667009) * x - 0.017088126) * x + 0.03089188) * x
        - 0.050174303) * x + 0.08897899) * x - 0.2145988) * x + 1.5707963;
    return p * root;
}

fn sin_quadrant(x: f32) -> f32 {
    let x2 = x * x;
    return (((((-2.3889859e-8 * x2 + 2.7525562e-6) * x2 - 1.9840874e-4) * x2 + 8.333331e-3)
        * x2 - 0.16666667) * x2 + 1.0) * x;
}

// Shorter-arc slerp with a normalised-lerp fallback for nearly parallel inputs (src/math.rs).
fn slerp(a: vec4<f32>, b_in: vec4<f32>, t: f32) -> vec4<f32> {
    var b = b_in;
    var c = dot(a, b);
    if (c < 0.0) {
        b = -b;
        c = -c;
    }
    if (c > 0.999999) {
        return normalize(a + (b - a) * t);
    }
    let theta = acos_unit(c);
    let s = 1.0 / sin_quadrant(theta);
    return a * (sin_quadrant((1.0 - t) * theta) * s) + b * (sin_quadrant(t * theta) * s);
}

fn rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

fn unit_or_zero(v: vec3<f32>) -> vec3<f32> {
    let len = length(v);
    if (len > 0.0) {
        return v / len;
    }
    return vec3<f32>(0.0);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x + gid.y * params.row_threads;
    if (i >= params.vertex_count) {
        return;
    }
    let v = rest[i];

    // Morphs: positions before skinning, UVs as they are.
    var p = v.position.xyz;
    var uv = v.uv.xy;
    var extra: array<vec4<f32>, 4>;
    for (var k = 0u; k < params.additional_uvs; k++) {
        extra[k] = rest_extra_uv[i * 4u + k];
    }
    for (var e = v.info.z; e < v.info.w; e++) {
        let entry = entries[e];
        let w = morph_weights[entry.morph];
        if (w == 0.0) {
            continue;
        }
        if (entry.channel == 0u) {
            p += w * entry.offset.xyz;
        } else if (entry.channel == 1u) {
            uv += w * entry.offset.xy;
        } else {
            extra[entry.channel - 2u] += w * entry.offset;
        }
    }

    let n = v.normal.xyz;
    var op: vec3<f32>;
    var on: vec3<f32>;
    switch v.info.x {
        case 0u: {
            let m = bones[v.bones.x];
            op = transform_point(m, p);
            on = transform_vector(m, n);
        }
        case 1u: {
            let m = blend(v, 2u);
            op = transform_point(m, p);
            on = transform_vector(m, n);
        }
        case 2u: {
            let m = blend(v, 4u);
            op = transform_point(m, p);
            on = transform_vector(m, n);
        }
        case 3u: {
            // SDEF as a displacement of P (see sdef() in src/cpu.rs).
            let m0 = bones[v.bones.x];
            let m1 = bones[v.bones.y];
            let s = sdefs[v.bones.z];
            let q = slerp(rotation(m0), rotation(m1), v.weights.y);
            let pc = p - s.c.xyz;
            let moved = (transform_point(m0, s.cr0.xyz) - s.cr0.xyz) * v.weights.x
                + (transform_point(m1, s.cr1.xyz) - s.cr1.xyz) * v.weights.y;
            op = p + (rotate(q, pc) - pc) + moved;
            on = rotate(q, n);
        }
        default: {
            // QDEF: dual-quaternion linear blending.
            var real = vec4<f32>(0.0);
            var dual = vec4<f32>(0.0);
            var pivot = vec4<f32>(0.0);
            var first = true;
            for (var k = 0u; k < 4u; k++) {
                let w = v.weights[k];
                if (w == 0.0) {
                    continue;
                }
                let m = bones[v.bones[k]];
                var q = rotation(m);
                if (first) {
                    pivot = q;
                    first = false;
                } else if (dot(q, pivot) < 0.0) {
                    q = -q;
                }
                let d = quat_mul(vec4<f32>(m.t.xyz, 0.0), q) * 0.5;
                real += q * w;
                dual += d * w;
            }
            let len = length(real);
            real = real / len;
            dual = dual / len;
            let t = (dual.xyz * real.w - real.xyz * dual.w + cross(real.xyz, dual.xyz)) * 2.0;
            op = rotate(real, p) + t;
            on = rotate(real, n);
        }
    }

    out_vertices[i] = OutVertex(
        vec4<f32>(op, 1.0),
        vec4<f32>(unit_or_zero(on), 0.0),
        vec4<f32>(uv, v.position.w, 0.0),
    );
    for (var k = 0u; k < params.additional_uvs; k++) {
        out_extra_uv[i * 4u + k] = extra[k];
    }
}
