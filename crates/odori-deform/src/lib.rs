//! Mesh deformation: BDEF1/2/4, SDEF and QDEF skinning with vertex and UV morphs.
//!
//! Not built yet (issue "Mesh deformation").
