//! GPU (todo)
