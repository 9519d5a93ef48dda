//! The offline pipeline: a range of frames evaluated, drawn and encoded, three stages on
//! three threads joined by bounded channels so memory stays flat. Pose, physics and
//! deformation run on one thread (the player's), drawing and readback on the calling thread
//! (each frame is read back while the next one renders), encoding on a third. Buffers travel
//! back to their producer for reuse.

use crate::error::PlaybackError;
use crate::frame::Frame;
use crate::player::Player;
use crate::pose_stream::PoseStream;
pub use crate::render::renderer_for;
use crate::scene::Scene;
use crate::sink::FrameSink;
use odori_deform::gpu::GpuSkinner;
use odori_render::{AnyRenderer, Device};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Instant;

/// Which frames to make: `count` frames from `start`, `step` MMD frames apart (1 for 30 fps
/// output, 0.5 for 60).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameRange {
    pub start: f32,
    pub step: f32,
    pub count: usize,
}

impl FrameRange {
    /// MMD frames `start` to `stop` inclusive at `fps` output frames per second.
    pub fn new(start: f32, stop: f32, fps: u32) -> FrameRange {
        let step = odori_pose::FPS / fps as f32;
        FrameRange {
            start,
            step,
            count: ((stop - start) / step).floor() as usize + 1,
        }
    }

    /// The MMD frame of output frame `k`.
    pub fn frame(&self, k: usize) -> f32 {
        self.start + k as f32 * self.step
    }
}

/// Where vertices are deformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skinning {
    /// odori-deform's SIMD CPU path, on the pose thread.
    Cpu,
    /// A compute pass on the renderer's GPU, recorded ahead of each frame's draw (a CPU
    /// renderer has none: [`render`] refuses it there).
    Gpu,
}

/// Busy time per stage, microseconds, summed over the frames (stages overlap, so they add up
/// to more than the wall time when the pipeline works).
#[derive(Debug, Default)]
pub struct StageTimes {
    evaluate: AtomicU64,
    draw: AtomicU64,
    readback: AtomicU64,
    encode: AtomicU64,
}

impl StageTimes {
    fn add(counter: &AtomicU64, since: Instant) {
        counter.fetch_add(since.elapsed().as_micros() as u64, Ordering::Relaxed);
    }

    fn ms(counter: &AtomicU64, frames: usize) -> f64 {
        counter.load(Ordering::Relaxed) as f64 / 1000.0 / frames.max(1) as f64
    }
}

/// What a finished run took.
#[derive(Debug)]
pub struct RenderReport {
    /// Frames written.
    pub frames: usize,
    /// Frames asked for (`range.count`); more than `frames` when the run was cancelled.
    pub requested: usize,
    pub seconds: f64,
    /// Milliseconds per frame: pose + physics + deformation, draw + upload, wait for the GPU
    /// + readback, encode.
    pub evaluate_ms: f64,
    pub draw_ms: f64,
    pub readback_ms: f64,
    pub encode_ms: f64,
    /// The GPU device was lost during the run: from this frame of the run on, the frames were
    /// drawn on the CPU rasteriser instead (none lost), and why the device went.
    pub fell_back: Option<(usize, String)>,
}

impl RenderReport {
    /// True when the run was cancelled before every frame asked for was written.
    pub fn cancelled(&self) -> bool {
        self.frames < self.requested
    }
}

/// Render `range` of the player's scene with `renderer` into `sink`. `progress` is called
/// once per encoded frame (from the encoding thread).
///
/// Setting `cancel` (from any thread: a Ctrl-C handler, a window's stop button) stops the run
/// early: no new frame is evaluated, the few already under way are drawn and encoded, and
/// the sink is finished with the frames done so far (an MP4 shorter than asked for, but
/// whole). Cancelled before any frame was written, the sink is dropped unfinished (an MP4
/// sink then leaves no file). [`RenderReport::frames`] says how many were written.
pub fn render(
    player: Player,
    renderer: &mut AnyRenderer,
    skinning: Skinning,
    range: FrameRange,
    sink: Box<dyn FrameSink>,
    progress: &(dyn Fn() + Sync),
    cancel: &AtomicBool,
) -> Result<RenderReport, PlaybackError> {
    let source = PoseSource::Player(player);
    render_from(source, renderer, skinning, range, sink, progress, cancel)
}

/// Where the offline pipeline's poses come from.
pub enum PoseSource {
    /// Evaluated as they are drawn: pose, physics and (on the CPU) deformation.
    Player(Player),
    /// Taken from a baked stream: output frame `k` of the run is the stream's frame
    /// `first + k`; vertices are deformed from its skinning matrices when `deform` is on (as
    /// the player deforms for CPU skinning).
    Stream {
        stream: Arc<PoseStream>,
        scene: Arc<Scene>,
        first: usize,
        deform: bool,
    },
}

impl PoseSource {
    fn scene(&self) -> Arc<Scene> {
        match self {
            PoseSource::Player(p) => p.scene().clone(),
            PoseSource::Stream { scene, .. } => scene.clone(),
        }
    }

    fn evaluate(&mut self, range: &FrameRange, k: usize, out: &mut Frame) {
        match self {
            PoseSource::Player(p) => p.evaluate_at(range.frame(k) as f64, out),
            PoseSource::Stream {
                stream,
                scene,
                first,
                deform,
            } => stream.fill(scene, *first + k, *deform, out),
        }
    }
}

/// [`render`] with the poses from `source`: a player, or a baked [`PoseStream`] (a chunk of
/// a longer render, drawn without simulating).
pub fn render_from(
    mut source: PoseSource,
    renderer: &mut AnyRenderer,
    skinning: Skinning,
    range: FrameRange,
    sink: Box<dyn FrameSink>,
    progress: &(dyn Fn() + Sync),
    cancel: &AtomicBool,
) -> Result<RenderReport, PlaybackError> {
    let scene = source.scene();
    let count = range.count;
    let (width, height) = (renderer.options().width, renderer.options().height);
    let fallback_camera = scene.framing_camera(width as f32 / height as f32);
    let mut skinners: Vec<GpuSkinner> = match (skinning, renderer.gpu_renderer()) {
        (Skinning::Gpu, Some(r)) => {
            let skinners: Vec<GpuSkinner> = (scene.models().iter())
                .map(|m| GpuSkinner::new(&r.gpu.device, m.asset().mesh()))
                .collect();
            for (i, s) in skinners.iter().enumerate() {
                r.set_vertex_buffer(i, s.output_buffer().clone());
            }
            skinners
        }
        (Skinning::Gpu, None) => return Err(PlaybackError::GpuSkinningWithoutGpu),
        (Skinning::Cpu, _) => Vec::new(),
    };
    let began = Instant::now();
    let times = StageTimes::default();
    let times = &times;

    type Drawn = (usize, Option<(usize, String)>);
    let (written, fell_back) = std::thread::scope(|s| -> Result<Drawn, PlaybackError> {
        // Stage 1: pose, physics, deformation. Frames circulate through `recycle`.
        let (frame_tx, frame_rx): (SyncSender<Frame>, Receiver<Frame>) = sync_channel(2);
        // Four frames: one evaluated, one drawn, one read back, one waiting in between.
        let (recycle_tx, recycle_rx) = sync_channel::<Frame>(4);
        for _ in 0..4 {
            recycle_tx.send(Frame::default()).expect("room for four");
        }
        s.spawn(move || {
            for k in 0..count {
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                let Ok(mut f) = recycle_rx.recv() else { return };
                let t = Instant::now();
                source.evaluate(&range, k, &mut f);
                StageTimes::add(&times.evaluate, t);
                if frame_tx.send(f).is_err() {
                    return;
                }
            }
        });

        // Stage 3: encoding. Pixel buffers circulate through `free`.
        let (pixels_tx, pixels_rx) = sync_channel::<Vec<u8>>(2);
        let (free_tx, free_rx) = sync_channel::<Vec<u8>>(4);
        for _ in 0..3 {
            free_tx.send(Vec::new()).expect("room for three");
        }
        let encoder = s.spawn(move || -> Result<usize, PlaybackError> {
            let mut sink = sink;
            let mut written = 0;
            for px in pixels_rx {
                let t = Instant::now();
                sink.push(&px)?;
                written += 1;
                StageTimes::add(&times.encode, t);
                progress();
                let _ = free_tx.send(px);
            }
            if written == 0 && count > 0 {
                // Cancelled before the first frame: nothing worth keeping.
                drop(sink);
            } else {
                sink.finish()?;
            }
            Ok(written)
        });

        // Stage 2: draw frame k, then read frame k − 1 back while k renders. A frame is
        // kept until its pixels are read: if the GPU device is lost meanwhile, it is drawn
        // again on the CPU rasteriser, which draws the rest of the run.
        let lost =
            (renderer.gpu_renderer()).map(|r| odori_render::gpu::watch_for_loss(&r.gpu.device));
        // Frames evaluated for GPU skinning carry no vertices: deformed here once the CPU
        // rasteriser draws.
        let mut deform_here = false;
        let draw = |renderer: &mut AnyRenderer,
                    skinners: &[GpuSkinner],
                    deform_here: bool,
                    f: &mut Frame,
                    k: usize| {
            if deform_here {
                deform_on_cpu(&scene, f);
            }
            f.prepare(renderer, skinners.is_empty());
            match renderer.gpu_renderer() {
                Some(r) if !skinners.is_empty() => {
                    for (s, m) in skinners.iter().zip(f.models()) {
                        s.update(&r.gpu.queue, m.skinning(), m.morph_weights());
                    }
                    r.render_with(&f.view(fallback_camera), k, |e| {
                        for s in skinners {
                            s.encode(e);
                        }
                    });
                }
                _ => renderer.render(&f.view(fallback_camera), k),
            }
        };
        let mut in_flight: Option<(usize, Frame)> = None;
        let mut fell_back = None;
        let mut k = 0;
        loop {
            // Ends early when the pose thread stops (cancelled).
            let mut current = (k < count).then(|| frame_rx.recv().ok()).flatten();
            if let Some(f) = &mut current {
                let t = Instant::now();
                draw(renderer, &skinners, deform_here, f, k);
                StageTimes::add(&times.draw, t);
            }
            let Some((prev, mut prev_frame)) = in_flight.take() else {
                match current {
                    Some(f) => {
                        in_flight = Some((k, f));
                        k += 1;
                        continue;
                    }
                    None => break,
                }
            };
            let Ok(mut px) = free_rx.recv() else { break };
            let t = Instant::now();
            if !renderer.read(prev, &mut px) {
                let why = (lost.as_ref().and_then(|l| l.why()))
                    .unwrap_or_else(|| "it stopped returning frames".into());
                fell_back = Some((prev, why));
                *renderer = renderer_for(
                    &scene,
                    Device::Cpu { why: None },
                    renderer.options().clone(),
                );
                deform_here = !skinners.is_empty();
                skinners.clear();
                draw(renderer, &skinners, deform_here, &mut prev_frame, prev);
                renderer.read(prev, &mut px);
                if let Some(f) = &mut current {
                    draw(renderer, &skinners, deform_here, f, k);
                }
            }
            StageTimes::add(&times.readback, t);
            let _ = recycle_tx.send(prev_frame);
            if pixels_tx.send(px).is_err() {
                break;
            }
            match current {
                Some(f) => {
                    in_flight = Some((k, f));
                    k += 1;
                }
                None => break,
            }
        }
        drop(pixels_tx);
        drop(recycle_tx);
        let written = encoder.join().expect("encoder thread panicked")?;
        Ok((written, fell_back))
    })?;
    Ok(RenderReport {
        frames: written,
        requested: count,
        seconds: began.elapsed().as_secs_f64(),
        evaluate_ms: StageTimes::ms(&times.evaluate, written),
        draw_ms: StageTimes::ms(&times.draw, written),
        readback_ms: StageTimes::ms(&times.readback, written),
        encode_ms: StageTimes::ms(&times.encode, written),
        fell_back,
    })
}

/// Deform every model of `f` on the CPU from its skinning matrices and morph weights, as the
/// player does when it deforms.
fn deform_on_cpu(scene: &Scene, f: &mut Frame) {
    for (m, out) in scene.models().iter().zip(&mut f.models) {
        odori_deform::deform(
            m.asset().mesh(),
            &out.skinning,
            &out.morph_weights,
            &mut out.vertices,
        );
    }
}
