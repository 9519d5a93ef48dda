//! `odori.RenderJob`: one render taken apart so its chunks can be drawn elsewhere (Ray
//! workers): the poses of the whole range baked once where the job is made, the range split
//! into runs, each run drawn from the baked poses into an MP4 segment, the segments joined
//! into the one MP4 with the soundtrack muxed once. The steps are the playback library's
//! ([`odori_playback::chunked`]), the ones `odori render --chunks` runs on local threads, so
//! the frames are those of one render of the whole range.
//!
//! The job is made from `odori.render`'s keyword arguments and pickles as them (paths, not
//! loaded models), so a worker rebuilds the same job from what travelled.

use crate::offline::{job_from, note_line};
use crate::python::err;
use odori_playback::chunked;
use odori_playback::pose_stream::PoseStream;
use odori_playback::render_job::RenderJob as Job;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A render's options, to be baked, drawn in chunks and joined.
#[pyclass(frozen, module = "odori")]
pub(crate) struct RenderJob {
    job: Job,
    /// The keyword arguments it was made from (what pickling sends).
    options: Py<PyDict>,
}

/// Baked poses handed back from Python.
fn stream(poses: &[u8]) -> PyResult<PoseStream> {
    PoseStream::from_bytes(poses, Path::new("<poses>")).map_err(err)
}

#[pymethods]
impl RenderJob {
    /// A job from ``odori.render``'s keyword arguments (all but ``progress``). Give paths
    /// rather than loaded ``Model`` objects when the job is to travel to other processes.
    #[new]
    #[pyo3(signature = (**options))]
    fn new(py: Python<'_>, options: Option<&Bound<'_, PyDict>>) -> PyResult<RenderJob> {
        let options = match options {
            Some(o) => o.copy()?,
            None => PyDict::new(py),
        };
        Ok(RenderJob {
            job: job_from(&options, "RenderJob")?,
            options: options.unbind(),
        })
    }

    /// Load the scene and compute the pose and physics of every frame of the range, once:
    /// ``{"poses": bytes, "frames": n, "messages": [...]}``. The bytes are what every chunk
    /// draws from (a few hundred bytes per model and frame). The GIL is released.
    fn bake<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut messages = Vec::new();
        let baked = py
            .detach(|| {
                let cancel = AtomicBool::new(false);
                let s = chunked::bake(
                    &self.job,
                    &mut |n| messages.push(note_line(n)),
                    &|| {},
                    &cancel,
                )?;
                Ok::<_, odori_playback::PlaybackError>((s.len(), s.to_bytes()))
            })
            .map_err(err)?;
        let d = PyDict::new(py);
        d.set_item("frames", baked.0)?;
        d.set_item("poses", PyBytes::new(py, &baked.1))?;
        d.set_item("messages", messages)?;
        Ok(d)
    }

    /// ``frames`` output frames as ``chunks`` runs ``(first, count)``, as even as can be.
    #[staticmethod]
    fn split(frames: usize, chunks: usize) -> Vec<(usize, usize)> {
        chunked::split(frames, chunks)
    }

    /// Draw output frames ``first`` to ``first + count - 1`` from the baked ``poses`` into
    /// ``segment``: an MP4 (picture only, starting with a key frame) or a folder of PNGs
    /// numbered from ``first``. Returns ``frames`` and ``seconds``. The GIL is released.
    fn render_chunk<'py>(
        &self,
        py: Python<'py>,
        poses: &[u8],
        first: usize,
        count: usize,
        segment: PathBuf,
    ) -> PyResult<Bound<'py, PyDict>> {
        let report = py.detach(|| {
            let s = Arc::new(stream(poses)?);
            let cancel = AtomicBool::new(false);
            chunked::render_chunk(&self.job, s, first, count, &segment, &|| {}, &cancel)
                .map_err(err)
        })?;
        let d = PyDict::new(py);
        d.set_item("frames", report.frames)?;
        d.set_item("seconds", report.seconds)?;
        Ok(d)
    }

    /// Join ``segments`` (in order) into the job's ``out`` MP4 without encoding again, the
    /// soundtrack cut to the range baked in ``poses`` and muxed once. Returns ``output`` and
    /// ``frames``.
    fn join<'py>(
        &self,
        py: Python<'py>,
        segments: Vec<PathBuf>,
        poses: &[u8],
    ) -> PyResult<Bound<'py, PyDict>> {
        let joined = py.detach(|| {
            let range = stream(poses)?.range();
            chunked::join(&self.job, range, &segments).map_err(err)
        })?;
        let d = PyDict::new(py);
        d.set_item("output", &self.job.output)?;
        d.set_item("frames", joined.frames)?;
        Ok(d)
    }

    /// Pickled as its keyword arguments.
    fn __getnewargs_ex__<'py>(&self, py: Python<'py>) -> (Bound<'py, PyTuple>, Bound<'py, PyDict>) {
        (PyTuple::empty(py), self.options.bind(py).clone())
    }

    fn __repr__(&self) -> String {
        format!("<odori.RenderJob → {}>", self.job.output.display())
    }
}
