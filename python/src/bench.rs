//! `serverpick.bench`: the crate's benchmark runner, with Python functions
//! as engines beside the built-in ones.

use crate::convert;
use crate::errors::{Error, IntoPy};
use crate::instance::PyInstance;
use crate::wait::{interruptible, Gate, Patience};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serverpick::bench::runner::{run_bench, BenchConfig, ForeignEngines};
use serverpick::core::{interrupt, Ctx, ForeignEngine, ProblemInstance, Source, StopReason};
use serverpick::external::callback::{await_call, CallError, CallResult, FnEngine};
use serverpick::problems::parse_instance;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The Python views of a run's instances, by address (the runner keeps
/// every instance in place for the whole run).
type Views = Arc<Mutex<HashMap<usize, Py<PyInstance>>>>;

/// A Python function as an engine. `fixed` is the Python view of the one
/// instance it will see (`solve`); in a bench each instance's view is built
/// once, from the instance file's JSON, before its first run's clock starts.
///
/// The function runs on a Python thread of its own (`serverpick._engine`),
/// and the runner's worker waits for it until the run's time limit or
/// Ctrl-C ([`await_call`]); it then ends the run with status `time_limit`,
/// asks the function to stop (`serverpick.stop_requested()`) and leaves it
/// running, its answer dropped. Every use of Python by the worker goes
/// through `gate` (see [`crate::wait`]).
pub fn py_engine(
    name: String,
    function: Py<PyAny>,
    fixed: Option<Py<PyInstance>>,
    only: Vec<String>,
    gate: Gate,
) -> Arc<dyn ForeignEngine> {
    let views: Views = Arc::default();
    let warm = views.clone();
    let has_view = fixed.is_some();
    let prepare_gate = gate.clone();
    let prepare = move |inst: &dyn ProblemInstance| {
        // Errors are left to the call, which reports them in its row.
        prepare_gate.attach(|py| {
            let _ = py.import("serverpick._convert");
            let _ = py.import("serverpick._engine");
            if !has_view {
                let _ = view_of(py, inst, &warm);
            }
        });
    };
    let thread_name = name.clone();
    let call = move |inst: &dyn ProblemInstance, ctx: &Ctx| -> CallResult {
        let started = gate.attach(|py| {
            let view = match &fixed {
                Some(v) => v.clone_ref(py),
                None => view_of(py, inst, &views).map_err(CallError::Raised)?,
            };
            let call = py
                .import("serverpick._engine")
                .and_then(|m| m.getattr("Call"))
                .and_then(|c| c.call1((function.clone_ref(py), view, &thread_name)))
                .map_err(|e| CallError::Raised(last_line(py, &e)))?;
            Ok(call.unbind())
        });
        let call = match started {
            Some(c) => c?,
            None => return Err(CallError::Unfinished(StopReason::Interrupted)),
        };
        let result = await_call(ctx, |wait| {
            match gate.attach(|py| answer(py, &call, wait)) {
                Some(answer) => answer,
                // The caller has left (a second Ctrl-C): stop waiting.
                None => Some(Err(CallError::Unfinished(StopReason::Interrupted))),
            }
        });
        if let Err(CallError::Unfinished(_)) = result {
            // What `serverpick.stop_requested()` tells the function.
            gate.attach(|py| {
                let _ = call
                    .bind(py)
                    .getattr("stop")
                    .and_then(|s| s.call_method0("set"));
            });
        }
        result
    };
    let engine = FnEngine::new(name, call).only(only);
    Arc::new(engine.prepare(Box::new(prepare)))
}

/// The call's answer once it has one (waiting up to `wait` for it, without
/// the GIL), as JSON or what went wrong.
fn answer(py: Python<'_>, call: &Py<PyAny>, wait: Duration) -> Option<CallResult> {
    let call = call.bind(py);
    let done = call
        .getattr("done")
        .and_then(|d| d.call_method1("wait", (wait.as_secs_f64(),)))
        .and_then(|b| b.extract::<bool>());
    match done {
        Ok(false) => return None,
        Ok(true) => {}
        Err(e) => return Some(Err(CallError::Raised(last_line(py, &e)))),
    }
    let error = call.getattr("error").ok().filter(|e| !e.is_none());
    if let Some(e) = error {
        return Some(Err(CallError::Raised(last_line(py, &PyErr::from_value(e)))));
    }
    Some(match call.getattr("answer") {
        Ok(ret) => convert::from_python(py, &ret, "the return value")
            .map_err(|e| CallError::Rejected(e.value(py).to_string())),
        Err(e) => Err(CallError::Raised(last_line(py, &e))),
    })
}

/// The Python view of `inst` (built once per instance of a run).
fn view_of(
    py: Python<'_>,
    inst: &dyn ProblemInstance,
    views: &Views,
) -> Result<Py<PyInstance>, String> {
    let key = inst as *const dyn ProblemInstance as *const () as usize;
    let mut map = views.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(v) = map.get(&key) {
        return Ok(v.clone_ref(py));
    }
    let value = inst.to_value().map_err(|e| e.to_string())?;
    let text = serde_json::to_string(&value).map_err(|e| e.to_string())?;
    let src = Source::memory(text, inst.name(), inst.name());
    let parsed = parse_instance(&src).map_err(|e| e.to_string())?;
    let view = Py::new(py, PyInstance::new(Arc::from(parsed), Some(src.text)))
        .map_err(|e| e.to_string())?;
    map.insert(key, view.clone_ref(py));
    Ok(view)
}

/// An exception as its traceback's last line (`ValueError: …`), with where
/// it was raised.
fn last_line(py: Python<'_>, e: &PyErr) -> String {
    let kind = e
        .get_type(py)
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "Exception".into());
    let text = format!("{kind}: {}", e.value(py));
    let place = e.traceback(py).and_then(|tb| {
        let frames = py
            .import("traceback")
            .ok()?
            .call_method1("extract_tb", (tb,))
            .ok()?;
        let last = frames.get_item(-1).ok()?;
        let file: String = last.getattr("filename").ok()?.extract().ok()?;
        let line: usize = last.getattr("lineno").ok()?.extract().ok()?;
        let func: String = last.getattr("name").ok()?.extract().ok()?;
        Some(format!(" (raised at {file}:{line} in {func})"))
    });
    format!("{text}{}", place.unwrap_or_default())
}

/// Runs the benchmark; the rows as dicts and the conflicts.
#[pyfunction]
#[pyo3(signature = (paths, out, engines, python_engines, time_limit, repeat, seed, jobs, resume, progress, params=None, solver=None, solutions=Vec::new(), solutions_engine=None))]
#[allow(clippy::too_many_arguments)]
pub fn _bench<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    out: PathBuf,
    engines: Option<Vec<String>>,
    python_engines: Vec<(String, Py<PyAny>, Vec<String>)>,
    time_limit: Option<f64>,
    repeat: u32,
    seed: u64,
    jobs: usize,
    resume: bool,
    progress: bool,
    params: Option<&Bound<'py, PyDict>>,
    solver: Option<&Bound<'py, PyDict>>,
    solutions: Vec<PathBuf>,
    solutions_engine: Option<String>,
) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
    let mut config = BenchConfig::new(paths, out);
    config.engines = engines;
    config.options =
        crate::options(py, time_limit, seed, params)?.with_io(crate::solver_io(py, solver)?);
    config.repeat = repeat;
    config.jobs = jobs;
    config.resume = resume;
    config.progress = progress;
    // The same reports as `serverpick bench` (summary, plots).
    config.reports = std::sync::Arc::new(serverpick::app::report::Standard {
        registry: serverpick::problems::registry(),
    });
    config.solutions = solutions;
    config.solutions_engine = solutions_engine;
    let gate = Gate::default();
    config.foreign = ForeignEngines(
        python_engines
            .into_iter()
            .map(|(name, f, only)| py_engine(name, f, None, only, gate.clone()))
            .collect(),
    );
    let outcome = interruptible(
        py,
        interrupt::flag(),
        Patience::UntilDone,
        &gate,
        move || run_bench(&config, &serverpick::problems::registry()),
    );
    interrupt::clear();
    let outcome = outcome?.py_err(py)?;
    let rows = serde_json::to_value(&outcome.rows).map_err(|e| Error::new_err(e.to_string()))?;
    Ok((convert::to_python(py, &rows)?, outcome.conflicts))
}
