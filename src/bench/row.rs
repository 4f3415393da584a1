//! One benchmark row and the best-known / gap / consistency annotation.
//!
//! A row is one (instance, engine, repetition). It is a flat serde record:
//! the fixed columns, then the instance's features and the evaluator's scalar
//! metrics flattened into the same object (formats.md "Benchmark results").
//! Non-scalar metrics (host lists, violation lists) are not copied: a row is a
//! number per column.

use crate::core::check::{cross_check, Claim};
use crate::core::{relative_gap, FailureReason, SolveRecord, Status, StopReason};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The fixed columns, in file order (the flattened features and metrics
/// follow).
pub const FIXED_COLUMNS: &[&str] = &[
    "instance",
    "problem",
    "engine",
    "status",
    "reason",
    "stop",
    "solver_status",
    "objective",
    "best_known",
    "best_known_is_optimal",
    "gap",
    "time_ms",
    "cpu_ms",
    "peak_rss_mb",
    "time_limit_s",
    "repetition",
    "file",
    "bound",
    "size",
    "check",
    "message",
];

/// The value of [`BenchRow::check`] on rows involved in a contradiction (a
/// claimed optimum, bound or infeasibility that another engine beats).
pub const CONFLICT: &str = "CONFLICT";

/// One (instance, engine, repetition) result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchRow {
    /// Instance name.
    pub instance: String,
    /// Problem (`spd`, `spdvr`, `cma`, …).
    pub problem: String,
    /// Engine name.
    pub engine: String,
    /// How the run ended.
    pub status: Status,
    /// Why it failed (typed), when it did.
    #[serde(default)]
    pub reason: Option<FailureReason>,
    /// The evaluator's primary objective (minimised).
    pub objective: Option<f64>,
    /// Best known objective on this instance over every row of the result set.
    pub best_known: Option<f64>,
    /// Whether `best_known` is a proven optimum (else: best found).
    pub best_known_is_optimal: Option<bool>,
    /// `(objective − best_known) / best_known`.
    pub gap: Option<f64>,
    /// Engine wall time, ms.
    pub time_ms: f64,
    /// CPU time of an external engine's process, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<f64>,
    /// Peak resident memory of an external engine's process, MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_mb: Option<f64>,
    /// Repetition index, 0-based.
    pub repetition: u32,
    /// Instance file as given on the command line (the row's instance key).
    pub file: String,
    /// Proven lower bound on the objective claimed by the engine.
    pub bound: Option<f64>,
    /// Instance size (problem-defined, see the dispatch).
    pub size: Option<f64>,
    /// `CONFLICT` when this row takes part in a contradiction (see
    /// [`annotate`]); `summary.md` describes each one.
    pub check: Option<String>,
    /// The engine's message (why it failed, what it refused, a note).
    pub message: Option<String>,
    /// Which limit or event ended the run early (`time_limit`,
    /// `node_limit`, `interrupted`, …), when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopReason>,
    /// The LP/MILP backend's final status (HiGHS's model status), when one
    /// ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver_status: Option<String>,
    /// The per-run time limit the run was given, seconds (`None` = no
    /// limit, or a row written before the field existed). `summary.md`
    /// counts a time-out at this limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_s: Option<f64>,
    /// Instance features and scalar metrics, flattened.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BenchRow {
    /// Builds a row from an engine record plus instance features;
    /// `time_limit_s` is the per-run limit the engine was given (seconds,
    /// `None` = no limit; a non-finite limit is recorded as none, a
    /// negative one as 0).
    pub fn from_record(
        rec: SolveRecord,
        file: &str,
        repetition: u32,
        size: f64,
        features: &Map<String, Value>,
        time_limit_s: Option<f64>,
    ) -> Self {
        let mut extra = Map::new();
        for (k, v) in features {
            insert_scalar(&mut extra, k, v);
        }
        for (k, v) in &rec.metrics {
            insert_scalar(&mut extra, k, v);
        }
        BenchRow {
            instance: rec.instance,
            problem: rec.problem,
            engine: rec.engine,
            status: rec.status,
            reason: rec.reason,
            objective: rec.objective.filter(|x| x.is_finite()),
            best_known: None,
            best_known_is_optimal: None,
            gap: None,
            time_ms: rec.time_ms,
            cpu_ms: rec.cpu_ms,
            peak_rss_mb: rec.peak_rss_mb,
            repetition,
            file: file.to_string(),
            bound: rec.bound.filter(|x| x.is_finite()),
            size: Some(size),
            check: None,
            message: rec.message,
            stop: rec.stop,
            solver_status: rec.solver_status,
            time_limit_s: time_limit_s.filter(|t| t.is_finite()).map(|t| t.max(0.0)),
            extra,
        }
    }

    /// The key `--resume` and `bench-merge` deduplicate on.
    pub fn key(&self) -> (String, String, u32) {
        (self.file.clone(), self.engine.clone(), self.repetition)
    }

    /// A scalar feature or metric as a number.
    pub fn number(&self, key: &str) -> Option<f64> {
        self.extra.get(key).and_then(Value::as_f64)
    }
}

/// Copies a scalar under `key`, renaming it `metric_<key>` when it would
/// shadow a fixed column or an earlier entry.
fn insert_scalar(extra: &mut Map<String, Value>, key: &str, v: &Value) {
    if v.is_array() || v.is_object() {
        return;
    }
    let mut k = key.to_string();
    while FIXED_COLUMNS.contains(&k.as_str()) || extra.contains_key(&k) {
        k = format!("metric_{k}");
    }
    extra.insert(k, v.clone());
}

/// Fills `best_known`, `best_known_is_optimal`, `gap` and `check` on every
/// row, per instance file, and returns one description per contradiction.
///
/// Best known = the least objective any row found. It is a proven optimum
/// when some row's proven bound (an `optimal` objective, or an exact engine's
/// dual bound) reaches it and nothing contradicts the proofs. Contradictions
/// — a row whose objective lies below another row's proven bound, or any
/// solution on an instance an engine proved `infeasible` — mark every row
/// involved `check = CONFLICT` and are returned: they are bugs.
pub fn annotate(rows: &mut [BenchRow]) -> Vec<String> {
    // Claims are compared within one problem of one file: two problems on a
    // file (e.g. a relaxation an engine solves) have different optima.
    let mut groups: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        groups
            .entry((r.file.clone(), r.problem.clone()))
            .or_default()
            .push(i);
    }
    let mut conflicts = Vec::new();
    for idx in groups.values() {
        annotate_group(rows, idx, &mut conflicts);
    }
    conflicts
}

fn annotate_group(rows: &mut [BenchRow], idx: &[usize], conflicts: &mut Vec<String>) {
    let claims: Vec<Claim> = idx
        .iter()
        .map(|&i| Claim {
            engine: &rows[i].engine,
            status: rows[i].status,
            objective: rows[i].objective,
            bound: rows[i].bound,
        })
        .collect();
    let label = rows.get(idx[0]).map(|r| r.file.clone()).unwrap_or_default();
    let check = cross_check(&label, &claims);
    let best = check.best.map(|(o, _)| o);
    let bad: Vec<usize> = check
        .conflicts
        .iter()
        .flat_map(|c| c.runs.iter().map(|&k| idx[k]))
        .collect();
    conflicts.extend(check.conflicts.into_iter().map(|c| c.message));
    for &i in idx {
        let r = &mut rows[i];
        let found = Claim {
            engine: &r.engine,
            status: r.status,
            objective: r.objective,
            bound: r.bound,
        }
        .found();
        r.best_known = best;
        r.best_known_is_optimal = best.map(|_| check.proven);
        r.gap = match (found, best) {
            (Some(o), Some(b)) => Some(relative_gap(o, b)).filter(|g| g.is_finite()),
            _ => None,
        };
        r.check = None;
    }
    for i in bad {
        rows[i].check = Some(CONFLICT.to_string());
    }
}
