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

use crate::core::engine::{self, Ctx, Engine, Engines, Problem};
use crate::core::{FailureReason, Outcome, SolveOptions, SolveRecord, Status, Verdict};
use crate::error::{Error, Result};
use crate::problems::cma::eval::{
    evaluate_cma_split, evaluate_cma_static, CmaEvaluation, DEFAULT_THRESHOLD_MS,
};
use crate::problems::cma::model::{CmaInstance, CmaState};
use crate::problems::cma::moves::MoveGraph;
use crate::problems::cma::{class_rows, exact_flow, exact_lp, join, transport, weighted};
use serde::{Deserialize, Serialize};

/// A static CMA solution: exactly one of `assign` (a mirror per client
/// row, all of a row's players on it) and `split` (per row, `[mirror,
/// players]` pairs; for instances whose rows count players). Engines give
/// `assign` whenever no row is split, so unit rows keep the unit format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CmaSolution {
    /// `assign[i]` = the mirror of client row `i`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assign: Option<Vec<usize>>,
    /// `split[i]` = `[mirror, players]` pairs of row `i`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Vec<Vec<[usize; 2]>>>,
}

impl CmaSolution {
    /// Every row whole on one mirror.
    pub fn whole(assign: Vec<usize>) -> Self {
        CmaSolution {
            assign: Some(assign),
            split: None,
        }
    }

    /// Rows split over mirrors: `assign` when no row has two mirrors.
    pub fn from_split(split: Vec<Vec<[usize; 2]>>) -> Self {
        if split.iter().all(|p| p.len() == 1) {
            return Self::whole(split.iter().map(|p| p[0][0]).collect());
        }
        CmaSolution {
            assign: None,
            split: Some(split),
        }
    }
}

/// What a static CMA engine returns.
pub type CmaOutcome = Outcome<CmaSolution>;

/// Largest instance (clients × mirrors) on which "all engines" includes the
/// HiGHS LP `exact` (it still runs when named).
pub const LP_MAX_CELLS: usize = 200_000;

/// `exact-flow`.
pub struct ExactFlow;
/// `exact` (the LP).
pub struct ExactLp;
/// `j-greedy` (static: joins in row order).
pub struct JGreedy;
/// `j-sa` (static: joins in row order).
pub struct JSa;

/// THE list of static CMA engines, in table order: a new engine is one
/// line here.
pub static ENGINES: &Engines<'static, CmaInstance> = &[&ExactFlow, &ExactLp, &JGreedy, &JSa];

impl Problem for CmaInstance {
    type Solution = CmaSolution;

    fn instance_name(&self) -> &str {
        &self.name
    }

    fn problem(&self) -> &'static str {
        "cma"
    }

    /// THE CMA evaluator: objective = the total delay.
    fn evaluate(&self, sol: &CmaSolution) -> Verdict {
        evaluate_cma_solution(self, sol, DEFAULT_THRESHOLD_MS).verdict()
    }
}

/// THE evaluator on either form of a solution; a solution with both forms
/// or neither is reported, not guessed at.
pub fn evaluate_cma_solution(
    inst: &CmaInstance,
    sol: &CmaSolution,
    threshold: f64,
) -> CmaEvaluation {
    match (&sol.assign, &sol.split) {
        (Some(a), None) => evaluate_cma_static(inst, a, threshold),
        (None, Some(s)) => evaluate_cma_split(inst, s, threshold),
        (a, _) => {
            let mut ev = evaluate_cma_static(inst, &[], threshold);
            ev.violations = vec![if a.is_some() {
                "give one of assign and split, not both".to_string()
            } else {
                "expected {\"assign\": [mirror per row]} or {\"split\": [[[mirror, players], …] per row]}".to_string()
            }];
            ev
        }
    }
}

/// `Some(infeasible)` when the rows exceed the total capacity (the engines
/// that assume room check this first).
fn over_capacity(inst: &CmaInstance) -> Option<CmaOutcome> {
    let (n, cap) = (inst.total_players(), inst.total_capacity());
    (n > cap).then(|| {
        Outcome::without_solution(
            Status::Infeasible,
            format!("{n} players exceed the total capacity {cap}"),
        )
    })
}

/// An engine's result, or its failure as an `error` outcome.
fn settle(result: Result<CmaOutcome>) -> CmaOutcome {
    result.unwrap_or_else(|e| Outcome::failed(FailureReason::SolverError, e.to_string()))
}

impl Engine<CmaInstance> for ExactFlow {
    fn name(&self) -> &str {
        "exact-flow"
    }
    fn solve(&self, inst: &CmaInstance, ctx: &Ctx) -> CmaOutcome {
        if let Some(out) = over_capacity(inst) {
            return out;
        }
        exact_lp::write_reference(inst, ctx);
        // The grouping, the start and the bound run on rayon: `--threads`
        // sizes the pool.
        use crate::lp::model_out::install;
        if inst.is_weighted() {
            return settle(install(&ctx.deadline, || exact_flow_weighted(inst)));
        }
        let found = install(&ctx.deadline, || exact_flow::solve_exact_flow(inst));
        settle(found.map(|found| match found {
            Some((assign, bound)) => {
                Outcome::claim(Status::Optimal, CmaSolution::whole(assign), Some(bound))
            }
            None => Outcome::without_solution(Status::Infeasible, "more clients than capacity"),
        }))
    }
}

/// `exact-flow` on rows with player counts: over the rows' shift classes
/// ([`class_rows::solve_players_by_classes`], certified), else the network
/// simplex ([`transport`]); the bound from the split's dual prices.
fn exact_flow_weighted(inst: &CmaInstance) -> Result<CmaOutcome> {
    let cap = &inst.capacity;
    // Anything the classes do not certify, an internal error included, is
    // left to the simplex, which does not depend on them.
    if let Ok(Some(c)) = class_rows::solve_players_by_classes(inst) {
        let solution = CmaSolution::from_split(c.solution);
        return Ok(Outcome::claim(Status::Optimal, solution, Some(c.bound)));
    }
    Ok(match transport::solve_transport(inst, cap)? {
        Some((split, prices)) => {
            let rows: Vec<usize> = (0..inst.clients()).collect();
            let bound = exact_flow::dual_bound(inst, &rows, &prices);
            Outcome::claim(Status::Optimal, CmaSolution::from_split(split), Some(bound))
        }
        None => Outcome::without_solution(Status::Infeasible, "more players than capacity"),
    })
}

impl Engine<CmaInstance> for ExactLp {
    fn name(&self) -> &str {
        "exact"
    }
    fn in_all(&self, inst: &CmaInstance) -> bool {
        inst.clients().saturating_mul(inst.mirrors()) <= LP_MAX_CELLS
    }
    fn solve(&self, inst: &CmaInstance, ctx: &Ctx) -> CmaOutcome {
        exact_lp::solve_cma_lp(inst, ctx).map(CmaSolution::from_split)
    }
}

impl Engine<CmaInstance> for JGreedy {
    fn name(&self) -> &str {
        "j-greedy"
    }
    fn solve(&self, inst: &CmaInstance, _ctx: &Ctx) -> CmaOutcome {
        if let Some(out) = over_capacity(inst) {
            return out;
        }
        if inst.is_weighted() {
            return settle(
                weighted::j_greedy_weighted(inst)
                    .map(|split| Outcome::found(CmaSolution::from_split(split))),
            );
        }
        let mut st = CmaState::empty(inst);
        settle((|| {
            for i in 0..inst.clients() {
                join::j_greedy(inst, &mut st, i)?;
            }
            let assign = unwrap_all(st.assignment())?;
            Ok(Outcome::found(CmaSolution::whole(assign)))
        })())
    }
}

impl Engine<CmaInstance> for JSa {
    fn name(&self) -> &str {
        "j-sa"
    }
    fn solve(&self, inst: &CmaInstance, _ctx: &Ctx) -> CmaOutcome {
        if let Some(out) = over_capacity(inst) {
            return out;
        }
        if inst.is_weighted() {
            return j_sa_expanded(inst).unwrap_or_else(|e| {
                let reason = match e {
                    Error::Usage(_) => FailureReason::Refused,
                    _ => FailureReason::SolverError,
                };
                Outcome::failed(reason, e.to_string())
            });
        }
        settle(j_sa_rows(inst).map(|(assign, bound)| {
            Outcome::claim(Status::Optimal, CmaSolution::whole(assign), Some(bound))
        }))
    }
}

/// J-SA joining every row in order: the assignment and the LP dual bound of
/// its potentials.
fn j_sa_rows(inst: &CmaInstance) -> Result<(Vec<usize>, f64)> {
    let mut g = MoveGraph::new(inst);
    for i in 0..inst.clients() {
        join::j_sa(&mut g, i)?;
    }
    // J-SA keeps the potentials of an optimal flow after every join:
    // their LP dual bound is the certificate of its optimality claim.
    let clients: Vec<usize> = (0..inst.clients()).collect();
    let bound = exact_flow::dual_bound(inst, &clients, &g.prices());
    Ok((unwrap_all(&g.assignment())?, bound))
}

/// J-SA on weighted rows: every player joins in row order (the expanded
/// instance, [`weighted::expand`]); the bound is its dual bound.
fn j_sa_expanded(inst: &CmaInstance) -> Result<CmaOutcome> {
    let (unit, origin) = weighted::expand(inst)?;
    let (assign, bound) = j_sa_rows(&unit)?;
    let split = weighted::collapse(inst.clients(), &origin, &assign);
    Ok(Outcome::claim(
        Status::Optimal,
        CmaSolution::from_split(split),
        Some(bound),
    ))
}

/// Names of the static CMA engines, in table order.
pub fn cma_engine_names() -> Vec<String> {
    engine::names(ENGINES)
}

/// Looks up a static CMA engine by CLI name.
pub fn cma_engine(name: &str) -> Result<&'static dyn Engine<CmaInstance>> {
    engine::find(ENGINES, "CMA", name)
}

fn unwrap_all(assign: &[Option<usize>]) -> Result<Vec<usize>> {
    assign
        .iter()
        .enumerate()
        .map(|(i, a)| a.ok_or_else(|| Error::Solver(format!("client {i} left unassigned"))))
        .collect()
}

/// Runs static CMA engine `engine` on `inst` (every row) through the one
/// runner. Unknown engines and engine failures give a record with status
/// `error`, a reason and a message.
pub fn run_cma(engine: &str, inst: &CmaInstance, opts: &SolveOptions) -> SolveRecord {
    engine::run_named(ENGINES, "CMA", inst, engine, opts)
}
