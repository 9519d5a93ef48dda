//! The computation the wasm test compares, shared by the wasm module (`main.rs`) and the
//! native side of `tests/wasm.rs`: a PMX model and a VMD motion played from frame 0 with
//! physics (default configuration), every bone's world matrix after each frame.

use odori_physics::{PhysicsConfig, PhysicsModel, PhysicsWorld};
use odori_pose::{Instance, Model, Motion};

/// Floats per bone and frame: the 3×4 affine world matrix, column by column (x axis, y axis,
/// z axis, translation).
pub const FLOATS_PER_BONE: usize = 12;

/// Frames `0..frames` of `motion_bytes` on `model_bytes` with physics: for each frame, each
/// bone's world matrix ([`FLOATS_PER_BONE`] floats), frames one after the other.
pub fn run(model_bytes: &[u8], motion_bytes: &[u8], frames: u32) -> Result<Vec<f32>, String> {
    let pmx = odori_format::pmx::parse(model_bytes).map_err(|e| format!("model: {e}"))?;
    let vmd = odori_format::vmd::parse(motion_bytes).map_err(|e| format!("motion: {e}"))?;
    let model = Model::from_pmx(&pmx).map_err(|e| format!("model: {e}"))?;
    let motion = Motion::from_vmd(&model, &vmd);
    let rig = PhysicsModel::from_pmx(&pmx, &model);
    let mut world =
        PhysicsWorld::new(&rig, &model, PhysicsConfig::default()).map_err(|e| e.to_string())?;
    let mut inst = Instance::new(&model, &motion);
    let mut out = Vec::with_capacity(frames as usize * model.bone_count() * FLOATS_PER_BONE);
    for f in 0..frames {
        world
            .evaluate(&model, &motion, &mut inst, f as f32)
            .map_err(|e| format!("frame {f}: {e}"))?;
        for w in inst.world_transforms() {
            out.extend_from_slice(&w.to_cols_array());
        }
    }
    Ok(out)
}
