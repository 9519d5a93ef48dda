//! Compile a PMX file into a [`Model`].

use super::{
    AppendRule, IkLink, IkSolver, LinkLimits, Model, Morph, MorphKind, NONE, Parts, SourceFormat,
};
use crate::material::{MaterialOffset, MaterialValues};
use crate::{PoseError, ik};
use glam::{Quat, Vec3, Vec3A, Vec4};
use odori_format::pmx::{self, Pmx, bone_flags as bf};
use odori_format::sjis::encode_sjis;

fn v3(a: [f32; 3]) -> Vec3A {
    Vec3A::from_array(a)
}

/// A bone index from the file, or `None` (with a diagnostic) when it is out of range.
fn bone_ref(i: i32, n: usize, what: &str, diags: &mut Vec<String>) -> Option<u32> {
    if i >= 0 && (i as usize) < n {
        Some(i as u32)
    } else {
        if i != -1 {
            diags.push(format!("{what}: bone index {i} out of range, ignored"));
        }
        None
    }
}

impl Model {
    /// Compile a PMX model.
    pub fn from_pmx(pmx: &Pmx) -> Result<Model, PoseError> {
        let n = pmx.bones.len();
        if n >= NONE as usize {
            return Err(PoseError::TooManyBones(n));
        }
        let mut diags = Vec::new();
        let rest: Vec<Vec3A> = pmx.bones.iter().map(|b| v3(b.position)).collect();
        let parent: Vec<u32> = pmx
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| {
                if b.parent == i as i32 {
                    diags.push(format!(
                        "bone {i} `{}` is its own parent; treated as a root",
                        b.name
                    ));
                    NONE
                } else {
                    bone_ref(
                        b.parent,
                        n,
                        &format!("bone {i} `{}` parent", b.name),
                        &mut diags,
                    )
                    .unwrap_or(NONE)
                }
            })
            .collect();
        let append = pmx
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let a = b.append?;
                let rotate = b.has(bf::APPEND_ROTATE);
                let translate = b.has(bf::APPEND_TRANSLATE);
                let source = bone_ref(a.parent, n, &format!("bone {i} append"), &mut diags)?;
                if source as usize == i || !(rotate || translate) {
                    return None;
                }
                Some(AppendRule {
                    source,
                    ratio: a.ratio,
                    rotate,
                    translate,
                    local: b.has(bf::APPEND_LOCAL),
                })
            })
            .collect();
        let fixed_axis = pmx
            .bones
            .iter()
            .map(|b| {
                let a = v3(b.fixed_axis?);
                (b.has(bf::FIXED_AXIS) && a.length_squared() > 1e-12).then(|| a.normalize())
            })
            .collect();
        let mut solvers = Vec::new();
        for (i, b) in pmx.bones.iter().enumerate() {
            let Some(ik) = b.ik.as_ref().filter(|_| b.has(bf::IK)) else {
                continue;
            };
            let what = format!("bone {i} `{}` IK", b.name);
            let Some(target) = bone_ref(ik.target, n, &what, &mut diags) else {
                continue;
            };
            let links: Vec<IkLink> = ik
                .links
                .iter()
                .filter_map(|l| {
                    let bone = bone_ref(l.bone, n, &what, &mut diags)?;
                    let limits = l.limits.map(|lim| {
                        let (a, b) = (v3(lim.min), v3(lim.max));
                        LinkLimits {
                            min: a.min(b),
                            max: a.max(b),
                        }
                    });
                    Some(IkLink { bone, limits })
                })
                .collect();
            if links.is_empty() {
                continue;
            }
            let authored = ik.loop_count.max(0) as u32;
            solvers.push(IkSolver {
                bone: i as u32,
                target,
                iterations: ik::iteration_budget(authored, ik.limit_angle),
                authored_iterations: authored,
                unit_angle: ik.limit_angle,
                links,
                chain: Vec::new(),
                chain_from: Vec::new(),
                dependents: Vec::new(),
                plans: Vec::new(),
                plain_path: false,
            });
        }
        let morphs = compile_morphs(pmx, &mut diags);
        let materials = pmx.materials.iter().map(MaterialValues::from_pmx).collect();
        Ok(Model::assemble(
            Parts {
                name: pmx.info.name.clone(),
                source: SourceFormat::Pmx,
                bone_names: pmx.bones.iter().map(|b| b.name.clone()).collect(),
                bone_sjis: pmx.bones.iter().map(|b| encode_sjis(&b.name)).collect(),
                parent,
                rest,
                layer: pmx.bones.iter().map(|b| b.layer).collect(),
                after_physics: pmx.bones.iter().map(|b| b.has(bf::AFTER_PHYSICS)).collect(),
                append,
                fixed_axis,
                solvers,
                morphs,
                materials,
                diagnostics: diags,
            },
            None,
        ))
    }
}

fn compile_morphs(pmx: &Pmx, diags: &mut Vec<String>) -> Vec<Morph> {
    let nb = pmx.bones.len();
    let nm = pmx.morphs.len();
    let nmat = pmx.materials.len();
    let is_group = |i: usize| {
        matches!(
            pmx.morphs[i].offsets,
            pmx::MorphOffsets::Group(_) | pmx::MorphOffsets::Flip(_)
        )
    };
    pmx.morphs
        .iter()
        .enumerate()
        .map(|(mi, m)| {
            let children = |list: &[pmx::GroupOffset], diags: &mut Vec<String>| {
                list.iter()
                    .filter_map(|g| {
                        if g.morph < 0 || g.morph as usize >= nm {
                            diags.push(format!(
                                "morph {mi} `{}`: child {} out of range",
                                m.name, g.morph
                            ));
                            None
                        } else if is_group(g.morph as usize) {
                            // MMD ignores a group inside a group.
                            None
                        } else {
                            Some((g.morph as u32, g.ratio))
                        }
                    })
                    .collect()
            };
            let kind = match &m.offsets {
                pmx::MorphOffsets::Group(list) => MorphKind::Group(children(list, diags)),
                pmx::MorphOffsets::Flip(list) => MorphKind::Flip(children(list, diags)),
                pmx::MorphOffsets::Vertex(list) => {
                    MorphKind::Vertex(list.iter().map(|o| (o.vertex, v3(o.offset))).collect())
                }
                pmx::MorphOffsets::Uv { channel, offsets } => MorphKind::Uv(
                    *channel,
                    offsets
                        .iter()
                        .map(|o| (o.vertex, Vec4::from_array(o.offset)))
                        .collect(),
                ),
                pmx::MorphOffsets::Bone(list) => MorphKind::Bone(
                    list.iter()
                        .filter_map(|o| {
                            let b = bone_ref(o.bone, nb, &format!("morph {mi}"), diags)?;
                            let q = Quat::from_array(o.rotation);
                            let q = if q.length_squared() > 1e-12 {
                                q.normalize()
                            } else {
                                Quat::IDENTITY
                            };
                            Some((b, v3(o.translation), q))
                        })
                        .collect(),
                ),
                pmx::MorphOffsets::Material(list) => MorphKind::Material(
                    list.iter()
                        .filter_map(|o| {
                            let material = if o.material < 0 {
                                None
                            } else if (o.material as usize) < nmat {
                                Some(o.material as u32)
                            } else {
                                diags.push(format!(
                                    "morph {mi}: material {} out of range",
                                    o.material
                                ));
                                return None;
                            };
                            Some(MaterialOffset {
                                material,
                                add: o.operation == 1,
                                values: MaterialValues {
                                    diffuse: Vec4::from_array(o.diffuse),
                                    specular: Vec3::from_array(o.specular),
                                    specular_power: o.specular_power,
                                    ambient: Vec3::from_array(o.ambient),
                                    edge_color: Vec4::from_array(o.edge_color),
                                    edge_size: o.edge_size,
                                    texture_tint: Vec4::from_array(o.texture_tint),
                                    sphere_tint: Vec4::from_array(o.sphere_tint),
                                    toon_tint: Vec4::from_array(o.toon_tint),
                                },
                            })
                        })
                        .collect(),
                ),
                pmx::MorphOffsets::Impulse(list) => MorphKind::Impulse(
                    list.iter()
                        .filter(|o| {
                            o.rigid_body >= 0 && (o.rigid_body as usize) < pmx.rigid_bodies.len()
                        })
                        .map(|o| {
                            (
                                o.rigid_body as u32,
                                o.local != 0,
                                v3(o.velocity),
                                v3(o.torque),
                            )
                        })
                        .collect(),
                ),
            };
            Morph {
                name: m.name.clone(),
                sjis: encode_sjis(&m.name),
                panel: m.panel,
                kind,
            }
        })
        .collect()
}
