//! Static CMA engines (problems.md §3) and the record builder.
//!
//! | name         | what                                              | module |
//! |--------------|---------------------------------------------------|--------|
//! | `exact-flow` | successive shortest paths on the mirror graph (fast exact) | [`exact::cma_flow`](crate::engine::exact::cma_flow) |
//! | `exact`      | the LP on HiGHS (reference)                        | [`exact::cma_lp`](crate::engine::exact::cma_lp) |
//! | `greedy`     | J-greedy, clients joining in row order             | [`heuristic::cma_join`](crate::engine::heuristic::cma_join) |
//! | `j-sa`       | J-SA (incremental), clients joining in row order: exact, `O(n k²)` | [`heuristic::cma_join`](crate::engine::heuristic::cma_join) |
//!
//! An instance with `events` is solved here as the static problem over all
//! its rows (the dynamic problem is [`crate::engine::cma_sim`]). `exact` (the
//! LP) is the reference for small and medium instances: at 100,000 × 20 it
//! takes minutes where `exact-flow` takes milliseconds.
//!
//! [`run_cma`] times the engine, re-checks the solution with THE evaluator
//! ([`crate::model::cma_eval`]) and fills a [`SolveRecord`]: objective = total
//! delay; `exact-flow` carries its LP dual bound, `exact` the LP optimum.

use crate::engine::cma_moves::MoveGraph;
use crate::engine::exact::{cma_flow, cma_lp};
use crate::engine::heuristic::cma_join;
use crate::engine::SolveOptions;
use crate::error::{Error, Result};
use crate::model::cma::{CmaInstance, CmaState};
use crate::model::cma_eval::{cma_metrics_json, evaluate_cma_static, DEFAULT_THRESHOLD_MS};
use crate::model::{relative_gap, SolveRecord, Status};
use serde_json::json;
use std::time::Instant;

/// Names of the static CMA engines, in table order.
pub fn cma_engine_names() -> Vec<&'static str> {
    vec!["exact-flow", "exact", "greedy", "j-sa"]
}

/// Errs with the list of engines when `name` is not a static CMA engine.
pub fn check_cma_engine(name: &str) -> Result<()> {
    if cma_engine_names().contains(&name) {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "unknown CMA engine '{name}' (known: {})",
            cma_engine_names().join(", ")
        )))
    }
}

/// An engine's answer before evaluation.
struct Outcome {
    status: Status,
    assign: Option<Vec<usize>>,
    bound: Option<f64>,
    message: Option<String>,
}

impl Outcome {
    fn of(status: Status, assign: Vec<usize>, bound: Option<f64>) -> Self {
        Outcome {
            status,
            assign: Some(assign),
            bound,
            message: None,
        }
    }

    fn status(status: Status, message: impl Into<String>) -> Self {
        Outcome {
            status,
            assign: None,
            bound: None,
            message: Some(message.into()),
        }
    }
}

fn dispatch(name: &str, inst: &CmaInstance, opts: &SolveOptions) -> Result<Outcome> {
    let (n, cap) = (inst.clients(), inst.total_capacity());
    if n > cap && name != "exact" {
        return Ok(Outcome::status(
            Status::Infeasible,
            format!("{n} clients exceed the total capacity {cap}"),
        ));
    }
    Ok(match name {
        "exact-flow" => match cma_flow::solve_exact_flow(inst)? {
            Some((assign, bound)) => Outcome::of(Status::Optimal, assign, Some(bound)),
            None => Outcome::status(Status::Infeasible, "more clients than capacity"),
        },
        "exact" => {
            let r = cma_lp::solve_cma_lp(inst, opts);
            Outcome {
                status: r.status,
                assign: r.assign,
                bound: r.bound,
                message: r.message,
            }
        }
        "greedy" => {
            let mut st = CmaState::empty(inst);
            for i in 0..n {
                cma_join::j_greedy(inst, &mut st, i)?;
            }
            Outcome::of(Status::Feasible, unwrap_all(st.assignment())?, None)
        }
        "j-sa" => {
            let mut g = MoveGraph::new(inst);
            for i in 0..n {
                cma_join::j_sa(&mut g, i)?;
            }
            Outcome::of(Status::Optimal, unwrap_all(&g.assignment())?, None)
        }
        other => {
            return Err(check_cma_engine(other)
                .err()
                .unwrap_or(Error::Usage(other.into())))
        }
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
/// failures give a record with status `error` and a message.
pub fn run_cma(engine: &str, inst: &CmaInstance, opts: &SolveOptions) -> SolveRecord {
    let mut record = SolveRecord::unsolved(&inst.name, "cma", engine);
    let started = Instant::now();
    let outcome = dispatch(engine, inst, opts);
    record.time_ms = started.elapsed().as_secs_f64() * 1e3;
    match outcome {
        Ok(o) => fill(&mut record, inst, o),
        Err(e) => record.message = Some(e.to_string()),
    }
    record
}

fn fill(record: &mut SolveRecord, inst: &CmaInstance, o: Outcome) {
    record.status = o.status;
    record.message = o.message;
    let Some(assign) = o.assign else {
        return;
    };
    let ev = evaluate_cma_static(inst, &assign, DEFAULT_THRESHOLD_MS);
    record.metrics = cma_metrics_json(&ev);
    record.solution = Some(json!({ "assign": assign }));
    if !ev.is_feasible() {
        record.status = Status::Error;
        record.message = Some(format!(
            "the evaluator rejects the solution: {}",
            ev.violations.join("; ")
        ));
        return;
    }
    let total = ev.metrics.total_delay;
    record.objective = Some(total);
    let Some(bound) = o.bound else {
        return;
    };
    let tol = inst.tolerance() * (inst.clients() as f64).max(1.0).sqrt();
    record.bound = Some(bound);
    record.gap = Some(relative_gap(total, bound).max(0.0));
    if bound > total + tol {
        record.status = Status::Error;
        record.message = Some(format!(
            "claimed bound {bound} exceeds the evaluated total delay {total}"
        ));
    } else if record.status == Status::Optimal && total - bound > tol.max(1e-9 * total.abs()) {
        record.status = Status::Feasible;
        record.message = Some(format!(
            "the dual bound {bound} does not prove the total {total} optimal"
        ));
    }
}
