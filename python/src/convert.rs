//! JSON between the crate and Python: the crate's `serde_json` values go
//! through Python's `json` module; Python objects come back through
//! `serverpick._convert.dumps`, which also takes numpy arrays and scalars.

use crate::errors::{Error, UsageError};
use pyo3::prelude::*;
use serde::Serialize;
use serde_json::Value;

/// A JSON value as Python objects (dicts, lists, floats, …).
pub fn to_python<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| Error::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// A Python object (dicts, lists, numpy arrays, numbers) as JSON; `what`
/// names it in the error.
pub fn from_python(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    let text: String = py
        .import("serverpick._convert")?
        .call_method1("dumps", (obj,))
        .map_err(|e| UsageError::new_err(format!("{what} is not JSON data: {}", e.value(py))))?
        .extract()?;
    serde_json::from_str(&text).map_err(|e| UsageError::new_err(format!("{what}: {e}")))
}

/// JSON text, compact or indented by `indent` spaces.
pub fn dumps(v: &Value, indent: Option<usize>) -> PyResult<String> {
    let err = |e: serde_json::Error| Error::new_err(e.to_string());
    match indent {
        None => serde_json::to_string(v).map_err(err),
        Some(n) => {
            let pad = vec![b' '; n];
            let mut out = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(&pad);
            let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
            v.serialize(&mut ser).map_err(err)?;
            String::from_utf8(out).map_err(|e| Error::new_err(e.to_string()))
        }
    }
}
