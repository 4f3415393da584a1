//! Static CMA engines (problems.md §3) and [`run_cma`].
//!
//! | name         | what                                              | function |
//! |--------------|---------------------------------------------------|----------|
//! | `exact-flow` | successive shortest paths on the mirror graph (fast exact) | [`solve_exact_flow`](super::exact_flow::solve_exact_flow) |
//! | `exact`      | the LP on HiGHS (reference)                        | [`solve_cma_lp`](super::exact_lp::solve_cma_lp) |
//! | `j-greedy`   | J-greedy, clients joining in row order             | [`j_greedy`](super::join::j_greedy) |
//! | `j-sa`       | J-SA (incremental), clients joining in row order: exact, `O(n k²)` | [`j_sa`](super::join::j_sa) |
//!
//! An instance with `events` is solved here as the static problem over all
//! its rows (the dynamic problem is [`crate::problems::cma::sim`]). `exact`
//! (the LP) is the reference for small and medium instances: at 100,000 × 20
//! it takes minutes where `exact-flow` takes milliseconds.
//!
//! [`run_cma`] times the engine and has THE evaluator
//! ([`crate::problems::cma::eval`]) score the solution through the shared
//! record filler: objective = total delay; `exact-flow` carries its LP dual
//! bound, `exact` the LP optimum, `j-sa` the LP dual bound of its potentials.

use crate::core::{fill_record, FailureReason, Outcome, SolveOptions, SolveRecord, Status};
use crate::error::{Error, Result};
use crate::problems::cma::eval::{evaluate_cma_static, DEFAULT_THRESHOLD_MS};
use crate::problems::cma::model::{CmaInstance, CmaState};
use crate::problems::cma::moves::MoveGraph;
use crate::problems::cma::{exact_flow, exact_lp, join};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// A static CMA solution: a mirror per client row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CmaSolution {
    /// `assign[i]` = the mirror of client row `i`.
    pub assign: Vec<usize>,
}

/// What a static CMA engine returns.
pub type CmaOutcome = Outcome<Vec<usize>>;

/// A static CMA engine.
pub trait CmaEngine: Sync {
    /// CLI name.
    fn name(&self) -> &'static str;
    /// Runs the engine (capacity already checked).
    fn solve(&self, inst: &CmaInstance, opts: &SolveOptions) -> Result<CmaOutcome>;
}

/// `exact-flow`.
pub struct ExactFlow;
/// `exact` (the LP).
pub struct ExactLp;
/// `j-greedy` (static: joins in row order).
pub struct JGreedy;
/// `j-sa` (static: joins in row order).
pub struct JSa;

impl CmaEngine for ExactFlow {
    fn name(&self) -> &'static str {
        "exact-flow"
    }
    fn solve(&self, inst: &CmaInstance, _opts: &SolveOptions) -> Result<CmaOutcome> {
        Ok(match exact_flow::solve_exact_flow(inst)? {
            Some((assign, bound)) => Outcome::claim(Status::Optimal, assign, Some(bound)),
            None => Outcome::without_solution(Status::Infeasible, "more clients than capacity"),
        })
    }
}

impl CmaEngine for ExactLp {
    fn name(&self) -> &'static str {
        "exact"
    }
    fn solve(&self, inst: &CmaInstance, opts: &SolveOptions) -> Result<CmaOutcome> {
        Ok(exact_lp::solve_cma_lp(inst, opts))
    }
}

impl CmaEngine for JGreedy {
    fn name(&self) -> &'static str {
        "j-greedy"
    }
    fn solve(&self, inst: &CmaInstance, _opts: &SolveOptions) -> Result<CmaOutcome> {
        let mut st = CmaState::empty(inst);
        for i in 0..inst.clients() {
            join::j_greedy(inst, &mut st, i)?;
        }
        Ok(Outcome::found(unwrap_all(st.assignment())?))
    }
}

impl CmaEngine for JSa {
    fn name(&self) -> &'static str {
        "j-sa"
    }
    fn solve(&self, inst: &CmaInstance, _opts: &SolveOptions) -> Result<CmaOutcome> {
        let mut g = MoveGraph::new(inst);
        for i in 0..inst.clients() {
            join::j_sa(&mut g, i)?;
        }
        // J-SA keeps the potentials of an optimal flow after every join: their
        // LP dual bound is the certificate of its optimality claim.
        let clients: Vec<usize> = (0..inst.clients()).collect();
        let bound = exact_flow::dual_bound(inst, &clients, &g.prices());
        Ok(Outcome::claim(
            Status::Optimal,
            unwrap_all(&g.assignment())?,
            Some(bound),
        ))
    }
}

/// Every static CMA engine, in table order.
pub fn cma_engines() -> Vec<Box<dyn CmaEngine>> {
    vec![
        Box::new(ExactFlow),
        Box::new(ExactLp),
        Box::new(JGreedy),
        Box::new(JSa),
    ]
}

/// Names of the static CMA engines, in table order.
pub fn cma_engine_names() -> Vec<&'static str> {
    cma_engines().iter().map(|e| e.name()).collect()
}

/// Looks up a static CMA engine by CLI name.
pub fn cma_engine(name: &str) -> Result<Box<dyn CmaEngine>> {
    cma_engines()
        .into_iter()
        .find(|e| e.name() == name)
        .ok_or_else(|| {
            Error::Usage(format!(
                "unknown CMA engine '{name}' (known: {})",
                cma_engine_names().join(", ")
            ))
        })
}

fn unwrap_all(assign: &[Option<usize>]) -> Result<Vec<usize>> {
    assign
        .iter()
        .enumerate()
        .map(|(i, a)| a.ok_or_else(|| Error::Solver(format!("client {i} left unassigned"))))
        .collect()
}

/// Runs static CMA engine `engine` on `inst` (every row), evaluates the
/// result and builds the solution record. Unknown engines and engine
/// failures give a record with status `error`, a reason and a message.
pub fn run_cma(engine: &str, inst: &CmaInstance, opts: &SolveOptions) -> SolveRecord {
    let e = match cma_engine(engine) {
        Ok(e) => e,
        Err(err) => {
            return SolveRecord::failed(
                &inst.name,
                "cma",
                engine,
                FailureReason::BadInput,
                err.to_string(),
            )
        }
    };
    let mut record = SolveRecord::unsolved(&inst.name, "cma", engine);
    let (n, cap) = (inst.clients(), inst.total_capacity());
    let started = Instant::now();
    let outcome = if n > cap && engine != "exact" {
        Ok(Outcome::without_solution(
            Status::Infeasible,
            format!("{n} clients exceed the total capacity {cap}"),
        ))
    } else {
        e.solve(inst, opts)
    };
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    match outcome {
        Ok(o) => fill_record(&mut record, o.map(|assign| CmaSolution { assign }), |sol| {
            evaluate_cma_static(inst, &sol.assign, DEFAULT_THRESHOLD_MS).verdict()
        }),
        Err(e) => {
            record.reason = Some(FailureReason::SolverError);
            record.message = Some(e.to_string());
        }
    }
    record
}
