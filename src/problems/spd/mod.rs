//! SPD — server selection with a delay bound (seed 001; problems.md §1).
//!
//! Servers on a well-provisioned network, players with an access latency to
//! each server: pick a contact server per player (and a root for
//! client-server sessions) so the session delay stays within μ, using the
//! fewest servers; ties: lower delay, then lower variation.
//!
//! - [`model`]: instances, solutions, the CS/P2P models; [`eval`]: the one
//!   SPD evaluator; [`file`](mod@file): the instance format; [`gen`]: seed 001 §IV's
//!   generator and `--from-matrix`.
//! - The paper's algorithms, one file each, named as the paper names them:
//!   [`algorithm_matching`], [`spdcs_h`], [`spdp2p_h`], [`zizo`] (Lee et
//!   al.), [`k_best`]; [`exact`]: the MILPs on HiGHS.
//! - [`engines`]: the engines by CLI name and [`engines::run_spd`];
//!   [`repro`]: seed 001 §IV's experiment; [`cli`]: `gen spd`, `repro spd`.

pub mod algorithm_matching;
pub mod engines;
pub mod eval;
pub mod exact;
pub mod file;
pub mod gen;
pub mod host_lns;
pub mod host_ls;
pub mod host_search;
pub mod k_best;
pub mod model;
pub mod pings;
pub mod plan;
pub mod spdcs_h;
pub mod spdp2p_h;
pub mod table;
pub mod zizo;

use crate::core::engine;
use crate::core::{
    EvalReport, Family, ForeignEngine, InstanceFeatures, NamedArray, ParamSpec, ProblemInstance,
    SolveOptions, SolveRecord, SolveRow, Source,
};
use crate::error::Result;
use crate::io::solution_file::solution_from_value;
use eval::evaluate_spd;
use model::{SpdInstance, SpdProblem, SpdSolution};
use serde_json::{json, Map, Value};
use std::any::Any;

/// The SPD family.
#[derive(Debug, Clone, Copy)]
pub struct SpdFamily;

/// The registry's handle on the SPD family.
pub static FAMILY: SpdFamily = SpdFamily;

impl Family for SpdFamily {
    fn name(&self) -> &'static str {
        "spd"
    }

    fn problems(&self) -> &'static [&'static str] {
        &["spd"]
    }

    fn reads(&self, file_problem: &str) -> bool {
        matches!(file_problem, "spd" | "spdvr")
    }

    fn parse(
        &self,
        src: &Source,
        _start: Option<&str>,
        _opts: &SolveOptions,
    ) -> Result<Box<dyn ProblemInstance>> {
        let mut inst = file::parse_spd_source(src)?;
        inst.problem = SpdProblem::Spd;
        Ok(Box::new(Instance(inst)))
    }

    fn engines(&self) -> Vec<String> {
        engine::names(engines::ENGINES)
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            engines::KBEST_MAX_SUBSETS,
            engines::LEXICOGRAPHIC,
            host_search::HOST_SEARCH_NODES,
            host_lns::HOST_LNS_NODES,
            host_lns::HOST_LNS_GROUP,
        ]
    }

    fn size_label(&self) -> &'static str {
        "servers × clients"
    }

    fn render_table(&self, rows: &[SolveRow]) -> String {
        table::render(rows, |_| None)
    }
}

/// An SPD instance read from a file.
#[derive(Debug, Clone)]
pub struct Instance(pub SpdInstance);

/// The features of an SPD/SPDVR instance for benchmark rows.
pub fn features(i: &SpdInstance) -> InstanceFeatures {
    let mut f = Map::new();
    f.insert("model".into(), json!(i.model.to_string()));
    f.insert("servers".into(), json!(i.servers()));
    f.insert("clients".into(), json!(i.clients()));
    f.insert("mu".into(), json!(i.bound));
    f.insert("bound_factor".into(), json!(i.bound_factor));
    InstanceFeatures {
        size: (i.servers() * i.clients()) as f64,
        features: f,
    }
}

/// What `eval` prints of an SPD solution.
pub fn eval_report(inst: &SpdInstance, sol: &SpdSolution) -> EvalReport {
    let ev = evaluate_spd(inst, sol);
    let mut lines = vec![(
        "instance".to_string(),
        format!(
            "{} ({}, μ = {:.3} ms, Γ = {:.3} ms)",
            inst.name, inst.model, inst.bound, inst.gamma
        ),
    )];
    if let Some(m) = &ev.metrics {
        if let Some(r) = m.root {
            lines.push(("root".into(), r.to_string()));
        }
        lines.push(("hosts".into(), format!("{} {:?}", m.hosts, m.host_list)));
        lines.push(("delay".into(), format!("{:.3} ms", m.delay)));
        lines.push(("variation".into(), format!("{:.3} ms", m.variation)));
        lines.push(("relays".into(), format!("{} {:?}", m.relays, m.relay_list)));
    }
    EvalReport {
        lines,
        verdict: ev.verdict(),
    }
}

/// A P2P solution from its assignment (a CS solution also needs its root).
pub fn assignment_solution(inst: &SpdInstance, assign: &[usize]) -> Result<Value> {
    if inst.model == model::CommModel::Cs {
        return Err(crate::error::Error::Usage(
            "a CS solution needs its root: give {\"root\": r, \"assign\": [...]}".into(),
        ));
    }
    Ok(json!({ "assign": assign }))
}

impl ProblemInstance for Instance {
    fn family(&self) -> &'static dyn Family {
        &FAMILY
    }

    fn name(&self) -> &str {
        &self.0.name
    }

    fn problem(&self) -> &'static str {
        "spd"
    }

    fn features(&self) -> InstanceFeatures {
        features(&self.0)
    }

    fn applicable_engines(&self) -> Vec<String> {
        engine::in_all(engines::ENGINES, &self.0)
    }

    fn run_engine(&self, name: &str, opts: &SolveOptions) -> SolveRecord {
        engine::run_named(engines::ENGINES, "SPD", &self.0, name, opts)
    }

    fn run_foreign(&self, foreign: &dyn ForeignEngine, opts: &SolveOptions) -> SolveRecord {
        engine::run_foreign(foreign, self, &self.0, opts)
    }

    fn eval_value(&self, solution: Value, file: &str) -> Result<EvalReport> {
        let sol: SpdSolution = solution_from_value(solution, file)?;
        Ok(eval_report(&self.0, &sol))
    }

    fn solution_from_assignment(&self, assign: &[usize]) -> Result<Value> {
        assignment_solution(&self.0, assign)
    }

    fn to_value(&self) -> Result<Value> {
        file::to_value(&self.0)
    }

    fn arrays(&self) -> Vec<NamedArray> {
        file::arrays(&self.0)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
