//! The mirror move graph: the incremental form of Webb & Soh's `MC`/`MP`
//! arrays (seed 002 §3) shared by `exact-flow`, `j-sa` and `l-sa`.
//!
//! Nodes are the mirrors with `C_j > 0` plus a sink `t`. Arc `u → v` is the
//! cheapest move of a client from `u` to `v`, costing `d(i,v) − d(i,u)`
//! (`MC[u][v]`; the client is `MP[u][v]`); `j → t` exists while `j` has spare
//! capacity and `t → j` while `j` has clients (both cost 0). An assignment is
//! optimal for its clients iff this residual graph has no negative cycle.
//!
//! A pair whose source mirror has few clients (`<= 48`) keeps only its
//! least move and rescans the mirror when that client has left. Otherwise
//! each mirror pair keeps a binary min-heap of candidate moves with lazy
//! deletion (an entry carries the client's move stamp, so a client that left
//! is skipped when it surfaces). A pair's heap need not hold every client of
//! `u`: it holds every client whose key is `<= τ(u,v)`, so its valid top is the
//! true minimum whenever that top is `<= τ`; otherwise the pair is rescanned
//! from `u`'s member list with a doubled budget. With `n` clients and `k`
//! mirrors this needs `O(k² B + n)` memory instead of `O(nk)`.
//!
//! Chains are shortest paths found by Dijkstra on the `k + 1` nodes with
//! reduced costs `c(u,v) + π_u − π_v >= 0` (node potentials `π`, kept valid
//! across events; empty mirrors are normalised to `π_t`). One search is
//! `O(k²)` plus the heap work of refreshing the rows it reads; adding a client
//! costs `O(k log B)`, removing one `O(1)`.

use crate::error::{Error, Result};
use crate::model::cma::CmaInstance;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

const NONE: u32 = u32::MAX;
const INITIAL_BUDGET: usize = 128;
/// Pairs whose source mirror has at most this many clients use small mode.
const SMALL: usize = 48;

/// A candidate move of `client` (with `stamp`) along a pair, key `d(i,v) − d(i,u)`.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: f64,
    client: u32,
    stamp: u32,
}

impl Entry {
    fn order(&self, other: &Self) -> Ordering {
        self.key
            .total_cmp(&other.key)
            .then(self.client.cmp(&other.client))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.order(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl Ord for Entry {
    /// Reversed: `BinaryHeap<Entry>` pops the least (key, client) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.order(self)
    }
}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Debug, Clone)]
struct PairHeap {
    heap: BinaryHeap<Entry>,
    /// Every member with key `<= tau` is in `heap`; `INFINITY` = complete.
    tau: f64,
    budget: usize,
    /// Small mode (few clients on `u`): no heap, only the least entry; a
    /// stale least entry triggers an `O(n_u)` rescan.
    small: bool,
    min: Option<Entry>,
}

impl PairHeap {
    fn empty() -> Self {
        PairHeap {
            heap: BinaryHeap::new(),
            tau: f64::INFINITY,
            budget: INITIAL_BUDGET,
            small: true,
            min: None,
        }
    }
}

/// Result of one shortest-chain search.
#[derive(Debug, Clone)]
pub struct Search {
    /// Reduced distance per node (`k` = the sink).
    pub dist: Vec<f64>,
    /// Predecessor per node (`u32::MAX` = a source).
    pub pred: Vec<u32>,
    /// Whether the target was reached.
    pub reached: bool,
}

/// Clients on mirrors with per-pair cheapest-move heaps and node potentials.
#[derive(Debug, Clone)]
pub struct MoveGraph<'a> {
    inst: &'a CmaInstance,
    k: usize,
    cap: Vec<usize>,
    active: Vec<usize>,
    assign: Vec<u32>,
    stamp: Vec<u32>,
    pos: Vec<u32>,
    members: Vec<Vec<u32>>,
    pairs: Vec<PairHeap>,
    arc: Vec<f64>,
    dirty: Vec<bool>,
    /// Node potentials; index `k` is the sink `t`.
    pot: Vec<f64>,
    /// Client moves performed so far (transfers).
    pub moves: usize,
}

impl<'a> MoveGraph<'a> {
    /// An empty graph (nobody present, potentials 0: optimal).
    pub fn new(inst: &'a CmaInstance) -> Self {
        Self::with_capacities(inst, inst.capacity.clone())
    }

    /// An empty graph with capacities `cap` instead of the instance's (one
    /// per mirror; used to solve scaled samples).
    pub fn with_capacities(inst: &'a CmaInstance, cap: Vec<usize>) -> Self {
        let (n, k) = (inst.clients(), inst.mirrors());
        MoveGraph {
            inst,
            k,
            active: (0..k).filter(|&j| cap[j] > 0).collect(),
            cap,
            assign: vec![NONE; n],
            stamp: vec![0; n],
            pos: vec![0; n],
            members: vec![Vec::new(); k],
            pairs: vec![PairHeap::empty(); k * k],
            arc: vec![f64::INFINITY; k * k],
            dirty: vec![false; k],
            pot: vec![0.0; k + 1],
            moves: 0,
        }
    }

    /// Places `(client, mirror)` pairs without maintaining the heaps, then
    /// builds every pair heap in one row-ordered pass, `O(nk)`. Capacities are
    /// not checked here. Potentials are left unchanged.
    pub fn bulk_place(&mut self, placements: impl Iterator<Item = (usize, usize)>) {
        for (i, j) in placements {
            self.assign[i] = j as u32;
            self.pos[i] = self.members[j].len() as u32;
            self.members[j].push(i as u32);
        }
        self.build_heaps();
    }

    /// Builds every pair heap in one row-ordered pass. Pair `(u, v)` keeps
    /// the `B = 128` cheapest moves, collected in a buffer that is cut back to
    /// its `B` smallest by selection whenever it doubles: `O(nk)` amortised.
    /// (Larger budgets for overloaded mirrors were measured slower: bigger
    /// heaps cost more than the rescans they save.)
    fn build_heaps(&mut self) {
        let k = self.k;
        let budget = vec![INITIAL_BUDGET; k];
        let mut buf: Vec<Vec<Entry>> = (0..k * k).map(|_| Vec::new()).collect();
        let mut cut = vec![f64::INFINITY; k * k];
        for (i, &a) in self.assign.iter().enumerate() {
            if a == NONE {
                continue;
            }
            let u = a as usize;
            let row = self.inst.row(i);
            let du = row[u];
            for &v in &self.active {
                let p = u * k + v;
                let key = row[v] - du;
                if v == u || key >= cut[p] {
                    continue;
                }
                let b = &mut buf[p];
                b.push(Entry {
                    key,
                    client: i as u32,
                    stamp: self.stamp[i],
                });
                if b.len() >= 2 * budget[u] {
                    b.select_nth_unstable_by(budget[u] - 1, Entry::order);
                    b.truncate(budget[u]);
                    cut[p] = b[budget[u] - 1].key;
                }
            }
        }
        for (p, entries) in buf.into_iter().enumerate() {
            if self.members[p / k].len() <= SMALL {
                self.pairs[p] = PairHeap {
                    min: entries.into_iter().min_by(Entry::order),
                    ..PairHeap::empty()
                };
                continue;
            }
            self.pairs[p] = PairHeap {
                small: false,
                min: None,
                heap: BinaryHeap::from(entries),
                tau: if cut[p].is_finite() {
                    prev_float(cut[p])
                } else {
                    f64::INFINITY
                },
                budget: budget[p / k],
            };
        }
        self.dirty.iter_mut().for_each(|d| *d = true);
    }

    /// The instance.
    pub fn instance(&self) -> &'a CmaInstance {
        self.inst
    }

    /// Mirror of client `i` (`None` = absent).
    pub fn mirror_of(&self, i: usize) -> Option<usize> {
        let a = self.assign[i];
        (a != NONE).then_some(a as usize)
    }

    /// Clients on mirror `j`.
    pub fn load(&self, j: usize) -> usize {
        self.members[j].len()
    }

    /// Capacity of mirror `j` in this graph.
    pub fn capacity(&self, j: usize) -> usize {
        self.cap[j]
    }

    /// True when mirror `j` has spare capacity.
    pub fn has_room(&self, j: usize) -> bool {
        self.members[j].len() < self.cap[j]
    }

    /// The current assignment, one entry per row.
    pub fn assignment(&self) -> Vec<Option<usize>> {
        (0..self.assign.len()).map(|i| self.mirror_of(i)).collect()
    }

    /// Mirrors with `C_j > 0`.
    pub fn active(&self) -> &[usize] {
        &self.active
    }

    /// Node potentials (index `k` = sink).
    pub fn potentials(&self) -> &[f64] {
        &self.pot
    }

    /// Replaces the potentials (e.g. from a Bellman-Ford certificate).
    pub fn set_potentials(&mut self, pot: Vec<f64>) {
        self.pot = pot;
        self.normalise();
    }

    /// Dual prices `p_j = max(0, π_t − π_j)` (active mirrors; `INFINITY` for
    /// mirrors without capacity): each client sits at a mirror minimising
    /// `d(i,j) + p_j`.
    pub fn prices(&self) -> Vec<f64> {
        let t = self.pot[self.k];
        (0..self.k)
            .map(|j| {
                if self.cap[j] == 0 {
                    f64::INFINITY
                } else {
                    (t - self.pot[j]).max(0.0)
                }
            })
            .collect()
    }

    /// Puts absent client `i` on mirror `u`, `O(k log B)`.
    pub fn add(&mut self, i: usize, u: usize) {
        self.assign[i] = u as u32;
        self.stamp[i] = self.stamp[i].wrapping_add(1);
        self.pos[i] = self.members[u].len() as u32;
        self.members[u].push(i as u32);
        let row = self.inst.row(i);
        let du = row[u];
        let k = self.k;
        let n_u = self.members[u].len();
        for idx in 0..self.active.len() {
            let v = self.active[idx];
            if v == u {
                continue;
            }
            let key = row[v] - du;
            let p = u * k + v;
            let pair = &mut self.pairs[p];
            if pair.small {
                let e = Entry {
                    key,
                    client: i as u32,
                    stamp: self.stamp[i],
                };
                if pair.min.is_none_or(|m| e.order(&m) == Ordering::Less) {
                    pair.min = Some(e);
                }
            } else if key <= pair.tau {
                pair.heap.push(Entry {
                    key,
                    client: i as u32,
                    stamp: self.stamp[i],
                });
                if pair.heap.len() > 2 * n_u + 64 {
                    self.rescan(u, v, false);
                }
            }
            if !self.dirty[u] && key < self.arc[p] {
                self.arc[p] = key;
            }
        }
    }

    /// Removes present client `i` (lazily from the heaps), `O(1)`.
    pub fn remove(&mut self, i: usize) -> usize {
        let u = self.assign[i] as usize;
        let p = self.pos[i] as usize;
        let list = &mut self.members[u];
        list.swap_remove(p);
        if let Some(&moved) = list.get(p) {
            self.pos[moved as usize] = p as u32;
        }
        self.assign[i] = NONE;
        self.stamp[i] = self.stamp[i].wrapping_add(1);
        self.dirty[u] = true;
        u
    }

    fn rescan(&mut self, u: usize, v: usize, grow: bool) {
        let p = u * self.k + v;
        if self.members[u].len() <= SMALL {
            let mut best: Option<Entry> = None;
            for &c in &self.members[u] {
                let row = self.inst.row(c as usize);
                let e = Entry {
                    key: row[v] - row[u],
                    client: c,
                    stamp: self.stamp[c as usize],
                };
                if best.is_none_or(|b| e.order(&b) == Ordering::Less) {
                    best = Some(e);
                }
            }
            let budget = self.pairs[p].budget;
            self.pairs[p] = PairHeap {
                min: best,
                budget,
                ..PairHeap::empty()
            };
            return;
        }
        let budget = if grow {
            self.pairs[p].budget.saturating_mul(4)
        } else {
            self.pairs[p].budget
        };
        let mut keys: Vec<Entry> = self.members[u]
            .iter()
            .map(|&c| {
                let row = self.inst.row(c as usize);
                Entry {
                    key: row[v] - row[u],
                    client: c,
                    stamp: self.stamp[c as usize],
                }
            })
            .collect();
        let tau = if keys.len() <= budget {
            f64::INFINITY
        } else {
            keys.select_nth_unstable_by(budget - 1, Entry::order);
            let tau = keys[budget - 1].key;
            keys.retain(|e| e.key <= tau);
            tau
        };
        self.pairs[p] = PairHeap {
            heap: BinaryHeap::from(keys),
            tau,
            budget,
            small: false,
            min: None,
        };
    }

    /// The cheapest move from `u` to `v`: `(d(i,v) − d(i,u), i)`.
    pub fn peek(&mut self, u: usize, v: usize) -> Option<(f64, usize)> {
        let p = u * self.k + v;
        loop {
            let pair = &mut self.pairs[p];
            if pair.small {
                match pair.min {
                    None => return None,
                    Some(e) if self.stamp[e.client as usize] == e.stamp => {
                        return Some((e.key, e.client as usize))
                    }
                    Some(_) => {
                        self.rescan(u, v, false);
                        if self.pairs[p].small {
                            return self.pairs[p].min.map(|e| (e.key, e.client as usize));
                        }
                        continue;
                    }
                }
            }
            match pair.heap.peek() {
                None if pair.tau == f64::INFINITY => return None,
                None => self.rescan(u, v, true),
                Some(e) if self.stamp[e.client as usize] != e.stamp => {
                    pair.heap.pop();
                }
                Some(e) if e.key <= pair.tau => return Some((e.key, e.client as usize)),
                Some(_) => self.rescan(u, v, true),
            }
        }
    }

    fn refresh_row(&mut self, u: usize) {
        if !self.dirty[u] {
            return;
        }
        for idx in 0..self.active.len() {
            let v = self.active[idx];
            if v != u {
                self.arc[u * self.k + v] = self.peek(u, v).map_or(f64::INFINITY, |(c, _)| c);
            }
        }
        self.dirty[u] = false;
    }

    /// The cached cheapest-move cost `u → v` (refreshing `u`'s row if needed).
    pub fn arc_cost(&mut self, u: usize, v: usize) -> f64 {
        self.refresh_row(u);
        self.arc[u * self.k + v]
    }

    /// Moves the cheapest client from `u` to `v`; returns it.
    pub fn move_top(&mut self, u: usize, v: usize) -> Result<usize> {
        let (_, i) = self
            .peek(u, v)
            .ok_or_else(|| Error::Solver(format!("no client to move from mirror {u} to {v}")))?;
        self.remove(i);
        self.add(i, v);
        self.moves += 1;
        Ok(i)
    }

    /// Sets every empty mirror's potential to `π_t` (always valid: an empty
    /// mirror has no outgoing move arcs and needs only `π_j >= π_t`).
    pub fn normalise(&mut self) {
        let t = self.pot[self.k];
        for &j in &self.active {
            if self.members[j].is_empty() {
                self.pot[j] = t;
            }
        }
    }

    /// Dijkstra over reduced costs from the nodes with a finite `init` label
    /// (`k + 1` entries; index `k` = sink) to `target`. Arcs into the sink
    /// are used when `target` is the sink, arcs out of it when `from_t`.
    /// `O(k²)` plus row refreshes. Potentials are not changed.
    pub fn search(&mut self, init: &[f64], target: usize, from_t: bool) -> Search {
        let k = self.k;
        let mut dist = init.to_vec();
        let mut pred = vec![NONE; k + 1];
        let mut done = vec![false; k + 1];
        let mut open: Vec<usize> = (0..=k).filter(|&x| dist[x].is_finite()).collect();
        let mut reached = false;
        while !open.is_empty() {
            let mut at = 0;
            for (idx, &x) in open.iter().enumerate().skip(1) {
                let o = open[at];
                if dist[x] < dist[o] || (dist[x] == dist[o] && x < o) {
                    at = idx;
                }
            }
            let x = open.swap_remove(at);
            let dx = dist[x];
            done[x] = true;
            if x == target {
                reached = true;
                break;
            }
            let mut relax = |v: usize, d: f64, open: &mut Vec<usize>| {
                if !done[v] && d < dist[v] {
                    if dist[v] == f64::INFINITY {
                        open.push(v);
                    }
                    dist[v] = d;
                    pred[v] = x as u32;
                }
            };
            if x == k {
                if from_t {
                    for &u in &self.active {
                        if !self.members[u].is_empty() {
                            relax(u, dx + (self.pot[k] - self.pot[u]).max(0.0), &mut open);
                        }
                    }
                }
                continue;
            }
            if !self.members[x].is_empty() {
                self.refresh_row(x);
                let row = &self.arc[x * k..(x + 1) * k];
                let base = self.pot[x];
                for &v in &self.active {
                    let c = row[v];
                    if v != x && c.is_finite() {
                        relax(v, dx + (c + base - self.pot[v]).max(0.0), &mut open);
                    }
                }
            }
            if target == k && self.members[x].len() < self.cap[x] {
                relax(k, dx + (self.pot[x] - self.pot[k]).max(0.0), &mut open);
            }
        }
        Search {
            dist,
            pred,
            reached,
        }
    }

    /// `π_v += min(dist_v, L)` with `L` the target's distance (or the largest
    /// finite one when unreached): keeps every reduced cost `>= 0`.
    pub fn update_potentials(&mut self, s: &Search, target: usize) {
        let cap = if s.reached {
            s.dist[target]
        } else {
            s.dist
                .iter()
                .copied()
                .filter(|d| d.is_finite())
                .fold(0.0, f64::max)
        };
        let k = self.k;
        for x in self.active.clone().into_iter().chain(std::iter::once(k)) {
            self.pot[x] += s.dist[x].min(cap);
        }
    }

    /// The nodes of the search path ending at `target`, source first.
    pub fn path(&self, s: &Search, target: usize) -> Vec<usize> {
        let mut path = vec![target];
        let mut x = target;
        while s.pred[x] != NONE && path.len() <= self.k + 1 {
            x = s.pred[x] as usize;
            path.push(x);
        }
        path.reverse();
        path
    }

    /// Applies the moves of a mirror chain `a → b → …` (consecutive mirror
    /// pairs; the sink is skipped), last arc first, so each arc moves the
    /// client its search cost was read from. Returns the number of moves.
    pub fn apply_chain(&mut self, chain: &[usize]) -> Result<usize> {
        let k = self.k;
        let mirrors: Vec<usize> = chain.iter().copied().filter(|&x| x != k).collect();
        for w in mirrors.windows(2).rev() {
            self.move_top(w[0], w[1])?;
        }
        Ok(mirrors.len().saturating_sub(1))
    }

    /// The true cost of a mirror chain (sum of its arcs' cached costs).
    pub fn chain_cost(&mut self, chain: &[usize]) -> f64 {
        let k = self.k;
        let mirrors: Vec<usize> = chain.iter().copied().filter(|&x| x != k).collect();
        mirrors.windows(2).map(|w| self.arc_cost(w[0], w[1])).sum()
    }
}

/// The largest `f64` strictly below finite `x`.
pub fn prev_float(x: f64) -> f64 {
    if x == 0.0 {
        -f64::from_bits(1)
    } else if x > 0.0 {
        f64::from_bits(x.to_bits() - 1)
    } else {
        f64::from_bits(x.to_bits() + 1)
    }
}
