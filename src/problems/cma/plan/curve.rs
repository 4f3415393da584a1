//! The planning runs: one `K`, every `K` (the curve), or the fewest mirrors
//! whose optimal average delay is at most `D`.

use super::exact::{solve_k, ExactSettings, PointResult};
use super::fastswap::local_search;
use super::greedy::{greedy, greedy_set};
use super::lagrange::Lagrangian;
use super::milp::solve_milp;
use super::swap::{swap, swap_from};
use super::{Planner, PLAN_ENGINES};
use crate::core::{interrupt, Status};
use crate::error::{Error, Result};
use crate::problems::cma::model::CmaInstance;
use std::time::{Duration, Instant};

/// What to plan.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// `exact`, `greedy` or `swap`.
    pub engine: String,
    /// One `K` (`--mirrors`); `None` = every `K`.
    pub mirrors: Option<usize>,
    /// The curve (or the `--max-avg-delay` search) only up to this `K`
    /// (`--max-mirrors`); `None` = every candidate.
    pub max_mirrors: Option<usize>,
    /// The fewest mirrors reaching this average delay (`--max-avg-delay`);
    /// open costs are then ignored (the objective is the delay).
    pub max_avg_delay: Option<f64>,
    /// The exact engine's settings (gap, iterations).
    pub exact: ExactSettings,
    /// Wall-time limit of the whole run, seconds.
    pub time_limit: Option<f64>,
    /// Report each point on stderr.
    pub progress: bool,
    /// Models out, HiGHS log, threads of the `milp` engine.
    pub io: crate::lp::model_out::SolverIo,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            engine: "exact".into(),
            mirrors: None,
            max_mirrors: None,
            max_avg_delay: None,
            exact: ExactSettings::default(),
            time_limit: None,
            progress: false,
            io: Default::default(),
        }
    }
}

/// A finished plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Engine used.
    pub engine: String,
    /// One point per `K` computed, ascending.
    pub points: Vec<PointResult>,
    /// The `K` whose solution is the answer (`--mirrors`, the
    /// `--max-avg-delay` answer, or the least objective on the curve);
    /// `None` when no point qualifies.
    pub chosen: Option<usize>,
    /// Whether opening costs were part of the objective.
    pub with_costs: bool,
    /// Transportation problems solved.
    pub evaluations: usize,
    /// Wall time, milliseconds.
    pub time_ms: f64,
}

impl Plan {
    /// The point of `k`.
    pub fn point(&self, k: usize) -> Option<&PointResult> {
        self.points.iter().find(|p| p.k == k)
    }
}

/// Checks the options against the instance; errors name the flag.
pub fn check_options(inst: &CmaInstance, o: &PlanOptions) -> Result<()> {
    if !PLAN_ENGINES.contains(&o.engine.as_str()) {
        return Err(Error::Usage(format!(
            "--engine {}: expected one of {}",
            o.engine,
            PLAN_ENGINES.join(", ")
        )));
    }
    let in_range = |flag: &str, k: usize| {
        if k == 0 || k > inst.mirrors() {
            return Err(Error::Usage(format!(
                "{flag} {k}: expected 1 to {} (the instance's candidate mirrors)",
                inst.mirrors()
            )));
        }
        Ok(())
    };
    let exclusive = |a: &str, b: &str| Error::Usage(format!("{a} and {b} exclude each other"));
    if let Some(k) = o.mirrors {
        in_range("--mirrors", k)?;
        if o.max_avg_delay.is_some() {
            return Err(exclusive("--mirrors", "--max-avg-delay"));
        }
        if o.max_mirrors.is_some() {
            return Err(exclusive("--mirrors", "--max-mirrors"));
        }
    }
    if let Some(k) = o.max_mirrors {
        in_range("--max-mirrors", k)?;
    }
    if let Some(d) = o.max_avg_delay {
        if !(d.is_finite() && d >= 0.0) {
            return Err(Error::Usage(format!(
                "--max-avg-delay {d}: expected a finite delay >= 0"
            )));
        }
    }
    let g = o.exact.gap;
    if !(g.is_finite() && (0.0..1.0).contains(&g)) {
        return Err(Error::Usage(format!("--gap {g}: expected 0 <= gap < 1")));
    }
    Ok(())
}

/// Runs the plan.
pub fn plan(inst: &CmaInstance, o: &PlanOptions) -> Result<Plan> {
    plan_with(inst, o, &[], &mut |_| Ok(()))
}

/// Runs the plan, taking the points in `done` as settled (a resumed run:
/// re-proves none of them) and handing each new point to `settled` as soon
/// as it is (`plan cma` appends it to `points.jsonl`).
pub fn plan_with(
    inst: &CmaInstance,
    o: &PlanOptions,
    done: &[PointResult],
    settled: &mut dyn FnMut(&PointResult) -> Result<()>,
) -> Result<Plan> {
    check_options(inst, o)?;
    let start = Instant::now();
    let mut planner = planner_for(inst, o);
    let with_costs = planner.cost.iter().any(|&c| c > 0.0);
    let mut exact = o.exact;
    exact.deadline = o
        .time_limit
        .map(|t| start + Duration::from_secs_f64(t.min(1e9)));
    let cost = planner.cost.clone();
    let mut lag = Lagrangian::new(inst, &cost);
    let mut lambda = lag.initial_lambda();
    let last = o.max_mirrors.unwrap_or(inst.mirrors());
    let ks: Vec<usize> = o.mirrors.map_or_else(|| (1..=last).collect(), |k| vec![k]);
    let mut points: Vec<PointResult> = Vec::new();
    let mut chosen = None;
    for k in ks {
        let prev = points.last().and_then(|p| p.best.as_ref());
        let mut ctx = PointCtx {
            planner: &mut planner,
            lag: &mut lag,
            lambda: &mut lambda,
            exact,
            io: &o.io,
        };
        let p = match done.iter().find(|p| p.k == k) {
            Some(p) => p.clone(),
            None => next_point(&mut ctx, o, k, prev.map(|b| b.open.clone()), start, settled)?,
        };
        let tol = planner.tolerance();
        let avg = |b: &super::SetEval| b.delay / inst.total_players().max(1) as f64;
        let stop = o
            .max_avg_delay
            .is_some_and(|d| p.best.as_ref().is_some_and(|b| avg(b) <= d + tol));
        points.push(p);
        if stop {
            chosen = Some(k);
            break;
        }
    }
    if o.max_avg_delay.is_none() {
        chosen = o.mirrors.or_else(|| least_objective(&points));
    }
    Ok(Plan {
        engine: o.engine.clone(),
        points,
        chosen,
        with_costs,
        evaluations: planner.evaluations,
        time_ms: start.elapsed().as_secs_f64() * 1e3,
    })
}

/// The point of `k` in a running plan: solved, or, past the run's deadline
/// (or after Ctrl-C), reported at once unsolved instead of costing a search.
fn next_point(
    ctx: &mut PointCtx<'_, '_>,
    o: &PlanOptions,
    k: usize,
    prev: Option<Vec<usize>>,
    start: Instant,
    settled: &mut dyn FnMut(&PointResult) -> Result<()>,
) -> Result<PointResult> {
    if ctx.exact.deadline.is_some_and(|d| Instant::now() >= d) || interrupt::interrupted() {
        return Ok(unreached(ctx.planner, k));
    }
    let p = point(ctx, &o.engine, k, prev)?;
    if o.progress {
        eprintln!("{}", progress_line(&p, ctx.planner.players(), start));
    }
    settled(&p)?;
    Ok(p)
}

/// The planner of a run (`--max-avg-delay` ignores opening costs).
fn planner_for<'a>(inst: &'a CmaInstance, o: &PlanOptions) -> Planner<'a> {
    let mut planner = Planner::new(inst);
    if o.max_avg_delay.is_some() {
        planner.cost = vec![0.0; inst.mirrors()];
    }
    planner
}

/// A point the run's time limit (or an interrupt) left unsolved.
/// `K`s that cannot hold every player are `infeasible`; the others carry
/// the cheap bound: every player at its nearest candidate (whichever are
/// open) plus the `K` least opening costs, `O(n·m)` once per run.
pub fn unreached(planner: &mut Planner<'_>, k: usize) -> PointResult {
    let mut p = PointResult {
        k,
        status: Status::TimeLimit,
        best: None,
        bound: None,
        nodes: 0,
        time_ms: 0.0,
        proof: None,
    };
    if !planner.k_feasible(k) {
        p.status = Status::Infeasible;
        return p;
    }
    let nearest = *planner.nearest_total.get_or_insert_with(|| {
        let inst = planner.inst;
        (0..inst.clients())
            .map(|i| {
                let best = inst.row(i).iter().copied().fold(f64::INFINITY, f64::min);
                inst.weight(i) as f64 * best
            })
            .sum()
    });
    let mut costs = planner.cost.clone();
    costs.sort_by(f64::total_cmp);
    p.bound = Some(nearest + costs.iter().take(k).sum::<f64>());
    p
}

/// The `K` with the least objective (lowest `K` on ties).
fn least_objective(points: &[PointResult]) -> Option<usize> {
    points
        .iter()
        .filter_map(|p| p.best.as_ref().map(|b| (b.objective, p.k)))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, k)| k)
}

struct PointCtx<'c, 'a> {
    planner: &'c mut Planner<'a>,
    lag: &'c mut Lagrangian<'a>,
    lambda: &'c mut Vec<f64>,
    exact: ExactSettings,
    io: &'c crate::lp::model_out::SolverIo,
}

/// One point of the curve with `engine`; `prev` is the previous point's
/// set (a warm start for `exact`: it plus the best single added mirror).
fn point(
    c: &mut PointCtx<'_, '_>,
    engine: &str,
    k: usize,
    prev: Option<Vec<usize>>,
) -> Result<PointResult> {
    let t = Instant::now();
    let heuristic = |best: Option<super::SetEval>| PointResult {
        k,
        status: if best.is_some() {
            Status::Feasible
        } else {
            Status::Infeasible
        },
        best,
        bound: None,
        nodes: 0,
        time_ms: t.elapsed().as_secs_f64() * 1e3,
        proof: None,
    };
    match engine {
        "greedy" => Ok(heuristic(greedy(c.planner, k)?)),
        "swap" => Ok(heuristic(swap(c.planner, k)?)),
        "milp" => {
            if !c.planner.k_feasible(k) {
                return Ok(heuristic(None));
            }
            let warm = match greedy_set(c.planner, k) {
                Some(g) => c.planner.evaluate(&fast_local(c.planner, &g))?,
                None => None,
            };
            let limit = c
                .exact
                .deadline
                .map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64());
            solve_milp(c.planner, k, warm.as_ref(), (limit, c.io))
        }
        _ => {
            let warm = exact_warm_starts(c.planner, k, prev)?;
            let handover = milp_handover(c.planner);
            let mut exact = c.exact;
            if handover {
                exact.node_budget = exact.node_budget.or(Some(MILP_AFTER_NODES));
            }
            let mut r = solve_k(c.planner, c.lag, k, &warm, c.lambda, exact)?;
            let out_of_time = c.exact.deadline.is_some_and(|d| Instant::now() >= d);
            if handover
                && r.status == Status::TimeLimit
                && !out_of_time
                && !interrupt::interrupted()
            {
                r = finish_with_milp(c, k, r)?;
            }
            r.time_ms = t.elapsed().as_secs_f64() * 1e3;
            Ok(r)
        }
    }
}

/// The warm starts of `exact` at `k`: the greedy set and the previous
/// point's set plus each best single mirror, each also improved by
/// [`fast_local`], and on small instances a few swaps from the first.
fn exact_warm_starts(
    planner: &mut Planner<'_>,
    k: usize,
    prev: Option<Vec<usize>>,
) -> Result<Vec<Vec<usize>>> {
    let mut warm: Vec<Vec<usize>> = greedy_set(planner, k).into_iter().collect();
    if let Some(p) = prev {
        warm.extend(extend_by_one(planner, &p)?);
    }
    let starts = warm.clone();
    warm.extend(starts.iter().map(|s| fast_local(planner, s)));
    if planner.inst.clients() * planner.mirrors() <= 20_000 {
        if let Some(s) = warm.first().cloned() {
            warm.extend(swap_from(planner, s, 3)?.map(|e| e.open));
        }
    }
    Ok(warm)
}

/// `exact` hands a point to HiGHS (the strong formulation, warm-started
/// from the tree's incumbent) after this many nodes, where that is allowed
/// ([`milp_handover`]). The Lagrangian tree can stall where the LP bound
/// lies exactly on an integer just below the optimum (500 sites, K = 160:
/// bound 8,074, optimum 8,075; 490,000 nodes in 84 s did not close it),
/// while HiGHS's cuts prove it in 17 s. 50,000 nodes cost about 10 s at
/// 500 sites; every point of the benches needs fewer.
const MILP_AFTER_NODES: usize = 50_000;

/// Largest `clients × candidates` for the handover: the strong formulation
/// has that many columns and rows (500 sites: 1.6 GB peak in HiGHS; at
/// 1,000 sites HiGHS needs minutes and 3–4.5 GB, and the tree stays).
const MILP_HANDOVER_CELLS: usize = 300_000;

/// Whether `exact` may hand a long tree to HiGHS: no capacity can bind
/// (where the stall above was seen; capacitated trees keep going) and the
/// formulation is small enough.
fn milp_handover(planner: &Planner<'_>) -> bool {
    let inst = planner.inst;
    let cells = inst.clients().saturating_mul(inst.mirrors());
    let players = planner.players();
    cells <= MILP_HANDOVER_CELLS && inst.capacity.iter().all(|&c| c >= players)
}

/// Finishes a point whose tree hit its node budget with HiGHS in the
/// remaining time: the better incumbent, the larger bound, `optimal` (proof
/// `milp`) when HiGHS proves it, else `time_limit`.
fn finish_with_milp(c: &mut PointCtx<'_, '_>, k: usize, tree: PointResult) -> Result<PointResult> {
    let limit = c
        .exact
        .deadline
        .map(|d| d.saturating_duration_since(Instant::now()).as_secs_f64());
    let m = solve_milp(c.planner, k, tree.best.as_ref(), (limit, c.io))?;
    let objective = |p: &PointResult| p.best.as_ref().map_or(f64::INFINITY, |b| b.objective);
    let best = if objective(&m) < objective(&tree) {
        m.best
    } else {
        tree.best
    };
    let ub = best.as_ref().map_or(f64::INFINITY, |b| b.objective);
    let bound = match (tree.bound, m.bound) {
        (Some(a), Some(b)) => Some(a.max(b).min(ub)),
        (a, b) => a.or(b),
    };
    let proven = m.status == Status::Optimal;
    Ok(PointResult {
        k,
        status: if proven {
            Status::Optimal
        } else {
            Status::TimeLimit
        },
        best,
        bound,
        nodes: tree.nodes,
        time_ms: tree.time_ms + m.time_ms,
        proof: proven.then_some("milp"),
    })
}

/// The fast-swap local optimum of the uncapacitated objective from `start`
/// (a start for the exact evaluation; see [`super::fastswap`]).
fn fast_local(planner: &Planner<'_>, start: &[usize]) -> Vec<usize> {
    local_search(planner.inst, &planner.cost, start, planner.tolerance())
}

/// `prev` plus the mirror whose addition lowers the uncapacitated cost most.
fn extend_by_one(planner: &Planner<'_>, prev: &[usize]) -> Result<Option<Vec<usize>>> {
    let inst = planner.inst;
    let m = inst.mirrors();
    let best_of = |i: usize| {
        prev.iter()
            .map(|&j| inst.delay(i, j))
            .fold(f64::INFINITY, f64::min)
    };
    let near: Vec<f64> = (0..inst.clients()).map(best_of).collect();
    let mut pick: Option<(f64, usize)> = None;
    for j in (0..m).filter(|j| !prev.contains(j)) {
        let total: f64 = near
            .iter()
            .enumerate()
            .map(|(i, &b)| inst.weight(i) as f64 * b.min(inst.delay(i, j)))
            .sum::<f64>()
            + planner.cost[j];
        if pick.is_none_or(|(t, _)| total < t) {
            pick = Some((total, j));
        }
    }
    Ok(pick.map(|(_, j)| {
        let mut s = prev.to_vec();
        s.push(j);
        s.sort_unstable();
        s
    }))
}

/// `K=5 optimal total 123.4 avg 1.2 gap 0 nodes 3 (0.4 s, 2.1 s so far)`.
fn progress_line(p: &PointResult, n: usize, start: Instant) -> String {
    let what = match &p.best {
        Some(b) => format!(
            "objective {:.3} avg {:.3}{}",
            b.objective,
            b.delay / n as f64,
            p.bound
                .map(|l| format!(" bound {l:.3} gap {:.2e}", rel_gap(b.objective, l)))
                .unwrap_or_default()
        ),
        None => "no solution".into(),
    };
    format!(
        "plan cma: K={} {} {what} nodes {} ({:.2} s, {:.1} s so far)",
        p.k,
        p.status.as_str(),
        p.nodes,
        p.time_ms / 1e3,
        start.elapsed().as_secs_f64()
    )
}

/// `(objective − bound) / |objective|` (0 when both are 0).
pub fn rel_gap(objective: f64, bound: f64) -> f64 {
    let diff = (objective - bound).max(0.0);
    if diff == 0.0 {
        0.0
    } else {
        diff / objective.abs().max(1e-12)
    }
}
