//! What dropping files on a player does: one rule for the window and the page, which differ
//! only in how they read what was dropped (paths there, names and bytes here).
//!
//! The rule is MikuMikuDance's loading: a model dropped on a playing scene **joins** it
//! (MMD's モデル読込 adds a model, never replaces one; dancers stand at the origin unless
//! side by side is asked for), and each front end has a way to start over. Motions dropped
//! with models go to the model of the drop they match best; motions dropped alone go to the
//! model aimed at (the one under the cursor in the window) or else the last one, as MMD's
//! モーション読込 loads into the selected model; a VMD with camera keys only becomes the camera.

use crate::{ModelAsset, MotionFile, Scene};
use odori_format::Vmd;
use std::sync::Arc;

/// One model and the motions dropped for it, in order.
#[derive(Clone)]
pub struct CastModel {
    pub asset: Arc<ModelAsset>,
    pub motions: Vec<MotionFile>,
}

/// What one drop holds, read by the front end: models, motions (bone, morph or pose keys)
/// and a camera motion (camera keys only), each in the order dropped.
#[derive(Default)]
pub struct Dropped {
    pub models: Vec<Arc<ModelAsset>>,
    pub motions: Vec<MotionFile>,
    pub camera: Option<Box<Vmd>>,
}

/// What a drop changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// New models: the renderer needs them.
    Models,
    /// Motions or a camera for the models already there: same models, new scene.
    Motions,
}

/// Why a drop was refused; the cast is then unchanged. A drop holding a model or a camera is
/// never refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Motions and no model to dance them, none dropped and none there.
    NoModel,
    /// Nothing a player plays.
    Empty,
}

/// The models dropped so far with their motions, and the camera.
#[derive(Clone, Default)]
pub struct Cast {
    models: Vec<CastModel>,
    camera: Option<Box<Vmd>>,
}

impl Cast {
    pub fn new() -> Cast {
        Cast::default()
    }

    /// Apply the drop rule (see the module): `to` is the model motions dropped alone go to
    /// (an index into [`Cast::models`]; past the end or `None`: the last).
    pub fn add(&mut self, drop: Dropped, to: Option<usize>) -> Result<Added, Refused> {
        let Dropped {
            models,
            motions,
            camera,
        } = drop;
        if models.is_empty() && motions.is_empty() && camera.is_none() {
            return Err(Refused::Empty);
        }
        let added = if models.is_empty() {
            if !motions.is_empty() {
                let last = self.models.len().checked_sub(1);
                let at = to.filter(|&i| i < self.models.len()).or(last);
                let model = at.map(|i| &mut self.models[i]).ok_or(Refused::NoModel)?;
                model.motions.extend(motions);
            }
            Added::Motions
        } else {
            let mut joining: Vec<CastModel> = (models.into_iter())
                .map(|asset| CastModel {
                    asset,
                    motions: Vec::new(),
                })
                .collect();
            for motion in motions {
                for m in best_matches(&joining, &motion) {
                    joining[m].motions.push(motion.clone());
                }
            }
            self.models.extend(joining);
            Added::Models
        };
        if let Some(camera) = camera {
            self.set_camera(camera);
        }
        Ok(added)
    }

    /// A camera motion dropped on its own: it replaces the camera.
    pub fn set_camera(&mut self, camera: Box<Vmd>) {
        self.camera = Some(camera);
    }

    /// The models in the order they were dropped.
    pub fn models(&self) -> &[CastModel] {
        &self.models
    }

    /// The camera motion dropped last.
    pub fn camera(&self) -> Option<&Vmd> {
        self.camera.as_deref()
    }

    /// Take model `i` out (to make it the stage, or to remove it).
    pub fn remove(&mut self, i: usize) -> Option<CastModel> {
        (i < self.models.len()).then(|| self.models.remove(i))
    }

    /// Start over: no model, no camera.
    pub fn clear(&mut self) {
        *self = Cast::default();
    }

    /// The cast's models with their motions on a scene, and the camera, with a warning per
    /// model about motion tracks it has no bone or morph for; the scene index of each model.
    pub fn add_to(&self, scene: &mut Scene) -> (Vec<usize>, Vec<String>) {
        let mut warnings = Vec::new();
        let indices = (self.models.iter())
            .map(|m| {
                let i = scene.add_model_files(m.asset.clone(), &m.motions);
                let unbound = scene.models()[i].motion().unbound();
                warnings.extend(crate::load::unmatched_summary(m.asset.label(), unbound));
                i
            })
            .collect();
        if let Some(camera) = &self.camera {
            scene.set_camera(camera);
        }
        (indices, warnings)
    }
}

/// The models `motion` goes to: those whose bones and morphs it matches best, that is, where
/// the fewest of its tracks find nothing (all of them on a tie: two dancers of one skeleton
/// dropped with one dance both dance it).
fn best_matches(models: &[CastModel], motion: &MotionFile) -> Vec<usize> {
    if models.len() < 2 {
        return (0..models.len()).collect();
    }
    let unmatched: Vec<usize> = (models.iter())
        .map(|m| {
            odori_pose::Motion::bind(m.asset.pose(), &[motion.source()])
                .unbound()
                .len()
        })
        .collect();
    let fewest = unmatched.iter().copied().min().unwrap_or(0);
    (0..models.len())
        .filter(|&i| unmatched[i] == fewest)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use odori_render::demo::Demo;

    fn demo() -> Arc<ModelAsset> {
        Arc::new(ModelAsset::demo(&Demo::new()))
    }

    fn dance() -> MotionFile {
        MotionFile::Vmd(Box::new(Demo::new().vmd))
    }

    /// The rule, step by step: motions alone with no model are refused and change nothing;
    /// a model joins; motions alone go to the model aimed at, else the last; a second model
    /// joins the first (not replacing it); a camera replaces the camera.
    #[test]
    fn models_join_and_motions_go_where_aimed() {
        let mut cast = Cast::new();
        let motions = |n: usize| Dropped {
            motions: (0..n).map(|_| dance()).collect(),
            ..Dropped::default()
        };
        assert_eq!(cast.add(motions(1), None), Err(Refused::NoModel));
        assert_eq!(cast.add(Dropped::default(), None), Err(Refused::Empty));
        assert!(cast.models().is_empty());
        let one = Dropped {
            models: vec![demo()],
            ..Dropped::default()
        };
        assert_eq!(cast.add(one, None), Ok(Added::Models));
        let two = Dropped {
            models: vec![demo()],
            ..Dropped::default()
        };
        assert_eq!(cast.add(two, None), Ok(Added::Models));
        assert_eq!(cast.models().len(), 2, "the second model joined");
        assert_eq!(cast.add(motions(1), None), Ok(Added::Motions));
        assert_eq!(cast.add(motions(2), Some(0)), Ok(Added::Motions));
        assert_eq!(cast.add(motions(1), Some(9)), Ok(Added::Motions));
        let counts: Vec<usize> = cast.models().iter().map(|m| m.motions.len()).collect();
        assert_eq!(counts, [2, 2], "aimed at 0, else the last");
        let camera = Dropped {
            camera: Some(Box::new(Demo::new().vmd)),
            ..Dropped::default()
        };
        assert_eq!(cast.add(camera, None), Ok(Added::Motions));
        assert!(cast.camera().is_some());
        let mut scene = Scene::new();
        let (indices, _) = cast.add_to(&mut scene);
        assert_eq!(indices, [0, 1]);
        assert!(scene.camera().is_some());
        cast.clear();
        assert!(cast.models().is_empty() && cast.camera().is_none());
    }
}
