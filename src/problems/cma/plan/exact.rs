//! `exact`: branch and bound over the open/closed decisions of the mirrors
//! for one `K`, with the Lagrangian bound of [`super::lagrange`] (the LP
//! bound of the strong formulation), reduced-cost fixing, the relaxation's
//! mirror sets as primal candidates, and the transportation problem
//! ([`super::Planner::evaluate`]) at the leaves, where every mirror is
//! decided and the bound is exact.
//!
//! A node is pruned when its bound reaches the incumbent minus
//! `max(abs tol, gap · incumbent)`; the proven bound is the least bound of
//! the pruned nodes and of the nodes left when the time runs out. Depth
//! first; a node costs `O(iterations · nk)`; the tree has at most `2^k`
//! leaves, in practice few because the LP bound of the strong formulation is
//! tight on p-median instances.

use super::fastswap::local_search;
use super::lagrange::{Ascent, AscentSettings, Fix, LagEval, Lagrangian};
use super::{Planner, SetEval};
use crate::core::Status;
use crate::error::Result;
use std::time::Instant;

/// Settings of the exact search.
#[derive(Debug, Clone, Copy)]
pub struct ExactSettings {
    /// Relative gap at which a point counts as proven (0 = prove exactly,
    /// up to the absolute tolerance).
    pub gap: f64,
    /// Stop searching at this instant (the point then has status
    /// `time_limit` with its incumbent and bound).
    pub deadline: Option<Instant>,
    /// Subgradient iterations at the root.
    pub root_iterations: usize,
    /// Subgradient iterations at other nodes.
    pub node_iterations: usize,
    /// Stop the tree after this many nodes, reported as `time_limit` (`plan`
    /// then hands the point to HiGHS, see [`super::curve`]); `None` = no
    /// limit but the deadline.
    pub node_budget: Option<usize>,
}

impl Default for ExactSettings {
    fn default() -> Self {
        ExactSettings {
            gap: 1e-6,
            deadline: None,
            root_iterations: 150,
            node_iterations: 30,
            node_budget: None,
        }
    }
}

/// The result for one `K`.
#[derive(Debug, Clone)]
pub struct PointResult {
    /// Mirrors opened.
    pub k: usize,
    /// `optimal`, `infeasible`, `time_limit` or (heuristics) `feasible`.
    pub status: Status,
    /// The best mirror set with its assignment.
    pub best: Option<SetEval>,
    /// Proven lower bound on the objective (exact engine only).
    pub bound: Option<f64>,
    /// Branch-and-bound nodes processed.
    pub nodes: usize,
    /// Wall time, milliseconds.
    pub time_ms: f64,
    /// What proved an `optimal` point: `root` (the Lagrangian bound at the
    /// root), `branch-and-bound`, either with `+rounding` (integral data: the
    /// bound rounded up), or `milp` (HiGHS: the `milp` engine, or `exact`
    /// after handing over a tree that grew too large, see
    /// [`super::curve`]); `None` otherwise.
    pub proof: Option<&'static str>,
}

/// From this many candidates on, the root ascent follows Beasley (1985):
/// `θ = 2`, halved after [`MANY_ROOT_STALL`] steps without progress, up to
/// [`MANY_ROOT_ITERATIONS`] steps (one step is cheap there). The default
/// 150 steps, `θ = 1`, halving after 12, stall short of the LP bound (500
/// sites, K = 167: 7,615 against the optimum 7,627, which Beasley's rule
/// proves at the root).
const MANY_CANDIDATES: usize = 200;

/// Root steps with many candidates. The ascent stops as soon as the bound
/// prunes, so this cap costs only where the bound is short (1,000 sites,
/// K = 130: 5,400 steps, 0.1 s, reach 35,165.2 and prove the optimum
/// 35,166 by rounding, where 3,000 steps halving after 30 stalled at
/// 35,164.9 and a tree of 90,000 nodes did not close the last unit in 30 s).
const MANY_ROOT_ITERATIONS: usize = 20_000;

/// Root steps without progress before `θ` halves, with many candidates.
const MANY_ROOT_STALL: usize = 100;

/// Below the root: `θ = 2` (the Polyak target is the incumbent, optimal or
/// close to it by then), halved after [`NODE_STALL`] steps without progress,
/// [`ExactSettings::node_iterations`] = 30 steps. Against the earlier
/// `θ = 0.5`, 12 and 10 steps: 500 sites K = 25, 23,000 → 337 nodes;
/// 1,000 sites K = 50, not proven in 30 s → 2,300 nodes; the tight
/// 3,000 × 40 instances at K = 22, 816–1,304 → 113–300 nodes
/// (`docs/plan.md`). `θ = 3` or 4 diverge; 5–25 steps leave weak bounds.
const NODE_THETA: f64 = 2.0;

/// Steps without progress before `θ` halves below the root.
const NODE_STALL: usize = 20;

/// Below the root, the relaxation's set is improved by fast swaps and
/// offered every this many nodes at first; each try that does not improve
/// the incumbent doubles the interval (an improvement resets it), so a
/// search whose incumbent is already optimal stops paying for them.
const LOCAL_EVERY: usize = 64;

struct Node {
    fix: Vec<Fix>,
    lambda: Vec<f64>,
    bound: f64,
}

struct Search<'s, 'a> {
    planner: &'s mut Planner<'a>,
    k: usize,
    best: Option<SetEval>,
    lower: f64,
    nodes: usize,
    settings: ExactSettings,
    root_lambda: Option<Vec<f64>>,
    /// Every delay and opening cost is an integer: bounds round up.
    integral: bool,
    /// Some node was pruned only thanks to rounding its bound up.
    rounded: bool,
    /// The node at which the next fast-swap try runs, and the interval.
    next_local: usize,
    local_every: usize,
}

impl Search<'_, '_> {
    fn upper(&self) -> f64 {
        self.best.as_ref().map_or(f64::INFINITY, |b| b.objective)
    }

    /// The node is pruned at this bound (with integral data, any bound
    /// above `UB − 1` already proves that nothing in the node beats `UB`).
    fn prune_at(&self) -> f64 {
        let plain = self.plain_prune_at();
        if self.integral {
            plain.min(self.upper() - 1.0 + self.round_eps())
        } else {
            plain
        }
    }

    /// The pruning level without rounding.
    fn plain_prune_at(&self) -> f64 {
        let ub = self.upper();
        ub - self.planner.tolerance().max(self.settings.gap * ub.abs())
    }

    /// Slack below an integer within which a bound counts as that integer.
    fn round_eps(&self) -> f64 {
        self.planner.tolerance().min(0.01)
    }

    /// Whether `bound` prunes (noting when only rounding made it).
    fn prunes(&mut self, bound: f64) -> bool {
        if bound < self.prune_at() {
            return false;
        }
        if bound < self.plain_prune_at() {
            self.rounded = true;
        }
        true
    }

    fn offer(&mut self, open: &[usize]) -> Result<()> {
        if open.len() != self.k || self.planner.capacity_of(open) < self.planner.players() {
            return Ok(());
        }
        if let Some(known) = self.planner.cached(open) {
            let better = known.is_some_and(|o| o < self.upper() - self.planner.tolerance());
            if !better {
                return Ok(());
            }
        }
        if let Some(e) = self.planner.evaluate_if_better(open, self.upper())? {
            if self.best.is_none() || e.objective < self.upper() - self.planner.tolerance() {
                self.best = Some(e);
            }
        }
        Ok(())
    }

    /// Whether the fixings leave a `K`-set with capacity for every player.
    fn node_feasible(&self, fix: &[Fix]) -> bool {
        let cap = &self.planner.inst.capacity;
        let open: Vec<usize> = (0..fix.len()).filter(|&j| fix[j] == Fix::Open).collect();
        let mut free: Vec<usize> = (0..fix.len())
            .filter(|&j| fix[j] == Fix::Free)
            .map(|j| cap[j])
            .collect();
        if open.len() > self.k || open.len() + free.len() < self.k {
            return false;
        }
        free.sort_unstable_by(|a, b| b.cmp(a));
        let most: usize = open.iter().map(|&j| cap[j]).sum::<usize>()
            + free.iter().take(self.k - open.len()).sum::<usize>();
        most >= self.planner.players()
    }
}

/// Solves one `K` exactly (up to `settings.gap`), starting from the
/// incumbents `warm` and the multipliers `lambda` (left at the root's best,
/// to warm-start the next `K`).
pub fn solve_k(
    planner: &mut Planner<'_>,
    lag: &mut Lagrangian<'_>,
    k: usize,
    warm: &[Vec<usize>],
    lambda: &mut [f64],
    settings: ExactSettings,
) -> Result<PointResult> {
    let start = Instant::now();
    if k == 0 || k > planner.mirrors() || !planner.k_feasible(k) {
        return Ok(infeasible_point(k, start));
    }
    let integral = planner.integral();
    let mut settings = settings;
    if planner.mirrors() >= MANY_CANDIDATES {
        settings.root_iterations = settings.root_iterations.max(MANY_ROOT_ITERATIONS);
    }
    let mut s = Search {
        planner,
        k,
        best: None,
        lower: f64::INFINITY,
        nodes: 0,
        settings,
        root_lambda: None,
        integral,
        rounded: false,
        next_local: LOCAL_EVERY,
        local_every: LOCAL_EVERY,
    };
    for set in warm {
        s.offer(set)?;
    }
    let timed_out = run_tree(&mut s, lag, lambda)?;
    let ub = s.upper();
    let bound = round_bound(s.lower, s.integral, s.round_eps()).min(ub);
    let status = match (&s.best, timed_out) {
        (_, true) => Status::TimeLimit,
        (Some(_), false) => Status::Optimal,
        (None, false) => Status::Infeasible,
    };
    if let Some(l) = &s.root_lambda {
        lambda.copy_from_slice(l);
    }
    let proof = (status == Status::Optimal).then_some(proof_route(s.nodes, s.rounded));
    Ok(PointResult {
        k,
        status,
        bound: bound.is_finite().then_some(bound),
        best: s.best,
        nodes: s.nodes,
        time_ms: start.elapsed().as_secs_f64() * 1e3,
        proof,
    })
}

/// The point of a `k` that no set of `k` mirrors can serve.
fn infeasible_point(k: usize, start: Instant) -> PointResult {
    PointResult {
        k,
        status: Status::Infeasible,
        best: None,
        bound: None,
        nodes: 0,
        time_ms: start.elapsed().as_secs_f64() * 1e3,
        proof: None,
    }
}

/// What proved an optimal point: the root alone or a tree, with rounding or
/// without.
fn proof_route(nodes: usize, rounded: bool) -> &'static str {
    match (nodes <= 1, rounded) {
        (true, false) => "root",
        (true, true) => "root+rounding",
        (false, false) => "branch-and-bound",
        (false, true) => "branch-and-bound+rounding",
    }
}

/// The proven bound: `⌈bound − eps⌉` when every objective is an integer,
/// else `bound` itself (rounding fractional data would overstate it).
pub fn round_bound(bound: f64, integral: bool, eps: f64) -> f64 {
    if integral && bound.is_finite() {
        (bound - eps).ceil()
    } else {
        bound
    }
}

/// Depth-first search from the root (multipliers `lambda`); returns whether
/// the deadline stopped it (the left nodes' bounds then enter `s.lower`).
fn run_tree(s: &mut Search<'_, '_>, lag: &mut Lagrangian<'_>, lambda: &[f64]) -> Result<bool> {
    let mut stack = vec![Node {
        fix: vec![Fix::Free; s.planner.mirrors()],
        lambda: lambda.to_vec(),
        bound: f64::NEG_INFINITY,
    }];
    while let Some(node) = stack.pop() {
        // The root is always bounded, so a point past the deadline still
        // reports a proven bound.
        let stopped = s.settings.deadline.is_some_and(|d| Instant::now() >= d)
            || s.settings.node_budget.is_some_and(|b| s.nodes >= b)
            || crate::core::interrupt::interrupted();
        if s.nodes > 0 && stopped {
            s.lower = s.lower.min(node.bound);
            stack.iter().for_each(|n| s.lower = s.lower.min(n.bound));
            return Ok(true);
        }
        let root = s.nodes == 0;
        let children = process(s, lag, node, root)?;
        stack.extend(children);
    }
    Ok(false)
}

/// Processes one node: leaf evaluation, or bound, primal candidates,
/// reduced-cost fixing and branching. Returns the children to explore
/// (the one to explore first last).
fn process(
    s: &mut Search<'_, '_>,
    lag: &mut Lagrangian<'_>,
    mut node: Node,
    root: bool,
) -> Result<Vec<Node>> {
    s.nodes += 1;
    if !s.node_feasible(&node.fix) {
        return Ok(Vec::new());
    }
    let open: Vec<usize> = (0..node.fix.len())
        .filter(|&j| node.fix[j] == Fix::Open)
        .collect();
    let free: Vec<usize> = (0..node.fix.len())
        .filter(|&j| node.fix[j] == Fix::Free)
        .collect();
    if open.len() == s.k || open.len() + free.len() == s.k {
        let set: Vec<usize> = if open.len() == s.k {
            open
        } else {
            [open, free].concat()
        };
        s.offer(&set)?;
        let obj = s.planner.objective(&set)?.unwrap_or(f64::INFINITY);
        s.lower = s.lower.min(obj.max(node.bound));
        return Ok(Vec::new());
    }
    let settings = ascent_settings(s, root);
    let mut asc = lag.ascend(&mut node.lambda, &node.fix, s.k, settings);
    if root {
        cold_restart(s, lag, &mut node, &mut asc, settings);
        s.root_lambda = Some(node.lambda.clone());
    }
    let Some(ev) = asc.best else {
        return Ok(Vec::new());
    };
    primal_candidates(s, &asc.sets, &ev, root)?;
    let bound = ev.value.max(node.bound);
    if s.prunes(bound) {
        s.lower = s.lower.min(bound);
        return Ok(Vec::new());
    }
    node.bound = bound;
    if fix_by_reduced_cost(s, &ev, &mut node.fix) {
        return Ok(vec![node]);
    }
    match branch(&ev, node) {
        Some(children) => Ok(children),
        None => {
            s.lower = s.lower.min(bound);
            Ok(Vec::new())
        }
    }
}

/// The subgradient schedule of a node: the root's (Beasley's with many
/// candidates) or the nodes' below it.
fn ascent_settings(s: &Search<'_, '_>, root: bool) -> AscentSettings {
    let many = s.planner.mirrors() >= MANY_CANDIDATES;
    let (theta, stall) = match (root, many) {
        (true, true) => (2.0, MANY_ROOT_STALL),
        (true, false) => (1.0, 12),
        (false, _) => (NODE_THETA, NODE_STALL),
    };
    AscentSettings {
        iterations: if root {
            s.settings.root_iterations
        } else {
            s.settings.node_iterations
        },
        theta,
        stall,
        stop_at: s.prune_at(),
        upper: s.upper(),
    }
}

/// At the root of a curve's later points the ascent starts from the
/// previous `K`'s multipliers; when it ends short of pruning, a second
/// ascent from the cold start (each player's least delay) runs and the
/// better one is kept. Which start reaches the LP bound faster varies (500
/// sites, K = 114: the warm start stalled 1 below the optimum and left a
/// tree of 355,000 nodes; the cold one proves it at the root).
fn cold_restart(
    s: &Search<'_, '_>,
    lag: &mut Lagrangian<'_>,
    node: &mut Node,
    asc: &mut Ascent,
    settings: AscentSettings,
) {
    let warm = asc.best.as_ref().map_or(f64::NEG_INFINITY, |b| b.value);
    let mut cold_lambda = lag.initial_lambda();
    if warm >= s.prune_at() || node.lambda == cold_lambda {
        return;
    }
    let mut cold = lag.ascend(&mut cold_lambda, &node.fix, s.k, settings);
    if cold.best.as_ref().is_some_and(|b| b.value > warm) {
        let mut sets = std::mem::take(&mut asc.sets);
        sets.append(&mut cold.sets);
        cold.sets = sets;
        *asc = cold;
        node.lambda = cold_lambda;
    }
}

/// Offers the relaxation's recent sets, unless the bound of the set itself
/// at the best multipliers (`Σλ + Σ_{j∈S} v_j`) already shows that it
/// cannot beat the incumbent (saves transportation solves); at the root and
/// at the (ever sparser, see [`LOCAL_EVERY`]) local-search nodes also the
/// sets improved by fast swaps (a Lagrangian heuristic).
fn primal_candidates(
    s: &mut Search<'_, '_>,
    sets: &[Vec<usize>],
    ev: &LagEval,
    root: bool,
) -> Result<()> {
    let sum_lambda = ev.value - ev.chosen.iter().map(|&j| ev.v[j]).sum::<f64>();
    for set in sets.iter().rev().take(if root { 4 } else { 2 }) {
        let own = sum_lambda + set.iter().map(|&j| ev.v[j]).sum::<f64>();
        if own < s.prune_at() {
            s.offer(set)?;
        }
    }
    let local = !root && s.nodes >= s.next_local;
    if root || local {
        let before = s.upper();
        // A Lagrangian heuristic: the relaxation's set, improved by fast swaps.
        let p = &*s.planner;
        let tol = p.tolerance();
        let improved: Vec<Vec<usize>> = sets
            .iter()
            .rev()
            .take(if root { 4 } else { 1 })
            .map(|set| local_search(p.inst, &p.cost, set, tol))
            .collect();
        for set in &improved {
            s.offer(set)?;
        }
        if local {
            s.local_every = if s.upper() < before {
                LOCAL_EVERY
            } else {
                s.local_every.saturating_mul(2)
            };
            s.next_local = s.nodes.saturating_add(s.local_every);
        }
    }
    Ok(())
}

/// Fixes free mirrors whose forced change of state would lift the bound of
/// `ev` to the pruning level: a mirror outside the relaxation's set must
/// replace the worst free chosen one, a chosen one be replaced by the best
/// free outsider. Returns whether anything was fixed.
fn fix_by_reduced_cost(s: &mut Search<'_, '_>, ev: &LagEval, fix: &mut [Fix]) -> bool {
    // Dropping the cover only lowers the bound, so the swap argument on the
    // uncovered relaxation (`free_value`, `free_chosen`) stays valid.
    let (prune, plain) = (s.prune_at(), s.plain_prune_at());
    let is_free_chosen = |j: usize| fix[j] == Fix::Free && ev.free_chosen.binary_search(&j).is_ok();
    let inside: Vec<usize> = (0..fix.len()).filter(|&j| is_free_chosen(j)).collect();
    let outside: Vec<usize> = (0..fix.len())
        .filter(|&j| fix[j] == Fix::Free && !is_free_chosen(j))
        .collect();
    if inside.is_empty() || outside.is_empty() {
        return false;
    }
    let worst_in = inside
        .iter()
        .map(|&j| ev.v[j])
        .fold(f64::NEG_INFINITY, f64::max);
    let best_out = outside
        .iter()
        .map(|&j| ev.v[j])
        .fold(f64::INFINITY, f64::min);
    let mut changed = false;
    for &j in &outside {
        let lifted = ev.free_value + ev.v[j] - worst_in;
        if lifted >= prune {
            fix[j] = Fix::Closed;
            changed = true;
            s.rounded |= lifted < plain;
        }
    }
    for &j in &inside {
        let lifted = ev.free_value + best_out - ev.v[j];
        if lifted >= prune {
            fix[j] = Fix::Open;
            changed = true;
            s.rounded |= lifted < plain;
        }
    }
    changed
}

/// Branches on the free chosen mirror with the largest `v_j` (the one the
/// relaxation opens least eagerly): the closed child below, the open child
/// (explored first) on top.
fn branch(ev: &LagEval, node: Node) -> Option<Vec<Node>> {
    let j = ev
        .chosen
        .iter()
        .copied()
        .filter(|&j| node.fix[j] == Fix::Free)
        .max_by(|&a, &b| ev.v[a].total_cmp(&ev.v[b]));
    let j = j?;
    let mut closed = Node {
        fix: node.fix.clone(),
        lambda: node.lambda.clone(),
        bound: node.bound,
    };
    closed.fix[j] = Fix::Closed;
    let mut open = node;
    open.fix[j] = Fix::Open;
    Some(vec![closed, open])
}
