//! Errors of compiling models and binding motions.

/// A model or motion that cannot be compiled into runtime form.
#[derive(Debug, thiserror::Error)]
pub enum PoseError {
    #[error("model has {0} bones; odori supports at most {max}", max = u32::MAX - 1)]
    TooManyBones(usize),
    #[error(transparent)]
    Format(#[from] odori_format::FormatError),
}
