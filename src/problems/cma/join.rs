//! CMA-J, the join algorithms of Webb & Soh (seed 002 §3.1, Fig. 2).
//!
//! - [`j_greedy`] — J-greedy: the closest mirror with spare capacity,
//!   `O(k log k)`.
//! - [`j_sa`] — J-SA, incremental: if the closest mirror has room, take it;
//!   else the cheapest chain "joiner to `f`, one client `f → … → t` per arc,
//!   `t` with room", found by Dijkstra with potentials on the incrementally
//!   maintained `MC`/`MP` ([`MoveGraph`]): `O(k² + s·m·k + L·k)` per join
//!   (`s` stale rows of at most `m` clients refreshed, `L` moves; heap-mode
//!   rows add a `log B` factor per move).
//!   Exact given an optimal state. Before searching, a price test (`O(k)`)
//!   settles most joins: a chain through a full mirror `f` costs at least
//!   `d(i,f) + p_f` with `p_f = π_t − π_f` from the potentials.
//! - [`j_sa_rebuild`] — J-SA as published: rebuild `MC`/`MP` in `O(nk)` and
//!   run the label-correcting loop of Fig. 2 (`O(k³)` worst case).
//!
//! - [`j_playnow`] — not from seed 002: the joiner takes the mirror that
//!   seed 000's "play now" ranks best (problems.md §5), `O(k)`.
//!
//! Ties: lower mirror index, then lower client index; a mirror with room
//! whose direct delay equals the cheapest chain is preferred (Fig. 2).

use crate::error::{Error, Result};
use crate::problems::cma::model::{CmaInstance, CmaState};
use crate::problems::cma::moves::{MoveGraph, Search};

/// J-greedy: puts `i` on the closest mirror with spare capacity; returns it.
pub fn j_greedy(inst: &CmaInstance, state: &mut CmaState, i: usize) -> Result<usize> {
    let row = inst.row(i);
    let mut best: Option<usize> = None;
    for j in 0..inst.mirrors() {
        if state.loads()[j] < inst.capacity[j] && best.is_none_or_lt(row, j) {
            best = Some(j);
        }
    }
    let j = best.ok_or_else(|| no_room(i))?;
    state.join(i, j);
    Ok(j)
}

/// J-playnow (problems.md §5): puts `i` on the mirror with room that seed
/// 000's score ranks best, each mirror seen as a server with ping = its
/// delay to `i`, players = its load, max players = its capacity (no
/// performance, skill or favourite: those factors are 1); the lower index
/// among equal scores. Returns the mirror. `O(k)`.
pub fn j_playnow(inst: &CmaInstance, state: &mut CmaState, i: usize) -> Result<usize> {
    use crate::problems::rank::model::{Player, Server};
    use crate::problems::rank::score::seed000;
    let player = Player::default();
    let mut best: Option<(usize, f64)> = None;
    for (j, &d) in inst.row(i).iter().enumerate() {
        let (load, cap) = (state.loads()[j], inst.capacity[j]);
        if load >= cap {
            continue;
        }
        let mirror = Server {
            name: String::new(),
            players: u32::try_from(load).unwrap_or(u32::MAX),
            max_players: u32::try_from(cap).unwrap_or(u32::MAX),
            ping: Some(d),
            perf_score: None,
            skill: None,
            joinable: None,
            favorite: false,
        };
        let score = seed000(&player, &mirror).score;
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((j, score));
        }
    }
    let (j, _) = best.ok_or_else(|| no_room(i))?;
    state.join(i, j);
    Ok(j)
}

trait Better {
    fn is_none_or_lt(&self, row: &[f64], j: usize) -> bool;
}

impl Better for Option<usize> {
    fn is_none_or_lt(&self, row: &[f64], j: usize) -> bool {
        match *self {
            None => true,
            Some(b) => row[j] < row[b],
        }
    }
}

fn no_room(i: usize) -> Error {
    Error::Usage(format!(
        "client {i} cannot join: every mirror is full (more clients than the total capacity)"
    ))
}

/// J-SA, incremental. Returns the number of transfers.
pub fn j_sa(g: &mut MoveGraph<'_>, i: usize) -> Result<usize> {
    let inst = g.instance();
    let k = inst.mirrors();
    let near = inst.nearest(i).ok_or_else(|| no_room(i))?;
    if g.has_room(near) {
        g.add(i, near);
        return Ok(0);
    }
    let row = inst.row(i);
    // Price test: a chain through full mirror f costs at least d(i,f) + p_f
    // (p_f = π_t − π_f, reduced costs being >= 0), so a mirror with room at
    // no more than every such bound is optimal without a search.
    if let Some(j) = direct_by_prices(g, row) {
        g.add(i, j);
        return Ok(0);
    }
    let mut s = g.take_search();
    let pot = g.potentials();
    let mut low = f64::INFINITY;
    for &f in g.active() {
        s.dist[f] = row[f] - pot[f];
        low = low.min(s.dist[f]);
    }
    for x in s.dist.iter_mut().filter(|x| x.is_finite()) {
        *x -= low;
    }
    g.search(&mut s, k, false);
    let result = finish_join(g, i, &s);
    g.restore(s);
    result
}

/// The end of a searched join: the direct mirror when no chain is cheaper,
/// else the chain. Potentials are updated from the search.
fn finish_join(g: &mut MoveGraph<'_>, i: usize, s: &Search) -> Result<usize> {
    let inst = g.instance();
    let k = inst.mirrors();
    let row = inst.row(i);
    if !s.reached {
        return Err(no_room(i));
    }
    let path = g.path(s, k);
    let chain = row[path[0]] + g.chain_cost(&path);
    let direct = g
        .active()
        .iter()
        .copied()
        .filter(|&j| g.has_room(j))
        .min_by(|&a, &b| row[a].total_cmp(&row[b]).then(a.cmp(&b)));
    g.update_potentials(s, k);
    if let Some(j) = direct.filter(|&j| row[j] <= chain + inst.tolerance()) {
        g.add(i, j);
        g.normalise();
        return Ok(0);
    }
    let moves = g.apply_chain(&path)?;
    g.add(i, path[0]);
    g.normalise();
    Ok(moves)
}

/// The mirror with room and least delay when no full mirror can beat it by
/// its price lower bound; `None` when a search is needed. `O(k)`.
fn direct_by_prices(g: &MoveGraph<'_>, row: &[f64]) -> Option<usize> {
    let pot = g.potentials();
    let t = pot[pot.len() - 1];
    let mut direct: Option<usize> = None;
    let mut bound = f64::INFINITY;
    for &j in g.active() {
        if g.has_room(j) {
            if direct.is_none_or(|d| row[j] < row[d]) {
                direct = Some(j);
            }
        } else {
            bound = bound.min(row[j] + (t - pot[j]).max(0.0));
        }
    }
    direct.filter(|&d| row[d] <= bound)
}

/// The paper's `MC`/`MP` arrays: `mc[u*k+v]` = least `d(i,v) − d(i,u)` over
/// clients `i` on `u`, `mp` the client (lowest row on ties). `O(nk)`.
#[derive(Debug, Clone)]
pub struct MoveTables {
    /// `MC`, row-major `k × k` (`INFINITY` = no client on `u`).
    pub mc: Vec<f64>,
    /// `MP`, row-major `k × k`.
    pub mp: Vec<usize>,
}

/// Generates `MC` and `MP` from scratch (paper Fig. 2, "generate MC, MP").
pub fn generate_mc_mp(inst: &CmaInstance, state: &CmaState) -> MoveTables {
    let k = inst.mirrors();
    let mut mc = vec![f64::INFINITY; k * k];
    let mut mp = vec![usize::MAX; k * k];
    for &i in state.present() {
        let Some(u) = state.mirror_of(i) else {
            continue;
        };
        let row = inst.row(i);
        for v in 0..k {
            let p = u * k + v;
            let key = row[v] - row[u];
            if v != u && (key < mc[p] || (key == mc[p] && i < mp[p])) {
                mc[p] = key;
                mp[p] = i;
            }
        }
    }
    MoveTables { mc, mp }
}

/// A chain label: cost of the cheapest chain from a mirror, next mirror.
#[derive(Debug, Clone, Copy)]
pub struct Label {
    /// Chain cost (delay change).
    pub delay: f64,
    /// Next mirror of the chain (`None` = the chain ends here).
    pub mirror: Option<usize>,
}

/// The label-correcting loop of Fig. 2: `update(j)` says which mirrors'
/// labels may change; a label changes only when it improves by more than
/// `tol` (so zero-cost cycles that rounding makes slightly negative do not
/// loop). Errs when labels still change after `k + 1` passes (a negative
/// cycle: the state was not optimal).
pub fn correct_labels(
    k: usize,
    tol: f64,
    tables: &MoveTables,
    labels: &mut [Label],
    update: impl Fn(usize) -> bool,
) -> Result<()> {
    for _ in 0..=k + 1 {
        let mut changed = false;
        for j in (0..k).filter(|&j| update(j)) {
            for m in (0..k).filter(|&m| m != j) {
                let d = labels[m].delay + tables.mc[j * k + m];
                if d < labels[j].delay - tol {
                    labels[j] = Label {
                        delay: d,
                        mirror: Some(m),
                    };
                    changed = true;
                }
            }
        }
        if !changed {
            return Ok(());
        }
    }
    Err(Error::Usage(
        "the chain labels do not settle: the state is not optimal (J-SA/L-SA need an optimal state)"
            .into(),
    ))
}

/// J-SA as published (Fig. 2), rebuilding `MC`/`MP` per join. Returns the
/// number of transfers.
pub fn j_sa_rebuild(inst: &CmaInstance, state: &mut CmaState, i: usize) -> Result<usize> {
    let k = inst.mirrors();
    let near = inst.nearest(i).ok_or_else(|| no_room(i))?;
    let full = |st: &CmaState, j: usize| st.loads()[j] >= inst.capacity[j];
    if !full(state, near) {
        state.join(i, near);
        return Ok(0);
    }
    let tables = generate_mc_mp(inst, state);
    let mut labels: Vec<Label> = (0..k)
        .map(|j| Label {
            delay: if full(state, j) { f64::INFINITY } else { 0.0 },
            mirror: None,
        })
        .collect();
    correct_labels(k, inst.tolerance(), &tables, &mut labels, |j| {
        full(state, j)
    })?;
    let row = inst.row(i);
    let usable = |j: usize| inst.capacity[j] > 0;
    let min = (0..k)
        .filter(|&j| usable(j))
        .map(|j| row[j] + labels[j].delay)
        .fold(f64::INFINITY, f64::min);
    if !min.is_finite() {
        return Err(no_room(i));
    }
    let tol = inst.tolerance();
    if let Some(j) = (0..k).find(|&j| usable(j) && !full(state, j) && row[j] <= min + tol) {
        state.join(i, j);
        return Ok(0);
    }
    let mut f = (0..k)
        .find(|&j| usable(j) && row[j] + labels[j].delay <= min)
        .ok_or_else(|| no_room(i))?;
    state.join(i, f);
    let mut moves = 0;
    while state.loads()[f] > inst.capacity[f] && moves <= k {
        let t = labels[f]
            .mirror
            .ok_or_else(|| Error::Solver(format!("J-SA chain broken at mirror {f}")))?;
        state.move_to(tables.mp[f * k + t], t);
        moves += 1;
        f = t;
    }
    Ok(moves)
}
