//! `odori.render` and `odori.bake`: the command line's `odori render` and `odori bake` with
//! the same options and defaults, as keyword arguments. Both build the playback library's job
//! ([`odori_playback::render_job::RenderJob`], [`odori_playback::bake_job::bake`]), the one
//! the command line builds, so equal options make equal files; the work runs with the GIL
//! released.

use crate::python::{Model, Motion, err};
use odori_playback::accessory::AccessorySpec;
use odori_playback::bake_job;
use odori_playback::choice::Choice;
use odori_playback::load::{ModelInput, SceneOptions};
use odori_playback::render_job::{Note, OptionNames, Range, RenderJob, parse_range, parse_size};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A model argument: a path or an `odori.Model` (already compiled: not read again).
fn model_input(obj: &Bound<'_, PyAny>) -> PyResult<ModelInput> {
    if let Ok(m) = obj.extract::<Py<Model>>() {
        return Ok(ModelInput::Loaded(m.get().asset.clone()));
    }
    Ok(ModelInput::Path(obj.extract::<PathBuf>()?))
}

/// A motion argument: `None`, a path, a list of paths (merged in order), or an
/// `odori.Motion` (its files; it must have been loaded for `model` when that is a Model).
fn motion_paths(obj: Option<&Bound<'_, PyAny>>, model: &ModelInput) -> PyResult<Vec<PathBuf>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Vec::new());
    };
    if let Ok(m) = obj.extract::<Py<Motion>>() {
        let m = m.get();
        if let ModelInput::Loaded(asset) = model
            && !std::sync::Arc::ptr_eq(asset, &m.model.get().asset)
        {
            return Err(err(format!(
                "motion {} was loaded for another model, not {}",
                (m.paths.iter())
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" + "),
                asset.label()
            )));
        }
        return Ok(m.paths.clone());
    }
    if let Ok(one) = obj.extract::<PathBuf>() {
        return Ok(vec![one]);
    }
    obj.extract()
}

/// `stage=`, `accessories=` and `side_by_side=` as the playback library takes them: a stage
/// is a path or Model, or a list of them; an accessory is ``"FILE[@MODEL:BONE]"``, as
/// ``odori render --accessory`` spells it, or a list of them.
fn scene_options(
    stage: Option<&Bound<'_, PyAny>>,
    accessories: Option<&Bound<'_, PyAny>>,
    side_by_side: bool,
) -> PyResult<SceneOptions> {
    let stage = stage.filter(|s| !s.is_none());
    let stages = match stage {
        None => Vec::new(),
        Some(s) if s.is_instance_of::<pyo3::types::PyList>() => {
            let list: Vec<Bound<'_, PyAny>> = s.extract()?;
            list.iter().map(model_input).collect::<PyResult<_>>()?
        }
        Some(s) => vec![model_input(s)?],
    };
    let specs: Vec<String> = match accessories.filter(|a| !a.is_none()) {
        None => Vec::new(),
        Some(a) => match a.extract::<String>() {
            Ok(one) => vec![one],
            Err(_) => a.extract()?,
        },
    };
    let accessories = (specs.iter())
        .map(|s| AccessorySpec::parse(s).map_err(|why| err(format!("accessories: {why}"))))
        .collect::<PyResult<_>>()?;
    Ok(SceneOptions {
        stages,
        accessories,
        side_by_side,
    })
}

/// The scene's models: one model (a path or Model) with its motion, or lists of each of the
/// same length (several dancers; at the origin unless `side_by_side`). A Motion alone brings
/// its model.
fn scene_models(
    model: Option<&Bound<'_, PyAny>>,
    motion: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(ModelInput, Vec<PathBuf>)>> {
    let model = model.filter(|m| !m.is_none());
    let motion = motion.filter(|m| !m.is_none());
    match (model, motion) {
        (None, None) => Ok(Vec::new()),
        (None, Some(m)) => match m.extract::<Py<Motion>>() {
            Ok(m) => {
                let m = m.get();
                let asset = m.model.get().asset.clone();
                Ok(vec![(ModelInput::Loaded(asset), m.paths.clone())])
            }
            Err(_) => Err(PyValueError::new_err(
                "a motion needs its model: give model= (a path or odori.Model)",
            )),
        },
        (Some(models), motions) if models.is_instance_of::<pyo3::types::PyList>() => {
            let models: Vec<Bound<'_, PyAny>> = models.extract()?;
            let motions: Vec<Option<Bound<'_, PyAny>>> = match motions {
                Some(m) => m.extract()?,
                None => vec![None; models.len()],
            };
            if motions.len() != models.len() {
                return Err(PyValueError::new_err(format!(
                    "{} models but {} motions: with a list of models give a list of motions \
                     of the same length (None for a model that stands still)",
                    models.len(),
                    motions.len()
                )));
            }
            (models.iter().zip(&motions))
                .map(|(m, d)| {
                    let input = model_input(m)?;
                    let paths = motion_paths(d.as_ref(), &input)?;
                    Ok((input, paths))
                })
                .collect()
        }
        (Some(model), motion) => {
            let input = model_input(model)?;
            let paths = motion_paths(motion, &input)?;
            Ok(vec![(input, paths)])
        }
    }
}

/// `size`: `(width, height)` or `"WIDTHxHEIGHT"`.
fn size_arg(obj: &Bound<'_, PyAny>) -> PyResult<(u32, u32)> {
    if let Ok(s) = obj.extract::<String>() {
        return parse_size(&s).map_err(|e| err(format!("size={s:?}: {e}")));
    }
    obj.extract::<(u32, u32)>()
}

/// `search`: `None`, a folder, or a list of folders.
pub(crate) fn search_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PathBuf>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Vec::new());
    };
    match obj.extract::<PathBuf>() {
        Ok(one) => Ok(vec![one]),
        Err(_) => obj.extract(),
    }
}

/// `range`: `None`, a frame (one frame), `(a, b)` (b included; either may be None) or
/// `"a:b"` as on the command line.
fn range_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Range>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let r = if let Ok(s) = obj.extract::<String>() {
        parse_range(&s)
    } else if let Ok(f) = obj.extract::<f32>() {
        Range::new(f, Some(f))
    } else {
        let (a, b) = obj.extract::<(Option<f32>, Option<f32>)>()?;
        Range::new(a.unwrap_or(0.0), b)
    };
    r.map(Some).map_err(|e| err(format!("range=: {e}")))
}

/// Keyword `name`'s value by the playback library's names (the command line's too).
fn choice<T: Choice>(name: &str, value: &str) -> PyResult<T> {
    T::parse(value).map_err(|why| err(format!("{name} {why}")))
}

pub(crate) fn note_line(note: Note) -> String {
    match note {
        Note::Warning(w) => format!("warning: {w}"),
        Note::Note(n) => format!("note: {n}"),
        Note::Info(i) => i,
    }
}

/// The keyword arguments a render takes: `odori.render`'s (its `progress` aside), each read by
/// [`job_from`], for `render` and `RenderJob` alike.
const OPTIONS: &[&str] = &[
    "model",
    "motion",
    "out",
    "camera",
    "stage",
    "accessories",
    "side_by_side",
    "audio",
    "size",
    "fps",
    "range",
    "msaa",
    "fast",
    "physics",
    "settle",
    "self_shadow",
    "ground_shadow",
    "edges",
    "encoder",
    "skinning",
    "backend",
    "verbose",
    "project",
    "search",
];

/// The playback library's job for render keyword arguments (absent or `None`: the command
/// line's default); `function` names the caller in the message for a keyword it does not
/// take.
pub(crate) fn job_from(options: &Bound<'_, PyDict>, function: &str) -> PyResult<RenderJob> {
    for key in options.keys() {
        let key: String = key.extract()?;
        if !OPTIONS.contains(&key.as_str()) {
            return Err(PyTypeError::new_err(format!(
                "{function}() got an unexpected keyword argument '{key}' (it takes \
                 odori.render's options: {})",
                OPTIONS.join(", ")
            )));
        }
    }
    let get = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(options.get_item(k)?.filter(|v| !v.is_none()))
    };
    let path = |k: &str| -> PyResult<Option<PathBuf>> { get(k)?.map(|v| v.extract()).transpose() };
    let flag = |k: &str, default: bool| -> PyResult<bool> {
        Ok(get(k)?.map(|v| v.extract()).transpose()?.unwrap_or(default))
    };
    let text = |k: &str| -> PyResult<String> {
        Ok(get(k)?
            .map(|v| v.extract())
            .transpose()?
            .unwrap_or_else(|| "auto".to_string()))
    };
    let d = RenderJob::default();
    Ok(RenderJob {
        models: scene_models(get("model")?.as_ref(), get("motion")?.as_ref())?,
        project: path("project")?,
        search: search_arg(get("search")?.as_ref())?,
        scene: scene_options(
            get("stage")?.as_ref(),
            get("accessories")?.as_ref(),
            flag("side_by_side", false)?,
        )?,
        camera: path("camera")?,
        audio: path("audio")?,
        output: path("out")?.unwrap_or(d.output),
        size: get("size")?.as_ref().map(size_arg).transpose()?,
        fps: get("fps")?
            .map(|v| v.extract())
            .transpose()?
            .unwrap_or(d.fps),
        range: range_arg(get("range")?.as_ref())?,
        msaa: get("msaa")?.map(|v| v.extract()).transpose()?,
        fast: flag("fast", d.fast)?,
        physics: flag("physics", d.physics)?,
        settle: get("settle")?.map(|v| v.extract()).transpose()?,
        self_shadow: flag("self_shadow", d.self_shadow)?,
        ground_shadow: flag("ground_shadow", d.ground_shadow)?,
        edges: flag("edges", d.edges)?,
        encoder: choice("encoder", &text("encoder")?)?,
        skinning: choice("skinning", &text("skinning")?)?,
        backend: choice("backend", &text("backend")?)?,
        verbose: flag("verbose", d.verbose)?,
        names: OptionNames::Keywords,
    })
}

/// Render a dance to MP4 (H.264, audio muxed), one PNG, or a folder of PNGs: ``odori
/// render`` with the same options and defaults. Returns a dict: ``frames`` written,
/// ``requested``, ``seconds``, per-frame stage milliseconds, ``output`` and ``messages`` (the
/// warnings and notes ``odori render`` prints). ``progress(done, total)``, when given, is
/// called after each frame; an exception it raises stops the render (the frames done so far
/// are kept) and is raised again. ``project``: a MikuMikuDance project (``.pmm``) rendered
/// instead of ``model`` (its own size, range, camera and soundtrack unless given), its files
/// looked for in ``search`` (a folder or a list) too. Raises ``OdoriError`` with the located
/// message.
#[pyfunction]
#[pyo3(signature = (model = None, motion = None, *, progress = None, **options))]
pub fn render<'py>(
    py: Python<'py>,
    model: Option<&Bound<'py, PyAny>>,
    motion: Option<&Bound<'py, PyAny>>,
    progress: Option<Py<PyAny>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = match options {
        Some(o) => o.copy()?,
        None => PyDict::new(py),
    };
    for (key, value) in [("model", model), ("motion", motion)] {
        if let Some(v) = value {
            options.set_item(key, v)?;
        }
    }
    let job = job_from(&options, "render")?;
    let out = job.output.clone();
    let mut messages = Vec::new();
    let cancel = AtomicBool::new(false);
    let done = AtomicUsize::new(0);
    // The first exception the progress callback raised: it cancels the render.
    let raised: Mutex<Option<PyErr>> = Mutex::new(None);
    let report = py
        .detach(|| {
            let prepared = job.prepare(&mut |n| messages.push(note_line(n)))?;
            let total = prepared.frames();
            let tick = || {
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(cb) = &progress {
                    Python::attach(|py| {
                        if let Err(e) = cb.call1(py, (n, total)) {
                            cancel.store(true, Ordering::SeqCst);
                            let mut first = raised.lock().expect("not poisoned");
                            if first.is_none() {
                                *first = Some(e);
                            }
                        }
                    });
                }
            };
            prepared.run(&tick, &cancel)
        })
        .map_err(err)?;
    if let Some(e) = raised.into_inner().expect("not poisoned") {
        return Err(e);
    }
    let d = PyDict::new(py);
    d.set_item("output", out)?;
    d.set_item("frames", report.frames)?;
    d.set_item("requested", report.requested)?;
    d.set_item("seconds", report.seconds)?;
    d.set_item("evaluate_ms", report.evaluate_ms)?;
    d.set_item("draw_ms", report.draw_ms)?;
    d.set_item("readback_ms", report.readback_ms)?;
    d.set_item("encode_ms", report.encode_ms)?;
    if let Some((frame, why)) = &report.fell_back {
        messages.push(format!(
            "warning: the GPU device was lost ({why}): frames from {frame} of the run on were drawn on odori's CPU rasteriser"
        ));
    }
    d.set_item("messages", messages)?;
    Ok(d)
}

/// Simulate physics over a VMD motion and write it with the simulated bones as keyframes
/// (physics off on them): ``odori bake`` with the same options and defaults, the same bytes.
/// ``model``: a path or ``odori.Model``; ``motion``: a VMD path or an ``odori.Motion`` of one
/// VMD. ``tolerance`` (model units, 0 to 1): keys are dropped where the replay stays this
/// close to the simulation; 0 keeps a key on every frame. Returns a dict (``bones``,
/// ``last_frame``, ``bytes``, ``keys_before``, ``keys_after``, ``max_error``, ``messages``).
/// Raises ``OdoriError`` with the located message.
#[pyfunction]
#[pyo3(signature = (model, motion, out, *, tolerance = bake_job::DEFAULT_TOLERANCE, verbose = false))]
pub fn bake<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyAny>,
    motion: &Bound<'py, PyAny>,
    out: PathBuf,
    tolerance: f32,
    verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let input = model_input(model)?;
    let paths = motion_paths(Some(motion), &input)?;
    let [motion_path] = paths.as_slice() else {
        return Err(err(format!(
            "bake takes one VMD motion, not {} files",
            paths.len()
        )));
    };
    let mut messages = Vec::new();
    let r = py
        .detach(|| {
            bake_job::bake(
                &input,
                motion_path,
                &out,
                tolerance,
                verbose,
                OptionNames::Keywords,
                &mut |n| messages.push(note_line(n)),
            )
        })
        .map_err(err)?;
    let d = PyDict::new(py);
    d.set_item("output", out)?;
    d.set_item("bones", r.bones)?;
    d.set_item("last_frame", r.last_frame)?;
    d.set_item("bytes", r.bytes)?;
    d.set_item("keys_before", r.keys_before)?;
    d.set_item("keys_after", r.keys_after)?;
    d.set_item("max_error", r.max_error)?;
    d.set_item("messages", messages)?;
    Ok(d)
}
