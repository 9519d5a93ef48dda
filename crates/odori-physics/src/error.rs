//! Errors of building a physics world.

/// Why a [`crate::PhysicsWorld`] could not be built. Callers treat any of these as "run
/// without physics" and show the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhysicsError {
    /// odori was built where the Bullet library was missing.
    #[error(
        "physics unavailable: install libbullet-dev (apt-get install libbullet-dev pkg-config), \
         then rebuild odori"
    )]
    Unavailable,
    /// Bullet could not allocate a world.
    #[error("physics unavailable: Bullet could not create a world (out of memory?)")]
    WorldCreation,
}
