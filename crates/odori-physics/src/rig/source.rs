//! Entry points: PMX and PMD rigid bodies and joints into [`PhysicsModel`].
//!
//! PMD is first turned into PMX's layout (bodies in model space), so one validator serves
//! both formats.

use super::PhysicsModel;
use super::compile::compile;
use odori_format::pmd::{self, Pmd};
use odori_format::pmx::{self, Pmx};
use odori_pose::Model;

impl PhysicsModel {
    /// Rigid bodies and joints of a PMX model, checked against the compiled `model`'s bones.
    ///
    /// MMD's mode-2 rule is applied: a mode-2 body jointed to a simulated body on its bone's
    /// parent is simulated as mode 1, so a chain of mode-2 bodies swings as one (the rule of
    /// katwat's MMD physics notes, followed by three.js and babylon-mmd).
    pub fn from_pmx(pmx: &Pmx, model: &Model) -> PhysicsModel {
        compile(&pmx.rigid_bodies, &pmx.joints, model)
    }

    /// Rigid bodies and joints of a PMD model. PMD stores a body's position relative to its
    /// bone (to bone 0 when it has none), unlike PMX.
    pub fn from_pmd(pmd: &Pmd, model: &Model) -> PhysicsModel {
        let bodies: Vec<pmx::RigidBody> = pmd
            .rigid_bodies
            .iter()
            .flatten()
            .map(|b| pmd_body(b, pmd))
            .collect();
        let joints: Vec<pmx::Joint> = pmd.joints.iter().flatten().map(pmd_joint).collect();
        compile(&bodies, &joints, model)
    }
}

fn pmd_body(b: &pmd::RigidBody, pmd: &Pmd) -> pmx::RigidBody {
    let bone = if b.bone == 0xFFFF { -1 } else { b.bone as i32 };
    // The bone the position is relative to: the body's own, or bone 0 for detached bodies
    // (babylon-mmd's reading). An invalid index keeps the position as stored.
    let anchor = pmd
        .bones
        .get(if bone < 0 { 0 } else { bone as usize })
        .map_or([0.0; 3], |bn| bn.position);
    pmx::RigidBody {
        name: b.name.text(),
        name_en: String::new(),
        bone,
        group: b.group,
        collision_mask: b.collision_mask,
        shape: b.shape,
        size: b.size,
        position: [
            b.position[0] + anchor[0],
            b.position[1] + anchor[1],
            b.position[2] + anchor[2],
        ],
        rotation: b.rotation,
        mass: b.mass,
        linear_damping: b.linear_damping,
        angular_damping: b.angular_damping,
        restitution: b.restitution,
        friction: b.friction,
        mode: b.mode,
    }
}

fn pmd_joint(j: &pmd::Joint) -> pmx::Joint {
    let index = |i: u32| i32::try_from(i).unwrap_or(i32::MAX);
    pmx::Joint {
        name: j.name.text(),
        name_en: String::new(),
        kind: 0,
        body_a: index(j.body_a),
        body_b: index(j.body_b),
        position: j.position,
        rotation: j.rotation,
        translation_min: j.translation_min,
        translation_max: j.translation_max,
        rotation_min: j.rotation_min,
        rotation_max: j.rotation_max,
        spring_translation: j.spring_translation,
        spring_rotation: j.spring_rotation,
    }
}
