//! One benchmark row and the best-known / gap / consistency annotation.
//!
//! A row is one (instance, engine, repetition). It is a flat serde record:
//! the fixed columns, then the instance's features and the evaluator's scalar
//! metrics flattened into the same object (formats.md "Benchmark results").
//! Non-scalar metrics (host lists, violation lists) are not copied: a row is a
//! number per column.

use crate::model::{relative_gap, SolveRecord, Status};
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
    "objective",
    "best_known",
    "best_known_is_optimal",
    "gap",
    "time_ms",
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
    /// Instance features and scalar metrics, flattened.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BenchRow {
    /// Builds a row from an engine record plus instance features.
    pub fn from_record(
        rec: SolveRecord,
        file: &str,
        repetition: u32,
        size: f64,
        features: &Map<String, Value>,
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
            objective: rec.objective.filter(|x| x.is_finite()),
            best_known: None,
            best_known_is_optimal: None,
            gap: None,
            time_ms: rec.time_ms,
            repetition,
            file: file.to_string(),
            bound: rec.bound.filter(|x| x.is_finite()),
            size: Some(size),
            check: None,
            message: rec.message,
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

/// Tolerance for comparing objectives: `1e-9 · max(1, |x|)`.
fn tol(x: f64) -> f64 {
    1e-9 * x.abs().max(1.0)
}

/// A row with a usable objective (a valid solution the evaluator accepted).
fn found(r: &BenchRow) -> Option<f64> {
    match r.status {
        Status::Optimal | Status::Feasible | Status::TimeLimit => r.objective,
        _ => None,
    }
}

/// The proven lower bound a row claims: its objective when `optimal`, else
/// its `bound`.
fn claimed_bound(r: &BenchRow) -> Option<f64> {
    match r.status {
        Status::Optimal => r.objective.or(r.bound),
        Status::Feasible | Status::TimeLimit => r.bound,
        _ => None,
    }
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
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        groups.entry(r.file.clone()).or_default().push(i);
    }
    let mut conflicts = Vec::new();
    for idx in groups.values() {
        annotate_group(rows, idx, &mut conflicts);
    }
    conflicts
}

fn annotate_group(rows: &mut [BenchRow], idx: &[usize], conflicts: &mut Vec<String>) {
    let best = idx
        .iter()
        .filter_map(|&i| found(&rows[i]).map(|o| (o, i)))
        .min_by(|a, b| a.0.total_cmp(&b.0));
    let proof = idx
        .iter()
        .filter_map(|&i| claimed_bound(&rows[i]).map(|b| (b, i)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let mut bad: Vec<usize> = Vec::new();
    if let (Some((b, bi)), Some((o, oi))) = (proof, best) {
        if o < b - tol(b) {
            let (p, q) = (&rows[bi], &rows[oi]);
            conflicts.push(format!(
                "{}: {} claims a proven bound {b} ({}) but {} found {o}",
                p.file, p.engine, p.status, q.engine
            ));
            bad.extend([bi, oi]);
        }
    }
    let infeasible = idx.iter().find(|&&i| rows[i].status == Status::Infeasible);
    if let (Some(&ii), Some((o, oi))) = (infeasible, best) {
        conflicts.push(format!(
            "{}: {} claims infeasible but {} found a solution with objective {o}",
            rows[ii].file, rows[ii].engine, rows[oi].engine
        ));
        bad.extend([ii, oi]);
    }
    let proven =
        bad.is_empty() && matches!((proof, best), (Some((b, _)), Some((o, _))) if b >= o - tol(o));
    for &i in idx {
        let r = &mut rows[i];
        r.best_known = best.map(|(o, _)| o);
        r.best_known_is_optimal = best.map(|_| proven);
        r.gap = match (found(r), best) {
            (Some(o), Some((b, _))) => Some(relative_gap(o, b)).filter(|g| g.is_finite()),
            _ => None,
        };
        r.check = None;
    }
    for i in bad {
        rows[i].check = Some(CONFLICT.to_string());
    }
}
