//! `odori`: make MikuMikuDance models dance from the command line.

mod cmd;
mod export;
mod frames;
mod load;

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "odori",
    version,
    about = "Make MikuMikuDance models dance exactly as MMD does"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// What a PMX, PMD, VMD or VPD file holds: version, encoding, counts per section, names.
    Info {
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// List every name (bones, morphs, materials, tracks), not just counts.
        #[arg(long)]
        names: bool,
    },
    /// Evaluate a model's pose at chosen frames and write it as pose JSON.
    Pose {
        model: PathBuf,
        /// VMD or VPD files, merged in order.
        motions: Vec<PathBuf>,
        /// Frames: `0,30,60` or `a:b:step` (b included).
        #[arg(long, default_value = "0")]
        frames: String,
        /// Turn every IK solver off.
        #[arg(long)]
        no_ik: bool,
        /// Include morph weights.
        #[arg(long)]
        morphs: bool,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Median time per frame of pose evaluation (and each stage), one thread and N instances
    /// in parallel.
    Bench {
        model: PathBuf,
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
    Mesh {
        model: PathBuf,
        /// VMD or VPD files, merged in order (none: the rest pose).
        motions: Vec<PathBuf>,
        /// The frame to deform (fractional frames interpolate).
        #[arg(long, default_value_t = 0.0)]
        frame: f32,
        /// Turn every IK solver off.
        #[arg(long)]
        no_ik: bool,
        /// Output file: `.obj` or `.ply`.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Simulate physics over a motion and write the motion with the simulated bones as
    /// keyframes (physics off on them), for MikuMikuDance or any runtime to play back.
    Bake {
        model: PathBuf,
        /// The VMD motion to bake.
        motion: PathBuf,
        /// The baked VMD to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Render a dance to MP4 (H.264, audio muxed), one PNG, or a folder of PNGs. With no
    /// files, renders the embedded demo character and dance.
    Render {
        /// MODEL (PMX or PMD) then VMD motions, merged in order.
        files: Vec<PathBuf>,
        /// Camera motion VMD (default: the motions' own camera keys, else a framing camera).
        #[arg(long)]
        camera: Option<PathBuf>,
        /// Soundtrack, cut to the rendered range: MP3 stored as is; WAV stored as PCM, or made
        /// AAC by ffmpeg when it is installed.
        #[arg(long)]
        audio: Option<PathBuf>,
        /// `.mp4`, `.png` (first frame of the range) or a folder for PNG frames.
        #[arg(short, long, default_value = "odori.mp4")]
        output: PathBuf,
        /// Frame size, WIDTHxHEIGHT (even sides for MP4).
        #[arg(long, default_value = "1280x720")]
        size: String,
        /// Output frames per second (MMD's motion runs at 30).
        #[arg(long, default_value_t = 30)]
        fps: u32,
        /// MMD frames `a:b` (30 per second, b included); default the whole motion.
        #[arg(long)]
        range: Option<String>,
        /// MSAA samples (1 = off). Default 4, on a GPU and on a software rasteriser alike:
        /// without it outlines break into dashes. On a software rasteriser (lavapipe, 2 cores)
        /// 4× costs 2-2.5x the time of a frame (Gene_light.pmx, 1280x720: 7-9 against 17-18
        /// fps on lavapipe, 2 busy cores); `--msaa 1` or `--fast` for speed.
        #[arg(long)]
        msaa: Option<u32>,
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
        /// MP4 encoder: `builtin` (OpenH264, in-process), `ffmpeg` (libx264 + AAC), or `auto`
        /// (ffmpeg only for a WAV soundtrack when ffmpeg is installed).
        #[arg(long, default_value = "auto")]
        encoder: String,
        /// Where vertices are skinned: `cpu` (odori-deform, SIMD + threads), `gpu` (compute
        /// shader), or `auto` (GPU on a hardware adapter, CPU on a software rasteriser).
        #[arg(long, default_value = "auto")]
        skinning: String,
    },
}

fn main() -> std::process::ExitCode {
    match run(Cli::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Info { file, json, names } => cmd::info::run(&file, json, names),
        Command::Pose {
            model,
            motions,
            frames,
            no_ik,
            morphs,
            output,
        } => cmd::pose::run(&model, &motions, &frames, !no_ik, morphs, output.as_deref()),
        Command::Bench {
            model,
            motions,
            instances,
            passes,
        } => cmd::bench::run(&model, &motions, instances, passes),
        Command::Mesh {
            model,
            motions,
            frame,
            no_ik,
            output,
        } => cmd::mesh::run(&model, &motions, frame, !no_ik, &output),
        Command::Bake {
            model,
            motion,
            output,
        } => cmd::bake::run(&model, &motion, &output),
        Command::Render {
            files,
            camera,
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
        } => cmd::render::run(cmd::render::Args {
            files,
            camera,
            audio,
            output,
            size,
            fps,
            range,
            msaa,
            fast,
            physics: !no_physics,
            settle,
            self_shadow: !no_self_shadow,
            ground_shadow: !no_ground_shadow,
            edges: !no_edges,
            encoder,
            skinning,
        }),
    }
}
