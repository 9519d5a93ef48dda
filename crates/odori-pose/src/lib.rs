//! MMD pose runtime.
