//! `exact-budget`: the least maximum load reachable from a current
//! contiguous split by moving at most `B` cells (a cell *migrates* when its
//! owner changes), node order fixed, splits contiguous.
//!
//! **Probe** at a load `λ`: the fewest migrated cells over all splits with
//! every load `<= λ`. With the current split `c_0 = 0 <= c_1 <= … <= c_N = K`
//! and a new one `s_0 = 0 <= … <= s_N = K`, node `i` keeps
//! `ov_i = max(0, min(s_{i+1}, c_{i+1}) − max(s_i, c_i))` cells, so
//! migrated = `K − Σ ov_i`: maximise the cells kept. Let `g(s)` be the
//! furthest exclusive end with `load(s..g(s)) <= λ` (`g` is nondecreasing,
//! as loads grow with the range; two pointers, `O(K)` oracle calls). A DP over
//! nodes, `f_{i+1}(e) = max_{s ∈ [lo(e), e]} f_i(s) + ov_i(s, e)` with
//! `lo(e)` = the least `s` with `g(s) >= e` (nondecreasing in `e`). As
//! `f + max(0, A(e) − B(s)) = max(f, f − B(s) + A(e))` with `A(e) =
//! min(e, c_{i+1})` and `B(s) = max(s, c_i)`, each layer is two sliding-window
//! maxima (monotone deques): `O(K)` per node. Probe: `O(N·K + K log K)`
//! time, `O(N·K)` memory (a `u32` parent per node and end).
//!
//! **Search and proof** (as [`super::exact`]): the answer is at least the
//! unbudgeted optimum ([`exact_split`]'s proven bound) and at most the
//! current split's max load (0 migrated). A probe depends on `λ` only through
//! `g`; when it fails (more than `B` cells needed), `g` stays the same for
//! every `λ' < μ`, `μ` = the least `load(s..g(s)+1)`, so `μ` is a proven
//! lower bound. A succeeding probe's split has max load `<= λ`: the upper
//! end. Bisection until the ends meet: `O(probes · (N·K + K log K))`, at
//! most ~64 probes on `f64`, usually far fewer.
//!
//! Above [`MAX_STATES`] `N·(K+1)` DP states the engine refuses (the parents
//! would take more than 80 MB): exact at `K = 100,000`, `N = 100`, refused at
//! `K = 1,000,000`, `N = 1,000`.

use crate::problems::ranges::exact::exact_split;
use crate::problems::ranges::oracle::LoadOracle;
use std::collections::VecDeque;

/// The largest `N·(K+1)` the DP takes (80 MB of parents).
pub const MAX_STATES: usize = 20_000_000;

/// Probes after which the search stops with the bracket it has (claiming
/// only its lower end).
pub const MAX_PROBES: usize = 200;

const NONE: i64 = i64::MIN / 4;

/// What one budget probe found.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetProbe {
    /// The fewest migrated cells among splits with every load `<= λ`
    /// (`None` when no split has every load `<= λ`).
    pub migrated: Option<usize>,
    /// A split reaching it.
    pub starts: Vec<usize>,
    /// That split's largest load.
    pub max: f64,
    /// The least range load `> λ` that would change the probe.
    pub next: f64,
}

/// `g(s)` for every `s` in `0..=K` and the break value (see the module docs).
fn reach(oracle: &LoadOracle, lambda: f64) -> (Vec<usize>, f64) {
    let k = oracle.cells();
    let mut g = vec![0; k + 1];
    let (mut e, mut next) = (0, f64::INFINITY);
    for (s, gs) in g.iter_mut().enumerate() {
        e = e.max(s);
        while e < k && oracle.load(s, e) <= lambda {
            e += 1;
        }
        if e < k {
            next = next.min(oracle.load(s, e));
        }
        *gs = e;
    }
    (g, next)
}

/// A sliding-window maximum over `(position, value)` pushes.
#[derive(Default)]
struct Window(VecDeque<(usize, i64)>);

impl Window {
    fn push(&mut self, pos: usize, value: i64) {
        while self.0.back().is_some_and(|&(_, v)| v <= value) {
            self.0.pop_back();
        }
        self.0.push_back((pos, value));
    }

    fn drop_before(&mut self, lo: usize) {
        while self.0.front().is_some_and(|&(p, _)| p < lo) {
            self.0.pop_front();
        }
    }

    fn best(&self) -> Option<(usize, i64)> {
        self.0.front().copied()
    }
}

/// One DP layer: node `i` with current range `c0..c1`; fills `parent`.
fn layer(f: &[i64], g: &[usize], (c0, c1): (usize, usize), parent: &mut [u32]) -> Vec<i64> {
    let k = f.len() - 1;
    let mut out = vec![NONE; k + 1];
    let (mut w1, mut w2, mut lo) = (Window::default(), Window::default(), 0);
    for e in 0..=k {
        if f[e] > NONE {
            w1.push(e, f[e]);
            w2.push(e, f[e] - e.max(c0) as i64);
        }
        while g[lo] < e {
            lo += 1;
        }
        w1.drop_before(lo);
        w2.drop_before(lo);
        let a = e.min(c1) as i64;
        let cand = [w1.best(), w2.best().map(|(p, v)| (p, v + a))];
        if let Some((p, v)) = cand.into_iter().flatten().max_by_key(|&(_, v)| v) {
            out[e] = v;
            parent[e] = p as u32;
        }
    }
    out
}

/// The budget probe at `lambda` from the split `current` (`N` starts,
/// checked). `O(N·K + K log K)`; the caller keeps `N·(K+1) <= MAX_STATES`.
pub fn min_migration(oracle: &LoadOracle, current: &[usize], lambda: f64) -> BudgetProbe {
    probe_into(oracle, current, lambda, &mut Vec::new())
}

/// [`min_migration`] with a reusable parent buffer.
fn probe_into(
    oracle: &LoadOracle,
    current: &[usize],
    lambda: f64,
    parents: &mut Vec<u32>,
) -> BudgetProbe {
    let (k, n) = (oracle.cells(), current.len());
    let (g, next) = reach(oracle, lambda);
    parents.resize(n * (k + 1), 0);
    let mut f = vec![NONE; k + 1];
    f[0] = 0;
    for i in 0..n {
        let c1 = current.get(i + 1).copied().unwrap_or(k);
        let par = &mut parents[i * (k + 1)..(i + 1) * (k + 1)];
        f = layer(&f, &g, (current[i], c1), par);
    }
    if f[k] <= NONE {
        return BudgetProbe {
            migrated: None,
            starts: Vec::new(),
            max: f64::INFINITY,
            next,
        };
    }
    let mut starts = vec![0; n];
    let mut e = k;
    for i in (0..n).rev() {
        e = parents[i * (k + 1) + e] as usize;
        starts[i] = e;
    }
    let max = (0..n)
        .map(|i| oracle.load_of(starts[i], starts.get(i + 1).copied().unwrap_or(k)))
        .fold(0.0, f64::max);
    BudgetProbe {
        migrated: Some(k - f[k] as usize),
        starts,
        max,
        next,
    }
}

/// The budgeted optimum.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetSplit {
    /// First cell of every node.
    pub starts: Vec<usize>,
    /// Its largest load (the optimum within the budget).
    pub objective: f64,
    /// The proven lower bound.
    pub bound: f64,
    /// Cells it migrates from the current split.
    pub migrated: usize,
    /// Probes made.
    pub probes: usize,
}

/// Cells whose owner differs between two splits of `k` cells (`O(N)`).
pub fn split_moves(a: &[usize], b: &[usize], k: usize) -> usize {
    let end = |s: &[usize], i: usize| s.get(i + 1).copied().unwrap_or(k);
    let kept: usize = (0..a.len().min(b.len()))
        .map(|i| end(a, i).min(end(b, i)).saturating_sub(a[i].max(b[i])))
        .sum();
    k - kept.min(k)
}

/// `Err` (why) when the DP of `n` nodes over `k` cells is above [`MAX_STATES`].
fn check_states(n: usize, k: usize) -> Result<(), String> {
    let states = n.saturating_mul(k + 1);
    if states > MAX_STATES {
        return Err(format!(
            "N·(K+1) = {n}·{} = {states} DP states is above the limit {MAX_STATES} \
             (exact-budget's DP is O(N·K) time and memory per probe)",
            k + 1
        ));
    }
    Ok(())
}

/// The least max load reachable from `current` (a checked split) moving at
/// most `budget` cells; `Err` (why) above [`MAX_STATES`].
pub fn exact_budget(
    oracle: &LoadOracle,
    current: &[usize],
    budget: u64,
) -> Result<BudgetSplit, String> {
    let (k, n) = (oracle.cells(), current.len());
    let free = exact_split(oracle, n);
    let moved = split_moves(current, &free.starts, k);
    if moved as u64 <= budget {
        return Ok(BudgetSplit {
            objective: free.objective,
            bound: free.bound,
            migrated: moved,
            starts: free.starts,
            probes: free.probes,
        });
    }
    check_states(n, k)?;
    let cur_max = (0..n)
        .map(|i| oracle.load_of(current[i], current.get(i + 1).copied().unwrap_or(k)))
        .fold(0.0, f64::max);
    let (mut lo, mut hi) = (free.bound, cur_max);
    let (mut best_starts, mut best_moved) = (current.to_vec(), 0);
    let (mut probes, mut parents) = (free.probes, Vec::new());
    while lo < hi && probes < free.probes + MAX_PROBES {
        // First at the unbudgeted optimum (often reachable by another
        // optimal split), then bisect.
        let mid = if probes == free.probes {
            lo
        } else {
            lo + (hi - lo) / 2.0
        };
        let at = if mid > lo && mid < hi { mid } else { lo };
        let p = probe_into(oracle, current, at, &mut parents);
        probes += 1;
        match p.migrated {
            Some(m) if m as u64 <= budget => {
                hi = p.max;
                (best_starts, best_moved) = (p.starts, m);
            }
            _ => {
                lo = if p.next > at {
                    p.next
                } else {
                    f64::from_bits(at.to_bits() + 1)
                };
            }
        }
    }
    Ok(BudgetSplit {
        starts: best_starts,
        objective: hi,
        bound: lo.min(hi),
        migrated: best_moved,
        probes,
    })
}
