//! `milp`: the strong formulation on HiGHS for one `K` — binaries `y_j`,
//! `x_ij ∈ [0, 1]` the share of row `i`'s `w_i` players on `j` (cost
//! `w_i d_ij`, load `w_i x_ij`; integral in players once `y` is: the rest
//! is a transportation problem) — with HiGHS's status, bound and gap, started from the best
//! heuristic set. `n·k` columns and `n·k + n + k + 1` rows: the reference
//! on small instances; `exact` proves large ones far faster.

use super::exact::PointResult;
use super::{Planner, SetEval};
use crate::core::Deadline;
use crate::error::Result;
use crate::lp::highs::{minimise, Col, MipBuilder, MipSettings};
use crate::lp::model_out::{SolverIo, Stage};
use good_lp::{constraint, variable, Constraint, Expression};
use std::time::Instant;

/// The strong formulation's columns (`y`, then `x` row-major), objective
/// and rows.
fn strong_formulation(
    planner: &Planner<'_>,
    k: usize,
    b: &mut MipBuilder,
) -> (Vec<Col>, Vec<Col>, Expression, Vec<Constraint>) {
    let inst = planner.inst;
    let (n, m) = (inst.clients(), inst.mirrors());
    let y: Vec<Col> = (0..m)
        .map(|j| b.add_as(variable().binary(), || format!("y[mirror {j}]")))
        .collect();
    let x: Vec<Col> = (0..n * m)
        .map(|p| {
            let (i, j) = (p / m, p % m);
            b.add_as(variable().min(0.0).max(1.0), || {
                format!("x[client {i}, mirror {j}]")
            })
        })
        .collect();
    let objective: Expression = (0..n * m)
        .map(|p| inst.weight(p / m) as f64 * inst.delay(p / m, p % m) * x[p].var)
        .chain((0..m).map(|j| planner.cost[j] * y[j].var))
        .sum();
    let mut cons: Vec<Constraint> = Vec::with_capacity(n * m + n + m + 1);
    for i in 0..n {
        let row: Expression = (0..m).map(|j| x[i * m + j].var).sum();
        cons.push(b.row(constraint!(row == 1.0), || format!("assign_client_{i}")));
        for j in 0..m {
            let open = constraint!(x[i * m + j].var <= y[j].var);
            cons.push(b.row(open, || format!("open_client_{i}_mirror_{j}")));
        }
    }
    for j in 0..m {
        let load: Expression = (0..n)
            .map(|i| inst.weight(i) as f64 * x[i * m + j].var)
            .sum();
        let cap = constraint!(load <= inst.capacity[j] as f64 * y[j].var);
        cons.push(b.row(cap, || format!("capacity_mirror_{j}")));
    }
    let count: Expression = y.iter().map(|c| c.var).sum();
    cons.push(b.row(constraint!(count == k as f64), || "open_k".into()));
    (y, x, objective, cons)
}

/// The column values of a start set and its assignment (`x_ij` = the share
/// of row `i`'s players on `j`).
fn start_values(planner: &Planner<'_>, w: &SetEval, y: &[Col], x: &[Col]) -> Vec<f64> {
    let m = planner.mirrors();
    let mut v = vec![0.0; y.len() + x.len()];
    for &j in &w.open {
        v[y[j].idx] = 1.0;
    }
    for (i, pairs) in w.split.iter().enumerate() {
        let players = planner.inst.weight(i).max(1) as f64;
        for &[j, c] in pairs {
            v[x[i * m + j].idx] = c as f64 / players;
        }
    }
    v
}

/// Solves `K` with HiGHS; the opened set's assignment is then the
/// transportation optimum (`warm`: a start set).
pub fn solve_milp(
    planner: &mut Planner<'_>,
    k: usize,
    warm: Option<&SetEval>,
    (time_limit, io): (Option<f64>, &SolverIo),
) -> Result<PointResult> {
    let t = Instant::now();
    let m = planner.inst.mirrors();
    let dl = Deadline::none().with_io(io.clone());
    let mut b = MipBuilder::for_run(&dl);
    let (y, x, objective, cons) = strong_formulation(planner, k, &mut b);
    let start = warm.map(|w| start_values(planner, w, &y, &x));
    let settings = MipSettings {
        time_limit,
        rel_gap: 1e-9,
        threads: io.threads.unwrap_or(1),
        io: Some(std::sync::Arc::new(io.clone())),
        stage: Stage::new(format!("k{k}"), "Σ delay + Σ open cost with K mirrors open"),
        ..MipSettings::default()
    };
    let r = minimise(b, objective, cons, start.as_deref(), &settings);
    let best = match &r.values {
        Some(vals) => {
            let open: Vec<usize> = (0..m)
                .filter(|&j| vals.get(y[j].idx).is_some_and(|&v| v > 0.5))
                .collect();
            planner.evaluate(&open)?
        }
        None => None,
    };
    Ok(PointResult {
        k,
        status: r.status,
        best,
        bound: r.bound,
        nodes: 0,
        time_ms: t.elapsed().as_secs_f64() * 1e3,
        proof: (r.status == crate::core::Status::Optimal).then_some("milp"),
    })
}
