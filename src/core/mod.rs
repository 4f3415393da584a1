//! What every problem family shares: the family interface and its registry,
//! the run record and its status, engine options, the one record filler and
//! the one cross-check of claims, and plain-text tables.

pub mod check;
pub mod claims;
pub mod deadline;
pub mod engine;
pub mod family;
pub mod interrupt;
pub mod options;
pub mod outcome;
pub mod record;
pub mod registry;
pub mod status;
pub mod table;

pub use deadline::Deadline;
pub use engine::{Ctx, Engine, ForeignEngine, Problem};
pub use family::{
    EvalReport, Family, InstanceFeatures, NamedArray, ProblemInstance, SolveRow, Source,
};
pub use options::{ParamKind, ParamSpec, ParamValue, SolveOptions};
pub use outcome::{fill_record, metrics_map, Outcome, Verdict};
pub use record::{SolveRecord, StageStep, StageTime, Timing};
pub use status::{relative_gap, within_bound, FailureReason, Status, StopReason};

/// Runs `f`, returning its value and its wall time in milliseconds.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = std::time::Instant::now();
    let value = f();
    (value, started.elapsed().as_secs_f64() * 1e3)
}
