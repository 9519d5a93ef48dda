//! A render as a front end asks for it: every option of `odori render` with its default,
//! checked, turned into a scene, a renderer, a player and a sink, then run through the
//! offline pipeline. The command line and the Python module's `odori.render` both build a
//! [`RenderJob`], so the two make the same frames from the same options.
//!
//! Here the job and its preparation, step by step (the output checked before anything
//! loads, the scene, the device with its renderer and player, the sink); the options'
//! vocabulary in `options.rs`; running what was prepared in `prepared.rs`.

mod options;
mod prepared;

pub use options::{
    BackendChoice, DEFAULT_SIZE, EncoderChoice, OptionNames, Range, SkinningChoice, check_size,
    parse_range, parse_size, quality,
};
pub use prepared::PreparedRender;

use crate::choice::{self, Msaa, VideoFps};
use crate::error::PlaybackError;
use crate::load::{self, ModelInput};
use crate::offline::{self, FrameRange, Skinning};
use crate::output::{self, RenderOutput};
use crate::project::Project;
use crate::sink::{FrameSink, Mp4Sink, PngSink};
use crate::{Player, PlayerOptions, Preroll, Scene};
use odori_render::{AnyRenderer, Backend, Device, RenderOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Every option of a render, defaults as `odori render` has them.
#[derive(Clone)]
pub struct RenderJob {
    /// Each model with its motions (merged in order); none: the embedded demo (or the
    /// project's models).
    pub models: Vec<(ModelInput, Vec<PathBuf>)>,
    /// A MikuMikuDance project (`.pmm`) to render instead of `models`: its models, keys,
    /// accessories, camera, light, gravity and soundtrack, its own output size and range
    /// unless `size` and `range` are given.
    pub project: Option<PathBuf>,
    /// More folders to look for the project's files in, after its own.
    pub search: Vec<PathBuf>,
    /// Stages, accessories, and whether the dancers stand side by side (default: every model
    /// at the origin, as in MMD).
    pub scene: load::SceneOptions,
    pub camera: Option<PathBuf>,
    pub audio: Option<PathBuf>,
    /// `.mp4`, `.png` (the range's first frame) or a folder for PNG frames.
    pub output: PathBuf,
    /// `None`: the project's output size, else [`DEFAULT_SIZE`].
    pub size: Option<(u32, u32)>,
    /// One of [`VideoFps`]'s rates.
    pub fps: u32,
    pub range: Option<Range>,
    /// One of [`Msaa`]'s sample counts; `None`: 4, or 1 with `fast` ([`quality`]).
    pub msaa: Option<u32>,
    /// Speed over quality: MSAA 1 (unless `msaa` is given) and a 1024-texel shadow map.
    pub fast: bool,
    pub physics: bool,
    /// Seconds of settling at the start (`None`: the player's default); 0 turns the settled
    /// start and the pre-roll off.
    pub settle: Option<f32>,
    pub self_shadow: bool,
    pub ground_shadow: bool,
    pub edges: bool,
    pub encoder: EncoderChoice,
    pub skinning: SkinningChoice,
    pub backend: BackendChoice,
    /// A note for every motion track that matches nothing (else one line per model).
    pub verbose: bool,
    /// How messages name the options.
    pub names: OptionNames,
}

impl Default for RenderJob {
    fn default() -> RenderJob {
        RenderJob {
            models: Vec::new(),
            project: None,
            search: Vec::new(),
            scene: load::SceneOptions::default(),
            camera: None,
            audio: None,
            output: PathBuf::from("odori.mp4"),
            size: None,
            fps: 30,
            range: None,
            msaa: None,
            fast: false,
            physics: true,
            settle: None,
            self_shadow: true,
            ground_shadow: true,
            edges: true,
            encoder: EncoderChoice::Auto,
            skinning: SkinningChoice::Auto,
            backend: BackendChoice::Auto,
            verbose: false,
            names: OptionNames::CommandLine,
        }
    }
}

/// What a render says while it prepares, for the front end to show (the command line prints
/// `warning: …` and `note: …` lines, Python returns them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    Warning(String),
    Note(String),
    /// A line of progress (what is rendered where, the physics pre-roll).
    Info(String),
}

fn option<T>(message: String) -> Result<T, PlaybackError> {
    Err(PlaybackError::Option(message))
}

impl RenderJob {
    /// Check every option, load the scene, open the device, renderer, player and sink.
    /// Everything about the output is checked before anything loads.
    pub fn prepare(&self, notes: &mut dyn FnMut(Note)) -> Result<PreparedRender, PlaybackError> {
        let project = match &self.project {
            Some(path) => Some(self.open_project(path)?),
            None => None,
        };
        let out = self.check_output(project.as_ref(), notes)?;
        let (scene, unmatched) = self.build_scene(project.as_ref(), &out, notes)?;
        let range = self.frame_range(
            &scene,
            &out.output,
            project.as_ref().map(|p| p.range),
            notes,
        );
        let physics = match &project {
            Some(p) if self.physics && !p.physics() => {
                notes(Note::Note(
                    "the project's physics is off (物理演算: 演算しない): rendered without".into(),
                ));
                false
            }
            _ => self.physics,
        };
        let scene = Arc::new(scene);
        let (renderer, player, skinning) = self.open(&scene, &out, &range, physics, notes)?;
        let sink = open_sink(&out, &scene, &range, self.fps)?;
        Ok(PreparedRender {
            player,
            renderer,
            skinning,
            range,
            sink,
            output: out.output,
            unmatched,
        })
    }

    /// Every option about the output, checked before anything loads: size, rate, MSAA,
    /// settle, range, the output's kind, the encoder and the soundtrack.
    fn check_output(
        &self,
        project: Option<&Project>,
        notes: &mut dyn FnMut(Note),
    ) -> Result<Output, PlaybackError> {
        let names = self.names;
        let size = (self.size)
            .or_else(|| project.and_then(project_size))
            .unwrap_or(DEFAULT_SIZE);
        let (width, height) = check_size(size)
            .map_err(|e| PlaybackError::Option(format!("{}: {e}", names.name("size"))))?;
        let fps = self.fps;
        if let Err(e) = choice::numeric::<VideoFps>(fps) {
            return option(format!("{}: {e}", names.show("fps", fps)));
        }
        if let Some(m) = self.msaa
            && let Err(e) = choice::numeric::<Msaa>(m)
        {
            return option(format!("{}: {e}", names.show("msaa", m)));
        }
        if let Some(s) = self.settle
            && !(s.is_finite() && (0.0..=600.0).contains(&s))
        {
            return option(format!(
                "{}: give seconds from 0 to 600",
                names.show("settle", s)
            ));
        }
        if let Some(r) = self.range {
            Range::new(r.start, r.stop)
                .map_err(|e| PlaybackError::Option(format!("{}: {e}", names.name("range"))))?;
        }
        let output = output::render(&self.output)?;
        let is_mp4 = matches!(output, RenderOutput::Mp4(_));
        if is_mp4 && (width % 2 != 0 || height % 2 != 0) {
            return option(format!(
                "{}: MP4 (H.264 4:2:0) needs even sides",
                names.show("size", format_args!("{width}x{height}"))
            ));
        }
        let encoder = if is_mp4 {
            Some(choose_encoder(self.encoder, names)?)
        } else {
            None
        };
        match (&self.audio, encoder) {
            (Some(_), None) => notes(Note::Warning(format!(
                "{} only applies to MP4 output; ignored",
                names.name("audio")
            ))),
            // A missing or non-audio file is said before anything loads, naming that file.
            (Some(path), Some(_)) => {
                odori_video::audio::check(path).map_err(PlaybackError::Soundtrack)?
            }
            (None, _) => {}
        }

        Ok(Output {
            width,
            height,
            output,
            encoder,
        })
    }

    /// The scene: the project's, or the models with their motions, stages and props; its
    /// warnings said, and how many motion tracks match nothing.
    fn build_scene(
        &self,
        project: Option<&Project>,
        out: &Output,
        notes: &mut dyn FnMut(Note),
    ) -> Result<(Scene, usize), PlaybackError> {
        let encoder = out.encoder;
        let (mut scene, warnings) = match project {
            Some(p) => {
                let (mut scene, warnings) = crate::project::scene(p);
                if self.scene.side_by_side {
                    scene.arrange_side_by_side();
                }
                if let Some(path) = &self.camera {
                    scene.set_camera(&load::camera_file(path)?);
                }
                (scene, warnings)
            }
            None => load::scene_from_models(&self.models, self.camera.as_deref(), &self.scene)?,
        };
        if let Some(path) = &self.audio {
            scene.set_audio(path);
        }
        if let (Some(path), None) = (scene.audio(), encoder)
            && self.audio.is_none()
        {
            notes(Note::Note(format!(
                "the project's soundtrack {} is only muxed into MP4 output",
                path.display()
            )));
        }
        for w in warnings {
            notes(Note::Warning(w));
        }
        let mut unmatched = 0;
        for m in scene.models() {
            let unbound = m.motion().unbound();
            unmatched += unbound.len();
            if self.verbose {
                for name in unbound {
                    notes(Note::Note(format!(
                        "motion track `{name}` matches nothing in {}",
                        m.asset().label()
                    )));
                }
            }
        }
        Ok((scene, unmatched))
    }

    /// The device (as `backend` asks), the renderer for `scene` and the player, and where
    /// skinning runs; what they say goes to `notes`.
    fn open(
        &self,
        scene: &Arc<Scene>,
        out: &Output,
        range: &FrameRange,
        physics: bool,
        notes: &mut dyn FnMut(Note),
    ) -> Result<(AnyRenderer, Player, Skinning), PlaybackError> {
        let names = self.names;
        let (width, height, fps) = (out.width, out.height, self.fps);
        let device = Device::open(match self.backend {
            BackendChoice::Auto => Backend::Auto,
            BackendChoice::Gpu => Backend::Gpu,
            BackendChoice::Cpu => Backend::Cpu,
        })
        .map_err(|e| PlaybackError::NoAdapter(e.to_string()))?;
        let software = device.is_software();
        if self.skinning == SkinningChoice::Gpu && device.gpu().is_none() {
            return option(format!(
                "{} needs a GPU adapter, and the CPU rasteriser is drawing ({}); use {} or auto",
                names.show("skinning", "gpu"),
                match self.backend {
                    BackendChoice::Cpu => names.show("backend", "cpu"),
                    _ => "auto found no hardware GPU adapter; --backend gpu also takes a software one"
                        .to_string(),
                },
                names.show("skinning", "cpu")
            ));
        }
        let (msaa, shadow_map_size) = quality(self.msaa, self.fast);
        let options = RenderOptions {
            width,
            height,
            msaa,
            self_shadow: self.self_shadow,
            ground_shadow: self.ground_shadow,
            edges: self.edges,
            shadow_map_size,
            ..Default::default()
        };
        let shadow_side = options.shadow_map_side();
        let adapter = device.describe();
        // Skinning on the GPU (compute) when there is a real one; on a software rasteriser the
        // "GPU" is the same CPU cores, and odori-deform's SIMD CPU path is the faster of the
        // two.
        let skinning = match self.skinning {
            SkinningChoice::Gpu => Skinning::Gpu,
            SkinningChoice::Cpu => Skinning::Cpu,
            SkinningChoice::Auto if software => Skinning::Cpu,
            SkinningChoice::Auto => Skinning::Gpu,
        };
        let label = match scene.models() {
            [one] => one.asset().label().to_string(),
            many => (many.iter())
                .map(|m| m.asset().label())
                .collect::<Vec<_>>()
                .join(" + "),
        };
        let renderer = offline::renderer_for(scene, device, options);
        notes(Note::Info(format!(
            "odori render: {label} → {} ({width}x{height}, {fps} fps, {} frames, MSAA {}, shadow \
             map {shadow_side}) on {adapter}",
            self.output.display(),
            range.count,
            renderer.samples()
        )));
        for w in renderer.warnings() {
            notes(Note::Warning(w.to_string()));
        }
        let settle = self.settle.unwrap_or(PlayerOptions::default().settle);
        let player_options = PlayerOptions {
            physics,
            deform: skinning == Skinning::Cpu,
            settle,
            // Simulated from frame 0 at the output's own step, so a range that starts late
            // shows what the whole video shows at its frames; settle 0 is the old start, at
            // the range's first frame.
            preroll: if settle > 0.0 {
                Preroll::FromStart { step: range.step }
            } else {
                Preroll::Off
            },
            ..PlayerOptions::default()
        };
        let player = Player::new(scene.clone(), player_options);
        for w in player.warnings() {
            notes(Note::Warning(w.to_string()));
        }
        if player.has_physics() && settle > 0.0 && range.start > 0.0 {
            notes(Note::Info(format!(
                "physics: simulating frames 0 to {} first (pre-roll; {} skips it)",
                range.start,
                names.show("settle", 0)
            )));
        }

        Ok((renderer, player, skinning))
    }

    /// Read the project and say where its files were not found.
    fn open_project(&self, path: &Path) -> Result<Project, PlaybackError> {
        if !self.models.is_empty() {
            return option(format!(
                "{}: a project brings its own models; give it alone",
                path.display()
            ));
        }
        if let Some(s) = self.scene.stages.first() {
            let what = match s {
                ModelInput::Path(p) => p.display().to_string(),
                ModelInput::Loaded(a) => a.label().to_string(),
            };
            return option(format!(
                "{} {what}: a project's stages are its accessories and models; add it there",
                self.names.name("stage")
            ));
        }
        if let Some(a) = self.scene.accessories.first() {
            return option(format!(
                "{} {}: a project's accessories are its own; add it there",
                self.names.name("accessory"),
                a.path.display()
            ));
        }
        Ok(Project::load(path, &self.search)?)
    }

    /// The frames to make: the range (default: the project's range, else the whole motion)
    /// at the output rate; one frame for a PNG.
    fn frame_range(
        &self,
        scene: &Scene,
        output: &RenderOutput,
        project_range: Option<(Option<u32>, Option<u32>)>,
        notes: &mut dyn FnMut(Note),
    ) -> FrameRange {
        let end = scene.end_frame();
        let (start, stop) = match (self.range, project_range) {
            (Some(r), _) => (r.start, r.stop.unwrap_or(end.max(r.start))),
            (None, Some((from, to))) => {
                let start = from.map_or(0.0, |f| f as f32);
                (start, to.map_or(end, |t| t as f32).max(start))
            }
            (None, None) => (0.0, end),
        };
        if self.range.is_some() && stop > end {
            notes(Note::Warning(format!(
                "{} goes past the motion's last frame ({end}): frames after it hold the last pose",
                self.names.name("range")
            )));
        }
        let mut range = FrameRange::new(start, stop, self.fps);
        if matches!(output, RenderOutput::Png(_)) {
            range.count = 1;
        }
        range
    }
}

/// The sink for `out`, opened (and the soundtrack read) before rendering starts, so a bad
/// audio file or a missing ffmpeg fails at once.
fn open_sink(
    out: &Output,
    scene: &Scene,
    range: &FrameRange,
    fps: u32,
) -> Result<Box<dyn FrameSink>, PlaybackError> {
    let (width, height, output, encoder) = (out.width, out.height, &out.output, out.encoder);
    let sound = match (scene.audio(), &output) {
        (Some(path), RenderOutput::Mp4(_)) => Some(odori_video::Soundtrack {
            path,
            start_s: f64::from(range.start) / f64::from(crate::FPS),
            length_s: range.count as f64 / fps as f64,
        }),
        _ => None,
    };
    Ok(match output {
        RenderOutput::Mp4(path) => {
            let encoder = encoder.unwrap_or(odori_video::Encoder::Builtin);
            Box::new(Mp4Sink::create(
                encoder,
                path,
                (width, height),
                fps,
                sound.as_ref(),
            )?)
        }
        RenderOutput::Png(path) => Box::new(PngSink::file(path, (width, height))),
        RenderOutput::Folder(dir) => Box::new(PngSink::folder(dir, (width, height))?),
    })
}

/// The output as checked: its size, kind and path, and the encoder for an MP4.
struct Output {
    width: u32,
    height: u32,
    output: RenderOutput,
    encoder: Option<odori_video::Encoder>,
}

/// A project's output size, when it is one a render can make.
fn project_size(project: &Project) -> Option<(u32, u32)> {
    let (w, h) = project.output_size;
    check_size((w & !1, h & !1)).ok()
}

/// `Auto` is the built-in encoder, which needs nothing (it makes AAC of a WAV itself); ffmpeg
/// only when asked for.
fn choose_encoder(
    choice: EncoderChoice,
    names: OptionNames,
) -> Result<odori_video::Encoder, PlaybackError> {
    use odori_video::Encoder;
    Ok(match choice {
        EncoderChoice::Builtin | EncoderChoice::Auto => Encoder::Builtin,
        EncoderChoice::Ffmpeg if odori_video::ffmpeg::available() => Encoder::Ffmpeg,
        EncoderChoice::Ffmpeg => {
            return option(format!(
                "{}: no ffmpeg on PATH (the built-in encoder needs none)",
                names.show("encoder", "ffmpeg")
            ));
        }
    })
}
