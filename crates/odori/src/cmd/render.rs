//! `odori render`: a scene to MP4, PNG or a folder of PNGs. Arguments and messages only; the
//! playback library builds the scene and runs the pipeline (`odori_playback::offline`).

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use odori_playback::offline::{self, FrameRange, Skinning};
use odori_playback::sink::{FrameSink, Mp4Sink, PngSink};
use odori_playback::{Player, PlayerOptions, Preroll};
use odori_render::{Gpu, RenderOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct Args {
    /// Each model (PMX/PMD) followed by its motions; none: the embedded demo.
    pub files: Vec<PathBuf>,
    pub camera: Option<PathBuf>,
    pub audio: Option<PathBuf>,
    pub output: PathBuf,
    pub size: String,
    pub fps: u32,
    pub range: Option<String>,
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
    /// `auto`, `builtin` or `ffmpeg`.
    pub encoder: String,
    /// `auto`, `cpu` or `gpu`.
    pub skinning: String,
}

/// `auto`: ffmpeg only when it is installed and the soundtrack is a WAV (ffmpeg makes AAC of
/// it, which browsers play); otherwise the built-in encoder, which needs nothing.
fn choose_encoder(name: &str, audio: Option<&Path>) -> Result<odori_video::Encoder> {
    use odori_video::Encoder;
    let wav = audio.is_some_and(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wav")));
    Ok(match name {
        "builtin" => Encoder::Builtin,
        "ffmpeg" if odori_video::ffmpeg::available() => Encoder::Ffmpeg,
        "ffmpeg" => bail!("--encoder ffmpeg: no ffmpeg on PATH (the built-in encoder needs none)"),
        "auto" if wav && odori_video::ffmpeg::available() => Encoder::Ffmpeg,
        "auto" => Encoder::Builtin,
        other => bail!("--encoder {other}: use auto, builtin or ffmpeg"),
    })
}

enum Output {
    Mp4(PathBuf),
    Png(PathBuf),
    Folder(PathBuf),
}

fn output_kind(path: &Path) -> Output {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("mp4") => Output::Mp4(path.to_path_buf()),
        Some("png") => Output::Png(path.to_path_buf()),
        _ => Output::Folder(path.to_path_buf()),
    }
}

fn parse_size(s: &str) -> Result<(u32, u32)> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .with_context(|| format!("--size `{s}`: expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let (w, h): (u32, u32) = (w.trim().parse()?, h.trim().parse()?);
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        bail!("--size `{s}`: each side must be 16..=8192");
    }
    Ok((w, h))
}

/// `a:b` in MMD frames (30 per second), b included; either side may be left out.
fn parse_range(s: &str, end: f32) -> Result<(f32, f32)> {
    let (a, b) = s.split_once(':').unwrap_or((s, s));
    let num = |t: &str, default: f32| -> Result<f32> {
        if t.trim().is_empty() {
            Ok(default)
        } else {
            Ok(t.trim()
                .parse::<f32>()
                .with_context(|| format!("--range `{s}`"))?)
        }
    };
    let (a, b) = (num(a, 0.0)?, num(b, end)?);
    if !(a.is_finite() && b.is_finite()) || a < 0.0 || b < a {
        bail!("--range `{s}`: need 0 <= a <= b");
    }
    Ok((a, b))
}

pub fn run(args: Args) -> Result<()> {
    let (width, height) = parse_size(&args.size)?;
    if let Some(s) = args.settle
        && !(s.is_finite() && (0.0..=600.0).contains(&s))
    {
        bail!("--settle {s}: give seconds from 0 to 600");
    }
    if ![24, 25, 30, 50, 60].contains(&args.fps) {
        bail!("--fps {}: use 30 or 60 (24, 25 and 50 also work)", args.fps);
    }
    let output = output_kind(&args.output);
    if matches!(output, Output::Mp4(_)) && (width % 2 != 0 || height % 2 != 0) {
        bail!("--size {width}x{height}: MP4 (H.264 4:2:0) needs even sides");
    }
    let (mut scene, warnings) =
        odori_playback::load::scene_from_files(&args.files, args.camera.as_deref())?;
    if let Some(path) = &args.audio {
        scene.set_audio(path);
    }
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    let label = match scene.models() {
        [one] => one.asset().label().to_string(),
        many => (many.iter())
            .map(|m| m.asset().label())
            .collect::<Vec<_>>()
            .join(" + "),
    };
    let end = scene.end_frame();
    let (start, stop) = match &args.range {
        Some(r) => parse_range(r, end)?,
        None => (0.0, end),
    };
    let mut range = FrameRange::new(start, stop, args.fps);
    if matches!(output, Output::Png(_)) {
        range.count = 1;
    }

    let gpu = Gpu::new()?;
    let software = gpu.is_software();
    let options = RenderOptions {
        width,
        height,
        // 4 everywhere: without multisampling the one-pixel inverted-hull outlines break into
        // dashes. `--fast` (or `--msaa 1`) trades that for speed.
        msaa: args.msaa.unwrap_or(if args.fast { 1 } else { 4 }),
        self_shadow: args.self_shadow,
        ground_shadow: args.ground_shadow,
        edges: args.edges,
        // 0: the map follows the output size; `--fast` keeps the small one.
        shadow_map_size: if args.fast { 1024 } else { 0 },
        ..Default::default()
    };
    let shadow_side = options.shadow_map_side();
    let adapter = gpu.describe();
    // Skinning on the GPU (compute) when there is a real one; on a software rasteriser the
    // "GPU" is the same two cores, and odori-deform's SIMD CPU path is the faster of the two.
    let skinning = match args.skinning.as_str() {
        "gpu" => Skinning::Gpu,
        "cpu" => Skinning::Cpu,
        "auto" if software => Skinning::Cpu,
        "auto" => Skinning::Gpu,
        other => bail!("--skinning {other}: use auto, cpu or gpu"),
    };
    let scene = Arc::new(scene);
    let mut renderer = offline::renderer_for(&scene, gpu, options);
    eprintln!(
        "odori render: {label} → {} ({width}x{height}, {} fps, {} frames, MSAA {}, shadow map \
         {shadow_side}) on {adapter}",
        args.output.display(),
        args.fps,
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
        (Some(path), Output::Mp4(_)) => Some(odori_video::Soundtrack {
            path,
            start_s: start as f64 / 30.0,
            length_s: range.count as f64 / args.fps as f64,
        }),
        (Some(_), _) => {
            eprintln!("warning: --audio only applies to MP4 output; ignored");
            None
        }
        _ => None,
    };
    // The sink is opened (and the soundtrack read) before rendering starts, so a bad audio
    // file or a missing ffmpeg fails at once.
    let sink: Box<dyn FrameSink> = match &output {
        Output::Mp4(path) => {
            let encoder = choose_encoder(&args.encoder, args.audio.as_deref())?;
            let sink = Mp4Sink::create(encoder, path, (width, height), args.fps, sound.as_ref())
                .with_context(|| format!("starting {}", path.display()))?;
            if sink.audio_is_pcm() {
                eprintln!(
                    "note: WAV audio is stored as PCM (VLC, mpv, QuickTime play it; browsers do \
                     not): give an MP3, or install ffmpeg for AAC"
                );
            }
            Box::new(sink)
        }
        Output::Png(path) => Box::new(PngSink::file(path, (width, height))),
        Output::Folder(dir) => Box::new(PngSink::folder(dir, (width, height))?),
    };

    let bar = ProgressBar::new(range.count as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos}/{len} frames  {per_sec}  elapsed {elapsed}  left {eta}",
        )
        .expect("a valid template"),
    );
    let tick = || bar.inc(1);
    let report = offline::render(player, &mut renderer, skinning, range, sink, &tick)?;
    bar.finish_and_clear();
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_ranges() {
        assert_eq!(parse_size("1280x720").unwrap(), (1280, 720));
        assert!(parse_size("12x720").is_err());
        assert_eq!(parse_range("10:20", 99.0).unwrap(), (10.0, 20.0));
        assert_eq!(parse_range(":20", 99.0).unwrap(), (0.0, 20.0));
        assert_eq!(parse_range("5:", 99.0).unwrap(), (5.0, 99.0));
        assert_eq!(parse_range("7", 99.0).unwrap(), (7.0, 7.0));
        assert!(parse_range("20:10", 99.0).is_err());
    }
}
