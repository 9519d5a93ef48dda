//! Errors of building a physics world.

/// Why a [`crate::PhysicsWorld`] could not be built. Callers treat any of these as "run
/// without physics" and show the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhysicsError {
    /// odori was built with `ODORI_NO_BULLET=1` (the only build without Bullet: otherwise
    /// build.rs compiles Bullet or fails).
    #[error(
        "physics unavailable: this odori was built with ODORI_NO_BULLET=1; rebuild it without \
         that variable (Bullet is then compiled from source; a C++ compiler is needed)"
    )]
    Unavailable,
    /// Bullet could not allocate a world.
    #[error("physics unavailable: Bullet could not create a world (out of memory?)")]
    WorldCreation,
}
