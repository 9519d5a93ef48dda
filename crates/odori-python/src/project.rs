//! `odori.Project`: a MikuMikuDance project (`.pmm`) as the playback library reads it
//! ([`odori_playback::project::Project`]): its models and accessories with each file found
//! or missing, their key counts, the camera's, the range, size and soundtrack, and a render
//! of the whole (`odori.render(project=…)`).

use crate::python::err;
use odori_playback::project::Project as Inner;
use odori_playback::project::paths::Resolved;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// A MikuMikuDance project (PMM), read with its files' paths resolved.
#[pyclass(frozen, module = "odori")]
pub(crate) struct Project {
    inner: Inner,
    search: Vec<PathBuf>,
}

/// A resolved path as Python sees it: the file found, or `None`.
fn found(r: &Resolved) -> Option<PathBuf> {
    r.path().map(|p| p.to_path_buf())
}

#[pymethods]
impl Project {
    /// Read a project (PMM version 2) and find its files: as stored, then by their tails
    /// under the project's folder and two above it, then under ``search`` (a folder or a
    /// list). Raises ``OdoriError`` naming the file, section and byte offset when it cannot
    /// be read; a missing model or accessory is a line of ``warnings``. The GIL is released
    /// while reading.
    #[staticmethod]
    #[pyo3(signature = (path, search = None))]
    fn load(py: Python<'_>, path: PathBuf, search: Option<&Bound<'_, PyAny>>) -> PyResult<Project> {
        let search = crate::offline::search_arg(search)?;
        let inner = py.detach(|| Inner::load(&path, &search)).map_err(err)?;
        Ok(Project { inner, search })
    }

    /// The project file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.file.clone()
    }

    /// The models in the project's slots: dicts with ``name``, ``path`` (the file found, or
    /// ``None``), ``stored`` (the path as the project holds it), ``draw_order``,
    /// ``bone_keys``, ``morph_keys`` and ``edge_width``.
    #[getter]
    fn models<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        (self.inner.models.iter().zip(&self.inner.pmm.models))
            .map(|(m, raw)| {
                let d = PyDict::new(py);
                d.set_item("name", &m.name)?;
                d.set_item("path", found(&m.file))?;
                d.set_item("stored", raw.path.text())?;
                d.set_item("draw_order", m.draw_order)?;
                d.set_item("bone_keys", m.motion.bones.len())?;
                d.set_item("morph_keys", m.motion.morphs.len())?;
                d.set_item("edge_width", m.edge_width)?;
                Ok(d)
            })
            .collect()
    }

    /// The accessories: dicts with ``name``, ``path`` (found, or ``None``), ``stored``,
    /// ``draw_order`` and ``keys``.
    #[getter]
    fn accessories<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        (self
            .inner
            .accessories
            .iter()
            .zip(&self.inner.pmm.accessories))
        .map(|(a, raw)| {
            let d = PyDict::new(py);
            d.set_item("name", &a.name)?;
            d.set_item("path", found(&a.file))?;
            d.set_item("stored", raw.path.text())?;
            d.set_item("draw_order", a.draw_order)?;
            d.set_item("keys", a.keys.len())?;
            Ok(d)
        })
        .collect()
    }

    /// Key counts of the camera, light and self-shadow tracks, as a dict.
    #[getter]
    fn camera<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = &self.inner.camera;
        let d = PyDict::new(py);
        d.set_item("camera_keys", c.cameras.len())?;
        d.set_item("light_keys", c.lights.len())?;
        d.set_item("self_shadow_keys", c.self_shadows.len())?;
        Ok(d)
    }

    /// The playback range as ``(start, end)``, each ``None`` where the project sets none.
    #[getter]
    fn range(&self) -> (Option<u32>, Option<u32>) {
        self.inner.range
    }

    /// The output size, ``(width, height)``.
    #[getter]
    fn size(&self) -> (u32, u32) {
        self.inner.output_size
    }

    /// The soundtrack found, or ``None``.
    #[getter]
    fn audio(&self) -> Option<PathBuf> {
        self.inner.audio.as_ref().and_then(found)
    }

    /// Missing files, broken key links, outside parents pointing nowhere.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings.clone()
    }

    /// Render the project: ``odori.render(project=self.path, search=…, **options)``, the
    /// same options and result.
    #[pyo3(signature = (**options))]
    fn render<'py>(
        &self,
        py: Python<'py>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let kwargs = match options {
            Some(o) => o.copy()?,
            None => PyDict::new(py),
        };
        kwargs.set_item("project", &self.inner.file)?;
        if !self.search.is_empty() && !kwargs.contains("search")? {
            kwargs.set_item("search", self.search.clone())?;
        }
        py.import("odori")?
            .getattr("render")?
            .call((), Some(&kwargs))
    }

    fn __repr__(&self) -> String {
        let missing = (self.inner.models.iter())
            .filter(|m| m.file.path().is_none())
            .count();
        format!(
            "<odori.Project {:?}: {} models ({missing} missing), {} accessories>",
            self.inner.file.display().to_string(),
            self.inner.models.len(),
            self.inner.accessories.len()
        )
    }
}
