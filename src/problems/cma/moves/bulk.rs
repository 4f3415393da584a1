//! Placing many clients at once: every client at a mirror minimising
//! `d(i,j) + p_j` for given prices, and the cheapest moves of every crowded
//! mirror pair collected in the same pass over the rows
//! ([`MoveGraph::place_at_prices`]).
//!
//! The rows are split into chunks handled in parallel (rayon); each chunk
//! collects, per mirror pair, a buffer of its cheapest moves that is cut
//! back to the `B` least by selection whenever it doubles, and the pair's
//! least move; the buffers are merged pairwise. A pair whose seed cut (from
//! a sample) was below all its moves starts from its least move alone,
//! not from an empty heap that its first read would rescan from the
//! mirror's members, one cache miss each (1,000,000 × 50, `gen cma
//! --scenario static --seed 1`: rescans 127 → 69, routing 67 → 38 ms on
//! one thread). A client tied between several mirrors (equal
//! `d(i,j) + p_j` up to `tie`, e.g. identical rows) is placed afterwards:
//! any of them keeps the placement optimal for its loads, so the tied
//! clients are split between their mirrors by a small maximum flow over
//! their groups that fills the mirrors' room, priced mirrors first
//! ([`super::ties`]), which leaves less to route; a client the flow leaves
//! over (or every tied client when `k > 64`) goes to its tied mirror with
//! the most spare capacity.
//!
//! Time `O(nk)` work (`O(nk / threads)` wall) plus `O(k² B log B)` for the
//! merge and the flow's `O(A·G k)` (`G` groups, `A` augmenting paths);
//! memory `O(k² B)` per chunk in flight.

use super::pair::{Entry, Heap};
use super::ties;
use super::{MoveGraph, NONE, SMALL};
use crate::problems::cma::model::CmaInstance;
use rayon::prelude::*;

/// The least key of a pair without a move yet: above every finite key and
/// below the `INFINITY` of a masked pair, which is so never taken.
const NO_MOVE: f64 = f64::MAX;
/// Most moves kept per mirror pair at the start (`B`); a pair whose heap
/// runs out is rescanned from its mirror's members with four times the
/// budget.
const BULK_BUDGET: usize = 128;
/// Fewest moves kept per mirror pair.
const MIN_BUDGET: usize = 16;

/// The budget `B` for `n` clients on `k` mirrors: about a fortieth of a
/// mirror's clients, between 16 and 128 (a budget near a mirror's size
/// makes the start push most moves and buys nothing: small instances move
/// few clients per pair).
fn budget_for(n: usize, k: usize) -> usize {
    (n / (40 * k.max(1))).clamp(MIN_BUDGET, BULK_BUDGET)
}

/// Per mirror pair `u·k + v`, a buffer of candidate moves out of `u`: it
/// holds every offered move up to `cut` in the order of [`Entry::order`]
/// (key, then client; `(f64::MAX, u32::MAX)` until the first cut).
struct Collector {
    k: usize,
    budget: usize,
    buf: Vec<Vec<Entry>>,
    cut: Vec<(f64, u32)>,
    /// Per pair, the least move offered (key, client) in the order of
    /// [`Entry::order`] ([`NO_MOVE`] until one is): when a seed cut was
    /// below every move of a pair, its heap starts from this one instead
    /// of an empty heap that would be rescanned from the mirror's members
    /// at its first read.
    least: Vec<f64>,
    least_client: Vec<u32>,
    load: Vec<usize>,
    /// Tied clients, in row order: (position in the client list, the
    /// mirrors they are tied between as a bit set; 0 when `k > 64`).
    /// Their moves are offered once they are placed.
    tied: Vec<(usize, u64)>,
}

impl Collector {
    /// An empty collector; `seed` gives initial cuts (keys; any client).
    fn new(k: usize, budget: usize, seed: Option<&[f64]>) -> Self {
        let cut = match seed {
            Some(s) if s.len() == k * k => s.iter().map(|&c| (c, u32::MAX)).collect(),
            _ => vec![(f64::MAX, u32::MAX); k * k],
        };
        Collector {
            k,
            budget,
            buf: (0..k * k).map(|_| Vec::new()).collect(),
            cut,
            least: vec![NO_MOVE; k * k],
            least_client: vec![u32::MAX; k * k],
            load: vec![0; k],
            tied: Vec::new(),
        }
    }

    /// Offers the moves of client `i` (delay row `row`) out of mirror `u`;
    /// `mask` is the graph's pair mask (`INFINITY` = no arc). The keys are
    /// compared with the cuts' keys 64 at a time into a bit mask
    /// (vectorised); only the few at most their cut are pushed (`<=` on
    /// keys is a superset of the order; `push` decides equal keys).
    #[inline]
    fn offer(&mut self, i: usize, u: usize, row: &[f64], mask: &[f64]) {
        let k = self.k;
        let du = row[u];
        for start in (0..k).step_by(64) {
            let end = (start + 64).min(k);
            let cut = &self.cut[u * k + start..u * k + end];
            let m = &mask[u * k + start..u * k + end];
            let least = &self.least[u * k + start..u * k + end];
            let (mut bits, mut low) = (0u64, 0u64);
            for (b, (((&d, &m), &(c, _)), &l)) in row[start..end]
                .iter()
                .zip(m)
                .zip(cut)
                .zip(least)
                .enumerate()
            {
                let key = d - du + m;
                bits |= u64::from(key <= c) << b;
                low |= u64::from(key <= l) << b;
            }
            while low != 0 {
                let p = u * k + start + low.trailing_zeros() as usize;
                low &= low - 1;
                self.lower_least(p, row[p - u * k] - du, i as u32);
            }
            while bits != 0 {
                let v = start + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.push(u * k + v, row[v] - du, i);
            }
        }
    }

    /// Keeps `(key, i)` as pair `p`'s least move if it is below it.
    #[inline]
    fn lower_least(&mut self, p: usize, key: f64, i: u32) {
        let (l, c) = (self.least[p], self.least_client[p]);
        if key < l || (key == l && i < c) {
            self.least[p] = key;
            self.least_client[p] = i;
        }
    }

    fn push(&mut self, p: usize, key: f64, i: usize) {
        let e = Entry {
            key,
            client: i as u32,
            stamp: 0,
        };
        if !within(&e, self.cut[p]) {
            return;
        }
        let b = &mut self.buf[p];
        b.push(e);
        if b.len() >= 2 * self.budget {
            self.cut[p] = cut_back(b, self.budget);
        }
    }

    /// The union of two collectors (loads summed).
    fn merge(mut self, mut other: Collector) -> Collector {
        for (a, b) in self.load.iter_mut().zip(&other.load) {
            *a += b;
        }
        self.tied.append(&mut other.tied);
        for p in 0..self.k * self.k {
            self.lower_least(p, other.least[p], other.least_client[p]);
            let (x, y) = (self.cut[p], other.cut[p]);
            let cut = if x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)).is_le() {
                x
            } else {
                y
            };
            let b = &mut self.buf[p];
            b.retain(|e| within(e, cut));
            b.extend(other.buf[p].drain(..).filter(|e| within(e, cut)));
            self.cut[p] = if b.len() >= 2 * self.budget {
                cut_back(b, self.budget)
            } else {
                cut
            };
        }
        self
    }
}

impl Collector {
    /// The heap of pair `p` from its collected `entries`: they hold every
    /// move up to the cut (all of them before any cut). A pair whose seed
    /// cut was below every move collected none: its heap is its least
    /// move alone, which covers up to itself (none at all: no move).
    fn heap_of(&self, p: usize, entries: Vec<Entry>) -> Heap {
        let cut = self.cut[p];
        let tau = if !entries.is_empty() {
            (cut.0 != f64::MAX).then_some(cut)
        } else if self.least[p] < NO_MOVE {
            Some((self.least[p], self.least_client[p]))
        } else {
            None
        };
        let mut heap: std::collections::BinaryHeap<Entry> = entries.into();
        if heap.is_empty() {
            if let Some((key, client)) = tau {
                heap.push(Entry {
                    key,
                    client,
                    stamp: 0,
                });
            }
        }
        Heap {
            heap,
            tau,
            budget: self.budget,
        }
    }
}

/// Cuts a buffer back to its `B` least entries; returns the new cut (the
/// `B`-th least entry's key and client).
fn cut_back(b: &mut Vec<Entry>, budget: usize) -> (f64, u32) {
    b.select_nth_unstable_by(budget - 1, Entry::order);
    b.truncate(budget);
    let last = b[budget - 1];
    (last.key, last.client)
}

/// Rank of the collected move kept as a pair's seed cut: with samples of
/// one row in 16, the seed estimates the whole instance's 192nd least move
/// (1.5 × the largest budget). Each parallel chunk collects every move
/// under the seed, so a high seed costs every chunk the same pushes and
/// cuts: rank 24 made a chunk of 100,000 rows take 20.8 ms where the one
/// chunk of 200,000 took 28 ms (200,000 × 50, two threads: no speed-up),
/// and a sample's budget of 16 often kept fewer than 24 moves, leaving the
/// pair without a seed. Rank 12, `solve_ms` on an idle 2-core machine:
/// 200,000 × 50 91–103 → 76–81 ms, 100,000 × 20 22–27 → 17–23 ms,
/// 1,000,000 × 50 unchanged (251–278 ms).
const SEED_RANK: usize = 12;

/// The `SEED_RANK`-th least key of a buffer (`f64::MAX` when shorter).
fn seed_key(b: &[Entry]) -> f64 {
    if b.len() < SEED_RANK {
        return f64::MAX;
    }
    let mut keys: Vec<f64> = b.iter().map(|e| e.key).collect();
    let (_, k, _) = keys.select_nth_unstable_by(SEED_RANK - 1, f64::total_cmp);
    *k
}

/// True when `e` is at most `cut` in the order of [`Entry::order`].
#[inline]
fn within(e: &Entry, cut: (f64, u32)) -> bool {
    e.key.total_cmp(&cut.0).then(e.client.cmp(&cut.1)).is_le()
}

/// A mirror with the least `d(i,j) + p_j` of a row, and the mirrors
/// within `tie` of that least value: their number, and as a bit set when
/// `k <= 64` (else 0).
#[inline]
fn priced_best(row: &[f64], p: &[f64], tie: f64) -> (usize, usize, u64) {
    let best = row
        .iter()
        .zip(p)
        .fold(f64::INFINITY, |b, (d, q)| if d + q < b { d + q } else { b });
    let lim = best + tie;
    if row.len() <= 64 {
        // Branch-free: the near mirrors as a bit set.
        let mut bits = 0u64;
        for (j, (d, q)) in row.iter().zip(p).enumerate() {
            bits |= u64::from(d + q <= lim) << j;
        }
        return (
            bits.trailing_zeros() as usize,
            bits.count_ones() as usize,
            bits,
        );
    }
    let (mut bj, mut near) = (0, 0usize);
    for (j, (d, q)) in row.iter().zip(p).enumerate() {
        if d + q <= lim {
            near += 1;
            bj = j;
        }
    }
    (bj, near, 0)
}

/// The distinct bit sets of `tied` (ascending) and how many clients have
/// each; `None` when some set is empty (`k > 64`) or there are more than
/// [`ties::MAX_GROUPS`]. `O(T log G)` for `T` clients in `G` groups (a
/// sort of all `T` sets took about a tenth of `exact-flow`'s samples in a
/// `perf` profile at 200,000 × 50).
fn group_counts(tied: &[(usize, u64)]) -> Option<(Vec<u64>, Vec<usize>)> {
    let (mut groups, mut count): (Vec<u64>, Vec<usize>) = (Vec::new(), Vec::new());
    let mut last = None;
    for &(_, b) in tied {
        let g = match last {
            Some((lb, g)) if lb == b => g,
            _ => match groups.binary_search(&b) {
                Ok(g) => g,
                Err(_) if b == 0 || groups.len() == ties::MAX_GROUPS => return None,
                Err(g) => {
                    groups.insert(g, b);
                    count.insert(g, 0);
                    g
                }
            },
        };
        count[g] += 1;
        last = Some((b, g));
    }
    Some((groups, count))
}

/// Places one chunk of rows: a client with one least mirror goes there
/// and its moves are offered; a tied client is only listed.
fn place_chunk(
    col: &mut Collector,
    (c, (at, rows)): (usize, (&mut [u32], &[usize])),
    chunk: usize,
    (inst, p, tie, mask): (&CmaInstance, &[f64], f64, &[f64]),
) {
    for (t, (a, &i)) in at.iter_mut().zip(rows).enumerate() {
        let row = inst.row(i);
        let (u, near, bits) = priced_best(row, p, tie);
        if near <= 1 {
            *a = u as u32;
            col.load[u] += 1;
            col.offer(i, u, row, mask);
            continue;
        }
        col.tied.push((c * chunk + t, bits));
    }
}

impl<'a> MoveGraph<'a> {
    /// An empty graph with capacities `cap` (see
    /// [`MoveGraph::with_capacities`]) holding `clients`, each at a mirror
    /// minimising `d(i,j) + p_j` (`p_j = INFINITY` closes `j`; a client
    /// within `tie` of several goes to the one with most spare capacity,
    /// else the lowest index), with the heaps of every crowded mirror built
    /// in the same pass. The rows are split in one chunk per thread of at
    /// least `min_chunk` rows. `seed` (per pair, e.g. a sample's
    /// [`MoveGraph::seed_cuts`]) caps the moves collected from the start;
    /// any cap is correct (a pair whose heap runs out is rescanned), a good
    /// one saves most of the collecting. Potentials are left at 0.
    pub fn place_at_prices(
        inst: &'a CmaInstance,
        cap: Vec<usize>,
        clients: &[usize],
        (p, tie): (&[f64], f64),
        seed: Option<&[f64]>,
        min_chunk: usize,
    ) -> Self {
        let threads = rayon::current_num_threads().max(1);
        let chunk = clients.len().div_ceil(threads).max(min_chunk).max(1);
        Self::place_at_prices_in(inst, cap, clients, (p, tie), seed, chunk)
    }

    /// Per mirror pair, the `SEED_RANK`-th least move the start collected
    /// (`f64::MAX` when it collected fewer): run on a `1/s` sample, an
    /// estimate of the whole instance's `s·SEED_RANK`-th least move.
    pub fn seed_cuts(&self) -> &[f64] {
        &self.seed_cuts
    }

    /// [`MoveGraph::place_at_prices`] with `chunk` rows per parallel chunk.
    fn place_at_prices_in(
        inst: &'a CmaInstance,
        cap: Vec<usize>,
        clients: &[usize],
        (p, tie): (&[f64], f64),
        seed: Option<&[f64]>,
        chunk: usize,
    ) -> Self {
        let mut g = Self::with_capacities(inst, cap);
        let k = g.k;
        let budget = budget_for(clients.len(), k);
        let mut at = vec![NONE; clients.len()];
        let env = (inst, p, tie, g.mask.as_slice());
        let col = at
            .par_chunks_mut(chunk)
            .zip(clients.par_chunks(chunk))
            .enumerate()
            .fold(
                || Collector::new(k, budget, seed),
                |mut col, part| {
                    place_chunk(&mut col, part, chunk, env);
                    col
                },
            )
            .reduce(|| Collector::new(k, budget, seed), Collector::merge);
        let pieces = clients.len().div_ceil(chunk.max(1)).max(1);
        let col = g.place_tied(col, &mut at, clients, (p, tie), (pieces, seed));
        for (&a, &i) in at.iter().zip(clients) {
            let j = a as usize;
            g.assign[i] = a;
            g.pos[i] = g.members[j].len() as u32;
            g.members[j].push(i as u32);
        }
        g.install_heaps(col);
        g
    }

    /// Places the tied clients `col` listed: as the flow of
    /// [`ties::split_groups`] splits their groups, the rest in row order
    /// each on its roomiest tied mirror; then offers their moves (in
    /// `pieces` parallel parts, reading their rows again); returns `col`
    /// with them.
    fn place_tied(
        &self,
        mut col: Collector,
        at: &mut [u32],
        clients: &[usize],
        (p, tie): (&[f64], f64),
        (pieces, seed): (usize, Option<&[f64]>),
    ) -> Collector {
        let tied = std::mem::take(&mut col.tied);
        let left = self.place_by_flow(&tied, at, p, &mut col.load);
        for &(t, bits) in &left {
            let u = if bits != 0 {
                self.roomiest(bits, &col.load)
            } else {
                self.roomiest_tied(self.inst.row(clients[t]), p, tie, &col.load)
            };
            col.load[u] += 1;
            at[t] = u as u32;
        }
        let (k, budget, inst, at) = (self.k, col.budget, self.inst, &*at);
        let mask = self.mask.as_slice();
        tied.par_chunks(tied.len().div_ceil(pieces).max(1))
            .fold(
                || Collector::new(k, budget, seed),
                |mut col, part| {
                    for &(t, _) in part {
                        let (i, u) = (clients[t], at[t] as usize);
                        col.offer(i, u, inst.row(i), mask);
                    }
                    col
                },
            )
            .reduce(|| Collector::new(k, budget, seed), Collector::merge)
            .merge(col)
    }

    /// Places the tied clients (position in the client list, tied mirrors
    /// as a bit set) that the flow of [`ties::split_groups`] covers, each
    /// group's in row order, adding them to `load`; returns the others
    /// (every tied client when some has no bit set, `k > 64`, or there are
    /// more than [`ties::MAX_GROUPS`] groups).
    fn place_by_flow(
        &self,
        tied: &[(usize, u64)],
        at: &mut [u32],
        p: &[f64],
        load: &mut [usize],
    ) -> Vec<(usize, u64)> {
        let Some((groups, count)) = group_counts(tied) else {
            return tied.to_vec();
        };
        // Every bit set of `tied` is in `groups`.
        let of = |b: u64| groups.binary_search(&b).unwrap_or(0);
        let room: Vec<i64> = (0..self.k)
            .map(|j| self.cap[j] as i64 - load[j] as i64)
            .collect();
        let priced: Vec<bool> = p.iter().map(|&q| q > 0.0 && q.is_finite()).collect();
        let mut quota = ties::split_groups(&groups, &count, &room, &priced);
        let mut left = Vec::new();
        for &(t, b) in tied {
            let q = &mut quota[of(b)];
            let Some((j, c)) = q.last_mut() else {
                left.push((t, b));
                continue;
            };
            at[t] = *j as u32;
            load[*j] += 1;
            *c -= 1;
            if *c == 0 {
                q.pop();
            }
        }
        left
    }

    /// The mirror of bit set `bits` with the most spare capacity given
    /// `load` (ties: lowest index).
    fn roomiest(&self, bits: u64, load: &[usize]) -> usize {
        let (mut b, mut pick) = (bits, (i64::MIN, 0));
        while b != 0 {
            let j = b.trailing_zeros() as usize;
            b &= b - 1;
            let room = self.cap[j] as i64 - load[j] as i64;
            if room > pick.0 {
                pick = (room, j);
            }
        }
        pick.1
    }

    /// Among the mirrors within `tie` of a row's least `d + p`, the one
    /// with the most spare capacity given `load` (ties: lowest index).
    fn roomiest_tied(&self, row: &[f64], p: &[f64], tie: f64, load: &[usize]) -> usize {
        let best = row
            .iter()
            .zip(p)
            .map(|(d, pj)| d + pj)
            .fold(f64::INFINITY, f64::min);
        let mut pick = (i64::MIN, 0);
        for (j, (d, pj)) in row.iter().zip(p).enumerate() {
            let room = self.cap[j] as i64 - load[j] as i64;
            if d + pj <= best + tie && room > pick.0 {
                pick = (room, j);
            }
        }
        pick.1
    }

    /// Turns the collected buffers into the pair heaps of every mirror
    /// holding more than `SMALL` clients (the others are scanned on
    /// demand); every cached row is marked stale.
    fn install_heaps(&mut self, mut col: Collector) {
        let k = self.k;
        self.seed_cuts = col.buf.iter().map(|b| seed_key(b)).collect();
        let mut bufs = std::mem::take(&mut col.buf).into_iter();
        for u in 0..k {
            let row: Vec<Vec<Entry>> = bufs.by_ref().take(k).collect();
            if self.members[u].len() <= SMALL {
                self.heaps[u] = None;
                continue;
            }
            let heaps = row
                .into_iter()
                .enumerate()
                .map(|(v, entries)| col.heap_of(u * k + v, entries))
                .collect();
            self.heaps[u] = Some(heaps);
        }
        self.dirty.iter_mut().for_each(|d| *d = true);
    }
}

#[cfg(test)]
#[path = "bulk_tests.rs"]
mod tests;
