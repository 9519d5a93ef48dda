//! The embedded demo: a character and a short dance generated in code, so `odori render`
//! with no files still renders something MMD-like (and so golden tests need no assets).

mod dance;
mod mesh;
mod model;
mod textures;

pub use dance::FRAMES;

use crate::textures::TextureSource;
use odori_format::{Pmx, Vmd};

/// The demo's model, motion (with camera keys) and textures.
pub struct Demo {
    pub pmx: Pmx,
    pub vmd: Vmd,
    pub textures: TextureSource,
}

impl Demo {
    pub fn new() -> Demo {
        Demo {
            pmx: model::character(),
            vmd: dance::dance(),
            textures: TextureSource::Memory(textures::all()),
        }
    }
}

impl Default for Demo {
    fn default() -> Self {
        Demo::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{ModelFile, Posed, Scene};

    #[test]
    fn demo_rig_moves_and_morphs() {
        let demo = Demo::new();
        let scene = Scene::new(ModelFile::Pmx(&demo.pmx), &[&demo.vmd], None).unwrap();
        assert!(
            scene.model.diagnostics().is_empty(),
            "{:?}",
            scene.model.diagnostics()
        );
        assert!(
            scene.motion.unbound().is_empty(),
            "{:?}",
            scene.motion.unbound()
        );
        assert_eq!(scene.model.solvers().len(), 2, "two leg IK solvers");
        let mut inst = scene.instance();
        let mut p = Posed::default();
        // Frame 150: blush fully on (skin diffuse green multiplied by 0.72).
        scene.evaluate(&mut inst, 150.0, &mut p);
        let skin = crate::materials::base_values(&scene.render.materials[0]);
        let blushed = p.materials[0].resolve(&skin);
        assert!((blushed.diffuse.y - skin.diffuse.y * 0.72).abs() < 1e-5);
        assert!((p.materials[6].add.edge_size - 1.5).abs() < 1e-5);
        // Frame 201: eyes closed by the blink (vertex morph) — its weight is 1.
        scene.evaluate(&mut inst, 201.0, &mut p);
        let blink = scene.model.find_morph("まばたき").unwrap();
        assert_eq!(inst.effective_morph_weights()[blink], 1.0);
        // The IK feet keep the soles near the floor while the centre dips.
        let ankle = inst.world_positions()[model::b::ANKLE[0] as usize];
        assert!(ankle.y < 2.0, "{ankle}");
    }
}
