//! `exact-flow`: the static CMA as a transportation problem solved by
//! successive shortest paths on the `k`-mirror move graph
//! ([`crate::problems::cma::moves`]), exploiting few mirrors and many clients.
//!
//! 0. shift classes ([`solve_exact_flow`] only): from 2,000 clients on,
//!    rows that differ by a constant are grouped
//!    ([`crate::problems::cma::row_classes`]); when there are at most
//!    `n / 16` classes, the classes are solved as a transportation problem
//!    ([`crate::problems::cma::class_flow`]) and the result is certified
//!    on the real rows. The generated BRITE instances have 1,330–8,296
//!    classes for 100,000–1,000,000 clients; then the steps below do not
//!    run. Otherwise (or when the certificate fails) the grouping has cost
//!    at most `n / 16` rows per parallel chunk;
//! 1. start: from 2,000 clients on, prices `p` are estimated by solving
//!    every 16th client exactly with capacities scaled to the sample
//!    (recursively); smaller instances use `p = 0`. One pass over the rows,
//!    in parallel chunks ([`MoveGraph::place_at_prices`]), puts every
//!    client on a mirror minimising `d(i,j) + p_j` and collects the
//!    cheapest moves of every mirror pair; clients tied between mirrors
//!    (identical rows, common in generated and measured data) are split
//!    between their tied mirrors by a small maximum flow over their groups
//!    that fills the priced mirrors first ([`MoveGraph::place_at_prices`]).
//!    The state is optimal for its loads
//!    and `π_j = −p_j`, `π_t = 0` are valid potentials. A mirror with a
//!    price counts as full (its arc to the sink `t` is saturated) even when
//!    it has room: it then has a deficit to fill;
//! 2. successive shortest paths on the mirrors plus `t` (arcs: client moves
//!    `u → v` costing the cheapest `d(i,v) − d(i,u)`, `j → t` while below
//!    capacity, `t → j` while it has flow): Dijkstra on reduced costs
//!    (`O(k²)`) from every node with excess to the first node with a
//!    deficit; the path is applied and the potentials updated; while the
//!    same path stays at zero reduced cost (ties) it is re-applied without a
//!    new search. With good prices little is left to route (1,000,000 ×
//!    50, `gen cma --scenario static --seed 1`: 3,315 units in 68 searches
//!    with the flow's split of the tied clients, 8,172 in 140 when each took
//!    its roomiest tied mirror in row order, 147,061 when each took its
//!    lowest-index one);
//! 3. certificate: dual prices `p_j = max(0, π_t − π_j)` give the LP dual
//!    bound `Σ_i min_j (d(i,j) + p_j) − Σ_j C_j p_j` (`O(nk)`), which equals
//!    the total delay at an optimum (parallel chunks, summed in a fixed
//!    order).
//!
//! Time `O(nk + E·(k² + L·k log B))` for total initial excess `E` and chain
//! length `L`; memory `O(n + k² B)` beyond the delay matrix. `n > Σ C_j` is
//! infeasible (counting). [`residual_negative_cycle`] checks any assignment
//! for optimality independently (Bellman-Ford on `k + 1` nodes).

use crate::error::{Error, Result};
use crate::problems::cma::class_rows::solve_rows_by_classes;
use crate::problems::cma::model::CmaInstance;
use crate::problems::cma::moves::{MoveGraph, Search};
use rayon::prelude::*;

/// Solves the static problem over `clients` (rows). `Ok(None)` = infeasible
/// (more clients than `Σ C_j`). The returned graph holds the optimal
/// assignment and valid potentials.
pub fn exact_flow_graph<'a>(
    inst: &'a CmaInstance,
    clients: &[usize],
) -> Result<Option<MoveGraph<'a>>> {
    exact_flow_graph_tuned(inst, clients, FlowTuning::default())
}

/// Size thresholds of [`exact_flow_graph_tuned`]. The defaults are the
/// measured best; tests shrink them so that small instances take every
/// path (the result is optimal either way).
#[derive(Debug, Clone, Copy)]
pub struct FlowTuning {
    /// From this many clients on, the start uses sampled prices.
    pub sample_from: usize,
    /// Fewest rows per parallel chunk of the start.
    pub min_chunk: usize,
    /// From this many clients on, [`solve_exact_flow`] first tries the
    /// rows' shift classes ([`solve_rows_by_classes`]).
    pub classes_from: usize,
    /// The classes are used only when there are at most `n / class_share`.
    pub class_share: usize,
}

impl Default for FlowTuning {
    fn default() -> Self {
        FlowTuning {
            sample_from: SAMPLE_FROM,
            min_chunk: MIN_CHUNK,
            classes_from: CLASSES_FROM,
            class_share: CLASS_SHARE,
        }
    }
}

/// [`exact_flow_graph`] with explicit [`FlowTuning`].
pub fn exact_flow_graph_tuned<'a>(
    inst: &'a CmaInstance,
    clients: &[usize],
    tuning: FlowTuning,
) -> Result<Option<MoveGraph<'a>>> {
    let tuning = FlowTuning {
        sample_from: tuning.sample_from.max(SAMPLE_STRIDE),
        min_chunk: tuning.min_chunk.max(1),
        ..tuning
    };
    solve_with_capacities(inst, inst.capacity.clone(), clients, 0, tuning)
}

/// The static optimum over every row with capacities `cap` in place of the
/// instance's (a capacity of 0 closes a mirror; `plan cma` evaluates mirror
/// sets this way): the assignment (mirror per row) and the dual prices
/// (`INFINITY` for a closed mirror), or `None` when `n > Σ cap`. Same
/// algorithm and complexity as [`exact_flow_graph`].
pub fn solve_exact_flow_capacities(
    inst: &CmaInstance,
    cap: Vec<usize>,
) -> Result<Option<(Vec<usize>, Vec<f64>)>> {
    let clients: Vec<usize> = (0..inst.clients()).collect();
    let Some(g) = solve_with_capacities(inst, cap, &clients, 0, FlowTuning::default())? else {
        return Ok(None);
    };
    let assign = (0..inst.clients())
        .map(|i| {
            g.mirror_of(i)
                .ok_or_else(|| Error::Solver(format!("client {i} left unassigned")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some((assign, g.prices())))
}

/// Instances smaller than this start from the nearest assignment (10,000
/// x 20, `gen cma --scenario static --seed 7`: 14.2 ms from the nearest
/// assignment, 2.3 ms from sampled prices).
const SAMPLE_FROM: usize = 2_000;
/// From this many clients on, the shift classes are tried first.
const CLASSES_FROM: usize = 2_000;
/// The classes are used when there are at most `n / CLASS_SHARE`.
const CLASS_SHARE: usize = 16;
/// One client in this many is sampled for the price estimate.
const SAMPLE_STRIDE: usize = 16;
/// Fewest rows per parallel chunk of the start: a chunk collects the
/// first `2B` moves of every mirror pair before its cuts filter, so
/// smaller chunks cost more than they split.
const MIN_CHUNK: usize = 65_536;

fn solve_with_capacities<'a>(
    inst: &'a CmaInstance,
    cap: Vec<usize>,
    clients: &[usize],
    depth: usize,
    tuning: FlowTuning,
) -> Result<Option<MoveGraph<'a>>> {
    if clients.len() > cap.iter().fold(0usize, |a, &c| a.saturating_add(c)) {
        return Ok(None);
    }
    if !clients.is_empty() && cap.iter().all(|&c| c == 0) {
        return Err(Error::Solver("every mirror has capacity 0".into()));
    }
    let (prices, seed) = if clients.len() >= tuning.sample_from && depth < 4 {
        sample_prices(inst, &cap, clients, depth, tuning)?.unzip()
    } else {
        (None, None)
    };
    let k = inst.mirrors();
    let prices = start_prices(&cap, prices);
    let tie = tie_tolerance(inst);
    let mut g = MoveGraph::place_at_prices(
        inst,
        cap,
        clients,
        (&prices, tie),
        seed.as_deref(),
        tuning.min_chunk,
    );
    let mut pot = vec![0.0; k + 1];
    for (j, p) in prices.iter().enumerate() {
        if p.is_finite() {
            pot[j] = -p;
        }
    }
    g.set_potentials(pot);
    // Sink flows: a priced mirror is counted full (its arc to the sink is
    // saturated), which may leave it with a deficit to be routed in.
    let mut x: Vec<usize> = (0..k)
        .map(|j| {
            let c = g.capacity(j);
            if prices[j] > 0.0 && prices[j].is_finite() {
                c
            } else {
                g.load(j).min(c)
            }
        })
        .collect();
    route_imbalance(&mut g, &mut x, clients.len())?;
    Ok(Some(g))
}

/// Prices estimated by solving every `SAMPLE_STRIDE`-th client exactly with
/// capacities scaled to the sample (rounded up), recursively, and the
/// sample start's seed cuts ([`MoveGraph::seed_cuts`]).
fn sample_prices(
    inst: &CmaInstance,
    cap: &[usize],
    clients: &[usize],
    depth: usize,
    tuning: FlowTuning,
) -> Result<Option<(Vec<f64>, Vec<f64>)>> {
    let sample: Vec<usize> = clients.iter().copied().step_by(SAMPLE_STRIDE).collect();
    let ratio = sample.len() as f64 / clients.len() as f64;
    let scaled: Vec<usize> = cap
        .iter()
        .map(|&c| ((c as f64 * ratio).ceil() as usize).min(c))
        .collect();
    Ok(
        solve_with_capacities(inst, scaled, &sample, depth + 1, tuning)?
            .map(|g| (g.prices(), g.seed_cuts().to_vec())),
    )
}

/// The prices of the start: the estimate (clamped at 0) or 0, and
/// `INFINITY` for mirrors without capacity.
fn start_prices(cap: &[usize], estimate: Option<Vec<f64>>) -> Vec<f64> {
    let est = |j: usize| estimate.as_ref().map_or(0.0, |p| p[j].max(0.0));
    (0..cap.len())
        .map(|j| if cap[j] > 0 { est(j) } else { f64::INFINITY })
        .collect()
}

/// Reduced costs this close to 0 count as ties (`d + p` sums of equal
/// rows differ by rounding only).
fn tie_tolerance(inst: &CmaInstance) -> f64 {
    1e-12 * inst.max_delay().max(1.0)
}

/// Successive shortest paths on the mirrors plus the sink `t` until every
/// node is balanced. `x[j]` is the flow on `j → t` (at most `C_j`); node `j`
/// has excess `load_j − x_j`, the sink `Σ x_j − n`. Arcs: client moves
/// `u → v`, `j → t` while `x_j < C_j`, `t → j` while `x_j > 0` (cost 0).
/// Every search starts at all excess nodes and stops at the first deficit
/// node; while the same path stays at zero reduced cost (ties) it is
/// re-applied without a new search.
fn route_imbalance(g: &mut MoveGraph<'_>, x: &mut [usize], n: usize) -> Result<()> {
    let inst = g.instance();
    let k = inst.mirrors();
    let tie = tie_tolerance(inst);
    let mut e = vec![0i64; k + 1];
    for &j in g.active() {
        e[j] = g.load(j) as i64 - x[j] as i64;
    }
    // x[j] <= C_j <= n (the caller clamps), so these sums stay far from overflow.
    e[k] = x.iter().fold(0i64, |a, &c| a.saturating_add(c as i64)) - n as i64;
    loop {
        let init: Vec<f64> = e
            .iter()
            .map(|&b| if b > 0 { 0.0 } else { f64::INFINITY })
            .collect();
        if init.iter().all(|d| d.is_infinite()) {
            return if e.iter().all(|&b| b == 0) {
                Ok(())
            } else {
                Err(Error::Solver("flow left unbalanced".into()))
            };
        }
        let (s, target) = flow_search(g, x, &e, init);
        let target = target.ok_or_else(|| {
            Error::Solver("no deficit is reachable from an excess (infeasible?)".into())
        })?;
        g.update_potentials(&s, target);
        let path = g.path(&s, target);
        loop {
            apply_path(g, x, &path)?;
            e[path[0]] -= 1;
            e[target] += 1;
            if e[path[0]] <= 0 || e[target] >= 0 || !is_tight(g, x, &path, tie) {
                break;
            }
        }
    }
}

/// Dijkstra over reduced costs from every node with `init` 0 to the first
/// node with a deficit. `O(k²)` plus row refreshes; the relaxation of a
/// mirror's move arcs is one pass over its cached row.
fn flow_search(
    g: &mut MoveGraph<'_>,
    x: &[usize],
    e: &[i64],
    init: Vec<f64>,
) -> (Search, Option<usize>) {
    let k = g.instance().mirrors();
    // `open` = the label of every unsettled node, INFINITY once settled
    // (mirrors without capacity are never reached: their arcs are masked).
    let mut open = init.clone();
    let mut s = Search {
        dist: init,
        pred: vec![u32::MAX; k + 1],
        reached: false,
    };
    loop {
        let (mut u, mut du) = (usize::MAX, f64::INFINITY);
        for (v, &d) in open.iter().enumerate() {
            if d < du {
                (u, du) = (v, d);
            }
        }
        if u == usize::MAX {
            return (s, None);
        }
        open[u] = f64::INFINITY;
        if e[u] < 0 {
            s.reached = true;
            return (s, Some(u));
        }
        relax_out_arcs(g, x, (u, du), &mut s, &mut open);
    }
}

/// Relaxes the residual arcs out of the settled node `u` (at distance `du`):
/// from the sink to mirrors with clients of `x`, from a loaded mirror to the
/// other mirrors, and from a mirror below capacity to the sink. Settled
/// labels (`<= du`) never improve: reduced costs are clipped at 0.
fn relax_out_arcs(
    g: &mut MoveGraph<'_>,
    x: &[usize],
    (u, du): (usize, f64),
    s: &mut Search,
    open: &mut [f64],
) {
    let k = g.instance().mirrors();
    let relax = |v: usize, red: f64, s: &mut Search, open: &mut [f64]| {
        let d = du + red.max(0.0);
        if d < s.dist[v] {
            s.dist[v] = d;
            open[v] = d;
            s.pred[v] = u as u32;
        }
    };
    if u == k {
        let pot = g.potentials();
        let pt = pot[k];
        for v in 0..k {
            if x[v] > 0 {
                relax(v, pt - pot[v], s, open);
            }
        }
        return;
    }
    if g.load(u) > 0 {
        let (row, pot) = g.arc_row(u);
        let base = pot[u];
        let uu = u as u32;
        let labels = s.dist[..k]
            .iter_mut()
            .zip(&mut s.pred[..k])
            .zip(&mut open[..k]);
        for ((&c, &pv), ((dv, pr), ov)) in row.iter().zip(&pot[..k]).zip(labels) {
            let red = c + base - pv;
            let d = du + if red > 0.0 { red } else { 0.0 };
            let better = d < *dv;
            *dv = if better { d } else { *dv };
            *ov = if better { d } else { *ov };
            *pr = if better { uu } else { *pr };
        }
    }
    if x[u] < g.capacity(u) {
        let pot = g.potentials();
        relax(k, pot[u] - pot[k], s, open);
    }
}

/// Applies a path of the residual graph, last arc first (so each move arc
/// moves the client its search cost was read from).
fn apply_path(g: &mut MoveGraph<'_>, x: &mut [usize], path: &[usize]) -> Result<()> {
    let k = g.instance().mirrors();
    for w in path.windows(2).rev() {
        match (w[0], w[1]) {
            (a, b) if a < k && b < k => {
                g.move_top(a, b)?;
            }
            (a, _) if a < k => x[a] += 1,
            (_, b) => x[b] -= 1,
        }
    }
    Ok(())
}

/// True when every arc of `path` still exists with reduced cost `<= tie`.
fn is_tight(g: &mut MoveGraph<'_>, x: &[usize], path: &[usize], tie: f64) -> bool {
    let k = g.instance().mirrors();
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let pot = g.potentials();
        let red = if b == k {
            if x[a] >= g.capacity(a) {
                return false;
            }
            pot[a] - pot[k]
        } else if a == k {
            if x[b] == 0 {
                return false;
            }
            pot[k] - pot[b]
        } else {
            let (pa, pb) = (pot[a], pot[b]);
            let c = g.peek(a, b).map_or(f64::INFINITY, |(c, _)| c);
            c + pa - pb
        };
        if red.is_nan() || red > tie {
            return false;
        }
    }
    true
}

/// The LP dual bound of prices `p` (`INFINITY` = mirror unusable) over
/// `clients`: `Σ_i w_i min_j (d(i,j) + p_j) − Σ_j C_j p_j` (`w_i` = the
/// row's players, 1 without counts). A lower bound on the total delay for
/// any `p >= 0` (weak duality). `O(nk)` work, split in parallel chunks.
pub fn dual_bound(inst: &CmaInstance, clients: &[usize], prices: &[f64]) -> f64 {
    // Fixed chunks summed in order: the same bits on any number of threads.
    let partial: Vec<f64> = clients
        .par_chunks(BOUND_CHUNK)
        .map(|part| {
            let mut sum = 0.0;
            for &i in part {
                let w = inst.weight(i);
                if w == 0 {
                    continue;
                }
                let best = inst
                    .row(i)
                    .iter()
                    .zip(prices)
                    .map(|(d, p)| d + p)
                    .fold(f64::INFINITY, f64::min);
                sum += w as f64 * best;
            }
            sum
        })
        .collect();
    let sum: f64 = partial.iter().sum();
    let paid: f64 = prices
        .iter()
        .zip(&inst.capacity)
        .filter(|(p, _)| p.is_finite())
        .map(|(p, &c)| p * c as f64)
        .sum();
    sum - paid
}

/// Rows per parallel chunk of [`dual_bound`].
const BOUND_CHUNK: usize = 32_768;

/// The static optimum over every row: an assignment (mirror per row), the
/// dual bound proving it, or `None` when infeasible.
pub fn solve_exact_flow(inst: &CmaInstance) -> Result<Option<(Vec<usize>, f64)>> {
    solve_exact_flow_tuned(inst, FlowTuning::default())
}

/// [`solve_exact_flow`] with explicit [`FlowTuning`].
pub fn solve_exact_flow_tuned(
    inst: &CmaInstance,
    tuning: FlowTuning,
) -> Result<Option<(Vec<usize>, f64)>> {
    let n = inst.clients();
    if n > inst.total_capacity() {
        return Ok(None);
    }
    if n >= tuning.classes_from {
        // Anything the classes do not certify, an internal error included,
        // is left to the row algorithm, which does not depend on them.
        let found = solve_rows_by_classes(inst, tuning.class_share);
        if let Ok(Some(c)) = found {
            return Ok(Some((c.solution, c.bound)));
        }
    }
    let clients: Vec<usize> = (0..n).collect();
    let Some(g) = exact_flow_graph_tuned(inst, &clients, tuning)? else {
        return Ok(None);
    };
    let bound = dual_bound(inst, &clients, &g.prices());
    let assign = (0..n)
        .map(|i| {
            g.mirror_of(i)
                .ok_or_else(|| Error::Solver(format!("client {i} left unassigned")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some((assign, bound)))
}

/// Exact cheapest-move matrix of an assignment, `O(nk)`: `arcs[u*k+v]`.
fn move_matrix(inst: &CmaInstance, assign: &[Option<usize>]) -> (Vec<f64>, Vec<usize>) {
    let k = inst.mirrors();
    let mut arcs = vec![f64::INFINITY; k * k];
    let mut load = vec![0usize; k];
    for (i, a) in assign.iter().enumerate() {
        let Some(u) = *a else { continue };
        load[u] += 1;
        let row = inst.row(i);
        for v in 0..k {
            let key = row[v] - row[u];
            if v != u && key < arcs[u * k + v] {
                arcs[u * k + v] = key;
            }
        }
    }
    (arcs, load)
}

/// Bellman-Ford from a virtual root over the residual graph of `assign`
/// (mirrors with `C_j > 0` plus sink `k`). `Err(improvement)` when a
/// negative cycle (by more than the instance tolerance) exists, else the
/// potentials (one per mirror, then the sink).
pub fn residual_potentials(
    inst: &CmaInstance,
    assign: &[Option<usize>],
) -> std::result::Result<Vec<f64>, f64> {
    let (arcs, load) = move_matrix(inst, assign);
    residual_distances(inst, &inst.capacity, &arcs, &load)
}

/// Bellman-Ford from a virtual root over the residual graph of the `k`
/// mirrors with capacity `cap > 0` plus the sink `k`, given the cheapest
/// move `arcs[u·k+v]` out of each mirror and the `load`s: arcs `u → v`
/// while `u` has players, `u → t` below capacity, `t → u` with players.
/// `Err(improvement)` on a negative cycle (by more than the instance
/// tolerance), else the distances (one per mirror, then the sink).
/// `O(k³)`. Shared by the unit ([`residual_potentials`]) and the weighted
/// ([`crate::problems::cma::transport::split_prices`]) checks.
pub fn residual_distances(
    inst: &CmaInstance,
    cap: &[usize],
    arcs: &[f64],
    load: &[usize],
) -> std::result::Result<Vec<f64>, f64> {
    let k = inst.mirrors();
    let tol = inst.tolerance();
    let active: Vec<usize> = (0..k).filter(|&j| cap[j] > 0).collect();
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    for &u in &active {
        for &v in &active {
            if u != v && load[u] > 0 && arcs[u * k + v].is_finite() {
                edges.push((u, v, arcs[u * k + v]));
            }
        }
        if load[u] < cap[u] {
            edges.push((u, k, 0.0));
        }
        if load[u] > 0 {
            edges.push((k, u, 0.0));
        }
    }
    let mut dist = vec![0.0; k + 1];
    for pass in 0..=active.len() + 1 {
        let mut worst = 0.0f64;
        for &(u, v, c) in &edges {
            let d = dist[u] + c;
            if d < dist[v] - tol {
                worst = worst.max(dist[v] - d);
                dist[v] = d;
            }
        }
        if worst == 0.0 {
            return Ok(dist);
        }
        if pass == active.len() + 1 {
            return Err(worst);
        }
    }
    Ok(dist)
}

/// The optimality check: `Some(improvement)` when the residual graph of
/// `assign` has a negative cycle (a chain of moves that lowers the total
/// delay), `None` when `assign` is optimal for its present clients.
pub fn residual_negative_cycle(inst: &CmaInstance, assign: &[Option<usize>]) -> Option<f64> {
    residual_potentials(inst, assign).err()
}
