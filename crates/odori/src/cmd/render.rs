//! `odori render`: a dance to MP4, PNG or a folder of PNGs.
//!
//! Three stages overlap, joined by bounded channels so memory stays flat: pose evaluation and
//! deformation on one thread, GPU drawing and readback on the calling thread (each frame is
//! read back while the next one renders), and encoding on a third. Buffers travel back to
//! their producer for reuse.

use crate::load;
use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use odori_format::{Document, Vmd};
use odori_render::demo::Demo;
use odori_render::scene::{ModelFile, Posed, Scene};
use odori_render::{Gpu, RenderOptions, Renderer, TextureSource};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Instant;

/// Busy time per stage, microseconds (for the closing summary: where the time went).
#[derive(Default)]
struct StageTimes {
    evaluate: AtomicU64,
    draw: AtomicU64,
    readback: AtomicU64,
    encode: AtomicU64,
}

impl StageTimes {
    fn add(counter: &AtomicU64, since: Instant) {
        counter.fetch_add(since.elapsed().as_micros() as u64, Ordering::Relaxed);
    }

    fn ms_per_frame(counter: &AtomicU64, frames: usize) -> f64 {
        counter.load(Ordering::Relaxed) as f64 / 1000.0 / frames.max(1) as f64
    }
}

pub struct Args {
    pub files: Vec<PathBuf>,
    pub camera: Option<PathBuf>,
    pub audio: Option<PathBuf>,
    pub output: PathBuf,
    pub size: String,
    pub fps: u32,
    pub range: Option<String>,
    pub msaa: Option<u32>,
    pub physics: bool,
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

/// What is being rendered, with its owned files.
struct Job {
    scene: Scene,
    textures: TextureSource,
    name: String,
    /// The rigid-body world, when the model has bodies and physics is on and available.
    physics: Option<odori_physics::PhysicsWorld>,
}

fn load_job(files: &[PathBuf], camera: Option<&Path>, physics: bool) -> Result<Job> {
    let camera_vmd = match camera {
        Some(p) => Some(Vmd::read(p).with_context(|| format!("reading camera {}", p.display()))?),
        None => None,
    };
    let Some((model_path, motion_paths)) = files.split_first() else {
        let demo = Demo::new();
        let scene = Scene::new(ModelFile::Pmx(&demo.pmx), &[&demo.vmd], camera_vmd.as_ref())
            .context("building the demo")?;
        return Ok(Job {
            scene,
            textures: demo.textures,
            name: "embedded demo".into(),
            physics: None,
        });
    };
    let loaded = load::model(model_path)?;
    let mut motions = Vec::new();
    for f in load::motion_files(motion_paths)? {
        match f {
            load::MotionFile::Vmd(v) => motions.push(v),
            load::MotionFile::Vpd(_) => {
                bail!("odori render takes VMD motions (a VPD is a still pose)")
            }
        }
    }
    let refs: Vec<&Vmd> = motions.iter().collect();
    let file = match &loaded.doc {
        Document::Pmx(p) => ModelFile::Pmx(p),
        Document::Pmd(p) => ModelFile::Pmd(p),
        _ => unreachable!("load::model returns models only"),
    };
    let scene = Scene::new(file, &refs, camera_vmd.as_ref())?;
    let label = model_path.display().to_string();
    let physics = crate::physics::optional_world(&loaded, &label, physics);
    let folder = model_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    Ok(Job {
        scene,
        textures: TextureSource::Folder(if folder.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            folder
        }),
        name: label,
        physics,
    })
}

pub fn run(args: Args) -> Result<()> {
    let (width, height) = parse_size(&args.size)?;
    if ![24, 25, 30, 50, 60].contains(&args.fps) {
        bail!("--fps {}: use 30 or 60 (24, 25 and 50 also work)", args.fps);
    }
    let output = output_kind(&args.output);
    if matches!(output, Output::Mp4(_)) && (width % 2 != 0 || height % 2 != 0) {
        bail!("--size {width}x{height}: MP4 (H.264 4:2:0) needs even sides");
    }
    let mut job = load_job(&args.files, args.camera.as_deref(), args.physics)?;
    let end = job.scene.end_frame();
    let (start, stop) = match &args.range {
        Some(r) => parse_range(r, end)?,
        None => (0.0, end),
    };
    let step = 30.0 / args.fps as f32;
    let count = match output {
        Output::Png(_) => 1,
        _ => ((stop - start) / step).floor() as usize + 1,
    };

    let gpu = Gpu::new()?;
    let options = RenderOptions {
        width,
        height,
        msaa: args.msaa.unwrap_or(if gpu.is_software() { 1 } else { 4 }),
        self_shadow: args.self_shadow,
        ground_shadow: args.ground_shadow,
        edges: args.edges,
        ..Default::default()
    };
    let adapter = gpu.describe();
    let mut renderer = Renderer::new(gpu, job.scene.render.clone(), &job.textures, options);
    eprintln!(
        "odori render: {} → {} ({width}x{height}, {} fps, {count} frames, MSAA {}) on {adapter}",
        job.name,
        args.output.display(),
        args.fps,
        renderer.samples()
    );
    for w in renderer.warnings() {
        eprintln!("warning: {w}");
    }
    let fallback_camera = job.scene.framing_camera(width as f32 / height as f32);
    // Skinning on the GPU (compute) when there is a real one; on a software rasteriser the
    // "GPU" is the same two cores, and odori-deform's SIMD CPU path is the faster of the two.
    let gpu_skinning = match args.skinning.as_str() {
        "gpu" => true,
        "cpu" => false,
        "auto" => !renderer.gpu.is_software(),
        other => bail!("--skinning {other}: use auto, cpu or gpu"),
    };
    let skinner = gpu_skinning
        .then(|| odori_deform::gpu::GpuSkinner::new(&renderer.gpu.device, &job.scene.mesh));
    if let Some(s) = &skinner {
        renderer.set_vertex_buffer(s.output_buffer().clone());
    }

    let seconds = count as f64 / args.fps as f64;
    let sound = match (&args.audio, &output) {
        (Some(path), Output::Mp4(_)) => Some(odori_video::Soundtrack {
            path,
            start_s: start as f64 / 30.0,
            length_s: seconds,
        }),
        (Some(_), _) => {
            eprintln!("warning: --audio only applies to MP4 output; ignored");
            None
        }
        _ => None,
    };
    // The video file is opened (and the soundtrack read) before rendering starts, so a bad
    // audio file or a missing ffmpeg fails at once.
    let video = match &output {
        Output::Mp4(path) => {
            let encoder = choose_encoder(&args.encoder, args.audio.as_deref())?;
            let v =
                odori_video::Video::create(encoder, path, width, height, args.fps, sound.as_ref())
                    .with_context(|| format!("starting {}", path.display()))?;
            if v.audio_is_pcm() {
                eprintln!(
                    "note: WAV audio is stored as PCM (VLC, mpv, QuickTime play it; browsers do \
                     not): give an MP3, or install ffmpeg for AAC"
                );
            }
            Some(v)
        }
        _ => None,
    };

    let bar = ProgressBar::new(count as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos}/{len} frames  {per_sec}  elapsed {elapsed}  left {eta}",
        )
        .unwrap(),
    );
    let began = Instant::now();
    let mut physics = job.physics.take();
    let scene = &job.scene;
    let times = StageTimes::default();
    let times = &times;

    std::thread::scope(|s| -> Result<()> {
        // Stage 1: pose + deform. Posed buffers circulate through `recycle`.
        let (posed_tx, posed_rx): (SyncSender<Posed>, Receiver<Posed>) = sync_channel(2);
        let (recycle_tx, recycle_rx) = sync_channel::<Posed>(4);
        for _ in 0..3 {
            recycle_tx.send(Posed::default()).unwrap();
        }
        s.spawn(move || {
            let mut inst = scene.instance();
            for k in 0..count {
                let Ok(mut p) = recycle_rx.recv() else { return };
                let t = Instant::now();
                let frame = start + k as f32 * step;
                match physics.as_mut() {
                    // Physics steps between the pose runtime's two passes, in frame order on
                    // this one thread (the world resets itself on the first frame).
                    Some(world) => {
                        world
                            .evaluate(&scene.model, &scene.motion, &mut inst, frame)
                            .expect("an instance from Scene::instance");
                        scene.fill(&inst, frame, &mut p, !gpu_skinning);
                    }
                    None => scene.evaluate_with(&mut inst, frame, &mut p, !gpu_skinning),
                }
                StageTimes::add(&times.evaluate, t);
                if posed_tx.send(p).is_err() {
                    return;
                }
            }
        });

        // Stage 3: encoding. Pixel buffers circulate through `free`.
        let (frame_tx, frame_rx) = sync_channel::<Vec<u8>>(2);
        let (free_tx, free_rx) = sync_channel::<Vec<u8>>(4);
        for _ in 0..3 {
            free_tx.send(Vec::new()).unwrap();
        }
        let bar_enc = bar.clone();
        let encoder = s.spawn(move || -> Result<()> {
            match output {
                Output::Mp4(_) => {
                    let mut video = video.expect("opened above");
                    for px in frame_rx {
                        let t = Instant::now();
                        video.push(&px)?;
                        StageTimes::add(&times.encode, t);
                        bar_enc.inc(1);
                        let _ = free_tx.send(px);
                    }
                    video.finish()?;
                }
                Output::Png(path) => {
                    for px in frame_rx {
                        let t = Instant::now();
                        save_png(&path, width, height, &px)?;
                        StageTimes::add(&times.encode, t);
                        bar_enc.inc(1);
                        let _ = free_tx.send(px);
                    }
                }
                Output::Folder(dir) => {
                    std::fs::create_dir_all(&dir)
                        .with_context(|| format!("creating {}", dir.display()))?;
                    for (k, px) in frame_rx.into_iter().enumerate() {
                        let t = Instant::now();
                        save_png(&dir.join(format!("frame_{k:05}.png")), width, height, &px)?;
                        StageTimes::add(&times.encode, t);
                        bar_enc.inc(1);
                        let _ = free_tx.send(px);
                    }
                }
            }
            Ok(())
        });

        // Stage 2: draw frame k, then read frame k − 1 back while k renders.
        let mut in_flight: Option<usize> = None;
        let send_read = |renderer: &Renderer, slot: usize| -> bool {
            let Ok(mut px) = free_rx.recv() else {
                return false;
            };
            let t = Instant::now();
            renderer.read(slot, &mut px);
            StageTimes::add(&times.readback, t);
            frame_tx.send(px).is_ok()
        };
        for k in 0..count {
            let Ok(p) = posed_rx.recv() else { break };
            let t = Instant::now();
            match &skinner {
                Some(s) => {
                    s.update(&renderer.gpu.queue, &p.skinning, &p.morph_weights);
                    renderer.render_with(&p.input(fallback_camera), k, |e| s.encode(e));
                }
                None => {
                    let v = &p.vertices;
                    renderer.upload_vertices(&v.positions, &v.normals, &v.uvs);
                    renderer.render(&p.input(fallback_camera), k);
                }
            }
            StageTimes::add(&times.draw, t);
            let _ = recycle_tx.send(p);
            if let Some(prev) = in_flight.take()
                && !send_read(&renderer, prev)
            {
                break;
            }
            in_flight = Some(k);
        }
        if let Some(prev) = in_flight {
            send_read(&renderer, prev);
        }
        drop(frame_tx);
        drop(recycle_tx);
        encoder.join().expect("encoder thread panicked")?;
        Ok(())
    })?;
    bar.finish_and_clear();
    let secs = began.elapsed().as_secs_f64();
    eprintln!(
        "wrote {} ({count} frames in {secs:.1} s, {:.1} fps)",
        args.output.display(),
        count as f64 / secs.max(1e-9)
    );
    // Stages overlap, so these add up to more than the wall time when the pipeline works.
    let ms = |c| StageTimes::ms_per_frame(c, count);
    eprintln!(
        "busy per frame: evaluate+deform {:.1} ms, draw+upload {:.1} ms, wait for GPU+readback \
         {:.1} ms, encode {:.1} ms",
        ms(&times.evaluate),
        ms(&times.draw),
        ms(&times.readback),
        ms(&times.encode)
    );
    Ok(())
}

fn save_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<()> {
    image::save_buffer(path, rgba, width, height, image::ExtendedColorType::Rgba8)
        .with_context(|| format!("writing {}", path.display()))
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
