//! Long calls run on a worker thread while the calling thread waits without
//! the GIL and checks for Ctrl-C (`KeyboardInterrupt`) every 50 ms.
//!
//! On Ctrl-C the run's stop flag is raised: heuristics stop at their next
//! checkpoint (well within a second) and the call raises. A HiGHS solve
//! cannot see the flag (the `highs` crate has no safe interrupt); when the
//! worker has not finished after [`Patience`], the call raises anyway and
//! the worker ends on its own at its stage's time limit, its result
//! dropped.
//!
//! A worker uses Python (a Python engine's view, call and answer) only
//! through the call's [`Gate`], which is open while the caller waits: once
//! the caller has stopped waiting, the interpreter may exit at any time,
//! and a Rust thread that asks for the GIL while it does is stopped inside
//! Rust code (`pthread_exit`), which aborts the process. A worker that runs
//! on after its caller left therefore never touches Python again; what it
//! holds of Python is released through PyO3's deferred reference counts.

use crate::errors::Error;
use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

/// Whether a call's workers may still use Python: open while the caller
/// waits in [`interruptible`], closed for good when it returns.
#[derive(Debug, Clone, Default)]
pub struct Gate(Arc<RwLock<bool>>);

impl Gate {
    /// Runs `f` attached to the interpreter while the gate is open; `None`
    /// once it is closed. The caller cannot return (and the interpreter
    /// cannot exit under it) while `f` runs.
    pub fn attach<R>(&self, f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
        let closed = self.0.read().unwrap_or_else(|e| e.into_inner());
        if *closed {
            return None;
        }
        Some(Python::attach(f))
    }

    /// Closes the gate, once no worker is inside [`Gate::attach`] (waiting
    /// without the GIL, which they need).
    fn close(&self, py: Python<'_>) {
        py.detach(|| *self.0.write().unwrap_or_else(|e| e.into_inner()) = true);
    }
}

/// How long a call waits for its worker after Ctrl-C.
#[derive(Debug, Clone, Copy)]
pub enum Patience {
    /// At most this long, then it raises (a solve).
    UpTo(Duration),
    /// Until the worker has written what it finished (a bench, a plan); a
    /// second Ctrl-C stops waiting.
    UntilDone,
}

const POLL: Duration = Duration::from_millis(50);

/// Runs `job` on a worker thread; `flag` is raised on Ctrl-C. `gate` (the
/// one the job's Python engines use) is closed when it returns.
pub fn interruptible<T, F>(
    py: Python<'_>,
    flag: Arc<AtomicBool>,
    patience: Patience,
    gate: &Gate,
    job: F,
) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let result = wait_for(py, flag, patience, job);
    gate.close(py);
    result
}

fn wait_for<T, F>(py: Python<'_>, flag: Arc<AtomicBool>, patience: Patience, job: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    // Shared with the closures that wait without the GIL.
    let rx = Mutex::new(rx);
    std::thread::Builder::new()
        .name("serverpick-run".into())
        .spawn(move || {
            let _ = tx.send(job());
        })
        .map_err(|e| Error::new_err(format!("cannot start a worker thread: {e}")))?;
    loop {
        match py.detach(|| recv(&rx, POLL)) {
            Ok(v) => return Ok(v),
            Err(RecvTimeoutError::Disconnected) => return Err(lost()),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Err(interrupt) = py.check_signals() {
            flag.store(true, Ordering::SeqCst);
            // What the worker finished is on disk (a bench, a plan) or
            // dropped (a solve): the caller sees the interrupt either way.
            wind_down(py, &rx, patience);
            return Err(interrupt);
        }
    }
}

/// Waits for the worker after Ctrl-C, as `patience` says.
fn wind_down<T: Send>(py: Python<'_>, rx: &Mutex<mpsc::Receiver<T>>, patience: Patience) {
    match patience {
        Patience::UpTo(d) => {
            let _ = py.detach(|| recv(rx, d));
        }
        Patience::UntilDone => loop {
            match py.detach(|| recv(rx, POLL)) {
                Ok(_) | Err(RecvTimeoutError::Disconnected) => return,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if py.check_signals().is_err() {
                return;
            }
        },
    }
}

fn recv<T>(rx: &Mutex<mpsc::Receiver<T>>, wait: Duration) -> Result<T, RecvTimeoutError> {
    rx.lock()
        .unwrap_or_else(|e| e.into_inner())
        .recv_timeout(wait)
}

fn lost() -> PyErr {
    Error::new_err("the run's worker thread ended without a result (a panic: see stderr)")
}
