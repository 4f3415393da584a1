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

mod search;

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
    /// Small mode (few clients on `u`): no heap, the `FEW` least entries,
    /// sorted, in `few[..len]`; every member with key `< tau` is among them.
    small: bool,
    few: [Entry; FEW],
    len: u8,
}

/// Entries kept per pair in small mode.
const FEW: usize = 4;
const NO_ENTRY: Entry = Entry {
    key: f64::INFINITY,
    client: NONE,
    stamp: 0,
};

impl PairHeap {
    fn empty() -> Self {
        PairHeap {
            heap: BinaryHeap::new(),
            tau: f64::INFINITY,
            budget: INITIAL_BUDGET,
            small: true,
            few: [NO_ENTRY; FEW],
            len: 0,
        }
    }

    /// Small mode from every member's entry.
    fn small_from(mut entries: Vec<Entry>, budget: usize) -> Self {
        let mut pair = PairHeap {
            budget,
            ..PairHeap::empty()
        };
        if entries.len() > FEW {
            entries.select_nth_unstable_by(FEW, Entry::order);
            pair.tau = entries[FEW].key;
            entries.truncate(FEW);
        }
        entries.sort_unstable_by(Entry::order);
        pair.len = entries.len() as u8;
        pair.few[..entries.len()].copy_from_slice(&entries);
        pair
    }

    /// Small mode: keeps `e` if it may be among the `FEW` least.
    fn few_insert(&mut self, e: Entry) {
        if e.key >= self.tau {
            return;
        }
        let n = self.len as usize;
        let mut pos = n;
        while pos > 0 && e.order(&self.few[pos - 1]) == Ordering::Less {
            pos -= 1;
        }
        if n == FEW {
            if pos == FEW {
                self.tau = self.tau.min(e.key);
                return;
            }
            self.tau = self.tau.min(self.few[FEW - 1].key);
            self.few.copy_within(pos..FEW - 1, pos + 1);
        } else {
            self.few.copy_within(pos..n, pos + 1);
            self.len += 1;
        }
        self.few[pos] = e;
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
                self.pairs[p] = PairHeap::small_from(entries, budget[p / k]);
                continue;
            }
            self.pairs[p] = PairHeap {
                small: false,
                few: [NO_ENTRY; FEW],
                len: 0,
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

    /// Replaces the potentials (e.g. from a Bellman-Ford certificate). Not
    /// normalised: call [`MoveGraph::normalise`] for a balanced state.
    pub fn set_potentials(&mut self, pot: Vec<f64>) {
        self.pot = pot;
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
                pair.few_insert(Entry {
                    key,
                    client: i as u32,
                    stamp: self.stamp[i],
                });
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

    /// Every client of mirror `u` as a candidate move to `v`.
    fn pair_entries(&self, u: usize, v: usize) -> Vec<Entry> {
        self.members[u]
            .iter()
            .map(|&c| {
                let row = self.inst.row(c as usize);
                Entry {
                    key: row[v] - row[u],
                    client: c,
                    stamp: self.stamp[c as usize],
                }
            })
            .collect()
    }

    fn rescan(&mut self, u: usize, v: usize, grow: bool) {
        let p = u * self.k + v;
        if self.members[u].len() <= SMALL {
            let entries: Vec<Entry> = self.pair_entries(u, v);
            self.pairs[p] = PairHeap::small_from(entries, self.pairs[p].budget);
            return;
        }
        let budget = if grow {
            self.pairs[p].budget.saturating_mul(4)
        } else {
            self.pairs[p].budget
        };
        let mut keys: Vec<Entry> = self.pair_entries(u, v);
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
            few: [NO_ENTRY; FEW],
            len: 0,
        };
    }

    /// The cheapest move from `u` to `v`: `(d(i,v) − d(i,u), i)`.
    pub fn peek(&mut self, u: usize, v: usize) -> Option<(f64, usize)> {
        let p = u * self.k + v;
        loop {
            let pair = &mut self.pairs[p];
            if pair.small {
                while pair.len > 0 && self.stamp[pair.few[0].client as usize] != pair.few[0].stamp {
                    let n = pair.len as usize;
                    pair.few.copy_within(1..n, 0);
                    pair.len -= 1;
                }
                if pair.len > 0 && pair.few[0].key <= pair.tau {
                    return Some((pair.few[0].key, pair.few[0].client as usize));
                }
                if pair.len == 0 && pair.tau == f64::INFINITY {
                    return None;
                }
                self.rescan(u, v, false);
                continue;
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
