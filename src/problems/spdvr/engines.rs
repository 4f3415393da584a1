//! SPDVR (problems.md §2): delay-variation reduction from a valid SPD start.
//!
//! Engines by CLI name:
//!
//! | name         | paper name                         | models | module |
//! |--------------|------------------------------------|--------|--------|
//! | `chains`     | SPDVRCS-H (Algorithm 1 + Algorithm Chains), exact for CS | CS | [`chains`](super::chains::chains) |
//! | `spdvrp2p-h` | SPDVRP2P-H (Algorithm 2, ConstructL, Reassign) | P2P | [`spdvrp2p_h`](super::spdvrp2p_h::spdvrp2p_h) |
//! | `p2p-vr-ls`  | beyond the paper: iterated local search on single-client moves | P2P | [`p2p_vr_ls`] |
//! | `exact`      | MILP on HiGHS                      | CS, P2P | [`exact`] |
//!
//! [`run_spdvr`] checks the start, times the engine, and has the SPDVR
//! evaluator ([`evaluate_spdvr`]) compute every metric before and after.

use crate::core::engine::{self, Engine, Engines, Problem};
use crate::core::{metrics_map, SolveOptions, SolveRecord, Status, Verdict};
use crate::error::{Error, Result};
use crate::problems::spd::engines::{run_spd, spd_engine};
use crate::problems::spd::model::{SpdInstance, SpdSolution};
use crate::problems::spdvr::eval::{check_start, evaluate_spdvr, SpdvrReport};
use crate::problems::spdvr::{chains, exact, p2p_vr_ls, spdvrp2p_h};

/// An SPDVR run's problem: the instance and its feasible start (checked by
/// [`run_spdvr`] and the family's reader). Engines return a solution on the
/// start's hosts; `bound` is a proven lower bound on the variation.
#[derive(Debug, Clone, Copy)]
pub struct SpdvrRun<'a> {
    /// The instance.
    pub inst: &'a SpdInstance,
    /// The start (feasible).
    pub start: &'a SpdSolution,
}

/// THE list of SPDVR engines, in table order: a new engine is one line here.
pub fn engines<'a>() -> &'a Engines<'a, SpdvrRun<'a>> {
    &[
        &chains::Chains,
        &spdvrp2p_h::Spdvrp2pH,
        &p2p_vr_ls::P2pVrLs,
        &exact::ExactSpdvr,
    ]
}

/// Names of every SPDVR engine.
pub fn spdvr_engine_names() -> Vec<String> {
    engine::names(engines())
}

/// Looks up an SPDVR engine by CLI name.
pub fn spdvr_engine<'a>(name: &str) -> Result<&'a (dyn Engine<SpdvrRun<'a>> + 'a)> {
    engine::find(engines(), "SPDVR", name)
}

impl Problem for SpdvrRun<'_> {
    type Solution = SpdSolution;

    fn instance_name(&self) -> &str {
        &self.inst.name
    }

    fn problem(&self) -> &'static str {
        "spdvr"
    }

    /// THE SPDVR evaluator's verdict: objective = the variation after.
    fn evaluate(&self, sol: &SpdSolution) -> Verdict {
        match evaluate_spdvr(self.inst, self.start, sol) {
            Ok(ev) => ev.verdict(),
            Err(e) => Verdict {
                violations: vec![e.to_string()],
                ..Verdict::default()
            },
        }
    }

    /// A run without metrics (not applicable, no solution) shows the
    /// start's.
    fn annotate(&self, record: &mut SolveRecord) {
        if record.metrics.is_empty() {
            if let Ok(before) = check_start(self.inst, self.start) {
                record.metrics = metrics_map(&SpdvrReport::before_only(&before));
            }
        }
    }
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
    // its models (with --write-model) are named `<instance>.start-<engine>.…`
    let record = run_spd(
        engine,
        inst,
        &opts.for_run(&inst.name, &format!("start-{name}")),
    );
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
/// Errors: an unknown engine ([`Error::UnknownEngine`]) or an infeasible
/// start ([`Error::Input`], naming why). Otherwise the record (problem
/// `spdvr`, objective = the evaluated variation) carries the metrics after
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
    check_start(inst, start)?;
    Ok(engine::run(engine, &SpdvrRun { inst, start }, opts))
}
