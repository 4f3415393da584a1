//! `exact-flow`: the static CMA as a transportation problem solved by
//! successive shortest paths on the `k`-mirror move graph
//! ([`crate::engine::cma_moves`]), exploiting few mirrors and many clients.
//!
//! 1. every client goes to its nearest mirror (`O(nk)`), then a few rounds of
//!    price raising on overloaded mirrors (coordinate ascent on the LP dual,
//!    `O(nk)` per round) move most of the excess in bulk while keeping every
//!    client at a mirror minimising `d + p`: the state is optimal for its
//!    loads and `π = −p` are valid potentials;
//! 2. while a mirror is overloaded, Dijkstra (reduced costs, `O(k²)`) finds
//!    the cheapest chain of moves from any overloaded mirror to one with
//!    spare capacity; the chain is applied and the potentials updated; while
//!    the same chain stays at zero reduced cost (ties) it is re-applied
//!    without a new search;
//! 3. certificate: dual prices `p_j = max(0, π_t − π_j)` give the LP dual
//!    bound `Σ_i min_j (d(i,j) + p_j) − Σ_j C_j p_j` (`O(nk)`), which equals
//!    the total delay at an optimum.
//!
//! Time `O(nk + E·(k² + L·k log B))` for total initial excess `E` and chain
//! length `L`; memory `O(n + k² B)` beyond the delay matrix. `n > Σ C_j` is
//! infeasible (counting). [`residual_negative_cycle`] checks any assignment
//! for optimality independently (Bellman-Ford on `k + 1` nodes).

use crate::engine::cma_moves::MoveGraph;
use crate::error::{Error, Result};
use crate::model::cma::CmaInstance;

/// Solves the static problem over `clients` (rows). `Ok(None)` = infeasible
/// (more clients than `Σ C_j`). The returned graph holds the optimal
/// assignment and valid potentials.
pub fn exact_flow_graph<'a>(
    inst: &'a CmaInstance,
    clients: &[usize],
) -> Result<Option<MoveGraph<'a>>> {
    if clients.len() > inst.total_capacity() {
        return Ok(None);
    }
    let mut g = MoveGraph::new(inst);
    let (placements, prices) = price_start(inst, clients, PRICE_ROUNDS)?;
    g.bulk_place(placements.into_iter());
    let k = inst.mirrors();
    let mut pot = vec![0.0; k + 1];
    for (j, p) in prices.iter().enumerate() {
        pot[j] = -p;
    }
    g.set_potentials(pot);
    route_excess(&mut g)?;
    Ok(Some(g))
}

/// Rounds of the price-raising warm start.
const PRICE_ROUNDS: usize = 0;

/// Warm start by coordinate ascent on the LP dual: every client starts at
/// its nearest mirror (prices 0); then, for `rounds` passes, each overloaded
/// mirror `j` raises its price `p_j` just enough that exactly `C_j` clients
/// still prefer it (`d(i,j) + p_j <= d(i,v) + p_v`), and the others move to
/// their best alternative. Invariants: every client sits at a mirror
/// minimising `d + p`, and `p_j > 0` only on mirrors with load `>= C_j`, so
/// potentials `π_j = −p_j`, `π_t = 0` are valid for the successive shortest
/// paths that route what is left. `O(nk)` per round.
fn price_start(
    inst: &CmaInstance,
    clients: &[usize],
    rounds: usize,
) -> Result<(Vec<(usize, usize)>, Vec<f64>)> {
    let k = inst.mirrors();
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); k];
    for &i in clients {
        let j = inst
            .nearest(i)
            .ok_or_else(|| Error::Solver("every mirror has capacity 0".into()))?;
        members[j].push(i as u32);
    }
    let mut prices = vec![0.0; k];
    let active: Vec<usize> = (0..k).filter(|&j| inst.capacity[j] > 0).collect();
    for _ in 0..rounds {
        let mut moved = false;
        for &j in &active {
            let excess = members[j].len().saturating_sub(inst.capacity[j]);
            if excess == 0 || active.len() < 2 {
                continue;
            }
            moved = true;
            raise_price(inst, &active, &mut members, &mut prices, j, excess);
        }
        if !moved {
            break;
        }
    }
    let placements = members
        .iter()
        .enumerate()
        .flat_map(|(j, m)| m.iter().map(move |&i| (i as usize, j)))
        .collect();
    Ok((placements, prices))
}

/// Raises `p_j` until `excess` of its clients prefer another mirror; moves
/// them there (each to its best alternative, ties to the lower index).
fn raise_price(
    inst: &CmaInstance,
    active: &[usize],
    members: &mut [Vec<u32>],
    prices: &mut [f64],
    j: usize,
    excess: usize,
) {
    let pj = prices[j];
    let mut cand: Vec<(f64, u32, u32)> = members[j]
        .iter()
        .map(|&i| {
            let row = inst.row(i as usize);
            let here = row[j] + pj;
            let (mut best, mut bv) = (f64::INFINITY, j);
            for &v in active {
                let c = row[v] + prices[v];
                if v != j && c < best {
                    best = c;
                    bv = v;
                }
            }
            ((best - here).max(0.0), i, bv as u32)
        })
        .collect();
    let order = |a: &(f64, u32, u32), b: &(f64, u32, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    cand.select_nth_unstable_by(excess - 1, order);
    let delta = cand[excess - 1].0;
    prices[j] = pj + delta;
    members[j].clear();
    for (idx, &(_, i, v)) in cand.iter().enumerate() {
        if idx < excess {
            members[v as usize].push(i);
        } else {
            members[j].push(i);
        }
    }
}

/// Successive shortest paths until no mirror is overloaded.
fn route_excess(g: &mut MoveGraph<'_>) -> Result<()> {
    let inst = g.instance();
    let k = inst.mirrors();
    let tie = 1e-12 * inst.max_delay().max(1.0);
    loop {
        let mut init = vec![f64::INFINITY; k + 1];
        let mut any = false;
        for &j in g.active() {
            if g.load(j) > inst.capacity[j] {
                init[j] = 0.0;
                any = true;
            }
        }
        if !any {
            return Ok(());
        }
        let s = g.search(&init, k, false);
        if !s.reached {
            return Err(Error::Solver(
                "no mirror with spare capacity is reachable from an overloaded one".into(),
            ));
        }
        g.update_potentials(&s, k);
        let path = g.path(&s, k);
        if path.len() < 3 {
            return Err(Error::Solver(
                "an overloaded mirror reached the sink directly".into(),
            ));
        }
        let (src, last) = (path[0], path[path.len() - 2]);
        loop {
            g.apply_chain(&path)?;
            if g.load(src) <= inst.capacity[src] || !g.has_room(last) || !is_tight(g, &path, tie) {
                break;
            }
        }
        g.normalise();
    }
}

/// True when every arc of `path` (mirrors …, sink) has reduced cost `<= tie`.
fn is_tight(g: &mut MoveGraph<'_>, path: &[usize], tie: f64) -> bool {
    let k = g.instance().mirrors();
    for w in path.windows(2) {
        let (a, b) = (w[0], w[1]);
        let red = if b == k {
            g.potentials()[a] - g.potentials()[k]
        } else {
            let c = g.peek(a, b).map_or(f64::INFINITY, |(c, _)| c);
            c + g.potentials()[a] - g.potentials()[b]
        };
        if red.is_nan() || red > tie {
            return false;
        }
    }
    true
}

/// The LP dual bound of prices `p` (`INFINITY` = mirror unusable) over
/// `clients`: `Σ_i min_j (d(i,j) + p_j) − Σ_j C_j p_j`. A lower bound on the
/// total delay for any `p >= 0` (weak duality). `O(nk)`.
pub fn dual_bound(inst: &CmaInstance, clients: &[usize], prices: &[f64]) -> f64 {
    let mut sum = 0.0;
    for &i in clients {
        let best = inst
            .row(i)
            .iter()
            .zip(prices)
            .map(|(d, p)| d + p)
            .fold(f64::INFINITY, f64::min);
        sum += best;
    }
    let paid: f64 = prices
        .iter()
        .zip(&inst.capacity)
        .filter(|(p, _)| p.is_finite())
        .map(|(p, &c)| p * c as f64)
        .sum();
    sum - paid
}

/// The static optimum over every row: an assignment (mirror per row), the
/// dual bound proving it, or `None` when infeasible.
pub fn solve_exact_flow(inst: &CmaInstance) -> Result<Option<(Vec<usize>, f64)>> {
    let clients: Vec<usize> = (0..inst.clients()).collect();
    let Some(g) = exact_flow_graph(inst, &clients)? else {
        return Ok(None);
    };
    let bound = dual_bound(inst, &clients, &g.prices());
    let assign = (0..inst.clients())
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
    let k = inst.mirrors();
    let (arcs, load) = move_matrix(inst, assign);
    let tol = inst.tolerance();
    let active: Vec<usize> = (0..k).filter(|&j| inst.capacity[j] > 0).collect();
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    for &u in &active {
        for &v in &active {
            if u != v && load[u] > 0 && arcs[u * k + v].is_finite() {
                edges.push((u, v, arcs[u * k + v]));
            }
        }
        if load[u] < inst.capacity[u] {
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
