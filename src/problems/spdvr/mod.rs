//! SPDVR — delay-variation reduction (seed 001 §III-B/C; problems.md §2).
//!
//! From a valid SPD solution (the file's `start`, or `solve --start ENGINE`),
//! reassign players within the same servers (CS: the same root) to minimise
//! the delay variation, keeping the delay within μ.
//!
//! - [`eval`]: the SPDVR evaluator (SPDVR's rules on top of the SPD one).
//! - The paper's algorithms: [`chains`] (SPDVRCS-H: Algorithm 1 + Algorithm
//!   Chains, exact for CS) and [`spdvrp2p_h`] (SPDVRP2P-H: Algorithm 2 with
//!   ConstructL and Reassign); beyond the paper: [`p2p_vr_ls`]; [`exact`]:
//!   the MILPs on HiGHS.
//! - [`engines`]: the engines by CLI name and [`engines::run_spdvr`].

pub mod chains;
pub mod engines;
pub mod eval;
pub mod exact;
pub mod p2p_moves;
pub mod p2p_vr_ls;
pub mod spdvrp2p_h;

use crate::core::engine;
use crate::core::{
    EvalReport, FailureReason, Family, ForeignEngine, InstanceFeatures, NamedArray, ParamSpec,
    ProblemInstance, SolveOptions, SolveRecord, SolveRow, Source,
};
use crate::error::{Error, Result};
use crate::io::solution_file::solution_from_value;
use crate::problems::spd::model::{SpdInstance, SpdProblem, SpdSolution};
use crate::problems::spd::table::{self, Before};
use engines::{start_for, SpdvrRun};
use eval::{check_start, evaluate_spdvr, SpdvrReport};
use serde_json::Value;
use std::any::Any;

/// The SPDVR family.
#[derive(Debug, Clone, Copy)]
pub struct SpdvrFamily;

/// The registry's handle on the SPDVR family.
pub static FAMILY: SpdvrFamily = SpdvrFamily;

impl Family for SpdvrFamily {
    fn name(&self) -> &'static str {
        "spdvr"
    }

    fn problems(&self) -> &'static [&'static str] {
        &["spdvr"]
    }

    fn reads(&self, file_problem: &str) -> bool {
        matches!(file_problem, "spd" | "spdvr")
    }

    fn takes_start(&self) -> bool {
        true
    }

    fn parse(
        &self,
        src: &Source,
        start: Option<&str>,
        opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        let mut inst = crate::problems::spd::file::parse_spd_source(src)?;
        let sol = start_for(&inst, start, opts)?;
        check_start(&inst, &sol).map_err(|e| match e {
            Error::Input(mut ie) => {
                ie.file = src.file.clone();
                Error::Input(ie)
            }
            other => other,
        })?;
        inst.start = Some(sol);
        inst.problem = SpdProblem::Spdvr;
        Ok(Box::new(Instance(inst)))
    }

    fn engines(&self) -> Vec<String> {
        engine::names(engines::engines())
    }

    fn params(&self) -> Vec<ParamSpec> {
        crate::problems::spd::FAMILY.params()
    }

    fn size_label(&self) -> &'static str {
        "servers × clients"
    }

    fn render_table(&self, rows: &[SolveRow]) -> String {
        table::render(rows, |r| {
            serde_json::from_value::<SpdvrReport>(Value::Object(r.metrics.clone()))
                .ok()
                .map(|b| Before {
                    delay: Some(b.delay_before),
                    variation: Some(b.variation_before),
                })
        })
    }
}

/// An SPDVR instance: an SPD instance with a checked start.
#[derive(Debug, Clone)]
pub struct Instance(pub SpdInstance);

impl Instance {
    fn start(&self) -> Option<&SpdSolution> {
        self.0.start.as_ref()
    }

    /// The run's problem: the instance and its start.
    fn run(&self) -> Option<SpdvrRun<'_>> {
        let start = self.start()?;
        Some(SpdvrRun {
            inst: &self.0,
            start,
        })
    }

    fn no_start(&self, engine: &str) -> SolveRecord {
        let msg = "the instance has no start";
        SolveRecord::failed(&self.0.name, "spdvr", engine, FailureReason::BadInput, msg)
    }
}

impl ProblemInstance for Instance {
    fn family(&self) -> &'static dyn Family {
        &FAMILY
    }

    fn name(&self) -> &str {
        &self.0.name
    }

    fn problem(&self) -> &'static str {
        "spdvr"
    }

    fn features(&self) -> InstanceFeatures {
        crate::problems::spd::features(&self.0)
    }

    fn applicable_engines(&self) -> Vec<String> {
        match self.run() {
            Some(run) => engine::in_all(engines::engines(), &run),
            None => Vec::new(),
        }
    }

    fn run_engine(&self, name: &str, opts: &SolveOptions) -> SolveRecord {
        match self.run() {
            Some(run) => engine::run_named(engines::engines(), "SPDVR", &run, name, opts),
            None => self.no_start(name),
        }
    }

    fn run_foreign(&self, foreign: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord {
        match self.run() {
            Some(run) => engine::run_foreign(foreign, self, &run, opts),
            None => self.no_start(foreign.name()),
        }
    }

    fn eval_value(&self, solution: Value, file: &str) -> Result<EvalReport> {
        let sol: SpdSolution = solution_from_value(solution, file)?;
        let mut report = crate::problems::spd::eval_report(&self.0, &sol);
        if let Some(start) = self.start() {
            report.verdict = evaluate_spdvr(&self.0, start, &sol)?.verdict();
        }
        Ok(report)
    }

    fn solution_from_assignment(&self, assign: &[usize]) -> Result<Value> {
        crate::problems::spd::assignment_solution(&self.0, assign)
    }

    fn to_value(&self) -> Result<Value> {
        crate::problems::spd::file::to_value(&self.0)
    }

    fn arrays(&self) -> Vec<NamedArray> {
        crate::problems::spd::file::arrays(&self.0)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
