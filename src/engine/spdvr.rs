//! SPDVR (problems.md §2): delay-variation reduction from a valid SPD start.
//!
//! Engines by CLI name:
//!
//! | name         | paper name                         | models | module |
//! |--------------|------------------------------------|--------|--------|
//! | `chains`     | SPDVRCS-H (Algorithm 1 + Algorithm Chains), exact for CS | CS | [`heuristic::chains`] |
//! | `spdvrp2p-h` | SPDVRP2P-H (Algorithm 2, ConstructL, Reassign) | P2P | [`heuristic::spdvrp2p_h`] |
//! | `p2p-vr-ls`  | beyond the paper: iterated local search on single-client moves | P2P | [`heuristic::p2p_vr_ls`] |
//! | `exact`      | MILP on HiGHS                      | CS, P2P | [`exact::spdvr_milp`] |
//!
//! [`run_spdvr`] checks the start, times the engine, and has the SPDVR
//! evaluator ([`evaluate_spdvr`]) compute every metric before and after.

use crate::engine::{exact, heuristic, metrics_json, run_spd, spd_engine};
use crate::engine::{SolveOptions, SpdOutcome};
use crate::error::{Error, Result};
use crate::model::spd::{CommModel, SpdInstance, SpdSolution};
use crate::model::spdvr_eval::{check_start, evaluate_spdvr};
use crate::model::{relative_gap, SolveRecord, Status};
use serde_json::{json, Map};
use std::time::Instant;

/// An SPDVR engine: from a feasible start, a solution on the start's hosts.
pub trait SpdvrEngine: Sync {
    /// CLI name.
    fn name(&self) -> &'static str;
    /// Whether it applies to this communication model.
    fn supports(&self, model: CommModel) -> bool;
    /// Runs the engine. `start` is feasible (checked by [`run_spdvr`]).
    /// `bound` in the outcome is a proven lower bound on the variation.
    fn solve(&self, inst: &SpdInstance, start: &SpdSolution, opts: &SolveOptions) -> SpdOutcome;
}

/// Every SPDVR engine, in the order tables list them.
pub fn spdvr_engines() -> Vec<Box<dyn SpdvrEngine>> {
    vec![
        Box::new(heuristic::chains::Chains),
        Box::new(heuristic::spdvrp2p_h::Spdvrp2pH),
        Box::new(heuristic::p2p_vr_ls::P2pVrLs),
        Box::new(exact::spdvr_milp::ExactSpdvr),
    ]
}

/// Names of every SPDVR engine.
pub fn spdvr_engine_names() -> Vec<&'static str> {
    spdvr_engines().iter().map(|e| e.name()).collect()
}

/// Looks up an SPDVR engine by CLI name.
pub fn spdvr_engine(name: &str) -> Result<Box<dyn SpdvrEngine>> {
    spdvr_engines()
        .into_iter()
        .find(|e| e.name() == name)
        .ok_or_else(|| {
            Error::Usage(format!(
                "unknown SPDVR engine '{name}' (known: {})",
                spdvr_engine_names().join(", ")
            ))
        })
}

/// The start of an SPDVR run: the instance's `start` when no engine is named,
/// else the solution of the named SPD engine (e.g. `spdcs-h`, `spdp2p-h`,
/// `exact`). Errors when neither is available or the engine finds nothing.
pub fn start_for(
    inst: &SpdInstance,
    start_engine: Option<&str>,
    opts: &SolveOptions,
) -> Result<SpdSolution> {
    let Some(name) = start_engine else {
        return inst.start.clone().ok_or_else(|| {
            Error::Usage(format!(
                "{}: the instance has no `start`; name an SPD engine to compute one (--start ENGINE)",
                inst.name
            ))
        });
    };
    let engine = spd_engine(name)?;
    let record = run_spd(engine.as_ref(), inst, opts);
    let feasible = matches!(
        record.status,
        Status::Optimal | Status::Feasible | Status::TimeLimit
    );
    let sol = record
        .solution
        .filter(|_| feasible)
        .and_then(|v| serde_json::from_value::<SpdSolution>(v).ok());
    sol.ok_or_else(|| {
        Error::Usage(format!(
            "{}: start engine '{name}' found no feasible solution ({}{})",
            inst.name,
            record.status,
            record.message.map(|m| format!(": {m}")).unwrap_or_default()
        ))
    })
}

/// Runs the SPDVR engine `engine_name` on `inst` from `start`.
///
/// Errors: an unknown engine ([`Error::Usage`]) or an infeasible start
/// ([`Error::Input`], naming why). Otherwise the record (problem `spdvr`,
/// objective = the evaluated variation) carries the metrics after
/// (`variation`, `delay`, `hosts`, …) and before (`variation_before`,
/// `delay_before`, `hosts_before`). A result the evaluator rejects turns the
/// status into `error` with the violation.
pub fn run_spdvr(
    engine_name: &str,
    inst: &SpdInstance,
    start: &SpdSolution,
    opts: &SolveOptions,
) -> Result<SolveRecord> {
    let engine = spdvr_engine(engine_name)?;
    let before = check_start(inst, start)?;
    let mut record = SolveRecord::unsolved(&inst.name, "spdvr", engine.name());
    let mut before_map = Map::new();
    before_map.insert("variation_before".into(), json!(before.variation));
    before_map.insert("delay_before".into(), json!(before.delay));
    before_map.insert("hosts_before".into(), json!(before.hosts));
    if !engine.supports(inst.model) {
        record.metrics = before_map;
        record.message = Some(format!(
            "{} does not apply to the {} model",
            engine.name(),
            inst.model
        ));
        return Ok(record);
    }
    let started = Instant::now();
    let outcome = engine.solve(inst, start, opts);
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    fill_spdvr_record(&mut record, inst, start, outcome)?;
    let mut metrics = before_map;
    metrics.append(&mut record.metrics);
    record.metrics = metrics;
    Ok(record)
}

fn fill_spdvr_record(
    record: &mut SolveRecord,
    inst: &SpdInstance,
    start: &SpdSolution,
    outcome: SpdOutcome,
) -> Result<()> {
    record.status = outcome.status;
    record.message = outcome.message;
    record.bound = outcome.bound;
    let Some(sol) = outcome.solution else {
        return Ok(());
    };
    let ev = evaluate_spdvr(inst, start, &sol)?;
    record.solution = serde_json::to_value(&sol).ok();
    record.metrics = metrics_json(&ev.after);
    record
        .metrics
        .insert("feasible".into(), json!(ev.is_feasible()));
    if !ev.is_feasible() {
        record.status = Status::Error;
        let why = ev.all_violations().join("; ");
        record.message = Some(match record.message.take() {
            Some(m) => format!("{m}; the evaluator rejects the solution: {why}"),
            None => format!("the evaluator rejects the solution: {why}"),
        });
        return Ok(());
    }
    let Some(m) = &ev.after.metrics else {
        return Ok(());
    };
    record.objective = Some(m.variation);
    if let Some(b) = record.bound {
        let tol = 1e-6 * m.variation.abs().max(1.0);
        if b > m.variation + tol {
            record.status = Status::Error;
            record.message = Some(format!(
                "claimed bound {b} exceeds the evaluated variation {}",
                m.variation
            ));
        } else {
            record.gap = Some(relative_gap(m.variation, b).max(0.0));
        }
    }
    Ok(())
}
