//! `exact`: the contiguous split minimising the maximum node load, by a
//! parametric search over the load with a greedy feasibility probe.
//!
//! **Probe** at a load `λ`: from cell 0, give each node the longest range
//! whose load is `<= λ` (galloping search with the [`LoadOracle`]), then the
//! next node starts after it. Since a range's load only grows as it extends
//! (publications are >= 0, the touched subscriptions only grow), the greedy
//! split fits in `N` nodes iff some split has every load `<= λ` (the greedy
//! range ends are never left of any feasible split's). `O(N log² K)`.
//!
//! **Why the optimum is proven.** When the probe at `λ` fails, every greedy
//! range ended because extending it by one cell (or starting it) costs
//! `> λ`; call `μ` the least of these break values. For any `λ' < μ` the
//! greedy makes exactly the same ranges and fails too, so the optimum is at
//! least `μ`: `μ` becomes the lower end. When the probe succeeds, the
//! greedy's actual maximum becomes the upper end. Bisection between the two
//! stops when they meet; then the lower end (a proven bound) equals the
//! upper end (the load of a split found). The search takes at most
//! `O(log((hi − lo)/ulp))` probes (≤ ~64 on `f64`), usually far fewer, as
//! both ends jump to load values of actual ranges.
//!
//! Total: `O(K + I + L log K)` to build the oracle plus `O(N log² K)` per
//! probe.

use crate::problems::ranges::oracle::LoadOracle;

/// Probes after which the search stops with the bracket it has (it then
/// claims only its lower end; never reached in the tests: ~64 halvings of
/// an `f64` interval suffice).
pub const MAX_PROBES: usize = 200;

fn next_after(x: f64) -> f64 {
    if x >= 0.0 {
        f64::from_bits(x.to_bits() + 1)
    } else {
        x / 2.0
    }
}

/// What one probe found.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// Whether the greedy split fits in the nodes with loads `<= λ`.
    pub feasible: bool,
    /// Its starts (padded with empty ranges at the end to `N` entries) when
    /// feasible.
    pub starts: Vec<usize>,
    /// The largest load of the greedy split (feasible probes).
    pub max: f64,
    /// The least break value `> λ` seen (a lower bound on the optimum when
    /// the probe fails; infinite when nothing broke).
    pub next: f64,
}

/// The greedy feasibility probe at load `lambda` with `n` nodes.
pub fn probe(oracle: &LoadOracle, n: usize, lambda: f64) -> Probe {
    let k = oracle.cells();
    let mut starts = Vec::with_capacity(n);
    let (mut i, mut max, mut next) = (0, 0.0f64, f64::INFINITY);
    while i < k {
        let first = oracle.load(i, i);
        if starts.len() == n || first > lambda {
            if first > lambda {
                next = next.min(first);
            }
            return Probe {
                feasible: false,
                starts,
                max,
                next,
            };
        }
        starts.push(i);
        let j = longest(oracle, i, lambda);
        max = max.max(oracle.load(i, j));
        if j + 1 < k {
            next = next.min(oracle.load(i, j + 1));
        }
        i = j + 1;
    }
    if starts.is_empty() {
        starts.push(0);
    }
    starts.resize(n, k);
    Probe {
        feasible: true,
        starts,
        max,
        next,
    }
}

/// The last cell `j >= i` with `load(i, j) <= λ` (given `load(i, i) <= λ`),
/// by galloping then halving: `O(log K)` oracle calls.
fn longest(oracle: &LoadOracle, i: usize, lambda: f64) -> usize {
    let k = oracle.cells();
    let ok = |j: usize| j < k && oracle.load(i, j) <= lambda;
    let (mut j, mut step) = (i, 1usize);
    while ok(j + step) {
        j += step;
        step *= 2;
    }
    while step > 1 {
        step /= 2;
        if ok(j + step) {
            j += step;
        }
    }
    j
}

/// The optimal split: starts, its max load and the proven lower bound
/// (equal to it up to the oracle's rounding), and the number of probes.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactSplit {
    /// First cell of every node.
    pub starts: Vec<usize>,
    /// The split's largest load (the optimum).
    pub objective: f64,
    /// The proven lower bound.
    pub bound: f64,
    /// Probes made.
    pub probes: usize,
}

/// The contiguous split of `oracle`'s cells over `n` nodes minimising the
/// maximum load (see the module docs for the search and its proof).
pub fn exact_split(oracle: &LoadOracle, n: usize) -> ExactSplit {
    let k = oracle.cells();
    // Every cell belongs to some range: the largest one-cell load is a bound.
    let mut lo = (0..k).map(|c| oracle.load(c, c)).fold(0.0, f64::max);
    let mut best = probe(oracle, n, lo);
    let mut probes = 1;
    if best.feasible {
        return ExactSplit {
            objective: best.max,
            bound: lo.min(best.max),
            starts: best.starts,
            probes,
        };
    }
    lo = best.next;
    best = probe(oracle, n, oracle.load(0, k - 1));
    probes += 1;
    let mut hi = best.max;
    while lo < hi {
        let mid = lo + (hi - lo) / 2.0;
        let at = if mid > lo && mid < hi { mid } else { lo };
        let p = probe(oracle, n, at);
        probes += 1;
        if p.feasible {
            hi = p.max;
            best = p;
        } else {
            // p.next > at in exact arithmetic; the guard keeps rounding
            // from stalling the search.
            lo = if p.next > at { p.next } else { next_after(at) };
        }
        if probes >= MAX_PROBES {
            break;
        }
    }
    ExactSplit {
        objective: hi,
        bound: lo.min(hi),
        starts: best.starts,
        probes,
    }
}
