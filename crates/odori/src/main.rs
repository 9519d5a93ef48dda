//! `odori`: make MikuMikuDance models dance from the command line.

mod cmd;
mod export;
mod frames;
mod load;
mod output {
    //! Output paths, checked before anything loads: the playback library's checks.
    pub use odori_playback::output::*;
}
mod stdout;

use anyhow::Result;
use clap::{Parser, Subcommand};
use cmd::render::{BackendChoice, EncoderChoice, ExportFps, Msaa, Range, SkinningChoice, VideoFps};
use odori_playback::render_job::{OptionNames, RenderJob};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "odori",
    version,
    about = "Make MikuMikuDance models dance exactly as MMD does",
    after_help = "Examples:
  odori render -o demo.mp4                               the embedded demo, no files needed
  odori render model.pmx dance.vmd --audio song.mp3 -o dance.mp4
  odori info model.pmx --names

`odori help COMMAND` shows each command's options and examples."
)]
struct Cli {
    /// List every motion track that matches nothing in the model (one summary line without).
    #[arg(long, short, global = true, display_order = 900)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// What a PMX, PMD, VMD or VPD file holds: version, encoding, counts per section, names.
    #[command(after_help = "Examples:
  odori info model.pmx
  odori info dance.vmd --json
  odori info model.pmx --names | grep -i skirt")]
    Info {
        /// The model (PMX, PMD), motion (VMD) or pose (VPD) file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// List every name (bones, morphs, materials, tracks), not just counts.
        #[arg(long)]
        names: bool,
        /// Another folder to look for a project's files in (repeatable).
        #[arg(long, value_name = "DIR")]
        search: Vec<PathBuf>,
    },
    /// Write a MikuMikuDance project's (.pmm) dances as VMD files, one per model, and its
    /// camera, light and self-shadow keys as camera.vmd.
    #[command(after_help = "Examples:
  odori extract project.pmm -o motions/
  odori extract project.pmm -o motions/ --search ~/MikuMikuDance")]
    Extract {
        /// The project (PMM version 2).
        project: PathBuf,
        /// The folder to write into (created if missing).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
        /// Another folder to look for the project's files in (repeatable).
        #[arg(long, value_name = "DIR")]
        search: Vec<PathBuf>,
    },
    /// Evaluate a model's pose at chosen frames and write it as pose JSON.
    #[command(after_help = "Examples:
  odori pose model.pmx dance.vmd --frames 0:300:30 -o pose.json
  odori pose model.pmx pose.vpd --morphs")]
    Pose {
        /// The model: PMX or PMD.
        model: PathBuf,
        /// VMD motions or VPD poses, merged in order (none: the rest pose).
        motions: Vec<PathBuf>,
        /// Frames: `0,30,60` or `a:b:step` (b included).
        #[arg(long, default_value = "0", value_name = "LIST")]
        frames: String,
        /// Turn every IK solver off.
        #[arg(long)]
        no_ik: bool,
        /// Include morph weights.
        #[arg(long)]
        morphs: bool,
        /// Output file (default: standard output).
        #[arg(short, long, value_name = "OUT.json")]
        output: Option<PathBuf>,
    },
    /// Median time per frame of pose evaluation (and each stage), one thread and N instances
    /// in parallel.
    #[command(after_help = "Examples:
  odori bench model.pmx dance.vmd
  odori bench model.pmx dance.vmd --instances 5000 --passes 1")]
    Bench {
        /// The model: PMX or PMD.
        model: PathBuf,
        /// VMD motions or VPD poses, merged in order.
        motions: Vec<PathBuf>,
        /// Instances evaluated in parallel in the second measurement.
        #[arg(long, default_value_t = 1000)]
        instances: usize,
        /// Passes over the whole motion for the single-thread measurement.
        #[arg(long, default_value_t = 5)]
        passes: usize,
    },
    /// The deformed mesh of one frame as OBJ (with a .mtl beside it) or binary PLY: positions,
    /// normals, UVs and material groups, for a look in any 3D viewer.
    #[command(after_help = "Examples:
  odori mesh model.pmx dance.vmd --frame 600 -o frame600.obj
  odori mesh model.pmx -o rest.ply")]
    Mesh {
        /// The model: PMX or PMD.
        model: PathBuf,
        /// VMD motions or VPD poses, merged in order (none: the rest pose).
        motions: Vec<PathBuf>,
        /// The frame to deform (fractional frames interpolate).
        #[arg(long, default_value_t = 0.0)]
        frame: f32,
        /// Turn every IK solver off.
        #[arg(long)]
        no_ik: bool,
        /// Output file: `.obj` or `.ply`.
        #[arg(short, long, value_name = "OUT.obj|OUT.ply")]
        output: PathBuf,
    },
    /// Simulate physics over a motion and write the motion with the simulated bones as
    /// keyframes (physics off on them), for MikuMikuDance or any runtime to play back.
    #[command(after_help = "Examples:
  odori bake model.pmx dance.vmd -o dance_baked.vmd
  odori bake model.pmx dance.vmd --tolerance 0 -o every_frame.vmd")]
    Bake {
        /// The model: PMX or PMD, with rigid bodies.
        model: PathBuf,
        /// The VMD motion to bake.
        motion: PathBuf,
        /// The baked VMD to write.
        #[arg(short, long, value_name = "OUT.vmd")]
        output: PathBuf,
        /// Keys are dropped where the replay stays this close (model units) to the
        /// simulation on every bone and frame; 0 keeps a key on every frame.
        #[arg(long, default_value_t = 0.001, value_name = "UNITS")]
        tolerance: f32,
    },
    /// Export a dance to glTF 2.0 (.glb, or .gltf with files beside it): each model's mesh,
    /// skin and morph targets, every bone's motion baked after IK, append, physics and
    /// outside parents, props as nodes under the bones holding them, and the camera, so any
    /// 3D tool plays the scene as odori does.
    #[command(after_help = "Examples:
  odori export model.pmx dance.vmd --camera camera.vmd -o dance.glb
  odori export model.pmx dance.vmd --range 0:299 --fps 60 -o part.gltf
  odori export model.pmx dance.vmd --stage room.pmx --accessory mic.x@0:右手首 -o scene.glb
  odori export project.pmm --search ~/MikuMikuDance -o project.glb   an MMD project
  odori export model.pmx -o model.glb                      the rest pose, no animation")]
    Export {
        /// Each model (PMX or PMD) followed by its VMD motions or VPD poses (merged in
        /// order; none: the rest pose); a file ending in .pmx or .pmd starts the next model.
        /// Or one MikuMikuDance project (.pmm), with its own models, keys, accessories and
        /// range.
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
        /// Camera motion VMD (default: the motions' own camera keys); exported as a camera
        /// node with its animation.
        #[arg(long, value_name = "CAM.vmd")]
        camera: Option<PathBuf>,
        #[command(flatten)]
        scene: cmd::scene::SceneArgs,
        /// Another folder to look for a project's models and accessories in (repeatable).
        #[arg(long, value_name = "DIR")]
        search: Vec<PathBuf>,
        /// MMD frames `a:b` (b included; either side may be left out), or one frame `a`.
        /// Default: the whole motion (a project's own range).
        #[arg(long, value_name = "A:B", allow_hyphen_values = true,
              value_parser = cmd::render::parse_range)]
        range: Option<Range>,
        /// Samples a second (60 interpolates between MMD's frames).
        #[arg(long, value_parser = cmd::render::choice::<ExportFps>(), default_value = "30")]
        fps: ExportFps,
        /// `NAME.glb` (one file, textures inside) or `NAME.gltf` (with NAME.bin and PNG
        /// textures beside it).
        #[arg(short, long, value_name = "OUT.glb|OUT.gltf")]
        output: PathBuf,
        /// Skip rigid-body physics.
        #[arg(long)]
        no_physics: bool,
        /// Seconds physics settles at frame 0 before the first frame (default 3), as render.
        #[arg(long, value_name = "SECONDS")]
        settle: Option<f32>,
        /// Keep a key at every sampled frame for every bone (default: keys are dropped where
        /// the world pose stays within 1e-4 units and 1e-4 of each rotation element).
        #[arg(long)]
        no_reduce: bool,
    },
    /// Render a dance to MP4 (H.264, audio muxed), one PNG, or a folder of PNGs. With no
    /// files, renders the embedded demo character and dance.
    #[command(after_help = "Examples:
  odori render -o demo.mp4                         the embedded demo
  odori render model.pmx dance.vmd face.vmd --camera camera.vmd --audio song.mp3 -o out.mp4
  odori render a.pmx dance.vmd b.pmd dance.vmd -o duo.mp4        two dancers, at the origin
  odori render a.pmx dance.vmd b.pmd dance.vmd --side-by-side -o duo.mp4   stood apart
  odori render model.pmx dance.vmd --stage room.pmx --accessory mic.pmx@0:右手首 -o out.mp4
  odori render model.pmx dance.vmd --range 900 -o frame900.png   one frame
  odori render model.pmx dance.vmd --range 0:299 -o frames/      a folder of PNGs
  odori render project.pmm --search ~/MikuMikuDance -o project.mp4   an MMD project

Ctrl-C stops a render and keeps the frames done so far (a shorter MP4).")]
    Render {
        /// Each model (PMX or PMD) followed by its VMD motions (merged in order); a file
        /// ending in .pmx or .pmd starts the next model. Or one MikuMikuDance project
        /// (.pmm), rendered with its own models, keys, camera, accessories, size, range and
        /// soundtrack. None: the embedded demo.
        #[arg(value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Camera motion VMD (default: the motions' own camera keys, else a framing camera).
        #[arg(long, value_name = "CAM.vmd")]
        camera: Option<PathBuf>,
        #[command(flatten)]
        scene: cmd::scene::SceneArgs,
        /// Another folder to look for a project's models, accessories and soundtrack in
        /// (repeatable), after the project's own folder and the two above it.
        #[arg(long, value_name = "DIR")]
        search: Vec<PathBuf>,
        /// Soundtrack, cut to the rendered range and lined up with the picture: MP3 stored as
        /// is; WAV, OGG, FLAC or AAC encoded to AAC in-process.
        #[arg(long, value_name = "SONG.mp3|SONG.wav")]
        audio: Option<PathBuf>,
        /// `NAME.mp4`, `NAME.png` (first frame of the range), or a folder for PNG frames
        /// (`FOLDER/` with a trailing slash, or an existing folder).
        #[arg(short, long, default_value = "odori.mp4", value_name = "OUT")]
        output: PathBuf,
        /// Frame size, WIDTHxHEIGHT (even sides for MP4). Default: a project's own output
        /// size, else 1280x720.
        #[arg(long, value_name = "WxH", value_parser = cmd::render::parse_size)]
        size: Option<(u32, u32)>,
        /// Output frames per second (MMD's motion runs at 30; 60 interpolates between keys).
        #[arg(long, value_parser = cmd::render::choice::<VideoFps>(), default_value = "30")]
        fps: VideoFps,
        /// MMD frames `a:b` (30 per second, b included; either side may be left out), or one
        /// frame `a`. Default: the whole motion.
        #[arg(long, value_name = "A:B", allow_hyphen_values = true,
              value_parser = cmd::render::parse_range)]
        range: Option<Range>,
        /// MSAA samples (1 = off; the adapter's best up to this). Default 4, on a GPU and on a
        /// software rasteriser alike: without it outlines break into dashes. On a software
        /// rasteriser 4× costs about twice the time of a frame; `--msaa 1` or `--fast` for
        /// speed.
        #[arg(long, value_parser = cmd::render::choice::<Msaa>())]
        msaa: Option<Msaa>,
        /// Speed over quality: MSAA 1 (unless --msaa is given) and a 1024-texel shadow map
        /// instead of one sized with the output (twice its height, 1024 to 4096).
        #[arg(long)]
        fast: bool,
        /// Skip rigid-body physics.
        #[arg(long)]
        no_physics: bool,
        /// Seconds of simulated time physics settles for at frame 0 before the first frame,
        /// so hair and skirts start at rest (default 3); a range starting later is simulated
        /// from frame 0 up to its start, so each frame looks as in the whole video. 0: physics
        /// starts at the range's first frame, reset onto it with MMD's short settle (the
        /// behaviour before this option).
        #[arg(long, value_name = "SECONDS")]
        settle: Option<f32>,
        /// Turn off the self-shadow map (faster on software renderers).
        #[arg(long)]
        no_self_shadow: bool,
        /// Turn off the ground shadow.
        #[arg(long)]
        no_ground_shadow: bool,
        /// Turn off edges (outlines).
        #[arg(long)]
        no_edges: bool,
        /// MP4 encoder.
        #[arg(long, value_parser = cmd::render::choice::<EncoderChoice>(), default_value = "auto")]
        encoder: EncoderChoice,
        /// Where vertices are skinned.
        #[arg(long, value_parser = cmd::render::choice::<SkinningChoice>(), default_value = "auto")]
        skinning: SkinningChoice,
        /// Which renderer draws: wgpu on a GPU adapter (or Mesa's software one), odori's own
        /// CPU rasteriser, or `auto`: wgpu when an adapter opens, else the CPU rasteriser.
        #[arg(long, value_parser = cmd::render::choice::<BackendChoice>(), default_value = "auto")]
        backend: BackendChoice,
        /// Draw the video in N chunks on N threads from poses (and physics) computed once,
        /// then join them into the MP4 without re-encoding: the same frames as one run.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        chunks: Option<u16>,
    },
    /// Play a dance in a window, in real time, with its music. With no files, the embedded
    /// demo. Drop models, motions, a camera VMD, a VPD pose or a song on the window to add
    /// them.
    #[command(after_help = "Examples:
  odori play                                        the embedded demo
  odori play model.pmx dance.vmd --camera camera.vmd --audio song.mp3
  odori play a.pmx dance.vmd b.pmd dance.vmd --side-by-side   two dancers stood apart
  odori play model.pmx dance.vmd --stage room.pmx --accessory mic.pmx@0:右手首
  odori play project.pmm                            an MMD project, as saved

Keys: Space play/pause, ← → frame step (Shift: 10), Home/End, L loop, C motion/orbit
camera, F fullscreen, S screenshot, P physics, R reset physics, Tab panels, Esc quit.
Mouse: drag to orbit, wheel to zoom, right/middle drag to pan, double-click to refocus.
Sound goes to ALSA's default device (ODORI_AUDIO_DEVICE picks another); without one the
dance plays silent on the system clock.")]
    Play {
        /// Each model (PMX or PMD) followed by its VMD motions or VPD poses; a file ending in
        /// .pmx or .pmd starts the next model. Or a MikuMikuDance project (.pmm) first, with
        /// its models, keys, accessories, camera and soundtrack. None: the embedded demo.
        #[arg(value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Camera motion VMD (default: the motions' own camera keys, else an orbit camera).
        #[arg(long, value_name = "CAM.vmd")]
        camera: Option<PathBuf>,
        #[command(flatten)]
        scene: cmd::scene::SceneArgs,
        /// The song (MP3, WAV, OGG, FLAC, M4A), played from frame 0.
        #[arg(long, value_name = "SONG.mp3|SONG.wav")]
        audio: Option<PathBuf>,
        /// Window size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720", value_name = "WxH",
              value_parser = cmd::render::parse_size)]
        size: (u32, u32),
        /// Skip rigid-body physics.
        #[arg(long)]
        no_physics: bool,
        /// Draw as fast as possible instead of at the display's refresh (for measuring).
        #[arg(long)]
        no_vsync: bool,
        /// Start paused.
        #[arg(long)]
        paused: bool,
        /// Start with the panels hidden (Tab shows them).
        #[arg(long)]
        no_panels: bool,
        /// MSAA samples, as `odori render --msaa`: default 4 on a GPU and on a software
        /// rasteriser alike (outlines break into dashes without); `--msaa 1` or `--fast` for
        /// speed on lavapipe.
        #[arg(long, value_parser = cmd::render::choice::<Msaa>())]
        msaa: Option<Msaa>,
        /// Speed over quality, as `odori render --fast`: MSAA 1 (unless --msaa is given) and
        /// a 1024-texel shadow map.
        #[arg(long)]
        fast: bool,
        /// Which renderer draws the window: auto (a GPU when there is one, else odori's CPU
        /// rasteriser, with no graphics driver), gpu (wgpu, software adapters included), cpu.
        #[arg(long, value_parser = cmd::render::choice::<BackendChoice>(), default_value = "auto")]
        backend: BackendChoice,
        /// Commands to run, one a line (drop FILE [at X Y], pause, play, seek N, key NAME,
        /// wait N|Ns, screenshot PATH, status, model N, morph NAME WEIGHT|off|reset,
        /// bone NAME|none, doubleclick X Y, quit): for tests and demos.
        #[arg(long, value_name = "FILE")]
        script: Option<PathBuf>,
    },
}

/// A private `XDG_RUNTIME_DIR` for the window, when the environment has none (`sudo`, a
/// bare X server): the window's wgpu instance must keep Vulkan's Wayland surface extension
/// (the window may be on Wayland), so Mesa's device-select layer asks Wayland for the
/// display's GPU, and libwayland prints "error: XDG_RUNTIME_DIR is invalid or not set"
/// (twice). With an empty folder of our own the probe finds no compositor, quietly. Renders
/// need none of this: their instance leaves that extension out
/// (`odori_render::gpu::headless_instance`). Removed when the process ends.
struct RuntimeDir(Option<PathBuf>);

impl RuntimeDir {
    /// Must run before any thread starts (it sets an environment variable).
    fn ensure() -> RuntimeDir {
        let usable = std::env::var_os("XDG_RUNTIME_DIR")
            .is_some_and(|d| std::path::Path::new(&d).is_absolute());
        if usable {
            return RuntimeDir(None);
        }
        let dir = std::env::temp_dir().join(format!("odori-runtime-{}", std::process::id()));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        if builder.create(&dir).is_err() {
            return RuntimeDir(None);
        }
        // SAFETY: called first thing in `main`, before any other thread exists, so nothing
        // reads the environment concurrently.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
        RuntimeDir(Some(dir))
    }
}

impl Drop for RuntimeDir {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _runtime_dir = matches!(cli.command, Command::Play { .. }).then(RuntimeDir::ensure);
    match run(cli) {
        Ok(code) => code,
        // `odori info x.pmx | head -1`: the reader is gone; nothing more to say.
        Err(e) if stdout::is_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let verbose = cli.verbose;
    match cli.command {
        Command::Info {
            file,
            json,
            names,
            search,
        } => cmd::info::run(&file, json, names, &search)?,
        Command::Extract {
            project,
            output,
            search,
        } => cmd::extract::run(&project, &output, &search)?,
        Command::Pose {
            model,
            motions,
            frames,
            no_ik,
            morphs,
            output,
        } => cmd::pose::run(
            &model,
            &motions,
            &frames,
            !no_ik,
            morphs,
            output.as_deref(),
            verbose,
        )?,
        Command::Bench {
            model,
            motions,
            instances,
            passes,
        } => cmd::bench::run(&model, &motions, instances, passes, verbose)?,
        Command::Mesh {
            model,
            motions,
            frame,
            no_ik,
            output,
        } => cmd::mesh::run(&model, &motions, frame, !no_ik, &output, verbose)?,
        Command::Bake {
            model,
            motion,
            output,
            tolerance,
        } => cmd::bake::run(&model, &motion, &output, tolerance, verbose)?,
        Command::Export {
            files,
            camera,
            scene,
            search,
            range,
            fps,
            output,
            no_physics,
            settle,
            no_reduce,
        } => cmd::export::run(cmd::export::Args {
            files,
            camera,
            scene,
            search,
            range,
            fps,
            output,
            physics: !no_physics,
            settle,
            reduce: !no_reduce,
            verbose,
        })?,
        Command::Render {
            files,
            camera,
            scene,
            search,
            audio,
            output,
            size,
            fps,
            range,
            msaa,
            fast,
            no_physics,
            settle,
            no_self_shadow,
            no_ground_shadow,
            no_edges,
            encoder,
            skinning,
            backend,
            chunks,
        } => {
            let run = |job: RenderJob| match chunks {
                Some(n) => cmd::chunks::run(job, n as usize),
                None => cmd::render::run(job),
            };
            let (models, project) = match odori_playback::project::single_project(&files) {
                Some(p) => (Vec::new(), Some(p.to_path_buf())),
                None => (odori_playback::load::split_files(&files)?, None),
            };
            return run(RenderJob {
                models,
                project,
                search,
                scene: scene.options(),
                camera,
                audio,
                output,
                size,
                fps: fps.0,
                range,
                msaa: msaa.map(|m| m.0),
                fast,
                physics: !no_physics,
                settle,
                self_shadow: !no_self_shadow,
                ground_shadow: !no_ground_shadow,
                edges: !no_edges,
                encoder,
                skinning,
                backend,
                verbose,
                names: OptionNames::CommandLine,
            });
        }
        Command::Play {
            files,
            camera,
            scene,
            audio,
            size,
            no_physics,
            no_vsync,
            paused,
            no_panels,
            msaa,
            fast,
            backend,
            script,
        } => {
            let (msaa, shadow_map_size) =
                odori_playback::render_job::quality(msaa.map(|m| m.0), fast);
            odori_player::run(odori_player::Options {
                files,
                camera,
                audio,
                script,
                size,
                physics: !no_physics,
                scene: scene.options(),
                vsync: !no_vsync,
                paused,
                hide_panels: no_panels,
                msaa,
                shadow_map_size,
                backend: match backend {
                    BackendChoice::Auto => odori_render::Backend::Auto,
                    BackendChoice::Gpu => odori_render::Backend::Gpu,
                    BackendChoice::Cpu => odori_render::Backend::Cpu,
                },
            })?
        }
    }
    Ok(ExitCode::SUCCESS)
}
