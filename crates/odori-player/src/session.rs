//! What is loaded and playing: the files (models with their motions, a camera, a song), the
//! scene built from them, the player and the clock. Files given on the command line, dropped
//! on the window and named by a script all arrive through [`Session::add_file`], and what
//! they do is the playback library's drop rule, the page's too ([`odori_playback::cast`]).

use crate::audio::alsa::AlsaOutput;
use crate::audio::{AudioOutput, PlaybackClock, Timeline};
use crate::messages::Messages;
use odori_playback::cast::{Cast, Dropped, Refused};
use odori_playback::load::{
    ModelInput, MotionFile, SceneOptions, camera_file, is_model_path, scene_with_motions,
};
use odori_playback::project::{Project, is_project_path};
use odori_playback::{ModelAsset, Player, PlayerOptions, Preroll, Scene};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a file added changed, so the window knows what to rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// A model: the renderer needs it.
    Model,
    /// A motion, pose or camera: same models, new scene.
    Motion,
    Audio,
}

/// The loaded files and the playback state built from them.
pub struct Session {
    /// The models given or dropped with their motions, and the camera motion.
    cast: Cast,
    /// The embedded demo, while no model was given.
    demo: bool,
    /// A MikuMikuDance project opened: its models come first, the files added after it join
    /// them.
    project: Option<Arc<Project>>,
    audio: Option<PathBuf>,
    pub scene: Arc<Scene>,
    pub player: Player,
    pub clock: PlaybackClock,
    pub timeline: Timeline,
    pub physics: bool,
    /// Stand the models side by side (off: every model at the origin, as in MMD).
    side_by_side: bool,
    /// The stages and accessories given on the command line (`--stage`, `--accessory`),
    /// placed around the dancers as a render places them.
    scene_options: SceneOptions,
    /// The scene index of each cast model (stages may come first), for drops aimed at one.
    entry_models: Vec<usize>,
    /// Problems met (files that did not load, no sound device): shown in the window.
    pub messages: Messages,
}

/// ALSA device for the sound (`ODORI_AUDIO_DEVICE`, default "default"; "null" plays to no
/// speaker, for tests).
fn audio_device() -> String {
    std::env::var("ODORI_AUDIO_DEVICE").unwrap_or_else(|_| "default".into())
}

impl Session {
    /// A session with `files` (each model followed by its motions; none: the demo), a camera
    /// motion, a song, and the stages and accessories of `scene_options`. Any file that does
    /// not load, or an accessory whose bone is not there, is an error naming it.
    pub fn new(
        files: &[PathBuf],
        camera: Option<&Path>,
        audio: Option<&Path>,
        physics: bool,
        scene_options: SceneOptions,
        timeline: Timeline,
    ) -> Result<Session, String> {
        let mut s = Session {
            cast: Cast::new(),
            demo: files.is_empty(),
            project: None,
            audio: None,
            scene: Arc::new(Scene::demo()),
            player: Player::new(Arc::new(Scene::new()), PlayerOptions::default()),
            clock: PlaybackClock::new(None),
            timeline,
            physics,
            side_by_side: scene_options.side_by_side,
            scene_options,
            entry_models: Vec::new(),
            messages: Messages::default(),
        };
        if let Some(first) = files
            .first()
            .filter(|f| !is_model_path(f) && !is_project_path(f))
        {
            return Err(format!(
                "{}: a motion needs a model before it (give the PMX or PMD first)",
                first.display()
            ));
        }
        for f in files {
            s.load_file(f)?;
        }
        let extras = &s.scene_options;
        if s.project.is_some() && (!extras.stages.is_empty() || !extras.accessories.is_empty()) {
            return Err(
                "a project's stages and accessories are its own; add them there (or play the \
                 models without the project)"
                    .into(),
            );
        }
        if let Some(c) = camera {
            s.set_camera(c)?;
        }
        // The stages and accessories are checked here (files, bones), so that a mistake is
        // the command's error rather than a message in the window.
        s.dancers_scene(&s.scene_options)?;
        s.rebuild();
        if let Some(a) = audio {
            s.set_audio(a)?;
        }
        Ok(s)
    }

    /// Add a file as a drop does ([`odori_playback::cast`]): a model joins the scene, a VMD
    /// with bone or morph keys (or a VPD) goes to model `to` (the one under the cursor) or
    /// else the last model, a VMD with only camera keys becomes the camera; a song replaces
    /// the song, a project the project. The position is kept.
    pub fn add_file(&mut self, path: &Path, to: Option<usize>) -> Result<Added, String> {
        let added = self.load_file_to(path, to)?;
        match added {
            Added::Audio => {}
            _ => self.rebuild(),
        }
        Ok(added)
    }

    fn load_file(&mut self, path: &Path) -> Result<Added, String> {
        self.load_file_to(path, None)
    }

    fn load_file_to(&mut self, path: &Path, to: Option<usize>) -> Result<Added, String> {
        let ext = (path.extension().and_then(|e| e.to_str()))
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "pmm" => {
                let project = Project::load(path, &[]).map_err(|e| e.to_string())?;
                self.demo = false;
                self.cast.clear();
                let audio = project.audio.as_ref().and_then(|a| a.path());
                if let (Some(song), None) = (audio, &self.audio) {
                    let song = song.to_path_buf();
                    if let Err(e) = self.set_audio(&song) {
                        self.messages.warn(e);
                    }
                }
                self.project = Some(Arc::new(project));
                Ok(Added::Model)
            }
            "pmx" | "pmd" => {
                let asset = ModelAsset::load(path).map_err(|e| e.to_string())?;
                self.messages.warn_all(asset.warnings().iter().cloned());
                self.demo = false;
                let drop = Dropped {
                    models: vec![Arc::new(asset)],
                    ..Dropped::default()
                };
                (self.cast.add(drop, None)).expect("a drop holding a model is never refused");
                Ok(Added::Model)
            }
            "vmd" | "vpd" => {
                let (motion, warnings) = MotionFile::read(path).map_err(|e| e.to_string())?;
                self.messages.warn_all(warnings);
                if motion.is_camera_only()
                    && let MotionFile::Vmd(camera) = motion
                {
                    self.cast.set_camera(camera);
                    return Ok(Added::Motion);
                }
                // `to` counts the scene's models (the project's and the stages first); only
                // the cast's models take drops.
                let to = to.and_then(|i| self.entry_models.iter().position(|&m| m == i));
                let drop = Dropped {
                    motions: vec![motion],
                    ..Dropped::default()
                };
                self.cast.add(drop, to).map_err(|_: Refused| {
                    format!(
                        "{}: a motion needs a model to dance it (drop a PMX or PMD first)",
                        path.display()
                    )
                })?;
                Ok(Added::Motion)
            }
            "mp3" | "wav" | "ogg" | "flac" | "m4a" | "aac" => {
                self.set_audio(path)?;
                Ok(Added::Audio)
            }
            _ => Err(format!(
                "{}: not a file odori plays (models: PMX, PMD; motions: VMD, VPD; projects: \
                 PMM; songs: MP3, WAV, OGG, FLAC, M4A)",
                path.display()
            )),
        }
    }

    fn set_camera(&mut self, path: &Path) -> Result<(), String> {
        let camera = camera_file(path).map_err(|e| e.to_string())?;
        self.cast.set_camera(Box::new(camera));
        Ok(())
    }

    /// Decode the song and open the sound device; without one the clock runs silent on the
    /// timeline and says so once.
    fn set_audio(&mut self, path: &Path) -> Result<(), String> {
        let pcm = odori_video::audio::decode_pcm(path).map_err(|e| e.to_string())?;
        let now = self.timeline.now();
        let pos = self.clock.position(now);
        let playing = self.clock.is_playing();
        let output: Option<Box<dyn AudioOutput>> =
            match AlsaOutput::open(&audio_device(), Arc::new(pcm), self.timeline) {
                Ok(o) => Some(Box::new(o)),
                Err(why) => {
                    self.messages.warn(format!(
                        "{}: playing silent on the system clock: {why}",
                        path.display()
                    ));
                    None
                }
            };
        self.clock = PlaybackClock::new(output);
        self.clock.seek(pos, now);
        if playing {
            self.clock.play(now);
        }
        self.audio = Some(path.to_path_buf());
        Ok(())
    }

    /// The cast's models with their motions, the stages and accessories of `options`,
    /// placed as a render places them (`odori_playback::load`, one rule for both), and the
    /// scene index of each cast model. No models: the demo dancer.
    fn dancers_scene(
        &self,
        options: &SceneOptions,
    ) -> Result<(Scene, Vec<String>, Vec<usize>), String> {
        let dancers: Vec<(ModelInput, Vec<MotionFile>)> = (self.cast.models().iter())
            .map(|e| (ModelInput::Loaded(e.asset.clone()), e.motions.clone()))
            .collect();
        let (scene, warnings) =
            scene_with_motions(&dancers, None, options).map_err(|e| e.to_string())?;
        let entry_models = (scene.models().iter().enumerate())
            .filter(|(_, m)| matches!(m.role(), odori_playback::Role::Dancer))
            .map(|(i, _)| i)
            .collect();
        Ok((scene, warnings, entry_models))
    }

    /// The scene and player anew from the files (the clock keeps its place).
    pub fn rebuild(&mut self) {
        let extras =
            !self.scene_options.stages.is_empty() || !self.scene_options.accessories.is_empty();
        let mut scene = if self.demo && !extras {
            self.entry_models.clear();
            Scene::demo()
        } else if let Some(project) = &self.project {
            // A project's scene is built anew from its files on every rebuild (a drop, the
            // side-by-side switch): a few seconds for a large project, as rare as those are.
            let (mut scene, warnings) = odori_playback::project::scene(project);
            self.messages.warn_all(warnings);
            let (entry_models, warnings) = self.cast.add_to(&mut scene);
            self.entry_models = entry_models;
            self.messages.warn_all(warnings);
            if self.side_by_side {
                scene.arrange_side_by_side();
            }
            scene
        } else {
            let options = SceneOptions {
                side_by_side: self.side_by_side,
                ..self.scene_options.clone()
            };
            // The options were checked when the session began; files read again on a rebuild
            // may have changed since, and then the dancers play without them.
            let built = self.dancers_scene(&options).or_else(|e| {
                self.messages.error(e);
                self.dancers_scene(&SceneOptions {
                    side_by_side: self.side_by_side,
                    ..SceneOptions::default()
                })
            });
            match built {
                Ok((scene, warnings, entry_models)) => {
                    self.messages.warn_all(warnings);
                    self.entry_models = entry_models;
                    scene
                }
                Err(e) => {
                    self.messages.error(e);
                    self.entry_models.clear();
                    Scene::new()
                }
            }
        };
        if let Some(c) = self.cast.camera() {
            scene.set_camera(c);
        }
        if let Some(a) = &self.audio {
            scene.set_audio(a);
        }
        self.scene = Arc::new(scene);
        self.rebuild_player();
    }

    /// Whether scene model `i` can become the stage: a model given or dropped (not the demo
    /// or a project's), with no motion, and not already a stage.
    pub fn can_make_stage(&self, i: usize) -> bool {
        self.project.is_none()
            && (self.entry_models.iter().position(|&m| m == i))
                .is_some_and(|k| self.cast.models()[k].motions.is_empty())
    }

    /// Make scene model `i` a stage, as `--stage` would have: at the origin, drawn before the
    /// dancers, never stood aside, out of the framing camera's view of the dancers. MMD has
    /// no separate stage: a stage is a model that does not move, which only the user can
    /// tell, so it is asked for rather than guessed from a drop.
    pub fn make_stage(&mut self, i: usize) -> Result<(), String> {
        if self.project.is_some() {
            return Err("a project's stage is its own: add it there".into());
        }
        let Some(k) = self.entry_models.iter().position(|&m| m == i) else {
            return Err("only a model you gave or dropped can become the stage".into());
        };
        let entry = &self.cast.models()[k];
        if !entry.motions.is_empty() {
            return Err(format!(
                "{} has {} motion(s): a stage stands still; drop the model again without them",
                entry.asset.label(),
                entry.motions.len()
            ));
        }
        let entry = self.cast.remove(k).expect("a cast model's index");
        self.scene_options
            .stages
            .push(ModelInput::Loaded(entry.asset));
        self.rebuild();
        Ok(())
    }

    /// Stand the models side by side (`true`) or every one at the origin, where MMD puts
    /// them and only their motions move them (`false`, the default).
    pub fn set_side_by_side(&mut self, on: bool) {
        if self.side_by_side != on {
            self.side_by_side = on;
            self.rebuild();
        }
    }

    /// The player anew (physics switched, or reset): pose state and physics start over.
    pub fn rebuild_player(&mut self) {
        let options = PlayerOptions {
            physics: self.physics,
            // A seek restarts physics settled where it lands, as MikuMikuDance does; playing
            // on steps it frame to frame.
            preroll: Preroll::Off,
            ..PlayerOptions::default()
        };
        // Morphs held by hand stay held (models keep their places: they are only added).
        let held = self.player.morph_overrides().to_vec();
        self.player = Player::new(self.scene.clone(), options);
        for (model, morph, weight) in held {
            self.player.set_morph_override(model, morph, Some(weight));
        }
        self.messages
            .warn_all(self.player.warnings().iter().cloned());
    }

    /// How many motion files each model was given, in model order (the demo: none).
    pub fn motion_counts(&self) -> Vec<usize> {
        self.cast.models().iter().map(|e| e.motions.len()).collect()
    }

    /// The file names for the window title.
    pub fn title(&self) -> String {
        if self.demo {
            return "odori — the embedded demo".into();
        }
        let project = (self.project.iter()).map(|p| p.file.to_str().unwrap_or("project"));
        let names: Vec<&str> = project
            .chain(self.cast.models().iter().map(|e| e.asset.label()))
            .collect();
        format!("odori — {}", names.join(", "))
    }

    pub fn model_count(&self) -> usize {
        self.scene.models().len()
    }

    pub fn audio(&self) -> Option<&Path> {
        self.audio.as_deref()
    }
}
