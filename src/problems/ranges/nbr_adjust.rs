//! `nbr-adjust`: neighbour load adjustment (the baseline of problems.md §6).
//! From equal cell counts, each pair of neighbouring nodes moves its shared
//! boundary to the load-median point of their joint range (the boundary
//! minimising the larger of the two loads) when that lowers the larger load;
//! sweeps over all boundaries repeat until none moves or `max_rounds`.
//!
//! `O(rounds · N log² K)` with the [`LoadOracle`].

use crate::core::check::below;
use crate::problems::ranges::oracle::LoadOracle;

/// Starts of `k` cells split in `n` equal counts (`O(N)`).
pub fn uniform(k: usize, n: usize) -> Vec<usize> {
    (0..n).map(|i| i * k / n).collect()
}

/// Runs neighbour adjustment; returns the starts and the rounds swept.
pub fn nbr_adjust(oracle: &LoadOracle, n: usize, max_rounds: usize) -> (Vec<usize>, usize) {
    nbr_adjust_from(oracle, uniform(oracle.cells(), n), max_rounds)
}

/// Neighbour adjustment from the split `starts` (checked).
pub fn nbr_adjust_from(
    oracle: &LoadOracle,
    mut starts: Vec<usize>,
    max_rounds: usize,
) -> (Vec<usize>, usize) {
    let (k, n) = (oracle.cells(), starts.len());
    let end = |s: &[usize], i: usize| s.get(i + 1).copied().unwrap_or(k);
    for round in 1..=max_rounds {
        let mut moved = false;
        for b in 1..n {
            let (lo, hi) = (starts[b - 1], end(&starts, b));
            let cur = oracle
                .load_of(lo, starts[b])
                .max(oracle.load_of(starts[b], hi));
            let p = oracle.balance(lo, hi);
            let new = oracle.load_of(lo, p).max(oracle.load_of(p, hi));
            if p != starts[b] && below(new, cur) {
                starts[b] = p;
                moved = true;
            }
        }
        if !moved {
            return (starts, round);
        }
    }
    (starts, max_rounds)
}
