//! The package's exceptions and the crate's errors mapped onto them.

use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use serverpick::Error as SpError;

pyo3::create_exception!(
    serverpick,
    Error,
    PyException,
    "Every error serverpick raises (the CLI's message as its text)."
);
pyo3::create_exception!(
    serverpick,
    InputError,
    Error,
    "Bad input data. `.file` and `.field` name where (as the CLI's message does)."
);
pyo3::create_exception!(
    serverpick,
    UsageError,
    Error,
    "A request that cannot be served: an unknown engine or parameter, a bad value."
);
pyo3::create_exception!(
    serverpick,
    SolverError,
    Error,
    "The LP/MILP backend failed, or runs contradict each other."
);

/// The Python exception for a crate error.
pub fn to_py(py: Python<'_>, e: SpError) -> PyErr {
    let msg = e.to_string();
    match e {
        SpError::Input(ie) => input_error(py, msg, Some(ie.file), Some(ie.field)),
        SpError::Io { path, .. } => input_error(py, msg, Some(path.display().to_string()), None),
        SpError::Usage(_)
        | SpError::UnknownEngine { .. }
        | SpError::BadFlag { .. }
        | SpError::ResultsExist { .. } => UsageError::new_err(msg),
        SpError::Solver(_) | SpError::Conflicts { .. } => SolverError::new_err(msg),
        SpError::Interrupted(_) => PyKeyboardInterrupt::new_err(msg),
        _ => Error::new_err(msg),
    }
}

/// An [`InputError`] with its `file` and `field` attributes (`None` where
/// unknown; an empty field is the whole file).
pub fn input_error(
    py: Python<'_>,
    msg: String,
    file: Option<String>,
    field: Option<String>,
) -> PyErr {
    let err = InputError::new_err(msg);
    let value = err.value(py);
    let field = field.filter(|f| !f.is_empty());
    if value.setattr("file", file).is_err() || value.setattr("field", field).is_err() {
        return Error::new_err("cannot set the error's fields");
    }
    err
}

/// `r?` for crate results under the GIL.
pub trait IntoPy<T> {
    /// The value, or the Python exception of the error.
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for serverpick::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
