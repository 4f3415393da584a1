//! `serverpick` for Python: a thin layer over the crate's library API.
//! Every instance is read and checked by its family's reader, every engine
//! runs through the crate's one runner and is scored by the family's one
//! evaluator; nothing here decides anything a CLI user would see
//! differently. The pure-Python side (`serverpick/__init__.py`) turns
//! records into result objects and keyword arguments into CLI flags.

mod bench;
mod convert;
mod errors;
mod instance;
mod wait;

use errors::IntoPy;
use instance::PyInstance;
use numpy::{PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;
use serverpick::app::cli::model::SolverArgs;
use serverpick::core::{interrupt, Deadline, ProblemInstance, SolveOptions, Source};
use serverpick::io::json_text::HostArray;
use serverpick::lp::model_out::SolverIo;
use serverpick::problems::{parse_instance, registry};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use wait::{interruptible, Gate, Patience};

/// How long `solve` waits for a run to stop after Ctrl-C before it raises.
const SOLVE_PATIENCE: Duration = Duration::from_secs(1);

/// The families' names.
#[pyfunction]
fn families() -> Vec<&'static str> {
    registry().families().iter().map(|f| f.name()).collect()
}

/// Every engine name of every family (or of `family`), in table order.
#[pyfunction]
#[pyo3(signature = (family=None))]
fn engines(family: Option<&str>) -> PyResult<Vec<String>> {
    match family {
        None => Ok(registry().known_engines()),
        Some(name) => registry().find(name).map(|f| f.engines()).ok_or_else(|| {
            let known = families().join(", ");
            errors::UsageError::new_err(format!("unknown family '{name}' (known: {known})"))
        }),
    }
}

/// The engines' parameters: name (as a keyword: `kbest_max_subsets`), kind,
/// default and help.
#[pyfunction]
fn params<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    registry()
        .params()
        .into_iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("name", p.name.replace('-', "_"))?;
            d.set_item("default", p.default_text())?;
            d.set_item("expected", p.expected())?;
            d.set_item("help", p.help)?;
            Ok(d)
        })
        .collect()
}

/// Reads an instance file of any family (its `"problem"` picks the reader);
/// `problem` reads it as another problem (e.g. an SPD file as `spdvr`).
#[pyfunction]
#[pyo3(signature = (path, problem=None))]
fn read(py: Python<'_>, path: PathBuf, problem: Option<&str>) -> PyResult<PyInstance> {
    let opts = SolveOptions::default();
    let inst = registry()
        .read_instance_as(&path, problem, None, &opts)
        .py_err(py)?;
    // Every built-in family writes itself back (`to_value`): no text kept.
    Ok(PyInstance::new(Arc::from(inst), None))
}

/// An instance from an instance file's content (a dict or JSON text),
/// checked exactly like a file; errors name `<json>` as the file.
#[pyfunction]
#[pyo3(signature = (data, name=None))]
fn from_json(py: Python<'_>, data: &Bound<'_, PyAny>, name: Option<&str>) -> PyResult<PyInstance> {
    let text = match data.cast::<PyString>() {
        Ok(s) => s.to_string(),
        Err(_) => convert::dumps(&convert::from_python(py, data, "data")?, None)?,
    };
    from_text(py, text, "<json>", name.unwrap_or("instance"))
}

fn from_text(py: Python<'_>, text: String, file: &str, name: &str) -> PyResult<PyInstance> {
    let src = Source::memory(text, file, name);
    let inst = parse_instance(&src).py_err(py)?;
    Ok(PyInstance::new(Arc::from(inst), Some(src.text)))
}

/// A float64 array of `ndim` dimensions from any array-like (a view of it
/// when it is one already: nothing is copied).
fn float_array<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    what: &str,
    ndim: usize,
) -> PyResult<PyReadonlyArrayDyn<'py, f64>> {
    let np = py.import("numpy")?;
    let arr = np.call_method1("asarray", (obj, "float64")).map_err(|e| {
        errors::UsageError::new_err(format!("{what}: not a numeric array ({})", e.value(py)))
    })?;
    let arr: Bound<'py, PyArrayDyn<f64>> = arr
        .cast_into()
        .map_err(|e| errors::UsageError::new_err(format!("{what}: {e}")))?;
    let ro: PyReadonlyArrayDyn<'py, f64> = arr.readonly();
    if ro.ndim() != ndim {
        return Err(errors::UsageError::new_err(format!(
            "{what}: expected a {ndim}-D array, got shape {:?}",
            ro.shape()
        )));
    }
    Ok(ro)
}

/// The numbers of an array, read in place, row-major.
fn host_array<'a>(ro: &'a PyReadonlyArrayDyn<'_, f64>) -> HostArray<'a> {
    HostArray::new(ro.shape().to_vec(), ro.as_array().into_iter().copied())
}

/// The file name errors give for an instance built from arrays.
const ARRAYS: &str = "<arrays>";

/// An SPD instance from arrays: `access` (clients × servers, ms; `NaN` or
/// `inf` = unreachable), `server_latency` (servers × servers direct links,
/// ms; `NaN`/`inf` = no link), the delay bound `mu` (ms) and the model
/// (`"cs"` or `"p2p"`). Checked exactly like a file (errors name
/// `<arrays>`); arrays larger than an instance file may be are refused
/// before anything is copied.
#[pyfunction]
#[pyo3(signature = (access, server_latency, mu, model="cs", name=None))]
fn spd_instance(
    py: Python<'_>,
    access: &Bound<'_, PyAny>,
    server_latency: &Bound<'_, PyAny>,
    mu: f64,
    model: &str,
    name: Option<&str>,
) -> PyResult<PyInstance> {
    let a = float_array(py, access, "access", 2)?;
    let l = float_array(py, server_latency, "server_latency", 2)?;
    let text = serverpick::problems::spd::file::text_from_arrays(
        ARRAYS,
        name,
        model,
        mu,
        host_array(&l),
        host_array(&a),
    )
    .py_err(py)?;
    from_arrays_text(py, text, name)
}

/// A static CMA instance from arrays: `delay` (client rows × mirrors, ms),
/// `capacity` (one whole number per mirror) and optionally `players` (one
/// whole number per row: a region of that many players). Checked exactly
/// like a file (errors name `<arrays>`); arrays larger than an instance
/// file may be are refused before anything is copied.
#[pyfunction]
#[pyo3(signature = (delay, capacity, name=None, players=None))]
fn cma_instance(
    py: Python<'_>,
    delay: &Bound<'_, PyAny>,
    capacity: &Bound<'_, PyAny>,
    name: Option<&str>,
    players: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyInstance> {
    let d = float_array(py, delay, "delay", 2)?;
    let c = float_array(py, capacity, "capacity", 1)?;
    let w = players
        .map(|p| float_array(py, p, "players", 1))
        .transpose()?;
    let text = serverpick::problems::cma::arrays::text_from_arrays(
        ARRAYS,
        name,
        host_array(&d),
        host_array(&c),
        w.as_ref().map(host_array),
    )
    .py_err(py)?;
    from_arrays_text(py, text, name)
}

/// The instance of a file's text built from arrays (not kept: every
/// built-in family writes itself back).
fn from_arrays_text(py: Python<'_>, text: String, name: Option<&str>) -> PyResult<PyInstance> {
    let src = Source::memory(text, ARRAYS, name.unwrap_or("instance"));
    let inst = parse_instance(&src).py_err(py)?;
    Ok(PyInstance::new(Arc::from(inst), None))
}

/// Options from the keyword parameters (`kbest_max_subsets=…`), checked
/// like the CLI's flags.
fn options(
    py: Python<'_>,
    time_limit: Option<f64>,
    seed: u64,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<SolveOptions> {
    let limit = match time_limit {
        Some(t) if t.is_nan() || t < 0.0 => {
            return Err(errors::UsageError::new_err(format!(
                "time_limit {t}: expected seconds >= 0 (0 or None for no limit)"
            )))
        }
        Some(t) if t == 0.0 || t.is_infinite() => None,
        other => other,
    };
    let mut opts = SolveOptions::new(limit, seed);
    let known = registry().params();
    for (k, v) in params.into_iter().flat_map(|d| d.iter()) {
        let key: String = k.extract()?;
        let flag = key.replace('_', "-");
        let spec = known.iter().find(|p| p.name == flag).ok_or_else(|| {
            let names: Vec<String> = known.iter().map(|p| p.name.replace('-', "_")).collect();
            errors::UsageError::new_err(format!(
                "unknown parameter '{key}' (known: {})",
                names.join(", ")
            ))
        })?;
        let text = if let Ok(b) = v.extract::<bool>() {
            b.to_string()
        } else {
            v.str()?.to_string()
        };
        opts.set(spec, &text).py_err(py)?;
    }
    Ok(opts)
}

/// HiGHS settings from the `solver` keywords (`write_model`,
/// `model_format`, `solver_log`, `threads`), checked like the CLI's flags.
fn solver_io(py: Python<'_>, solver: Option<&Bound<'_, PyDict>>) -> PyResult<SolverIo> {
    let mut args = SolverArgs {
        model_format: "mps".into(),
        ..SolverArgs::default()
    };
    for (k, v) in solver.into_iter().flat_map(|d| d.iter()) {
        if v.is_none() {
            continue;
        }
        match k.extract::<String>()?.as_str() {
            "write_model" => args.write_model = Some(v.extract()?),
            "model_format" => args.model_format = v.extract()?,
            "solver_log" => args.solver_log = Some(v.extract()?),
            "threads" => {
                let n: i64 = v.extract()?;
                args.threads = Some(u32::try_from(n).map_err(|_| {
                    errors::UsageError::new_err(format!("threads {n}: expected a count >= 1"))
                })?);
            }
            other => {
                return Err(errors::UsageError::new_err(format!(
                    "unknown solver setting '{other}'"
                )))
            }
        }
    }
    args.io().py_err(py)
}

/// Runs one engine (by name) on an instance; the record as a dict (what
/// `solve --json` prints). Ctrl-C stops it (see the package docs).
#[pyfunction]
#[pyo3(signature = (instance, engine, time_limit, seed, params=None, solver=None))]
fn _solve<'py>(
    py: Python<'py>,
    instance: &PyInstance,
    engine: String,
    time_limit: Option<f64>,
    seed: u64,
    params: Option<&Bound<'py, PyDict>>,
    solver: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let known = instance.inner.family().engines();
    if !known.contains(&engine) {
        return Err(errors::UsageError::new_err(format!(
            "unknown {} engine '{engine}' (known: {})",
            instance.inner.family().name(),
            known.join(", ")
        )));
    }
    let flag = Arc::new(AtomicBool::new(false));
    let opts = options(py, time_limit, seed, params)?.with_io(solver_io(py, solver)?);
    let opts = opts.with_deadline(Deadline::none().with_flag(flag.clone()));
    let inst = instance.inner.clone();
    let gate = Gate::default();
    let record = interruptible(py, flag, Patience::UpTo(SOLVE_PATIENCE), &gate, move || {
        inst.run_engine(&engine, &opts)
    })?;
    let v = serde_json::to_value(&record).map_err(|e| errors::Error::new_err(e.to_string()))?;
    convert::to_python(py, &v)
}

/// Runs a Python function as an engine on an instance (timed, evaluated,
/// its claims checked); the record as a dict.
#[pyfunction]
#[pyo3(signature = (instance, name, function, time_limit, seed))]
fn _solve_with<'py>(
    py: Python<'py>,
    instance: Py<PyInstance>,
    name: String,
    function: Py<PyAny>,
    time_limit: Option<f64>,
    seed: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let flag = Arc::new(AtomicBool::new(false));
    let opts = options(py, time_limit, seed, None)?;
    let opts = opts.with_deadline(Deadline::none().with_flag(flag.clone()));
    let inst = instance.get().inner.clone();
    let gate = Gate::default();
    let engine = bench::py_engine(name, function, Some(instance), Vec::new(), gate.clone());
    let record = interruptible(py, flag, Patience::UpTo(SOLVE_PATIENCE), &gate, move || {
        inst.run_foreign(engine.as_ref(), &opts)
    })?;
    let v = serde_json::to_value(&record).map_err(|e| errors::Error::new_err(e.to_string()))?;
    convert::to_python(py, &v)
}

/// Evaluates a solution (a solution dict, a whole `solve --out` record, or
/// an assignment for families whose solution is one) with the family's
/// evaluator: a dict with `feasible`, `objective`, `metrics`, `reasons`,
/// `lines`.
#[pyfunction]
fn _evaluate<'py>(
    py: Python<'py>,
    instance: &PyInstance,
    solution: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let value = convert::from_python(py, solution, "the solution")?;
    let inst = instance.inner.as_ref();
    let value = match value {
        Value::Array(items) => assignment(py, inst, &items)?,
        // A record (`Result.record`, a `solve --out` file) written for
        // another instance or problem is refused, as `serverpick eval`
        // refuses it.
        Value::Object(map) => {
            serverpick::core::claims::check_written_for(&map, inst, "the solution", None)
                .py_err(py)?;
            Value::Object(map)
        }
        other => other,
    };
    let report = inst.eval_value(value, "the solution").py_err(py)?;
    let v = &report.verdict;
    let lines: Vec<Value> = report
        .lines
        .iter()
        .map(|(k, v)| Value::Array(vec![Value::from(k.as_str()), Value::from(v.as_str())]))
        .collect();
    let out = serde_json::json!({
        "feasible": v.is_feasible(),
        "objective": v.objective,
        "metrics": v.metrics,
        "reasons": v.violations,
        "lines": lines,
    });
    convert::to_python(py, &out)
}

fn assignment(py: Python<'_>, inst: &dyn ProblemInstance, items: &[Value]) -> PyResult<Value> {
    let mut assign = Vec::with_capacity(items.len());
    for (i, v) in items.iter().enumerate() {
        let j = v
            .as_f64()
            .filter(|x| x.fract() == 0.0 && *x >= 0.0)
            .ok_or_else(|| {
                errors::input_error(
                    py,
                    format!("assignment[{i}] = {v} is not an index"),
                    Some("the solution".into()),
                    Some(format!("assign[{i}]")),
                )
            })?;
        assign.push(j as usize);
    }
    inst.solution_from_assignment(&assign).py_err(py)
}

/// Runs a serverpick command in this process, as the CLI would with these
/// arguments (without the program name), and returns its exit code; an
/// error raises. Ctrl-C stops it and keeps what it finished on disk.
#[pyfunction]
fn cli(py: Python<'_>, args: Vec<String>) -> PyResult<i32> {
    let argv: Vec<String> = std::iter::once("serverpick".to_string())
        .chain(args)
        .collect();
    let gate = Gate::default();
    let result = interruptible(
        py,
        interrupt::flag(),
        Patience::UntilDone,
        &gate,
        move || serverpick::app::cli::try_run_args(argv),
    );
    interrupt::clear();
    result?.py_err(py)
}

/// The Python module.
#[pymodule]
fn _serverpick(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // Ctrl-C is Python's KeyboardInterrupt: the crate never installs its
    // own handler in this process.
    interrupt::leave_signals_to_host();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("Error", py.get_type::<errors::Error>())?;
    m.add("InputError", py.get_type::<errors::InputError>())?;
    m.add("UsageError", py.get_type::<errors::UsageError>())?;
    m.add("SolverError", py.get_type::<errors::SolverError>())?;
    m.add_class::<PyInstance>()?;
    m.add_function(wrap_pyfunction!(families, m)?)?;
    m.add_function(wrap_pyfunction!(engines, m)?)?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(from_json, m)?)?;
    m.add_function(wrap_pyfunction!(spd_instance, m)?)?;
    m.add_function(wrap_pyfunction!(cma_instance, m)?)?;
    m.add_function(wrap_pyfunction!(_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_solve_with, m)?)?;
    m.add_function(wrap_pyfunction!(_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_bench, m)?)?;
    Ok(())
}
