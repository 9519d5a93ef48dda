//! A render ready to run, and running it: the offline pipeline over the whole range, a bake
//! of its poses, or a chunk drawn from a baked stream.

use crate::Player;
use crate::error::PlaybackError;
use crate::offline::{self, FrameRange, RenderReport, Skinning};
use crate::output::RenderOutput;
use crate::pose_stream::PoseStream;
use crate::sink::FrameSink;
use odori_render::AnyRenderer;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A render ready to run: the scene loaded, the renderer, player and sink opened (so a bad
/// audio file or a missing ffmpeg has failed already).
pub struct PreparedRender {
    pub(super) player: Player,
    pub(super) renderer: AnyRenderer,
    pub(super) skinning: Skinning,
    pub(super) range: FrameRange,
    pub(super) sink: Box<dyn FrameSink>,
    pub(super) output: RenderOutput,
    pub(super) unmatched: usize,
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
