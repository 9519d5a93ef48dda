//! Validation of raw (PMX-layout) bodies and joints, and MMD's mode-2 rule.

use super::{Body, BodyMode, Joint, PhysicsModel, Shape, euler_to_quat};
use glam::{Affine3A, Vec3};
use odori_format::pmx;
use odori_pose::Model;
use odori_pose::model::NONE;

fn finite(v: &[f32]) -> bool {
    v.iter().all(|x| x.is_finite())
}

pub(super) fn compile(
    raw_bodies: &[pmx::RigidBody],
    raw_joints: &[pmx::Joint],
    model: &Model,
) -> PhysicsModel {
    let mut diags = Vec::new();
    let mut bodies = Vec::with_capacity(raw_bodies.len());
    // File body index → index in `bodies`.
    let mut slot: Vec<Option<u32>> = vec![None; raw_bodies.len()];
    for (i, rb) in raw_bodies.iter().enumerate() {
        if let Some(body) = body(i, rb, model, &mut diags) {
            slot[i] = Some(bodies.len() as u32);
            bodies.push(body);
        }
    }
    let mut joints = Vec::with_capacity(raw_joints.len());
    for (i, rj) in raw_joints.iter().enumerate() {
        if let Some(joint) = joint(i, rj, &slot, &mut diags) {
            promote_mode2(&mut bodies, &joint, model);
            joints.push(joint);
        }
    }
    PhysicsModel {
        bodies,
        joints,
        diagnostics: diags,
    }
}

fn body(i: usize, rb: &pmx::RigidBody, model: &Model, diags: &mut Vec<String>) -> Option<Body> {
    let what = || format!("rigid body {i} `{}`", rb.name);
    let mut numbers = vec![
        rb.mass,
        rb.linear_damping,
        rb.angular_damping,
        rb.restitution,
        rb.friction,
    ];
    numbers.extend(rb.size);
    numbers.extend(rb.position);
    numbers.extend(rb.rotation);
    if !finite(&numbers) {
        diags.push(format!("{}: NaN or infinite value; body skipped", what()));
        return None;
    }
    let [x, y, z] = rb.size;
    let (shape, used): (Shape, &[f32]) = match rb.shape {
        0 => (Shape::Sphere { radius: x }, &rb.size[..1]),
        1 => (
            Shape::Box {
                half_extents: Vec3::new(x, y, z),
            },
            &rb.size[..],
        ),
        2 => (
            Shape::Capsule {
                radius: x,
                height: y,
            },
            &rb.size[..2],
        ),
        s => {
            diags.push(format!("{}: unknown shape {s}; body skipped", what()));
            return None;
        }
    };
    if used.iter().any(|&v| v < 0.0) {
        diags.push(format!(
            "{}: negative size {:?}; body skipped",
            what(),
            rb.size
        ));
        return None;
    }
    // Capsule height 0 is a sphere and fine; a zero radius or box extent has no volume.
    let zero_volume = match shape {
        Shape::Sphere { radius } | Shape::Capsule { radius, .. } => radius == 0.0,
        Shape::Box { half_extents } => half_extents.min_element() == 0.0,
    };
    let mut mode = match rb.mode {
        0 => BodyMode::FollowBone,
        1 => BodyMode::Physics,
        2 => BodyMode::PhysicsWithBone,
        m => {
            diags.push(format!(
                "{}: unknown physics mode {m}; body skipped",
                what()
            ));
            return None;
        }
    };
    if mode.is_dynamic() && rb.mass <= 0.0 {
        diags.push(format!(
            "{}: simulated body with mass {}; it follows its bone instead",
            what(),
            rb.mass
        ));
        mode = BodyMode::FollowBone;
    }
    let bone = if rb.bone >= 0 && (rb.bone as usize) < model.bone_count() {
        Some(rb.bone as u32)
    } else {
        if rb.bone != -1 {
            diags.push(format!(
                "{}: bone index {} out of range; attached to no bone",
                what(),
                rb.bone
            ));
        }
        None
    };
    let group = if rb.group > 15 {
        diags.push(format!(
            "{}: collision group {} clamped to 15",
            what(),
            rb.group
        ));
        15
    } else {
        rb.group
    };
    Some(Body {
        name: rb.name.clone(),
        file_index: i as u32,
        bone,
        shape,
        rest: Affine3A::from_rotation_translation(
            euler_to_quat(rb.rotation),
            Vec3::from_array(rb.position),
        ),
        mass: rb.mass,
        linear_damping: rb.linear_damping,
        angular_damping: rb.angular_damping,
        restitution: rb.restitution,
        friction: rb.friction,
        group,
        mask: rb.collision_mask,
        mode,
        no_contact_response: zero_volume || rb.collision_mask == 0,
    })
}

fn joint(
    i: usize,
    rj: &pmx::Joint,
    slot: &[Option<u32>],
    diags: &mut Vec<String>,
) -> Option<Joint> {
    let what = || format!("joint {i} `{}`", rj.name);
    if rj.kind != 0 {
        diags.push(format!(
            "{}: joint type {} (PMX 2.1) not supported, only 6-DOF springs; joint skipped",
            what(),
            rj.kind
        ));
        return None;
    }
    let resolve = |b: i32| -> Option<u32> {
        usize::try_from(b)
            .ok()
            .and_then(|b| slot.get(b).copied().flatten())
    };
    let (Some(a), Some(b)) = (resolve(rj.body_a), resolve(rj.body_b)) else {
        diags.push(format!(
            "{}: body {} or {} missing or skipped; joint skipped",
            what(),
            rj.body_a,
            rj.body_b
        ));
        return None;
    };
    if a == b {
        diags.push(format!(
            "{}: joins body {} to itself; joint skipped",
            what(),
            rj.body_a
        ));
        return None;
    }
    let all: Vec<f32> = [
        rj.position,
        rj.rotation,
        rj.translation_min,
        rj.translation_max,
        rj.rotation_min,
        rj.rotation_max,
        rj.spring_translation,
        rj.spring_rotation,
    ]
    .concat();
    if !finite(&all) {
        diags.push(format!("{}: NaN or infinite value; joint skipped", what()));
        return None;
    }
    let v = Vec3::from_array;
    Some(Joint {
        name: rj.name.clone(),
        body_a: a,
        body_b: b,
        rest: Affine3A::from_rotation_translation(euler_to_quat(rj.rotation), v(rj.position)),
        linear_lower: v(rj.translation_min),
        linear_upper: v(rj.translation_max),
        angular_lower: v(rj.rotation_min),
        angular_upper: v(rj.rotation_max),
        spring_translation: v(rj.spring_translation),
        spring_rotation: v(rj.spring_rotation),
    })
}

/// The mode-2 rule, joint by joint in file order as babylon-mmd applies it: when one body is
/// simulated and the other is mode 2 on a bone whose parent is the first body's bone, the
/// mode-2 body becomes mode 1 (its position then comes from physics too, so the chain does not
/// stretch).
fn promote_mode2(bodies: &mut [Body], joint: &Joint, model: &Model) {
    let (a, b) = (joint.body_a as usize, joint.body_b as usize);
    let parent_of = |body: &Body| {
        body.bone
            .map(|bn| model.parents()[bn as usize])
            .filter(|&p| p != NONE)
    };
    let is_parent = |child: &Body, parent: &Body| matches!((parent_of(child), parent.bone), (Some(p), Some(q)) if p == q);
    if bodies[a].mode.is_dynamic() && bodies[b].mode == BodyMode::PhysicsWithBone {
        if is_parent(&bodies[b], &bodies[a]) {
            bodies[b].mode = BodyMode::Physics;
        }
    } else if bodies[b].mode.is_dynamic()
        && bodies[a].mode == BodyMode::PhysicsWithBone
        && is_parent(&bodies[a], &bodies[b])
    {
        bodies[a].mode = BodyMode::Physics;
    }
}
