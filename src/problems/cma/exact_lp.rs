//! `exact` for CMA: the paper's model (seed 002 §2.2) as an LP on HiGHS.
//!
//! `min Σ d(i,j) x_ij` s.t. `Σ_j x_ij = w_i` (every client row, `w_i` its
//! players, 1 without counts), `Σ_i x_ij <= C_j` (every mirror),
//! `0 <= x_ij <= w_i`. The constraint matrix is that of a transportation
//! problem, totally unimodular, so HiGHS's basic optimum is integral; each
//! value is rounded to the nearest integer (a row's rounding error goes to
//! its largest value) and any fractional value is reported. `n·k` columns, `n + k` rows: the reference `exact-flow` must
//! match, not the fast path.

use crate::core::{Ctx, Deadline, FailureReason, Outcome, ParamSpec, SolveOptions, Status};
use crate::lp::highs::{minimise, row_named, Col, MipBuilder, MipSettings};
use crate::lp::model_out::Stage;
use crate::problems::cma::model::CmaInstance;
use good_lp::{variable, Constraint, Expression};

/// The LP refuses instances with more clients × mirrors than this: the
/// model takes about 450 bytes per cell in good_lp and HiGHS (200,000 × 50
/// cells needed 4.2 GB), and `exact-flow` solves the same problem exactly in
/// a fraction of that.
pub const LP_MAX_CELLS: ParamSpec = ParamSpec::count(
    "lp-max-cells",
    2_000_000,
    0,
    u64::MAX,
    "CMA `exact` (the HiGHS LP) refuses more clients × mirrors than this (about 450 bytes each)",
);

/// Rows built between two looks at the clock.
const CLOCK_EVERY: usize = 4096;

/// Solves the static CMA LP over every row: a mirror per row, with the LP
/// optimum as the bound when HiGHS proves it. The time limit covers building
/// the model too; above [`LP_MAX_CELLS`] the engine refuses.
pub fn solve_cma_lp(inst: &CmaInstance, ctx: &Ctx) -> Outcome<Split> {
    let opts = ctx.opts;
    let (n, k) = (inst.clients(), inst.mirrors());
    if let Some(settled) = settled_without_highs(inst, opts) {
        return settled;
    }
    let deadline = &ctx.deadline;
    let mut b = MipBuilder::for_run(deadline);
    let cols: Vec<Col> = (0..n * k)
        .map(|p| {
            let (i, j) = (p / k, p % k);
            b.add_as(variable().min(0.0).max(inst.weight(i) as f64), || {
                format!("x[client {i}, mirror {j}]")
            })
        })
        .collect();
    let objective: Expression = (0..n * k)
        .map(|p| inst.delay(p / k, p % k) * cols[p].var)
        .sum();
    let Some(constraints) = build_constraints(inst, &cols, deadline) else {
        return building_timed_out();
    };
    let settings = MipSettings {
        time_limit: deadline.remaining_secs(),
        deadline: Some(deadline.clone()),
        seed: opts.seed,
        // a pure LP of up to LP_MAX_CELLS columns: no spare copy
        retry_without_presolve: false,
        threads: deadline.io().and_then(|io| io.threads).unwrap_or(1),
        io: deadline.io().cloned(),
        stage: ctx_stage(ctx),
        ..MipSettings::default()
    };
    let r = minimise(b, objective, constraints, None, &settings);
    let mut out = Outcome {
        status: r.status,
        solution: None,
        bound: (r.status == Status::Optimal)
            .then_some(r.objective)
            .flatten(),
        message: r.message.clone(),
        reason: (r.status == Status::Error).then_some(FailureReason::SolverError),
        stop: r.stop,
        solver_status: r.model_status.map(str::to_string),
        stages: Vec::new(),
    };
    let Some(values) = r.values else {
        return out;
    };
    let (assign, fractional) = round_to_split(&values, inst);
    if fractional > 0 {
        out.message = Some(format!(
            "{fractional} client rows have fractional LP values; rounded to integers"
        ));
        if out.status == Status::Optimal {
            out.status = Status::Feasible;
        }
    }
    out.solution = Some(assign);
    out
}

/// The LP's label: `lp`, or for `exact-flow` (which solves a min-cost flow
/// and builds no LP) the same LP as its reference formulation.
fn ctx_stage(ctx: &Ctx) -> Stage {
    let stage = Stage::new("lp", "Σ delay over clients (the CMA LP)");
    match ctx.deadline.io().and_then(|io| io.model_out.as_ref()) {
        Some(m) if m.write_only => Stage::new("reference-lp", "Σ delay over clients").reference(
            "exact-flow solves the CMA as a min-cost flow and builds no LP; this is the \
             CMA LP (engine `exact`), whose optimum is the same",
        ),
        _ => stage,
    }
}

/// When the run writes its models: the CMA LP written (not solved) as the
/// reference formulation of `exact-flow`, which builds no LP.
pub fn write_reference(inst: &CmaInstance, ctx: &Ctx) {
    let Some(io) = ctx.deadline.io().filter(|io| io.model_out.is_some()) else {
        return;
    };
    let mut io = (**io).clone();
    if let Some(m) = &mut io.model_out {
        m.write_only = true;
    }
    let ctx = Ctx {
        opts: ctx.opts,
        deadline: ctx.deadline.clone().with_io(io),
    };
    let _ = solve_cma_lp(inst, &ctx);
}

/// The answer without HiGHS: the refusal above `--lp-max-cells`, or the
/// empty optimum when there are no players (HiGHS is not handed an empty
/// model); `None` otherwise.
fn settled_without_highs(inst: &CmaInstance, opts: &SolveOptions) -> Option<Outcome<Split>> {
    let (n, k) = (inst.clients(), inst.mirrors());
    if let Some(refused) = refuse_above_cell_limit(n, k, opts) {
        return Some(refused);
    }
    (inst.total_players() == 0).then(|| {
        let mut out = Outcome::claim(Status::Optimal, vec![Vec::new(); n], Some(0.0));
        out.message = Some("no players".into());
        out
    })
}

/// The refusal when n × k is above `--lp-max-cells`, `None` otherwise.
fn refuse_above_cell_limit(n: usize, k: usize, opts: &SolveOptions) -> Option<Outcome<Split>> {
    let cap = opts.count(&LP_MAX_CELLS);
    let cells = (n as u64).saturating_mul(k as u64);
    if cells > cap {
        return Some(Outcome::failed(
            FailureReason::Refused,
            format!(
                "refused: {n} × {k} = {cells} cells is above --lp-max-cells {cap} (about {:.1} GB); \
                 exact-flow solves it exactly",
                cells as f64 * 450e-9
            ),
        ));
    }
    None
}

/// One row per client (`Σ_j x_ij = w_i`) and one per mirror (`Σ_i x_ij <=
/// C_j`); `None` when the deadline passes while building them.
fn build_constraints(
    inst: &CmaInstance,
    cols: &[Col],
    deadline: &Deadline,
) -> Option<Vec<Constraint>> {
    let (n, k) = (inst.clients(), inst.mirrors());
    let mut constraints: Vec<Constraint> = Vec::with_capacity(n + k);
    let on = deadline.io().is_some_and(|io| io.model_out.is_some());
    for i in 0..n {
        if i % CLOCK_EVERY == 0 && deadline.expired() {
            return None;
        }
        let row: Expression = (0..k).map(|j| cols[i * k + j].var).sum();
        let players = inst.weight(i) as f64;
        constraints.push(row_named(row.eq(players), on, || {
            format!("assign_client_{i}")
        }));
    }
    for j in 0..k {
        if deadline.expired() {
            return None;
        }
        let col: Expression = (0..n).map(|i| cols[i * k + j].var).sum();
        let cap = col.leq(inst.capacity[j] as f64);
        constraints.push(row_named(cap, on, || format!("capacity_mirror_{j}")));
    }
    Some(constraints)
}

/// Per row, `[mirror, players]` pairs (the split form of a solution).
pub type Split = Vec<Vec<[usize; 2]>>;

/// Each row's LP values rounded to integers (the row's rounding error goes
/// to its largest value, the first on ties), and how many rows had a value
/// more than `1e-6` from an integer.
fn round_to_split(values: &[f64], inst: &CmaInstance) -> (Split, usize) {
    let (n, k) = (inst.clients(), inst.mirrors());
    let mut split = Vec::with_capacity(n);
    let mut fractional = 0usize;
    for i in 0..n {
        let row = &values[i * k..(i + 1) * k];
        let mut pairs: Vec<[usize; 2]> = Vec::new();
        let mut off = false;
        let (mut best, mut sum) = (0usize, 0usize);
        for (j, &x) in row.iter().enumerate() {
            let r = x.round().max(0.0);
            off |= (x - r).abs() > 1e-6;
            if r >= 1.0 {
                if pairs.get(best).is_none_or(|p| r as usize > p[1]) {
                    best = pairs.len();
                }
                pairs.push([j, r as usize]);
                sum += r as usize;
            }
        }
        let w = inst.weight(i);
        if pairs.is_empty() && w > 0 {
            let j = argmax(row);
            pairs.push([j, 0]);
            best = 0;
        }
        if sum != w {
            off = true;
            if let Some(p) = pairs.get_mut(best) {
                p[1] = (p[1] + w).saturating_sub(sum);
            }
        }
        pairs.retain(|p| p[1] > 0);
        fractional += usize::from(off);
        split.push(pairs);
    }
    (split, fractional)
}

/// The index of the largest value (the first on ties).
fn argmax(row: &[f64]) -> usize {
    let mut best = 0;
    for (j, &x) in row.iter().enumerate() {
        if x > row[best] {
            best = j;
        }
    }
    best
}

fn building_timed_out() -> Outcome<Split> {
    Outcome::without_solution(
        Status::TimeLimit,
        "time limit hit while building the LP (exact-flow solves it much faster)",
    )
}
