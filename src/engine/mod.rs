//! Engines: each returns a solution (never its own score); [`run_spd`] times
//! it, asks the evaluator for every metric and turns the result into a
//! [`SolveRecord`].
//!
//! SPD engines by CLI name (problems.md §1):
//!
//! | name        | paper name                 | models  | module |
//! |-------------|----------------------------|---------|--------|
//! | `alg-m`     | Algorithm Matching         | CS, P2P | [`heuristic::matching`] |
//! | `spdcs-h`   | SPDCS-H                    | CS      | [`heuristic::spdcs_h`] |
//! | `spdp2p-h`  | SPDP2P-H                   | P2P     | [`heuristic::spdcs_h`] |
//! | `zizo`      | Zoom-In Zoom-Out (Lee et al.) | P2P  | [`heuristic::zizo`] |
//! | `k-best`    | k-best (brute force over k-subsets) | CS, P2P | [`heuristic::k_best`] |
//! | `exact`     | MILP on HiGHS              | CS, P2P | [`exact::spd_milp`] |

pub mod cma;
pub mod cma_moves;
pub mod cma_sim;
pub mod exact;
pub mod heuristic;
pub mod spdvr;

use crate::error::{Error, Result};
use crate::model::spd::{CommModel, SpdInstance, SpdSolution};
use crate::model::spd_eval::{evaluate_spd, SpdEvaluation};
use crate::model::{SolveRecord, Status};
use serde_json::{json, Map, Value};
use std::time::Instant;

/// Options shared by the engines.
#[derive(Debug, Clone)]
pub struct SolveOptions {
    /// Wall-time limit for exact engines, seconds (`None` = no limit).
    pub time_limit: Option<f64>,
    /// k-best refuses to enumerate more subsets (× roots) than this.
    pub kbest_max_subsets: u64,
    /// Seed for randomised engines.
    pub seed: u64,
    /// Exact SPD: after the proven minimum host count, also minimise delay
    /// (and, for CS, variation) at that count.
    pub lexicographic: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            time_limit: Some(60.0),
            kbest_max_subsets: 2_000_000,
            seed: 0,
            lexicographic: true,
        }
    }
}

/// What an SPD engine returns: a solution (if any) and what it claims about it.
/// The metrics are not here on purpose: the evaluator computes them.
#[derive(Debug, Clone)]
pub struct SpdOutcome {
    /// `Feasible` for heuristics; `Optimal`/`TimeLimit`/`Infeasible` from exact
    /// engines; `Error` when the engine found nothing or refused.
    pub status: Status,
    /// The solution, if one was found.
    pub solution: Option<SpdSolution>,
    /// Proven lower bound on the host count (exact engines).
    pub bound: Option<f64>,
    /// Why it failed, or a note.
    pub message: Option<String>,
}

impl SpdOutcome {
    /// A heuristic's solution.
    pub fn found(solution: SpdSolution) -> Self {
        SpdOutcome {
            status: Status::Feasible,
            solution: Some(solution),
            bound: None,
            message: None,
        }
    }

    /// The engine found no solution (not a proof of infeasibility).
    pub fn failed(message: impl Into<String>) -> Self {
        SpdOutcome {
            status: Status::Error,
            solution: None,
            bound: None,
            message: Some(message.into()),
        }
    }
}

/// An SPD engine.
pub trait SpdEngine: Sync {
    /// CLI name.
    fn name(&self) -> &'static str;
    /// Whether it applies to this communication model.
    fn supports(&self, model: CommModel) -> bool;
    /// Runs the engine.
    fn solve(&self, inst: &SpdInstance, opts: &SolveOptions) -> SpdOutcome;
}

/// Every SPD engine, in the order tables list them.
pub fn spd_engines() -> Vec<Box<dyn SpdEngine>> {
    vec![
        Box::new(heuristic::matching::AlgorithmMatching),
        Box::new(heuristic::spdcs_h::SpdcsH),
        Box::new(heuristic::spdcs_h::Spdp2pH),
        Box::new(heuristic::zizo::Zizo),
        Box::new(heuristic::k_best::KBest),
        Box::new(exact::spd_milp::ExactSpd),
    ]
}

/// Names of every SPD engine.
pub fn spd_engine_names() -> Vec<&'static str> {
    spd_engines().iter().map(|e| e.name()).collect()
}

/// Looks up an SPD engine by CLI name.
pub fn spd_engine(name: &str) -> Result<Box<dyn SpdEngine>> {
    spd_engines()
        .into_iter()
        .find(|e| e.name() == name)
        .ok_or_else(|| {
            Error::Usage(format!(
                "unknown SPD engine '{name}' (known: {})",
                spd_engine_names().join(", ")
            ))
        })
}

/// Runs `engine` on `inst`, evaluates its solution and builds the record.
///
/// The evaluator has the last word: a solution it rejects turns a claimed
/// `feasible`/`optimal` into `error` naming the violation, so a wrong engine
/// cannot score itself into a table.
pub fn run_spd(engine: &dyn SpdEngine, inst: &SpdInstance, opts: &SolveOptions) -> SolveRecord {
    let mut record = SolveRecord::unsolved(&inst.name, "spd", engine.name());
    if !engine.supports(inst.model) {
        record.message = Some(format!(
            "{} does not apply to the {} model",
            engine.name(),
            inst.model
        ));
        return record;
    }
    let started = Instant::now();
    let outcome = engine.solve(inst, opts);
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    fill_record(&mut record, inst, outcome);
    record
}

fn fill_record(record: &mut SolveRecord, inst: &SpdInstance, outcome: SpdOutcome) {
    record.status = outcome.status;
    record.message = outcome.message;
    record.bound = outcome.bound;
    if outcome.status == Status::Infeasible && inst.model == CommModel::Cs {
        record.metrics.insert("gamma".into(), json!(inst.gamma));
    }
    let Some(sol) = outcome.solution else {
        return;
    };
    let ev = evaluate_spd(inst, &sol);
    record.solution = serde_json::to_value(&sol).ok();
    record.metrics = metrics_json(&ev);
    if !ev.is_feasible() {
        record.status = Status::Error;
        let why = ev.violations.join("; ");
        record.message = Some(match record.message.take() {
            Some(m) => format!("{m}; the evaluator rejects the solution: {why}"),
            None => format!("the evaluator rejects the solution: {why}"),
        });
        record.objective = None;
        return;
    }
    if let Some(m) = &ev.metrics {
        let hosts = m.hosts as f64;
        record.objective = Some(hosts);
        if let Some(b) = record.bound {
            record.gap = Some(crate::model::relative_gap(hosts, b).max(0.0));
            if b > hosts + 1e-9 {
                record.status = Status::Error;
                record.message = Some(format!(
                    "claimed bound {b} exceeds the evaluated host count {hosts}"
                ));
            }
        }
    }
}

/// The evaluator's metrics as the JSON object of a solution file.
pub fn metrics_json(ev: &SpdEvaluation) -> Map<String, Value> {
    let mut map = Map::new();
    if let Some(m) = &ev.metrics {
        map.insert("hosts".into(), json!(m.hosts));
        map.insert("delay".into(), json!(m.delay));
        map.insert("variation".into(), json!(m.variation));
        map.insert("relays".into(), json!(m.relays));
        map.insert("host_list".into(), json!(m.host_list));
        map.insert("relay_list".into(), json!(m.relay_list));
    }
    map.insert("feasible".into(), json!(ev.is_feasible()));
    if !ev.violations.is_empty() {
        map.insert("violations".into(), json!(ev.violations));
    }
    map
}
