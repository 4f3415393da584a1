//! The mirror move graph: the incremental form of Webb & Soh's `MC`/`MP`
//! arrays (seed 002 §3) shared by `exact-flow`, `j-sa` and `l-sa`.
//!
//! Nodes are the mirrors with `C_j > 0` plus a sink `t`. Arc `u → v` is the
//! cheapest move of a client from `u` to `v`, costing `d(i,v) − d(i,u)`
//! (`MC[u][v]`; the client is `MP[u][v]`); `j → t` exists while `j` has spare
//! capacity and `t → j` while `j` has clients (both cost 0). An assignment is
//! optimal for its clients iff this residual graph has no negative cycle.
//!
//! The cheapest move per pair is cached in a dense `k × k` row-major array
//! (`arc`), exact unless its source row is marked stale. A row is kept in
//! one of two modes:
//! - **scan mode** (its mirror holds at most `SMALL = 48` clients, the
//!   usual case in the dynamic scenarios): adding a client takes an
//!   element-wise minimum with its `k` keys (`O(k)`), removing one marks the
//!   row stale only when it was one of the row's least moves (`O(k)`), and a
//!   stale row is rebuilt from the mirror's members when read
//!   (`O(|u|·k)`, packed minima). The client of a move is found by scanning
//!   the members (`O(|u|)`).
//! - **heap mode** (crowded mirrors, e.g. `exact-flow` on 100,000 clients):
//!   each pair keeps a binary min-heap of candidate moves with lazy deletion
//!   and a budget `B` (`pair::Heap`), so memory is `O(k² B + n)` instead of
//!   `O(nk)` and a client costs `O(k log B)` to add.
//!
//! Chains are shortest paths found by Dijkstra on the `k + 1` nodes with
//! reduced costs `c(u,v) + π_u − π_v >= 0` (node potentials `π`, kept valid
//! across events; empty mirrors are normalised to `π_t`). One search is
//! `O(k²)` plus the refreshes of the stale rows it reads, and allocates
//! nothing (its buffers are reused).

use crate::error::{Error, Result};
use crate::problems::cma::model::CmaInstance;
use pair::{Entry, Heap};

mod bulk;
mod pair;
mod search;
mod ties;

const NONE: u32 = u32::MAX;
const INITIAL_BUDGET: usize = 128;
/// A row switches to heap mode when its mirror holds more clients than this
/// at a refresh, and back to scan mode at half of it.
const SMALL: usize = 48;

/// Dual prices from node potentials `pot` (the sink last): `p_j =
/// max(0, π_t − π_j)`, `INFINITY` for a mirror without capacity.
pub fn prices_of(pot: &[f64], cap: &[usize]) -> Vec<f64> {
    let t = pot.get(cap.len()).copied().unwrap_or(0.0);
    cap.iter()
        .zip(pot)
        .map(|(&c, &p)| {
            if c == 0 {
                f64::INFINITY
            } else {
                (t - p).max(0.0)
            }
        })
        .collect()
}

/// Result of one shortest-chain search.
#[derive(Debug, Clone, Default)]
pub struct Search {
    /// Reduced distance per node (`k` = the sink).
    pub dist: Vec<f64>,
    /// Predecessor per node (`u32::MAX` = a source).
    pub pred: Vec<u32>,
    /// Whether the target was reached.
    pub reached: bool,
}

/// Clients on mirrors with cached cheapest moves and node potentials.
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
    /// Per row `u`: its `k` pair heaps in heap mode, `None` in scan mode.
    heaps: Vec<Option<Vec<Heap>>>,
    /// Cached least move per pair (`INFINITY` = none), exact unless the
    /// row is `dirty`.
    arc: Vec<f64>,
    /// Per pair: 0, or `INFINITY` for `v = u` and mirrors without capacity
    /// (added to a key, it keeps those arcs absent).
    mask: Vec<f64>,
    dirty: Vec<bool>,
    /// Node potentials; index `k` is the sink `t`.
    pot: Vec<f64>,
    scratch: Scratch,
    /// Per pair, the `SEED_RANK`-th least move collected by
    /// [`MoveGraph::place_at_prices`] (`f64::MAX` when fewer): from a
    /// sample, an initial cut for the whole instance's start.
    seed_cuts: Vec<f64>,
    /// Client moves performed so far (transfers).
    pub moves: usize,
}

/// Reused buffers of the chain searches (no allocation per event).
#[derive(Debug, Clone, Default)]
struct Scratch {
    search: Search,
    open: Vec<f64>,
}

impl<'a> MoveGraph<'a> {
    /// An empty graph (nobody present, potentials 0: optimal).
    pub fn new(inst: &'a CmaInstance) -> Self {
        Self::with_capacities(inst, inst.capacity.clone())
    }

    /// An empty graph with capacities `cap` instead of the instance's (one
    /// per mirror; used to solve scaled samples).
    pub fn with_capacities(inst: &'a CmaInstance, mut cap: Vec<usize>) -> Self {
        let (n, k) = (inst.clients(), inst.mirrors());
        // A capacity above the client count is never binding; clamping keeps
        // every load and capacity sum far from overflow.
        for c in &mut cap {
            *c = (*c).min(n);
        }
        let mask = (0..k * k)
            .map(|p| {
                let (u, v) = (p / k, p % k);
                if u == v || cap[v] == 0 {
                    f64::INFINITY
                } else {
                    0.0
                }
            })
            .collect();
        MoveGraph {
            inst,
            k,
            active: (0..k).filter(|&j| cap[j] > 0).collect(),
            cap,
            assign: vec![NONE; n],
            stamp: vec![0; n],
            pos: vec![0; n],
            members: vec![Vec::new(); k],
            heaps: vec![None; k],
            arc: vec![f64::INFINITY; k * k],
            mask,
            dirty: vec![false; k],
            pot: vec![0.0; k + 1],
            scratch: Scratch::default(),
            seed_cuts: Vec::new(),
            moves: 0,
        }
    }

    /// Places `(client, mirror)` pairs without maintaining the cached moves,
    /// then builds the heaps of every crowded row in one row-ordered pass,
    /// `O(nk)`. Capacities are not checked here. Potentials are left
    /// unchanged.
    pub fn bulk_place(&mut self, placements: impl Iterator<Item = (usize, usize)>) {
        for (i, j) in placements {
            self.assign[i] = j as u32;
            self.pos[i] = self.members[j].len() as u32;
            self.members[j].push(i as u32);
        }
        self.build_heaps();
        self.dirty.iter_mut().for_each(|d| *d = true);
    }

    /// Builds the pair heaps of every row whose mirror holds more than
    /// `SMALL` clients (the others are scanned on demand). Pair `(u, v)`
    /// keeps the `B = 128` cheapest moves, collected in a buffer that is cut
    /// back to its `B` smallest by selection whenever it doubles: `O(nk)`
    /// amortised. (Larger budgets for overloaded mirrors were measured
    /// slower: bigger heaps cost more than the rescans they save.)
    fn build_heaps(&mut self) {
        let k = self.k;
        let budget = INITIAL_BUDGET;
        let crowded: Vec<bool> = self.members.iter().map(|m| m.len() > SMALL).collect();
        let mut buf: Vec<Vec<Entry>> = (0..k * k).map(|_| Vec::new()).collect();
        let mut cut = vec![f64::INFINITY; k * k];
        for (i, &a) in self.assign.iter().enumerate() {
            if a == NONE || !crowded[a as usize] {
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
                if b.len() >= 2 * budget {
                    b.select_nth_unstable_by(budget - 1, Entry::order);
                    b.truncate(budget);
                    cut[p] = b[budget - 1].key;
                }
            }
        }
        let mut buf = buf.into_iter();
        for (u, &crowded) in crowded.iter().enumerate() {
            let row: Vec<Vec<Entry>> = buf.by_ref().take(k).collect();
            if !crowded {
                self.heaps[u] = None;
                continue;
            }
            let heaps = row
                .into_iter()
                .enumerate()
                .map(|(v, entries)| Heap {
                    heap: entries.into(),
                    tau: cut[u * k + v]
                        .is_finite()
                        .then(|| (prev_float(cut[u * k + v]), u32::MAX)),
                    budget,
                })
                .collect();
            self.heaps[u] = Some(heaps);
        }
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

    /// Replaces the potentials (e.g. from a Bellman-Ford certificate). Not
    /// normalised: call [`MoveGraph::normalise`] for a balanced state.
    pub fn set_potentials(&mut self, pot: Vec<f64>) {
        self.pot = pot;
    }

    /// Dual prices `p_j = max(0, π_t − π_j)` (active mirrors; `INFINITY` for
    /// mirrors without capacity): each client sits at a mirror minimising
    /// `d(i,j) + p_j`.
    pub fn prices(&self) -> Vec<f64> {
        prices_of(&self.pot, &self.cap)
    }

    /// Puts absent client `i` on mirror `u`: `O(k)` in scan mode (the cached
    /// row takes an element-wise minimum), `O(k log B)` in heap mode.
    pub fn add(&mut self, i: usize, u: usize) {
        self.assign[i] = u as u32;
        self.stamp[i] = self.stamp[i].wrapping_add(1);
        self.pos[i] = self.members[u].len() as u32;
        self.members[u].push(i as u32);
        let k = self.k;
        let row = self.inst.row(i);
        let du = row[u];
        if !self.dirty[u] {
            let arc = &mut self.arc[u * k..(u + 1) * k];
            let mask = &self.mask[u * k..(u + 1) * k];
            for ((a, &d), &m) in arc.iter_mut().zip(row).zip(mask) {
                *a = min_of(*a, d - du + m);
            }
        }
        let Some(heaps) = self.heaps[u].as_mut() else {
            return;
        };
        let mut grown = None;
        for &v in &self.active {
            let key = row[v] - du;
            let h = &mut heaps[v];
            if v != u && h.covers(key, i as u32) {
                h.heap.push(Entry {
                    key,
                    client: i as u32,
                    stamp: self.stamp[i],
                });
                if h.heap.len() > 2 * self.members[u].len() + 64 {
                    grown = Some(v);
                }
            }
        }
        if let Some(v) = grown {
            self.rescan_heap(u, v, false);
        }
    }

    /// Removes present client `i` (lazily from heaps), `O(k)`: the cached
    /// row goes stale only when `i` was one of its least moves. Returns
    /// `i`'s mirror.
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
        if !self.dirty[u] {
            let k = self.k;
            let row = self.inst.row(i);
            let du = row[u];
            let arc = &self.arc[u * k..(u + 1) * k];
            let mask = &self.mask[u * k..(u + 1) * k];
            let least = arc
                .iter()
                .zip(row)
                .zip(mask)
                .fold(false, |hit, ((&a, &d), &m)| hit | (d - du + m <= a));
            self.dirty[u] = least;
        }
        u
    }

    /// Rebuilds pair `(u, v)`'s heap from `u`'s members with its budget
    /// (`grow`: four times it).
    fn rescan_heap(&mut self, u: usize, v: usize, grow: bool) {
        let inst = self.inst;
        let entries: Vec<Entry> = self.members[u]
            .iter()
            .map(|&c| {
                let r = inst.row(c as usize);
                Entry {
                    key: r[v] - r[u],
                    client: c,
                    stamp: self.stamp[c as usize],
                }
            })
            .collect();
        let Some(h) = self.heaps[u].as_mut().map(|hs| &mut hs[v]) else {
            return;
        };
        let budget = if grow {
            h.budget.saturating_mul(4)
        } else {
            h.budget
        };
        *h = Heap::from_entries(entries, budget);
    }

    /// The least move `u → v` and its client in scan mode: `O(|u|)`.
    fn scan_pair(&self, u: usize, v: usize) -> Option<(f64, usize)> {
        let m = self.mask[u * self.k + v];
        let mut best: Option<(f64, usize)> = None;
        for &c in &self.members[u] {
            let r = self.inst.row(c as usize);
            let key = r[v] - r[u] + m;
            let c = c as usize;
            if key < f64::INFINITY && best.is_none_or(|(b, bc)| key < b || (key == b && c < bc)) {
                best = Some((key, c));
            }
        }
        best
    }

    /// The cheapest move from `u` to `v`: `(d(i,v) − d(i,u), i)`.
    pub fn peek(&mut self, u: usize, v: usize) -> Option<(f64, usize)> {
        if u == v || self.cap[v] == 0 {
            return None;
        }
        loop {
            let Some(h) = self.heaps[u].as_mut().map(|hs| &mut hs[v]) else {
                return self.scan_pair(u, v);
            };
            match h.heap.peek() {
                None if h.tau.is_none() => return None,
                None => self.rescan_heap(u, v, true),
                Some(e) if self.stamp[e.client as usize] != e.stamp => {
                    h.heap.pop();
                }
                Some(e) if h.covers(e.key, e.client) => return Some((e.key, e.client as usize)),
                Some(_) => self.rescan_heap(u, v, true),
            }
        }
    }

    /// Brings `u`'s cached row up to date: from its heaps in heap mode,
    /// else by scanning its members (`O(|u|·k)`, element-wise minima).
    /// Switches the row's mode when its mirror has grown past `SMALL`
    /// clients or shrunk to half of that.
    fn refresh_row(&mut self, u: usize) {
        if !self.dirty[u] {
            return;
        }
        let (k, n_u) = (self.k, self.members[u].len());
        match &self.heaps[u] {
            Some(_) if n_u <= SMALL / 2 => self.heaps[u] = None,
            None if n_u > SMALL => self.enter_heap_mode(u),
            _ => {}
        }
        if self.heaps[u].is_some() {
            for v in 0..k {
                self.arc[u * k + v] = self.peek(u, v).map_or(f64::INFINITY, |(c, _)| c);
            }
        } else {
            let arc = &mut self.arc[u * k..(u + 1) * k];
            let mask = &self.mask[u * k..(u + 1) * k];
            arc.iter_mut().for_each(|a| *a = f64::INFINITY);
            for &c in &self.members[u] {
                let r = self.inst.row(c as usize);
                let du = r[u];
                for ((a, &d), &m) in arc.iter_mut().zip(r).zip(mask) {
                    *a = min_of(*a, d - du + m);
                }
            }
        }
        self.dirty[u] = false;
    }

    /// Gives row `u` one heap per pair, built from its members.
    fn enter_heap_mode(&mut self, u: usize) {
        let k = self.k;
        let empty = Heap {
            heap: Default::default(),
            tau: None,
            budget: INITIAL_BUDGET,
        };
        self.heaps[u] = Some(vec![empty; k]);
        for v in 0..k {
            if v != u && self.cap[v] > 0 {
                self.rescan_heap(u, v, false);
            }
        }
    }

    /// The cached cheapest-move cost `u → v` (refreshing `u`'s row if needed).
    pub fn arc_cost(&mut self, u: usize, v: usize) -> f64 {
        self.refresh_row(u);
        self.arc[u * self.k + v]
    }

    /// Mirror `u`'s cached cheapest-move costs to every mirror (refreshed
    /// if needed; `INFINITY` = no arc) and the node potentials.
    pub fn arc_row(&mut self, u: usize) -> (&[f64], &[f64]) {
        self.refresh_row(u);
        (&self.arc[u * self.k..(u + 1) * self.k], &self.pot)
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

    /// Sets every empty mirror's potential to `π_t`. Valid in a balanced
    /// state (every mirror's load is its flow to the sink): an empty mirror
    /// then has no outgoing move arc and needs only `π_j >= π_t`, so lowering
    /// it to `π_t` keeps every reduced cost `>= 0`. (Not during `exact-flow`'s
    /// routing, where an empty priced mirror may have a deficit.)
    pub fn normalise(&mut self) {
        let t = self.pot[self.k];
        for &j in &self.active {
            if self.members[j].is_empty() {
                self.pot[j] = t;
            }
        }
    }
}

/// `min(a, b)` as a plain select (no NaN handling: keys are finite or
/// infinite), so that row updates compile to packed minima.
#[inline(always)]
fn min_of(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
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
