//! Property test: any small valid PMX model (every weight and morph type, every optional bone
//! block, both encodings, all index sizes, 2.0 and 2.1) writes, reads back equal, and writes
//! back to the same bytes.

use odori_format::pmx::{self, *};
use proptest::collection::vec;
use proptest::prelude::*;

/// Counts and layout chosen first; every index in the model is drawn to fit them.
#[derive(Debug, Clone, Copy)]
struct Shape {
    v21: bool,
    encoding: TextEncoding,
    uvs: u8,
    /// Vertex, texture, material, bone, morph, rigid body index sizes.
    sizes: [u8; 6],
    vertices: usize,
    textures: usize,
    materials: usize,
    bones: usize,
    morphs: usize,
    bodies: usize,
}

fn shape() -> impl Strategy<Value = Shape> {
    let size = prop_oneof![Just(1u8), Just(2), Just(4)];
    let encoding = prop_oneof![Just(TextEncoding::Utf16Le), Just(TextEncoding::Utf8)];
    (
        any::<bool>(),
        encoding,
        0u8..=4,
        prop::array::uniform6(size),
        0usize..5,
        (0usize..3, 0usize..3, 0usize..4, 0usize..4, 0usize..3),
    )
        .prop_map(
            |(
                v21,
                encoding,
                uvs,
                sizes,
                vertices,
                (textures, materials, bones, morphs, bodies),
            )| Shape {
                v21,
                encoding,
                uvs,
                sizes,
                vertices,
                textures,
                materials,
                bones,
                morphs,
                bodies,
            },
        )
}

/// Any finite float, zeros and subnormals included (NaN is only legal in normals, and NaN
/// never compares equal).
fn f() -> impl Strategy<Value = f32> {
    use prop::num::f32::*;
    POSITIVE | NEGATIVE | NORMAL | SUBNORMAL | ZERO
}

fn f3() -> impl Strategy<Value = [f32; 3]> {
    prop::array::uniform3(f())
}

fn f4() -> impl Strategy<Value = [f32; 4]> {
    prop::array::uniform4(f())
}

fn text() -> impl Strategy<Value = String> {
    ".{0,5}"
}

/// A reference among `n` elements: −1 (none), valid, or just past the end (which loads, with
/// a diagnostic, and must round-trip as stored). Small enough for any index size.
fn reference(n: usize) -> impl Strategy<Value = i32> {
    -1..(n as i32 + 2)
}

/// A vertex index, which must name a vertex (`n` > 0 where used).
fn vertex_ref(n: usize) -> impl Strategy<Value = u32> {
    0..(n.max(1) as u32)
}

/// Up to `max` elements, or none when `vertices` is zero (they would need a vertex).
fn needs_vertices<T: std::fmt::Debug>(
    s: Shape,
    max: usize,
    e: impl Strategy<Value = T>,
) -> impl Strategy<Value = Vec<T>> {
    vec(e, 0..if s.vertices > 0 { max } else { 1 })
}

fn weights(s: Shape) -> BoxedStrategy<Weights> {
    // Vertex bone indices must name a bone (or be −1): the reader rejects others.
    let b = || -1..(s.bones as i32);
    let b2 = || prop::array::uniform2(b());
    let b4 = || prop::array::uniform4(b());
    let mut options = vec![
        b().prop_map(|bone| Weights::Bdef1 { bone }).boxed(),
        (b2(), f())
            .prop_map(|(bones, weight)| Weights::Bdef2 { bones, weight })
            .boxed(),
        (b4(), f4())
            .prop_map(|(bones, weights)| Weights::Bdef4 { bones, weights })
            .boxed(),
        (b2(), f(), f3(), f3(), f3())
            .prop_map(|(bones, weight, c, r0, r1)| Weights::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            })
            .boxed(),
    ];
    if s.v21 {
        options.push(
            (b4(), f4())
                .prop_map(|(bones, weights)| Weights::Qdef { bones, weights })
                .boxed(),
        );
    }
    prop::strategy::Union::new(options).boxed()
}

fn vertex(s: Shape) -> impl Strategy<Value = Vertex> {
    let n = usize::from(s.uvs);
    (
        f3(),
        f3(),
        prop::array::uniform2(f()),
        vec(f4(), n),
        weights(s),
        f(),
    )
        .prop_map(|(position, normal, uv, extra, weights, edge_scale)| {
            // Only the header's count of additional UVs is stored; the rest read back as zero.
            let mut additional_uvs = [[0.0; 4]; 4];
            additional_uvs[..extra.len()].copy_from_slice(&extra);
            Vertex {
                position,
                normal,
                uv,
                additional_uvs,
                weights,
                edge_scale,
            }
        })
}

fn material(s: Shape) -> impl Strategy<Value = Material> {
    let toon = prop_oneof![
        reference(s.textures).prop_map(Toon::Texture),
        (0u8..12).prop_map(Toon::Shared),
    ];
    (
        (text(), text(), f4(), f3(), f(), f3(), any::<u8>()),
        (
            f4(),
            f(),
            reference(s.textures),
            reference(s.textures),
            any::<u8>(),
            toon,
            text(),
            any::<i32>(),
        ),
    )
        .prop_map(
            |(
                (name, name_en, diffuse, specular, specular_power, ambient, flags),
                (
                    edge_color,
                    edge_size,
                    texture,
                    sphere_texture,
                    sphere_mode,
                    toon,
                    memo,
                    index_count,
                ),
            )| Material {
                name,
                name_en,
                diffuse,
                specular,
                specular_power,
                ambient,
                flags,
                edge_color,
                edge_size,
                texture,
                sphere_texture,
                sphere_mode,
                toon,
                memo,
                index_count,
            },
        )
}

fn ik(s: Shape) -> impl Strategy<Value = Ik> {
    let limits = prop::option::of((f3(), f3()).prop_map(|(min, max)| IkLimits { min, max }));
    let link = (reference(s.bones), limits).prop_map(|(bone, limits)| IkLink { bone, limits });
    (reference(s.bones), any::<i32>(), f(), vec(link, 0..3)).prop_map(
        |(target, loop_count, limit_angle, links)| Ik {
            target,
            loop_count,
            limit_angle,
            links,
        },
    )
}

fn bone(s: Shape) -> impl Strategy<Value = Bone> {
    let r = || reference(s.bones);
    (
        (text(), text(), f3(), r(), any::<i32>(), any::<u16>()),
        (
            r(),
            f3(),
            (r(), f()),
            f3(),
            (f3(), f3()),
            any::<i32>(),
            ik(s),
        ),
    )
        .prop_map(
            |(
                (name, name_en, position, parent, layer, flags),
                (tb, to, (ap, ar), fixed, (x, z), ext, ik),
            )| {
                // The flags decide which blocks exist, as in the file.
                use bone_flags as bf;
                let has = |f: u16| flags & f != 0;
                Bone {
                    name,
                    name_en,
                    position,
                    parent,
                    layer,
                    flags,
                    tail: if has(bf::TAIL_IS_BONE) {
                        BoneTail::Bone(tb)
                    } else {
                        BoneTail::Offset(to)
                    },
                    append: has(bf::APPEND_ROTATE | bf::APPEND_TRANSLATE).then_some(Append {
                        parent: ap,
                        ratio: ar,
                    }),
                    fixed_axis: has(bf::FIXED_AXIS).then_some(fixed),
                    local_axes: has(bf::LOCAL_AXES).then_some(LocalAxes { x, z }),
                    external_parent: has(bf::EXTERNAL_PARENT).then_some(ext),
                    ik: has(bf::IK).then_some(ik),
                }
            },
        )
}

fn offsets(s: Shape) -> BoxedStrategy<MorphOffsets> {
    let group = || {
        vec(
            (reference(s.morphs), f()).prop_map(|(morph, ratio)| GroupOffset { morph, ratio }),
            0..3,
        )
    };
    let mut options = vec![
        group().prop_map(MorphOffsets::Group).boxed(),
        needs_vertices(
            s,
            3,
            (vertex_ref(s.vertices), f3())
                .prop_map(|(vertex, offset)| VertexOffset { vertex, offset }),
        )
        .prop_map(MorphOffsets::Vertex)
        .boxed(),
        vec(
            (reference(s.bones), f3(), f4()).prop_map(|(bone, translation, rotation)| BoneOffset {
                bone,
                translation,
                rotation,
            }),
            0..3,
        )
        .prop_map(MorphOffsets::Bone)
        .boxed(),
        (
            0u8..=4,
            needs_vertices(
                s,
                3,
                (vertex_ref(s.vertices), f4())
                    .prop_map(|(vertex, offset)| UvOffset { vertex, offset }),
            ),
        )
            .prop_map(|(channel, offsets)| MorphOffsets::Uv { channel, offsets })
            .boxed(),
        vec(
            (
                (reference(s.materials), any::<u8>(), f4(), f3(), f(), f3()),
                (f4(), f(), f4(), f4(), f4()),
            )
                .prop_map(
                    |(
                        (material, operation, diffuse, specular, specular_power, ambient),
                        (edge_color, edge_size, texture_tint, sphere_tint, toon_tint),
                    )| MaterialOffset {
                        material,
                        operation,
                        diffuse,
                        specular,
                        specular_power,
                        ambient,
                        edge_color,
                        edge_size,
                        texture_tint,
                        sphere_tint,
                        toon_tint,
                    },
                ),
            0..3,
        )
        .prop_map(MorphOffsets::Material)
        .boxed(),
    ];
    if s.v21 {
        options.push(group().prop_map(MorphOffsets::Flip).boxed());
        options.push(
            vec(
                (reference(s.bodies), any::<u8>(), f3(), f3()).prop_map(
                    |(rigid_body, local, velocity, torque)| ImpulseOffset {
                        rigid_body,
                        local,
                        velocity,
                        torque,
                    },
                ),
                0..3,
            )
            .prop_map(MorphOffsets::Impulse)
            .boxed(),
        );
    }
    prop::strategy::Union::new(options).boxed()
}

fn morph(s: Shape) -> impl Strategy<Value = Morph> {
    (text(), text(), any::<u8>(), offsets(s)).prop_map(|(name, name_en, panel, offsets)| Morph {
        name,
        name_en,
        panel,
        offsets,
    })
}

fn display_frame(s: Shape) -> impl Strategy<Value = DisplayFrame> {
    let item = prop_oneof![
        reference(s.bones).prop_map(DisplayItem::Bone),
        reference(s.morphs).prop_map(DisplayItem::Morph),
    ];
    (text(), text(), any::<u8>(), vec(item, 0..4)).prop_map(|(name, name_en, special, items)| {
        DisplayFrame {
            name,
            name_en,
            special,
            items,
        }
    })
}

fn rigid_body(s: Shape) -> impl Strategy<Value = RigidBody> {
    (
        (
            text(),
            text(),
            reference(s.bones),
            any::<u8>(),
            any::<u16>(),
            any::<u8>(),
        ),
        (f3(), f3(), f3(), prop::array::uniform5(f()), any::<u8>()),
    )
        .prop_map(
            |(
                (name, name_en, bone, group, collision_mask, shape),
                (size, position, rotation, p, mode),
            )| {
                RigidBody {
                    name,
                    name_en,
                    bone,
                    group,
                    collision_mask,
                    shape,
                    size,
                    position,
                    rotation,
                    mass: p[0],
                    linear_damping: p[1],
                    angular_damping: p[2],
                    restitution: p[3],
                    friction: p[4],
                    mode,
                }
            },
        )
}

fn joint(s: Shape) -> impl Strategy<Value = Joint> {
    (
        text(),
        text(),
        any::<u8>(),
        reference(s.bodies),
        reference(s.bodies),
        prop::array::uniform8(f3()),
    )
        .prop_map(|(name, name_en, kind, body_a, body_b, v)| Joint {
            name,
            name_en,
            kind,
            body_a,
            body_b,
            position: v[0],
            rotation: v[1],
            translation_min: v[2],
            translation_max: v[3],
            rotation_min: v[4],
            rotation_max: v[5],
            spring_translation: v[6],
            spring_rotation: v[7],
        })
}

fn soft_body(s: Shape) -> impl Strategy<Value = SoftBody> {
    let anchor = (reference(s.bodies), vertex_ref(s.vertices), any::<u8>()).prop_map(
        |(rigid_body, vertex, near_mode)| SoftBodyAnchor {
            rigid_body,
            vertex,
            near_mode,
        },
    );
    (
        (
            text(),
            text(),
            any::<u8>(),
            reference(s.materials),
            any::<u8>(),
            any::<u16>(),
            any::<u8>(),
        ),
        (any::<i32>(), any::<i32>(), f(), f(), any::<i32>()),
        (
            prop::array::uniform12(f()),
            prop::array::uniform6(f()),
            any::<[i32; 4]>(),
            f3(),
        ),
        (
            needs_vertices(s, 3, anchor),
            needs_vertices(s, 3, vertex_ref(s.vertices)),
        ),
    )
        .prop_map(
            |(
                (name, name_en, shape, material, group, collision_mask, flags),
                (b_link_distance, cluster_count, total_mass, collision_margin, aero_model),
                (config, cluster, iterations, material_coefficients),
                (anchors, pins),
            )| SoftBody {
                name,
                name_en,
                shape,
                material,
                group,
                collision_mask,
                flags,
                b_link_distance,
                cluster_count,
                total_mass,
                collision_margin,
                aero_model,
                config,
                cluster,
                iterations,
                material_coefficients,
                anchors,
                pins,
            },
        )
}

fn model() -> impl Strategy<Value = Pmx> {
    shape().prop_flat_map(|s| {
        let info = (text(), text(), text(), text(), vec(any::<u8>(), 0..3));
        let faces = needs_vertices(s, 4, prop::array::uniform3(vertex_ref(s.vertices)))
            .prop_map(|t| t.into_iter().flatten().collect::<Vec<u32>>());
        let soft = if s.v21 {
            vec(soft_body(s), 0..2).boxed()
        } else {
            Just(Vec::new()).boxed()
        };
        (
            Just(s),
            info,
            vec(vertex(s), s.vertices),
            faces,
            vec(text(), s.textures),
            vec(material(s), s.materials),
            vec(bone(s), s.bones),
            vec(morph(s), s.morphs),
            vec(display_frame(s), 0..3),
            vec(rigid_body(s), s.bodies),
            vec(joint(s), 0..3),
            soft,
        )
            .prop_map(
                |(
                    s,
                    (name, name_en, comment, comment_en, extra_globals),
                    vertices,
                    indices,
                    textures,
                    materials,
                    bones,
                    morphs,
                    display_frames,
                    rigid_bodies,
                    joints,
                    soft_bodies,
                )| Pmx {
                    header: Header {
                        version: if s.v21 { 2.1 } else { 2.0 },
                        encoding: s.encoding,
                        additional_uvs: s.uvs,
                        vertex_index_size: s.sizes[0],
                        texture_index_size: s.sizes[1],
                        material_index_size: s.sizes[2],
                        bone_index_size: s.sizes[3],
                        morph_index_size: s.sizes[4],
                        rigid_body_index_size: s.sizes[5],
                        extra_globals,
                    },
                    info: ModelInfo {
                        name,
                        name_en,
                        comment,
                        comment_en,
                    },
                    vertices,
                    indices,
                    textures,
                    materials,
                    bones,
                    morphs,
                    display_frames,
                    rigid_bodies,
                    joints,
                    soft_bodies,
                },
            )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn write_then_read_is_identity(m in model()) {
        let bytes = pmx::write(&m).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let read = pmx::parse(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&read, &m);
        prop_assert_eq!(pmx::write(&read).unwrap(), bytes);
    }
}
