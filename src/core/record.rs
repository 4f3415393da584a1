//! The record of one engine run on one instance, shared by every problem.
//!
//! It is the solution file of formats.md and the row source of the benchmark
//! runner: problem-specific parts (`metrics`, `solution`) are JSON values filled
//! by the problem's evaluator, so one record type serves every problem.

use crate::core::{FailureReason, Status, StopReason};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One engine's run on one instance (formats.md "Solution file").
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolveRecord {
    /// Instance name.
    pub instance: String,
    /// Problem name (`spd`, `spdvr`, `cma`, …).
    pub problem: String,
    /// Engine name as the CLI spells it.
    pub engine: String,
    /// How the run ended.
    pub status: Status,
    /// Why it failed (with status `error`, or a run that produced nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<FailureReason>,
    /// Which limit or event ended the run early, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopReason>,
    /// The LP/MILP backend's own final status (HiGHS's model status, one to
    /// one), when a backend ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver_status: Option<String>,
    /// The problem's primary objective, computed by the evaluator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub objective: Option<f64>,
    /// Proven bound on the primary objective (exact engines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// Relative gap between objective and bound (exact engines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap: Option<f64>,
    /// Wall time of the engine, milliseconds.
    pub time_ms: f64,
    /// CPU time (user + system) of an external engine's process and the
    /// children it waited for, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    /// Peak resident memory of an external engine's process, MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_mb: Option<f64>,
    /// The evaluator's metrics.
    #[serde(default)]
    pub metrics: Map<String, Value>,
    /// The solution itself (problem-specific shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solution: Option<Value>,
    /// Why an engine failed or what it refused, or a note on the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The SHA-256 of the instance file solved (hex), so that a solution
    /// file can be matched to its instance (`bench --solutions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_sha256: Option<String>,
    /// Where the run's time went (formats.md "Solution file": `timing`);
    /// absent in records written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<Timing>,
}

/// The time of one run by stage, milliseconds; a stage not measured for
/// this record is absent. `solve` fills `read_ms` (shared by the runs on one
/// file) and `write_ms`; the engine runner fills `solve_ms` and
/// `evaluate_ms`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// Reading the instance: its files' bytes, parsing and validation (the
    /// checks run cell by cell while parsing, so they are not timed apart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_ms: Option<f64>,
    /// The engine (the record's `time_ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solve_ms: Option<f64>,
    /// The evaluator's pass over the solution (objective, metrics, checks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluate_ms: Option<f64>,
    /// Writing this run's solution file (`solve --out`), when one is
    /// written; present in the `--json` line, not in the file itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_ms: Option<f64>,
    /// The engine's own stages, in the order they ran (part of
    /// `solve_ms`; empty when the engine does not report them). Each
    /// engine documents its stage names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<StageTime>,
}

/// One stage of an engine and its wall time ([`Timing::stages`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StageTime {
    /// The stage's name.
    pub stage: String,
    /// Its wall time, milliseconds.
    pub ms: f64,
    /// The stage's steps, in the order they ended, when the engine reports
    /// them (e.g. one per decision of a stage, or each solution a search
    /// kept and then its last answer; docs/formats.md lists the engines
    /// that do).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StageStep>,
}

/// One step of a stage ([`StageTime::steps`]): what it decided, its
/// answer and its wall time. Steps may run side by side (on the run's
/// threads), so their times may add up to more than the stage's. Steps
/// that are points in one search (a solution kept, then the proof) give
/// the time from that search's start.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StageStep {
    /// What the step decided (e.g. `at most 10 hosts`).
    pub step: String,
    /// Its answer (e.g. `feasible`, `infeasible`, `unknown`, or
    /// `cancelled` when another step's answer settled it first).
    pub result: String,
    /// Its wall time, milliseconds (a point in one search: from the
    /// search's start).
    pub ms: f64,
}

impl StageStep {
    /// A step's result: a solution was found (a decision's, or one a
    /// descent kept).
    pub const FEASIBLE: &'static str = "feasible";
    /// A step's result: refuted.
    pub const INFEASIBLE: &'static str = "infeasible";
    /// A step's result: the time limit (or an interrupt) cut it.
    pub const UNKNOWN: &'static str = "unknown";
    /// A step's result: another step's answer settled it first.
    pub const CANCELLED: &'static str = "cancelled";
}

impl StageTime {
    /// Runs `f` and appends its wall time to `stages` as `stage`.
    pub fn time<T>(stages: &mut Vec<StageTime>, stage: &str, f: impl FnOnce() -> T) -> T {
        let (out, ms) = crate::core::timed(f);
        stages.push(StageTime {
            stage: stage.to_string(),
            ms,
            steps: Vec::new(),
        });
        out
    }
}

impl SolveRecord {
    /// A record with no result yet: status `error`, no objective, no metrics.
    /// Runners fill it in; left as is it is an error row.
    pub fn unsolved(instance: &str, problem: &str, engine: &str) -> Self {
        SolveRecord {
            instance: instance.to_string(),
            problem: problem.to_string(),
            engine: engine.to_string(),
            status: Status::Error,
            reason: None,
            stop: None,
            solver_status: None,
            objective: None,
            bound: None,
            gap: None,
            time_ms: 0.0,
            cpu_ms: None,
            peak_rss_mb: None,
            metrics: Map::new(),
            solution: None,
            message: None,
            instance_sha256: None,
            timing: None,
        }
    }

    /// An `error` record with its typed reason and message.
    pub fn failed(
        instance: &str,
        problem: &str,
        engine: &str,
        reason: FailureReason,
        message: impl Into<String>,
    ) -> Self {
        SolveRecord {
            reason: Some(reason),
            message: Some(message.into()),
            ..SolveRecord::unsolved(instance, problem, engine)
        }
    }
}
