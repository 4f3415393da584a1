//! The range-load oracle: the load of one node owning cells `i..=j` in
//! `O(log K)`, every subscription counted once, however many intervals it
//! has.
//!
//! With a subscription's (merged, sorted) intervals `[a_1, b_1] < [a_2, b_2]
//! < …`, the intervals meeting `[i, j]` are consecutive, say `t` of them; the
//! subscription touches the range iff `t >= 1`, and `t − 1` is the number of
//! its consecutive pairs `(k, k+1)` that both meet `[i, j]`, which (as
//! `b_k < a_{k+1}`) is exactly when `b_k >= i` and `a_{k+1} <= j`. So
//!
//! `load(i, j) = P(i..j) + Σ_intervals meeting [i,j] rate − Σ_links inside rate`
//!
//! where a *link* is the point `(b_k, a_{k+1})` of two consecutive intervals.
//! Intervals meeting `[i, j]` = all − those ending before `i` − those
//! starting after `j` (two prefix arrays, `O(1)`); links with `b >= i` and
//! `a <= j` are a 2-D dominance sum, answered by a persistent segment tree
//! over `a` with one version per `i` (links with `b >= i`).
//!
//! Build `O(K + I + L log K)` time and `O(K + L log K)` memory (16 bytes per
//! tree node, `L · (log₂ K + 1)` nodes: ~450 MB at 1.3 M links over 1 M cells) (`I`
//! intervals, `L = I − #subscriptions` links); query `O(log K)`.

use crate::problems::ranges::model::RangesInstance;

/// `load(i, j)` for any range of cells, in `O(log K)`.
#[derive(Debug, Clone)]
pub struct LoadOracle {
    publish_prefix: Vec<f64>,
    interval_total: f64,
    end_before: Vec<f64>,
    start_after: Vec<f64>,
    links: Persistent,
}

impl LoadOracle {
    /// Builds the oracle of `inst`.
    pub fn new(inst: &RangesInstance) -> Self {
        let k = inst.cells();
        let mut publish_prefix = Vec::with_capacity(k + 1);
        publish_prefix.push(0.0);
        for (c, &p) in inst.publish.iter().enumerate() {
            publish_prefix.push(publish_prefix[c] + p);
        }
        let mut end_before = vec![0.0; k + 1];
        let mut start_after = vec![0.0; k + 1];
        // Links (b, a, rate), bucketed by b with a counting sort.
        let mut links: Vec<(usize, usize, f64)> = Vec::new();
        let mut interval_total = 0.0;
        for s in &inst.subscriptions {
            for (idx, &[a, b]) in s.ranges.iter().enumerate() {
                interval_total += s.rate;
                end_before[b + 1] += s.rate;
                start_after[a] += s.rate;
                if let Some(&[next_a, _]) = s.ranges.get(idx + 1) {
                    links.push((b, next_a, s.rate));
                }
            }
        }
        for c in 1..=k {
            end_before[c] += end_before[c - 1];
        }
        // start_after[j] = Σ rate of intervals with a > j.
        let mut acc = 0.0;
        for c in (0..=k).rev() {
            let here = start_after[c];
            start_after[c] = acc;
            acc += here;
        }
        LoadOracle {
            publish_prefix,
            interval_total,
            end_before,
            start_after,
            links: Persistent::build(k, &links),
        }
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.publish_prefix.len() - 1
    }

    /// The load of a node owning cells `i..=j` (`i <= j < K`).
    pub fn load(&self, i: usize, j: usize) -> f64 {
        let publish = self.publish_prefix[j + 1] - self.publish_prefix[i];
        let meeting = self.interval_total - self.end_before[i] - self.start_after[j];
        publish + meeting - self.links.dominance(i, j)
    }

    /// The load-median split point of `start..end`: the `p` in
    /// `start..=end` minimising `max(load(start..p), load(p..end))` (the
    /// first such `p`), by binary search on the crossing of the increasing
    /// left load and the decreasing right load: `O(log² K)`.
    pub fn balance(&self, start: usize, end: usize) -> usize {
        let (mut lo, mut hi) = (start, end);
        // The first p where the left part weighs at least the right one.
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.load_of(start, mid) >= self.load_of(mid, end) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let cost = |p: usize| self.load_of(start, p).max(self.load_of(p, end));
        if lo > start && cost(lo - 1) <= cost(lo) {
            lo - 1
        } else {
            lo
        }
    }

    /// The load of a range `start..end` (exclusive end; 0 when empty).
    pub fn load_of(&self, start: usize, end: usize) -> f64 {
        if start < end {
            self.load(start, end - 1)
        } else {
            0.0
        }
    }
}

/// A persistent segment tree over keys `0..K`: version `i` holds the links
/// with `b >= i`, keyed by `a`.
#[derive(Debug, Clone)]
struct Persistent {
    k: usize,
    left: Vec<u32>,
    right: Vec<u32>,
    sum: Vec<f64>,
    roots: Vec<u32>,
}

impl Persistent {
    fn build(k: usize, links: &[(usize, usize, f64)]) -> Self {
        let mut first = vec![0usize; k + 1];
        for &(b, _, _) in links {
            first[b + 1] += 1;
        }
        for c in 1..=k {
            first[c] += first[c - 1];
        }
        let mut fill = first.clone();
        let mut sorted = vec![(0usize, 0.0f64); links.len()];
        for &(b, a, w) in links {
            sorted[fill[b]] = (a, w);
            fill[b] += 1;
        }
        let depth = (usize::BITS - k.leading_zeros()) as usize + 1;
        let cap = 1 + links.len() * depth;
        let mut t = Persistent {
            k,
            left: Vec::with_capacity(cap),
            right: Vec::with_capacity(cap),
            sum: Vec::with_capacity(cap),
            roots: vec![0; k + 1],
        };
        t.left.push(0);
        t.right.push(0);
        t.sum.push(0.0);
        for b in (0..k).rev() {
            let mut root = t.roots[b + 1];
            for &(a, w) in &sorted[first[b]..first[b + 1]] {
                root = t.insert(root, 0, k, a, w);
            }
            t.roots[b] = root;
        }
        t
    }

    /// A new version of `node` (covering keys `lo..hi`) with `w` added at `pos`.
    fn insert(&mut self, node: u32, lo: usize, hi: usize, pos: usize, w: f64) -> u32 {
        let n = node as usize;
        let id = self.sum.len() as u32;
        self.left.push(self.left[n]);
        self.right.push(self.right[n]);
        self.sum.push(self.sum[n] + w);
        if hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if pos < mid {
                let child = self.insert(self.left[n], lo, mid, pos, w);
                self.left[id as usize] = child;
            } else {
                let child = self.insert(self.right[n], mid, hi, pos, w);
                self.right[id as usize] = child;
            }
        }
        id
    }

    /// Σ weight of links with `b >= i` and `a <= j`.
    fn dominance(&self, i: usize, j: usize) -> f64 {
        let (mut node, mut lo, mut hi) = (self.roots[i] as usize, 0, self.k);
        let mut total = 0.0;
        // Sum of keys < j + 1 in the version.
        let bound = j + 1;
        while node != 0 && hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if bound <= mid {
                node = self.left[node] as usize;
                hi = mid;
            } else {
                total += self.sum[self.left[node] as usize];
                node = self.right[node] as usize;
                lo = mid;
            }
        }
        if node != 0 && lo < bound {
            total += self.sum[node];
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::ranges::eval::range_load;
    use crate::problems::ranges::model::Subscription;

    #[test]
    fn the_oracle_is_the_definition() {
        let subs = vec![
            Subscription {
                ranges: vec![[0, 2]],
                rate: 4.0,
            },
            Subscription {
                ranges: vec![[3, 3], [6, 7]],
                rate: 1.0,
            },
            Subscription {
                ranges: vec![[1, 1], [3, 4], [7, 7]],
                rate: 2.5,
            },
        ];
        let inst = RangesInstance {
            name: "t".into(),
            nodes: 3,
            publish: vec![5.0, 1.0, 1.0, 9.0, 2.0, 2.0, 1.0, 3.0],
            subscriptions: subs,
            map: None,
            source: None,
        };
        let o = LoadOracle::new(&inst);
        for i in 0..8 {
            for j in i..8 {
                assert_eq!(o.load(i, j), range_load(&inst, i, j), "[{i}, {j}]");
            }
        }
    }
}
