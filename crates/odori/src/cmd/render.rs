//! `odori render`: a scene to MP4, PNG or a folder of PNGs. Arguments and messages only; the
//! playback library builds the scene and runs the pipeline (`odori_playback::offline`).

use crate::output::{self, RenderOutput};
use anyhow::{Result, bail};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use odori_playback::offline::{self, FrameRange, Skinning};
use odori_playback::sink::{FrameSink, Mp4Sink, PngSink};
use odori_playback::{Player, PlayerOptions, Preroll};
use odori_render::{Backend, Device, RenderOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Output frame rates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Fps {
    #[value(name = "24")]
    F24,
    #[value(name = "25")]
    F25,
    #[value(name = "30")]
    F30,
    #[value(name = "50")]
    F50,
    #[value(name = "60")]
    F60,
}

impl Fps {
    pub fn get(self) -> u32 {
        match self {
            Fps::F24 => 24,
            Fps::F25 => 25,
            Fps::F30 => 30,
            Fps::F50 => 50,
            Fps::F60 => 60,
        }
    }
}

/// MSAA sample counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Msaa {
    #[value(name = "1")]
    X1,
    #[value(name = "2")]
    X2,
    #[value(name = "4")]
    X4,
    #[value(name = "8")]
    X8,
}

impl Msaa {
    pub fn get(self) -> u32 {
        match self {
            Msaa::X1 => 1,
            Msaa::X2 => 2,
            Msaa::X4 => 4,
            Msaa::X8 => 8,
        }
    }
}

/// `--encoder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EncoderChoice {
    /// The built-in encoder (the same as `builtin`; kept so scripts that name it work).
    Auto,
    /// OpenH264, in-process (needs nothing installed).
    Builtin,
    /// An installed ffmpeg (libx264 + AAC).
    Ffmpeg,
}

/// `--skinning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SkinningChoice {
    /// GPU on a hardware adapter, CPU on a software rasteriser.
    Auto,
    /// odori-deform, SIMD + threads.
    Cpu,
    /// A compute shader.
    Gpu,
}

/// `--backend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendChoice {
    /// wgpu when an adapter opens (a GPU, or Mesa's lavapipe/llvmpipe), else the CPU
    /// rasteriser.
    Auto,
    /// wgpu only (no adapter is an error).
    Gpu,
    /// odori's own CPU rasteriser (needs no driver).
    Cpu,
}

/// `--range a:b`: either side may be left out (the start of the motion, its end).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub start: f32,
    pub stop: Option<f32>,
}

pub struct Args {
    /// Each model (PMX/PMD) followed by its motions; none: the embedded demo.
    pub files: Vec<PathBuf>,
    pub camera: Option<PathBuf>,
    pub audio: Option<PathBuf>,
    pub output: PathBuf,
    pub size: (u32, u32),
    pub fps: Fps,
    pub range: Option<Range>,
    pub msaa: Option<Msaa>,
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
    /// List every unmatched motion track.
    pub verbose: bool,
}

/// `auto` is the built-in encoder, which needs nothing (it makes AAC of a WAV itself);
/// ffmpeg only when asked for.
fn choose_encoder(choice: EncoderChoice) -> Result<odori_video::Encoder> {
    use odori_video::Encoder;
    Ok(match choice {
        EncoderChoice::Builtin => Encoder::Builtin,
        EncoderChoice::Ffmpeg if odori_video::ffmpeg::available() => Encoder::Ffmpeg,
        EncoderChoice::Ffmpeg => {
            bail!("--encoder ffmpeg: no ffmpeg on PATH (the built-in encoder needs none)")
        }
        EncoderChoice::Auto => Encoder::Builtin,
    })
}

/// `--size WIDTHxHEIGHT` (clap's value parser: a bad size stops argument parsing).
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected WIDTHxHEIGHT, e.g. 1280x720, not `{s}`");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(format!("each side must be 16..=8192, not {w}x{h}"));
    }
    Ok((w, h))
}

/// `--range a:b` in MMD frames (30 per second), b included; either side may be left out; `a`
/// alone is one frame (clap's value parser: checked before anything loads).
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
    let start = a.unwrap_or(0.0);
    if start < 0.0 {
        return Err(format!(
            "the start {start} is before the first frame: MMD frames count from 0"
        ));
    }
    if let Some(b) = b
        && b < start
    {
        return Err(format!("the end {b} is before the start {start}"));
    }
    Ok(Range { start, stop: b })
}

/// Set by Ctrl-C: the pipeline stops and finishes what it has.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// Ctrl-C while rendering: the first asks the pipeline to stop and keep the frames done so
/// far; a second one quits at once (removing the unfinished MP4).
fn catch_ctrl_c(part: Option<PathBuf>) {
    let result = ctrlc::set_handler(move || {
        if CANCEL.swap(true, Ordering::SeqCst) {
            if let Some(p) = &part {
                let _ = std::fs::remove_file(p);
            }
            eprintln!("\ninterrupted twice: stopped without finishing");
            std::process::exit(130);
        }
        eprintln!("\ninterrupted: finishing the frames done so far (Ctrl-C again to quit)");
    });
    if let Err(e) = result {
        eprintln!("warning: Ctrl-C will not keep the frames done so far: {e}");
    }
}

pub fn run(args: Args) -> Result<ExitCode> {
    let (width, height) = args.size;
    let fps = args.fps.get();
    if let Some(s) = args.settle
        && !(s.is_finite() && (0.0..=600.0).contains(&s))
    {
        bail!("--settle {s}: give seconds from 0 to 600");
    }
    // Everything about the output is checked before anything loads.
    let output = output::render(&args.output)?;
    if matches!(output, RenderOutput::Mp4(_)) && (width % 2 != 0 || height % 2 != 0) {
        bail!("--size {width}x{height}: MP4 (H.264 4:2:0) needs even sides");
    }
    let encoder = match &output {
        RenderOutput::Mp4(_) => Some(choose_encoder(args.encoder)?),
        _ => None,
    };
    match (&args.audio, encoder) {
        (Some(_), None) => eprintln!("warning: --audio only applies to MP4 output; ignored"),
        // A missing or non-audio file is said before anything loads, naming that file.
        (Some(path), Some(_)) => odori_video::audio::check(path)?,
        (None, _) => {}
    }

    let (mut scene, warnings) =
        odori_playback::load::scene_from_files(&args.files, args.camera.as_deref())?;
    if let Some(path) = &args.audio {
        scene.set_audio(path);
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let mut unmatched = 0;
    for m in scene.models() {
        let unbound = m.motion().unbound();
        unmatched += unbound.len();
        if args.verbose {
            crate::load::list_unmatched(m.asset().label(), unbound);
        }
    }
    if unmatched > 0 && !args.verbose {
        eprintln!("note: --verbose lists every motion track that matches nothing");
    }
    let label = match scene.models() {
        [one] => one.asset().label().to_string(),
        many => (many.iter())
            .map(|m| m.asset().label())
            .collect::<Vec<_>>()
            .join(" + "),
    };
    let end = scene.end_frame();
    let (start, stop) = match args.range {
        Some(r) => (r.start, r.stop.unwrap_or(end.max(r.start))),
        None => (0.0, end),
    };
    if args.range.is_some() && stop > end {
        eprintln!(
            "warning: --range goes past the motion's last frame ({end}): frames after it hold \
             the last pose"
        );
    }
    let mut range = FrameRange::new(start, stop, fps);
    if matches!(output, RenderOutput::Png(_)) {
        range.count = 1;
    }

    let device = Device::open(match args.backend {
        BackendChoice::Auto => Backend::Auto,
        BackendChoice::Gpu => Backend::Gpu,
        BackendChoice::Cpu => Backend::Cpu,
    })?;
    let software = device.is_software();
    if args.skinning == SkinningChoice::Gpu && device.gpu().is_none() {
        anyhow::bail!(
            "--skinning gpu needs a GPU adapter, and the CPU rasteriser is drawing ({}); use \
             --skinning cpu or auto",
            match args.backend {
                BackendChoice::Cpu => "--backend cpu".to_string(),
                _ => "no adapter was found".to_string(),
            }
        );
    }
    let options = RenderOptions {
        width,
        height,
        // 4 everywhere: without multisampling the one-pixel inverted-hull outlines break into
        // dashes. `--fast` (or `--msaa 1`) trades that for speed.
        msaa: args.msaa.map_or(if args.fast { 1 } else { 4 }, Msaa::get),
        self_shadow: args.self_shadow,
        ground_shadow: args.ground_shadow,
        edges: args.edges,
        // 0: the map follows the output size; `--fast` keeps the small one.
        shadow_map_size: if args.fast { 1024 } else { 0 },
        ..Default::default()
    };
    let shadow_side = options.shadow_map_side();
    let adapter = device.describe();
    // Skinning on the GPU (compute) when there is a real one; on a software rasteriser the
    // "GPU" is the same two cores, and odori-deform's SIMD CPU path is the faster of the two.
    let skinning = match args.skinning {
        SkinningChoice::Gpu => Skinning::Gpu,
        SkinningChoice::Cpu => Skinning::Cpu,
        SkinningChoice::Auto if software => Skinning::Cpu,
        SkinningChoice::Auto => Skinning::Gpu,
    };
    let scene = Arc::new(scene);
    let mut renderer = offline::renderer_for(&scene, device, options);
    eprintln!(
        "odori render: {label} → {} ({width}x{height}, {fps} fps, {} frames, MSAA {}, shadow map \
         {shadow_side}) on {adapter}",
        args.output.display(),
        range.count,
        renderer.samples()
    );
    for w in renderer.warnings() {
        eprintln!("warning: {w}");
    }
    let settle = args.settle.unwrap_or(PlayerOptions::default().settle);
    let player_options = PlayerOptions {
        physics: args.physics,
        deform: skinning == Skinning::Cpu,
        settle,
        // Simulated from frame 0 at the output's own step, so a range that starts late shows
        // what the whole video shows at its frames; `--settle 0` is the old start, at the
        // range's first frame.
        preroll: if settle > 0.0 {
            Preroll::FromStart { step: range.step }
        } else {
            Preroll::Off
        },
    };
    let player = Player::new(scene.clone(), player_options);
    for w in player.warnings() {
        eprintln!("warning: {w}");
    }
    if player.has_physics() && settle > 0.0 && start > 0.0 {
        eprintln!("physics: simulating frames 0 to {start} first (pre-roll; --settle 0 skips it)");
    }

    let sound = match (scene.audio(), &output) {
        (Some(path), RenderOutput::Mp4(_)) => Some(odori_video::Soundtrack {
            path,
            start_s: start as f64 / 30.0,
            length_s: range.count as f64 / fps as f64,
        }),
        _ => None,
    };
    // Ctrl-C from here on stops the pipeline and keeps what it has (before, it simply quits:
    // nothing is written yet).
    catch_ctrl_c(match &output {
        RenderOutput::Mp4(path) => Some(odori_playback::sink::part_path(path)),
        _ => None,
    });
    // The sink is opened (and the soundtrack read) before rendering starts, so a bad audio
    // file or a missing ffmpeg fails at once.
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

    let bar = ProgressBar::new(range.count as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos}/{len} frames  {per_sec}  elapsed {elapsed}  left {eta}",
        )
        .expect("a valid template"),
    );
    let tick = || bar.inc(1);
    let report = offline::render(player, &mut renderer, skinning, range, sink, &tick, &CANCEL)?;
    bar.finish_and_clear();
    if report.cancelled() {
        if report.frames == 0 {
            eprintln!("interrupted before the first frame: nothing written");
        } else {
            eprintln!(
                "interrupted: wrote {} of {} frames to {}",
                report.frames,
                report.requested,
                args.output.display()
            );
        }
        return Ok(ExitCode::from(130));
    }
    eprintln!(
        "wrote {} ({} frames in {:.1} s, {:.1} fps)",
        args.output.display(),
        report.frames,
        report.seconds,
        report.frames as f64 / report.seconds.max(1e-9)
    );
    // Stages overlap, so these add up to more than the wall time when the pipeline works.
    eprintln!(
        "busy per frame: evaluate+deform {:.1} ms, draw+upload {:.1} ms, wait for GPU+readback \
         {:.1} ms, encode {:.1} ms",
        report.evaluate_ms, report.draw_ms, report.readback_ms, report.encode_ms
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ranges() {
        assert_eq!(parse_size("1280x720").unwrap(), (1280, 720));
        assert!(parse_size("12x720").is_err());
        assert!(parse_size("1280").is_err());
        let r = |s| parse_range(s).map(|r| (r.start, r.stop));
        assert_eq!(r("10:20").unwrap(), (10.0, Some(20.0)));
        assert_eq!(r(":20").unwrap(), (0.0, Some(20.0)));
        assert_eq!(r("5:").unwrap(), (5.0, None));
        assert_eq!(r("7").unwrap(), (7.0, Some(7.0)));
        assert!(r("20:10").is_err());
        assert!(r("-5:3").unwrap_err().contains("count from 0"));
        assert!(r("x:3").is_err());
    }
}
