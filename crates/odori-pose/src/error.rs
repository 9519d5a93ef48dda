//! Errors of compiling models, binding motions and evaluating instances.

/// A model or motion that cannot be compiled into runtime form, or an instance asked to
/// evaluate a model or motion it was not sized for.
#[derive(Debug, thiserror::Error)]
pub enum PoseError {
    #[error("model has {0} bones; odori supports at most {max}", max = u32::MAX - 1)]
    TooManyBones(usize),
    #[error(transparent)]
    Format(#[from] odori_format::FormatError),
    /// The instance was sized ([`crate::Instance::new`]) for another model. Numbers are
    /// the models' identities, unique within the process.
    #[error(
        "instance sized for model #{expected} was given model #{found}: make an instance for \
         it with Instance::new"
    )]
    WrongModel { expected: u64, found: u64 },
    /// The instance was sized for another motion (its track cursors fit that motion's
    /// tracks), or the motion was bound to another model. Numbers are identities, unique
    /// within the process.
    #[error(
        "instance sized for motion #{expected} of model #{model} was given motion #{found}, \
         bound to model #{found_model}: size the instance for it with Instance::rebind (or \
         make one with Instance::new)"
    )]
    WrongMotion {
        expected: u64,
        model: u64,
        found: u64,
        found_model: u64,
    },
}
