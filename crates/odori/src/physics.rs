//! Physics for the commands: building a model's Bullet world, or saying why there is none.

use crate::load::LoadedModel;
use odori_format::Document;
use odori_physics::{PhysicsConfig, PhysicsError, PhysicsModel, PhysicsWorld};

/// The physics world for `loaded` (PMX or PMD), with its diagnostics printed as warnings.
/// Fails when odori was built without Bullet; the error says what to install.
pub fn world(loaded: &LoadedModel, label: &str) -> Result<PhysicsWorld, PhysicsError> {
    let rig = match &loaded.doc {
        Document::Pmx(p) => PhysicsModel::from_pmx(p, &loaded.model),
        Document::Pmd(p) => PhysicsModel::from_pmd(p, &loaded.model),
        _ => PhysicsModel::default(),
    };
    let world = PhysicsWorld::new(&rig, &loaded.model, PhysicsConfig::default())?;
    for d in world.diagnostics() {
        eprintln!("warning: {label}: physics: {d}");
    }
    Ok(world)
}

/// For commands where physics is optional (`render`, on unless `--no-physics`): the world,
/// or `None` after a warning that says why and what to install.
pub fn optional_world(loaded: &LoadedModel, label: &str, enabled: bool) -> Option<PhysicsWorld> {
    if !enabled {
        return None;
    }
    match world(loaded, label) {
        Ok(w) => Some(w),
        Err(e) => {
            eprintln!("warning: running without physics: {e}");
            None
        }
    }
}
