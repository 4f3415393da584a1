//! SPDVR (problems.md §2): delay-variation reduction from a valid SPD start.
//!
//! Engines by CLI name:
//!
//! | name         | paper name                         | models | module |
//! |--------------|------------------------------------|--------|--------|
//! | `chains`     | SPDVRCS-H (Algorithm 1 + Algorithm Chains), exact for CS | CS | [`chains`](super::chains::chains) |
//! | `spdvrp2p-h` | SPDVRP2P-H (Algorithm 2, ConstructL, Reassign) | P2P | [`spdvrp2p_h`](super::spdvrp2p_h::spdvrp2p_h) |
//! | `p2p-vr-ls`  | beyond the paper: iterated local search on single-client moves | P2P | [`p2p_vr_ls`](super::p2p_vr_ls) |
//! | `exact`      | MILP on HiGHS                      | CS, P2P | [`exact`](super::exact) |
//!
//! [`run_spdvr`] checks the start, times the engine, and has the SPDVR
//! evaluator ([`evaluate_spdvr`]) compute every metric before and after.

use crate::core::{fill_record, metrics_map, FailureReason, SolveOptions, Verdict};
use crate::core::{SolveRecord, Status};
use crate::error::{Error, Result};
use crate::problems::spd::engines::{run_spd, spd_engine, SpdOutcome};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use crate::problems::spdvr::eval::{check_start, evaluate_spdvr, SpdvrReport};
use crate::problems::spdvr::{chains, exact, p2p_vr_ls, spdvrp2p_h};
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
        Box::new(chains::Chains),
        Box::new(spdvrp2p_h::Spdvrp2pH),
        Box::new(p2p_vr_ls::P2pVrLs),
        Box::new(exact::ExactSpdvr),
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

/// The start of an SPDVR run: the instance's `start` when none is named;
/// else, when `start_engine` is an existing file, the solution in it (a
/// `solve --out` solution file or a bare `{"root": .., "assign": [..]}`);
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
    let path = std::path::Path::new(name);
    if path.is_file() {
        return crate::io::solution_file::read_solution::<SpdSolution>(path);
    }
    let engine = spd_engine(name).map_err(|e| {
        Error::Usage(format!(
            "--start {name}: neither a solution file nor an SPD engine ({e})"
        ))
    })?;
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
    if !engine.supports(inst.model) {
        let mut record = SolveRecord::failed(
            &inst.name,
            "spdvr",
            engine.name(),
            FailureReason::NotApplicable,
            format!(
                "{} does not apply to the {} model",
                engine.name(),
                inst.model
            ),
        );
        record.metrics = metrics_map(&SpdvrReport::before_only(&before));
        return Ok(record);
    }
    let mut record = SolveRecord::unsolved(&inst.name, "spdvr", engine.name());
    let started = Instant::now();
    let outcome = engine.solve(inst, start, opts);
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    fill_record(&mut record, outcome, |sol| verdict(inst, start, sol));
    if record.metrics.is_empty() {
        record.metrics = metrics_map(&SpdvrReport::before_only(&before));
    }
    Ok(record)
}

/// The SPDVR evaluator's verdict: objective = the variation after.
fn verdict(inst: &SpdInstance, start: &SpdSolution, sol: &SpdSolution) -> Verdict {
    match evaluate_spdvr(inst, start, sol) {
        Ok(ev) => ev.verdict(),
        Err(e) => Verdict {
            violations: vec![e.to_string()],
            ..Verdict::default()
        },
    }
}
