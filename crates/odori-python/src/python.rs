//! The PyO3 bindings: `odori.Model`, `odori.Motion`, `odori.Instance`, `odori.OdoriError`
//! (`odori.render` and `odori.bake` are in [`crate::offline`], `odori.Project` in
//! [`crate::project`], `odori.RenderJob` in [`crate::job`]).
//! Every batch call allocates (or takes) one C-contiguous float32 array and fills it in place
//! from Rust with the GIL released ([`crate::batch::fill`]).

use crate::batch::{self, Options, Product};
use numpy::{PyArray, PyArrayDyn, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use odori_playback::{ModelAsset, MotionFile};
use odori_pose::motion::Source;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

pyo3::create_exception!(
    odori,
    OdoriError,
    pyo3::exceptions::PyException,
    "A file odori could not read (the message names the file, the section and the byte \
     offset), or a request it refuses (a motion loaded for another model)."
);

/// Batch evaluations now running in Rust with the GIL released.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn err(e: impl std::fmt::Display) -> PyErr {
    OdoriError::new_err(e.to_string())
}

/// A PMX or PMD model, read and compiled once; share it between motions and instances.
#[pyclass(frozen, module = "odori")]
pub(crate) struct Model {
    pub(crate) asset: Arc<ModelAsset>,
    path: PathBuf,
}

#[pymethods]
impl Model {
    /// Read and compile a model file (PMX or PMD). Raises ``OdoriError`` naming the file,
    /// section and byte offset when it cannot be read. The GIL is released while loading.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Model> {
        let asset = py.detach(|| ModelAsset::load(&path)).map_err(err)?;
        Ok(Model {
            asset: Arc::new(asset),
            path,
        })
    }

    /// The file it was read from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The model's name, as its file gives it.
    #[getter]
    fn name(&self) -> String {
        self.asset.pose().name().to_string()
    }

    /// Bone names in file order (the ``B`` axis of every array).
    #[getter]
    fn bone_names(&self) -> Vec<String> {
        self.asset.pose().bone_names().to_vec()
    }

    /// Each bone's parent index, -1 for a root.
    #[getter]
    fn parents(&self) -> Vec<i64> {
        (self.asset.pose().parents().iter())
            .map(|&p| {
                if p == odori_pose::model::NONE {
                    -1
                } else {
                    i64::from(p)
                }
            })
            .collect()
    }

    /// Morph names in file order (the ``M`` axis of ``morph_weights``).
    #[getter]
    fn morph_names(&self) -> Vec<String> {
        (self.asset.pose().morphs().iter())
            .map(|m| m.name.clone())
            .collect()
    }

    /// What was repaired or dropped while compiling (each line names the file).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.asset.warnings().to_vec()
    }

    fn __repr__(&self) -> String {
        let m = self.asset.pose();
        format!(
            "<odori.Model {:?}: {} bones, {} morphs>",
            self.path.display().to_string(),
            m.bone_count(),
            m.morph_count()
        )
    }
}

/// Motions (VMD) or poses (VPD) merged in order and bound to one model.
#[pyclass(frozen, module = "odori")]
pub(crate) struct Motion {
    motion: Arc<odori_pose::Motion>,
    pub(crate) model: Py<Model>,
    pub(crate) paths: Vec<PathBuf>,
    warnings: Vec<String>,
}

#[pymethods]
impl Motion {
    /// Read motion files (one path or a list, merged in order) and bind them to ``model``.
    /// Raises ``OdoriError`` naming the file, section and byte offset when one cannot be read.
    #[staticmethod]
    fn load(py: Python<'_>, model: Py<Model>, paths: &Bound<'_, PyAny>) -> PyResult<Motion> {
        let paths: Vec<PathBuf> = match paths.extract::<PathBuf>() {
            Ok(one) => vec![one],
            Err(_) => paths.extract()?,
        };
        let asset = model.get().asset.clone();
        let (motion, warnings) = py
            .detach(|| {
                let mut files = Vec::with_capacity(paths.len());
                let mut warnings = Vec::new();
                for p in &paths {
                    let (file, w) = MotionFile::read(p)?;
                    warnings.extend(w);
                    files.push(file);
                }
                let sources: Vec<Source<'_>> = files.iter().map(MotionFile::source).collect();
                let motion = odori_pose::Motion::bind(asset.pose(), &sources);
                Ok::<_, odori_playback::PlaybackError>((motion, warnings))
            })
            .map_err(err)?;
        Ok(Motion {
            motion: Arc::new(motion),
            model,
            paths,
            warnings,
        })
    }

    /// The model it was bound to.
    #[getter]
    fn model(&self, py: Python<'_>) -> Py<Model> {
        self.model.clone_ref(py)
    }

    /// The files, in the order merged.
    #[getter]
    fn paths(&self) -> Vec<PathBuf> {
        self.paths.clone()
    }

    /// Frames 0 to the last key, inclusive: ``range(motion.frame_count)`` is the whole dance.
    #[getter]
    fn frame_count(&self) -> usize {
        self.motion.end_frame().max(0.0) as usize + 1
    }

    /// Motion tracks that match no bone or morph of the model.
    #[getter]
    fn unmatched(&self) -> Vec<String> {
        self.motion.unbound().to_vec()
    }

    /// What the readers repaired or skipped (each line names the file).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<odori.Motion {} file(s), {} frames>",
            self.paths.len(),
            self.frame_count()
        )
    }
}

/// One model dancing one motion. Every batch call starts from a fresh pose state and
/// evaluates its frames as ``odori pose --frames`` does, so equal calls give equal arrays.
#[pyclass(frozen, module = "odori")]
struct Instance {
    model: Py<Model>,
    motion: Py<Motion>,
    options: Options,
}

#[pymethods]
impl Instance {
    /// ``motion`` must have been loaded for ``model`` (else ``OdoriError``). With
    /// ``with_physics`` frames are simulated in order from a settled frame 0 (slower, one
    /// thread); without, frames are spread over threads where that gives the same bits.
    #[new]
    #[pyo3(signature = (model, motion, with_physics = false, ik = true))]
    fn new(
        py: Python<'_>,
        model: Py<Model>,
        motion: Py<Motion>,
        with_physics: bool,
        ik: bool,
    ) -> PyResult<Instance> {
        let asset = model.get().asset.clone();
        let m = motion.get();
        let label = (m.paths.iter())
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" + ");
        let pose_motion = m.motion.clone();
        py.detach(|| {
            batch::check_pair(&asset, &pose_motion, &label)?;
            if with_physics {
                if !ik {
                    return Err(crate::BatchError::PhysicsWithoutIk);
                }
                batch::physics_player(&asset, &pose_motion)?;
            }
            Ok(())
        })
        .map_err(err)?;
        Ok(Instance {
            model,
            motion,
            options: Options {
                ik,
                physics: with_physics,
                parallel: true,
            },
        })
    }

    #[getter]
    fn model(&self, py: Python<'_>) -> Py<Model> {
        self.model.clone_ref(py)
    }

    #[getter]
    fn motion(&self, py: Python<'_>) -> Py<Motion> {
        self.motion.clone_ref(py)
    }

    #[getter]
    fn with_physics(&self) -> bool {
        self.options.physics
    }

    #[getter]
    fn ik(&self) -> bool {
        self.options.ik
    }

    /// World matrices, ``(F, B, 4, 4)`` float32: ``m[f, b]`` is bone ``b``'s model-space
    /// matrix at ``frames[f]`` (translation in ``m[f, b, :3, 3]``), the floats of
    /// ``odori pose``'s ``world`` (which lists them column-major). ``out``: an array of that
    /// shape to fill instead of a new one. ``parallel=False`` keeps to one thread.
    #[pyo3(signature = (frames, out = None, parallel = true))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        frames: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyAny>>,
        parallel: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let b = self.model.get().asset.pose().bone_count();
        self.batch(py, frames, Product::World, &[b, 4, 4], out, parallel)
    }

    /// Bone world positions, ``(F, B, 3)`` float32 (``evaluate(...)[:, :, :3, 3]``).
    #[pyo3(signature = (frames, out = None, parallel = true))]
    fn positions<'py>(
        &self,
        py: Python<'py>,
        frames: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyAny>>,
        parallel: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let b = self.model.get().asset.pose().bone_count();
        self.batch(py, frames, Product::Positions, &[b, 3], out, parallel)
    }

    /// Morph weights after group and flip morphs are expanded (what deformation applies,
    /// ``odori pose --morphs``), ``(F, M)`` float32.
    #[pyo3(signature = (frames, out = None, parallel = true))]
    fn morph_weights<'py>(
        &self,
        py: Python<'py>,
        frames: &Bound<'py, PyAny>,
        out: Option<Bound<'py, PyAny>>,
        parallel: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let m = self.model.get().asset.pose().morph_count();
        self.batch(py, frames, Product::MorphWeights, &[m], out, parallel)
    }

    fn __repr__(&self) -> String {
        format!(
            "<odori.Instance physics={} ik={}>",
            self.options.physics, self.options.ik
        )
    }
}

impl Instance {
    /// Allocate (or check `out`), then fill in Rust with the GIL released.
    fn batch<'py>(
        &self,
        py: Python<'py>,
        frames: &Bound<'py, PyAny>,
        product: Product,
        row_shape: &[usize],
        out: Option<Bound<'py, PyAny>>,
        parallel: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let frames = frames_arg(frames)?;
        let mut shape = vec![frames.len()];
        shape.extend_from_slice(row_shape);
        let array = match out.filter(|o| !o.is_none()) {
            Some(a) => out_arg(&a, &shape)?,
            None => PyArray::<f32, _>::zeros(py, shape.as_slice(), false),
        };
        let mut guard = array
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let slice = guard
            .as_slice_mut()
            .map_err(|_| PyValueError::new_err("out must be C-contiguous"))?;
        let asset = &self.model.get().asset;
        let motion = &self.motion.get().motion;
        let options = Options {
            parallel,
            ..self.options
        };
        py.detach(|| {
            IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
            let r = batch::fill(asset, motion, &frames, product, options, slice);
            IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
            r
        })
        .map_err(err)?;
        drop(guard);
        Ok(array.into_any())
    }
}

/// `frames=`: frame numbers as a list, a range, a tuple or a one-dimensional NumPy array of
/// any real dtype; anything else is refused in Python's terms.
fn frames_arg<'py>(frames: &Bound<'py, PyAny>) -> PyResult<Vec<f32>> {
    if let Ok(a) = frames.extract::<PyReadonlyArray1<'py, f32>>() {
        return Ok(a.as_array().to_vec());
    }
    let expected = "frames= takes frame numbers: a list, a range or a one-dimensional NumPy \
                    array (e.g. range(0, 300) or numpy.arange(0, 300, 0.5))";
    if frames.is_instance_of::<pyo3::types::PyString>() {
        let s: String = frames.extract()?;
        return Err(PyTypeError::new_err(format!(
            "{expected}, not the string {s:?}"
        )));
    }
    if let Ok(ndim) = frames.getattr("ndim").and_then(|n| n.extract::<usize>())
        && ndim != 1
    {
        let shape = frames.getattr("shape")?.str()?.to_string();
        return Err(PyValueError::new_err(format!(
            "{expected}; this array has shape {shape}"
        )));
    }
    let values: Vec<f64> = frames.extract().map_err(|_| {
        let kind = (frames.get_type().name()).map_or_else(|_| "?".to_string(), |n| n.to_string());
        PyTypeError::new_err(format!("{expected}; got {kind}"))
    })?;
    Ok(values.into_iter().map(|v| v as f32).collect())
}

/// `out=`: a C-contiguous float32 array of `shape`, refused in Python's terms otherwise.
fn out_arg<'py>(out: &Bound<'py, PyAny>, shape: &[usize]) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let attr = |name: &str| {
        (out.getattr(name).and_then(|d| d.str()))
            .map_or_else(|_| "?".to_string(), |d| d.to_string())
    };
    let kind = (out.get_type().name()).map_or_else(|_| "?".to_string(), |n| n.to_string());
    let got = format!(
        "{kind} of dtype {} and shape {}",
        attr("dtype"),
        attr("shape")
    );
    let wanted = format!("out= must be a float32 NumPy array of shape {shape:?} in C order");
    let array = (out.cast::<PyArrayDyn<f32>>())
        .map_err(|_| PyTypeError::new_err(format!("{wanted}; got a {got}")))?;
    if array.shape() != shape {
        return Err(PyValueError::new_err(format!("{wanted}; got a {got}")));
    }
    Ok(array.clone())
}

/// How many batch evaluations are running in Rust with the GIL released right now. Another
/// Python thread seeing a non-zero count is proof that evaluation does not hold the GIL.
#[pyfunction]
fn evaluations_in_flight() -> usize {
    IN_FLIGHT.load(Ordering::SeqCst)
}

/// odori: MikuMikuDance models dancing exactly as MMD does, poses as NumPy arrays.
#[pymodule]
#[pyo3(name = "odori")]
fn odori_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("OdoriError", m.py().get_type::<OdoriError>())?;
    m.add_class::<Model>()?;
    m.add_class::<Motion>()?;
    m.add_class::<Instance>()?;
    m.add_class::<crate::project::Project>()?;
    m.add_class::<crate::job::RenderJob>()?;
    m.add_function(wrap_pyfunction!(evaluations_in_flight, m)?)?;
    m.add_function(wrap_pyfunction!(crate::offline::render, m)?)?;
    m.add_function(wrap_pyfunction!(crate::offline::bake, m)?)?;
    Ok(())
}
