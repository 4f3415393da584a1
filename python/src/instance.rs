//! `serverpick.Instance`: an instance of any family, read from a file or
//! built from arrays, with numpy views of its data.

use crate::convert;
use crate::errors::{Error, IntoPy};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use serverpick::core::{NamedArray, ProblemInstance};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// An instance of any family (SPD, SPDVR, CMA, AG, rank, ranges).
///
/// Read one with `serverpick.read(path)`, build one with
/// `serverpick.spd_instance(...)` / `serverpick.cma_instance(...)` /
/// `serverpick.from_json(...)`, or generate one with `serverpick.gen(...)`.
/// Its numeric data are numpy arrays: `inst.access`, `inst.delay`, … (see
/// `arrays()`); its file's scalar fields (`inst.model`, `inst.bound`) too.
#[pyclass(name = "Instance", module = "serverpick", frozen)]
pub struct PyInstance {
    pub inner: Arc<dyn ProblemInstance>,
    /// The text it was read from, for families that cannot write
    /// themselves back.
    text: Option<String>,
    /// The instance file's JSON, built on first use (scalar attributes,
    /// `to_json`).
    value: OnceLock<Value>,
}

impl PyInstance {
    /// A view of `inner` (`text`: what it was read from, if known).
    pub fn new(inner: Arc<dyn ProblemInstance>, text: Option<String>) -> Self {
        PyInstance {
            inner,
            text,
            value: OnceLock::new(),
        }
    }

    /// The instance file's JSON.
    pub fn value(&self) -> serverpick::Result<&Value> {
        if let Some(v) = self.value.get() {
            return Ok(v);
        }
        let v = match (self.inner.to_value(), &self.text) {
            (Ok(v), _) => v,
            (Err(_), Some(text)) => serverpick::io::json_strict::parse_value(text, "the instance")?,
            (Err(e), None) => return Err(e),
        };
        Ok(self.value.get_or_init(|| v))
    }
}

#[pymethods]
impl PyInstance {
    /// The family's name (`spd`, `spdvr`, `cma`, `ag`, `rank`, `ranges`).
    #[getter]
    fn family(&self) -> &'static str {
        self.inner.family().name()
    }

    /// The instance's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name().to_string()
    }

    /// The problem its runs report (`spd`, `spdvr`, `cma`, …).
    #[getter]
    fn problem(&self) -> &'static str {
        self.inner.problem()
    }

    /// The engines that apply to it, in table order (what `--engine all`
    /// runs).
    fn engines(&self) -> Vec<String> {
        self.inner.applicable_engines()
    }

    /// Its size and features, as in benchmark rows.
    fn features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.inner.features();
        let mut map = f.features.clone();
        map.insert("size".into(), Value::from(f.size));
        convert::to_python(py, &Value::Object(map))
    }

    /// The instance file's JSON text (self-contained: side files inlined).
    #[pyo3(signature = (indent=None))]
    fn to_json(&self, py: Python<'_>, indent: Option<usize>) -> PyResult<String> {
        let v = self.value().py_err(py)?;
        convert::dumps(v, indent)
    }

    /// The instance file's content as a dict.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, self.value().py_err(py)?)
    }

    /// Writes it as an instance file that `serverpick solve` (and `read`)
    /// reads back.
    fn write(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let v = self.value().py_err(py)?;
        let text = convert::dumps(v, Some(1))? + "\n";
        std::fs::write(&path, text).map_err(|e| {
            crate::errors::input_error(
                py,
                format!("{}: {e}", path.display()),
                Some(path.display().to_string()),
                None,
            )
        })
    }

    /// Its numeric data as numpy arrays, by name (SPD/SPDVR: `access`,
    /// `server_latency`, `distance`, `mu`; CMA: `delay`, `capacity`, and
    /// `open_cost` and `players` when the file has them: as attributes they
    /// are `None` otherwise). `NaN` marks no link.
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for a in self.inner.arrays() {
            d.set_item(a.name, array(py, a)?)?;
        }
        Ok(d)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        if let Some(a) = self.inner.arrays().into_iter().find(|a| a.name == name) {
            return array(py, a);
        }
        if optional_array(self.inner.family().name(), name) {
            return Ok(py.None().into_bound(py));
        }
        if let Ok(Value::Object(map)) = self.value() {
            if let Some(v) = map.get(name).filter(|v| !v.is_array() && !v.is_object()) {
                return convert::to_python(py, v);
            }
        }
        Err(PyAttributeError::new_err(format!(
            "'{}' instance has no attribute '{name}'",
            self.inner.problem()
        )))
    }

    fn __repr__(&self) -> String {
        format!(
            "<serverpick.Instance {} '{}' ({})>",
            self.inner.problem(),
            self.inner.name(),
            describe(self.inner.as_ref())
        )
    }
}

/// The arrays a family's instances may lack (`arrays()` then has none of
/// that name): the attribute is `None` then, not an AttributeError.
const OPTIONAL_ARRAYS: &[(&str, &[&str])] = &[("cma", &["open_cost", "players"])];

fn optional_array(family: &str, name: &str) -> bool {
    OPTIONAL_ARRAYS
        .iter()
        .any(|(f, names)| *f == family && names.contains(&name))
}

fn describe(inst: &dyn ProblemInstance) -> String {
    let f = inst.features();
    let parts: Vec<String> = f
        .features
        .iter()
        .filter(|(_, v)| v.is_number() || v.is_string())
        .take(3)
        .map(|(k, v)| {
            format!(
                "{k} {}",
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            )
        })
        .collect();
    parts.join(", ")
}

/// A named array as numpy (a scalar as a float).
fn array<'py>(py: Python<'py>, a: NamedArray) -> PyResult<Bound<'py, PyAny>> {
    if a.shape.is_empty() {
        let x = a.data.first().copied().unwrap_or(f64::NAN);
        return Ok(pyo3::types::PyFloat::new(py, x).into_any());
    }
    let flat = PyArray1::from_vec(py, a.data);
    let shaped = flat
        .reshape(a.shape.clone())
        .map_err(|e| Error::new_err(format!("array {}: {e}", a.name)))?;
    Ok(shaped.into_any())
}
