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
use super::lagrange::{AscentSettings, Fix, LagEval, Lagrangian};
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
}

impl Default for ExactSettings {
    fn default() -> Self {
        ExactSettings {
            gap: 1e-6,
            deadline: None,
            root_iterations: 150,
            node_iterations: 10,
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
    /// bound rounded up), or `milp` (HiGHS); `None` otherwise.
    pub proof: Option<&'static str>,
}

/// From this many candidates on, the root ascent follows Beasley (1985):
/// `θ = 2`, halved after 30 steps without progress, up to 3,000 steps (one
/// step is cheap there; the default 150 steps, `θ = 1`, halving after 12,
/// stall short of the LP bound: 500 sites, K = 167: 7,615 against the
/// optimum 7,627, which Beasley's rule proves at the root).
const MANY_CANDIDATES: usize = 200;

/// Below the root, every this many nodes the relaxation's set is improved
/// by fast swaps and offered.
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
        if let Some(e) = self.planner.evaluate(open)? {
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
        return Ok(PointResult {
            k,
            status: Status::Infeasible,
            best: None,
            bound: None,
            nodes: 0,
            time_ms: start.elapsed().as_secs_f64() * 1e3,
            proof: None,
        });
    }
    let integral = planner.integral();
    let mut settings = settings;
    if planner.mirrors() >= MANY_CANDIDATES {
        settings.root_iterations = settings.root_iterations.max(3000);
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
    let many = s.planner.mirrors() >= MANY_CANDIDATES;
    let settings = AscentSettings {
        iterations: if root {
            s.settings.root_iterations
        } else {
            s.settings.node_iterations
        },
        theta: match (root, many) {
            (true, true) => 2.0,
            (true, false) => 1.0,
            (false, _) => 0.5,
        },
        stall: if root && many { 30 } else { 12 },
        stop_at: s.prune_at(),
        upper: s.upper(),
    };
    let asc = lag.ascend(&mut node.lambda, &node.fix, s.k, settings);
    if root {
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

/// Offers the relaxation's recent sets, unless the bound of the set itself
/// at the best multipliers (`Σλ + Σ_{j∈S} v_j`) already shows that it
/// cannot beat the incumbent (saves transportation solves); at the root and
/// every [`LOCAL_EVERY`]th node also the sets improved by fast swaps (a
/// Lagrangian heuristic).
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
    if root || s.nodes % LOCAL_EVERY == 0 {
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
