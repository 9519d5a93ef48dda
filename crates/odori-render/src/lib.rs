//! The wgpu renderer with MMD's toon look.
//!
//! Not built yet (issue "Render a dance to video").
