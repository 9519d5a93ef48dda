//! What a batch evaluation refuses; the Python module raises each as `odori.OdoriError`
//! with this message.

/// A batch evaluation's failure. Loading errors are the playback library's own
/// ([`odori_playback::PlaybackError`], naming file, section and byte offset).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error(
        "motion {motion} was loaded for another model, not {model}: load it for this one \
         (odori.Motion.load(model, paths))"
    )]
    WrongMotion {
        motion: String,
        model: String,
        source: odori_pose::PoseError,
    },
    #[error(transparent)]
    Pose(#[from] odori_pose::PoseError),
    #[error("output holds {found} floats, {expected} needed")]
    OutputSize { expected: usize, found: usize },
    /// A frame the one rule for requested frames refuses
    /// ([`odori_playback::requested_frames`]).
    #[error("frames: {0}")]
    BadFrame(String),
    #[error("physics cannot run: {0}")]
    NoPhysics(String),
    #[error("physics runs with IK on (as MMD plays): with_physics=True needs ik=True")]
    PhysicsWithoutIk,
}
