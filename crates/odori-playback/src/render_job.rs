//! A render as a front end asks for it: every option of `odori render` with its default,
//! checked, turned into a scene, a renderer, a player and a sink, then run through the
//! offline pipeline. The command line and the Python module's `odori.render` both build a
//! [`RenderJob`], so the two make the same frames from the same options.

use crate::choice::{self, Choice, Msaa, VideoFps};
use crate::error::PlaybackError;
use crate::load::{self, ModelInput};
use crate::offline::{self, FrameRange, RenderReport, Skinning};
use crate::output::{self, RenderOutput};
use crate::pose_stream::PoseStream;
use crate::project::Project;
use crate::sink::{FrameSink, Mp4Sink, PngSink};
use crate::{Player, PlayerOptions, Preroll, Scene};
use odori_render::{AnyRenderer, Backend, Device, RenderOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// What `--msaa` and `--fast` ask for, as (MSAA samples, shadow-map size), for a render and
/// for the window alike. MSAA 4 unless told: without multisampling the one-pixel
/// inverted-hull outlines break into dashes. `fast` trades that for speed: MSAA 1 unless
/// `msaa` is given, and a 1024-texel shadow map instead of one that follows the output size
/// (0).
pub fn quality(msaa: Option<u32>, fast: bool) -> (u32, u32) {
    (
        msaa.unwrap_or(if fast { 1 } else { 4 }),
        if fast { 1024 } else { 0 },
    )
}

/// Which MP4 encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EncoderChoice {
    /// The built-in encoder (the same as `Builtin`; kept so scripts that name it work).
    #[default]
    Auto,
    /// OpenH264, in-process (needs nothing installed).
    Builtin,
    /// An installed ffmpeg (libx264 + AAC).
    Ffmpeg,
}

/// Where vertices are skinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SkinningChoice {
    /// GPU on a hardware adapter, CPU on a software rasteriser.
    #[default]
    Auto,
    /// odori-deform, SIMD + threads.
    Cpu,
    /// A compute shader.
    Gpu,
}

/// Which renderer draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// A hardware adapter when there is one, else the CPU rasteriser (never a software
    /// adapter: `odori_render::backend::choose`).
    #[default]
    Auto,
    /// wgpu only (no adapter is an error).
    Gpu,
    /// odori's own CPU rasteriser (needs no driver).
    Cpu,
}

impl Choice for EncoderChoice {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        (
            "auto",
            EncoderChoice::Auto,
            "the built-in encoder (kept so scripts that name it work)",
        ),
        (
            "builtin",
            EncoderChoice::Builtin,
            "OpenH264, in-process (needs nothing installed)",
        ),
        (
            "ffmpeg",
            EncoderChoice::Ffmpeg,
            "an installed ffmpeg (libx264 + AAC)",
        ),
    ];
}

impl Choice for SkinningChoice {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        (
            "auto",
            SkinningChoice::Auto,
            "GPU on a hardware adapter, CPU on a software rasteriser",
        ),
        ("cpu", SkinningChoice::Cpu, "odori-deform, SIMD + threads"),
        ("gpu", SkinningChoice::Gpu, "a compute shader"),
    ];
}

impl Choice for BackendChoice {
    const VALUES: &'static [(&'static str, Self, &'static str)] = &[
        (
            "auto",
            BackendChoice::Auto,
            "a GPU when there is one, else odori's CPU rasteriser (faster than a software adapter)",
        ),
        (
            "gpu",
            BackendChoice::Gpu,
            "wgpu on any adapter, software ones included (no adapter is an error)",
        ),
        (
            "cpu",
            BackendChoice::Cpu,
            "odori's own CPU rasteriser (needs no driver)",
        ),
    ];
}

/// MMD frames `start` to `stop` inclusive; `stop` left out: the end of the motion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub start: f32,
    pub stop: Option<f32>,
}

impl Range {
    /// Checked: finite, the start at or after frame 0, the end not before the start.
    pub fn new(start: f32, stop: Option<f32>) -> Result<Range, String> {
        if !start.is_finite() || stop.is_some_and(|b| !b.is_finite()) {
            return Err("a range's frames must be finite numbers".into());
        }
        if start < 0.0 {
            return Err(format!(
                "the start {start} is before the first frame: MMD frames count from 0"
            ));
        }
        if let Some(b) = stop
            && b < start
        {
            return Err(format!("the end {b} is before the start {start}"));
        }
        Ok(Range { start, stop })
    }
}

/// `WIDTHxHEIGHT`, each side 16 to 8192.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected WIDTHxHEIGHT, e.g. 1280x720, not `{s}`");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    check_size((w, h))
}

/// Each side 16 to 8192.
pub fn check_size((w, h): (u32, u32)) -> Result<(u32, u32), String> {
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(format!("each side must be 16..=8192, not {w}x{h}"));
    }
    Ok((w, h))
}

/// `a:b` in MMD frames (30 per second), b included; either side may be left out; `a` alone
/// is one frame.
pub fn parse_range(s: &str) -> Result<Range, String> {
    let (a, b) = s.split_once(':').unwrap_or((s, s));
    let num = |t: &str| -> Result<Option<f32>, String> {
        let t = t.trim();
        if t.is_empty() {
            return Ok(None);
        }
        match t.parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(format!(
                "`{t}` is not a frame number (use a:b, a:, :b or a)"
            )),
        }
    };
    let (a, b) = (num(a)?, num(b)?);
    Range::new(a.unwrap_or(0.0), b)
}

/// How messages name an option: as the command line spells it (`--settle 700`) or as a
/// keyword argument (`settle=700`), so each front end's user reads the name they typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OptionNames {
    #[default]
    CommandLine,
    Keywords,
}

impl OptionNames {
    /// `name` given `value`, as the user wrote it.
    pub fn show(self, name: &str, value: impl std::fmt::Display) -> String {
        match self {
            OptionNames::CommandLine => format!("--{name} {value}"),
            OptionNames::Keywords => format!("{name}={value}"),
        }
    }

    /// `name` alone.
    pub fn name(self, name: &str) -> String {
        match self {
            OptionNames::CommandLine => format!("--{name}"),
            OptionNames::Keywords => format!("{name}="),
        }
    }
}

/// The frame size when neither the options nor a project give one.
pub const DEFAULT_SIZE: (u32, u32) = (1280, 720);

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

/// A render ready to run: the scene loaded, the renderer, player and sink opened (so a bad
/// audio file or a missing ffmpeg has failed already).
pub struct PreparedRender {
    player: Player,
    renderer: AnyRenderer,
    skinning: Skinning,
    range: FrameRange,
    sink: Box<dyn FrameSink>,
    output: RenderOutput,
    unmatched: usize,
}

fn option<T>(message: String) -> Result<T, PlaybackError> {
    Err(PlaybackError::Option(message))
}

impl RenderJob {
    /// Check every option, load the scene, open the device, renderer, player and sink.
    /// Everything about the output is checked before anything loads.
    pub fn prepare(&self, notes: &mut dyn FnMut(Note)) -> Result<PreparedRender, PlaybackError> {
        let names = self.names;
        let project = match &self.project {
            Some(path) => Some(self.open_project(path)?),
            None => None,
        };
        let size = (self.size)
            .or_else(|| project.as_ref().and_then(project_size))
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

        let (mut scene, warnings) = match &project {
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
        let project_range = project.as_ref().map(|p| p.range);
        let range = self.frame_range(&scene, &output, project_range, notes);
        let physics = match &project {
            Some(p) if self.physics && !p.physics() => {
                notes(Note::Note(
                    "the project's physics is off (物理演算: 演算しない): rendered without".into(),
                ));
                false
            }
            _ => self.physics,
        };

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
        let scene = Arc::new(scene);
        let renderer = offline::renderer_for(&scene, device, options);
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

        let sound = match (scene.audio(), &output) {
            (Some(path), RenderOutput::Mp4(_)) => Some(odori_video::Soundtrack {
                path,
                start_s: f64::from(range.start) / f64::from(crate::FPS),
                length_s: range.count as f64 / fps as f64,
            }),
            _ => None,
        };
        // The sink is opened (and the soundtrack read) before rendering starts, so a bad
        // audio file or a missing ffmpeg fails at once.
        let sink: Box<dyn FrameSink> = match &output {
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
        };
        Ok(PreparedRender {
            player,
            renderer,
            skinning,
            range,
            sink,
            output,
            unmatched,
        })
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

impl PreparedRender {
    /// Frames the run will write.
    pub fn frames(&self) -> usize {
        self.range.count
    }

    /// What is written.
    pub fn output(&self) -> &RenderOutput {
        &self.output
    }

    /// Motion tracks, over every model, that match no bone or morph.
    pub fn unmatched(&self) -> usize {
        self.unmatched
    }

    /// Run the offline pipeline ([`offline::render`]): `progress` is called once per frame
    /// written; setting `cancel` stops early and keeps the frames done so far.
    pub fn run(
        mut self,
        progress: &(dyn Fn() + Sync),
        cancel: &AtomicBool,
    ) -> Result<RenderReport, PlaybackError> {
        offline::render(
            self.player,
            &mut self.renderer,
            self.skinning,
            self.range,
            self.sink,
            progress,
            cancel,
        )
    }

    /// Simulate the whole range once into a [`PoseStream`] instead of rendering (nothing is
    /// drawn or written); `None` when cancelled.
    pub fn bake_poses(self, progress: &dyn Fn(), cancel: &AtomicBool) -> Option<PoseStream> {
        PoseStream::bake(self.player, self.range, progress, cancel)
    }

    /// Render output frames `first..first + count` of the range from `stream` (baked from
    /// this render's scene and range: checked) in place of simulating: the frames a run of
    /// the whole range makes there, pixel for pixel.
    pub fn run_chunk(
        mut self,
        stream: Arc<PoseStream>,
        first: usize,
        count: usize,
        progress: &(dyn Fn() + Sync),
        cancel: &AtomicBool,
    ) -> Result<RenderReport, PlaybackError> {
        let scene = self.player.scene().clone();
        let fits = stream.check(&scene, self.range).and_then(|()| {
            (first + count <= stream.len()).then_some(()).ok_or(format!(
                "frames {first}..{} asked for, the pose stream holds {}",
                first + count,
                stream.len()
            ))
        });
        if let Err(message) = fits {
            return Err(PlaybackError::Stream {
                path: self.output_path(),
                message,
            });
        }
        let range = FrameRange {
            start: self.range.frame(first),
            count,
            ..self.range
        };
        let source = offline::PoseSource::Stream {
            stream,
            scene,
            first,
            deform: self.skinning == Skinning::Cpu,
        };
        offline::render_from(
            source,
            &mut self.renderer,
            self.skinning,
            range,
            self.sink,
            progress,
            cancel,
        )
    }

    fn output_path(&self) -> PathBuf {
        match &self.output {
            RenderOutput::Mp4(p) | RenderOutput::Png(p) | RenderOutput::Folder(p) => p.clone(),
        }
    }
}
