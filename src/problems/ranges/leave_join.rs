//! `leave-join`: Mercury's load balancing as Colyseus' rangedht uses it
//! (seed 003 §6.3, "leave-join load-balancing"). A node is *heavy* when its
//! load is at least `δ` times the mean (`δ = √2` by default). While the
//! heaviest node is heavy, the lightest leave is tried: the node whose range
//! merged into a neighbour's gives the smallest merged load leaves (that
//! neighbour absorbs its range) and rejoins next to the heaviest node,
//! splitting the heaviest node's range at its load median. The move is kept
//! only when it lowers the maximum load; the first move that does not help
//! ends the run (as does `max_moves`).
//!
//! From equal cell counts. Each move costs `O(N log K)` oracle work (all
//! loads and merge candidates re-evaluated): `O(moves · N log K)` in all.

use crate::core::check::below;
use crate::problems::ranges::nbr_adjust::uniform;
use crate::problems::ranges::oracle::LoadOracle;

/// Default heaviness threshold `δ`.
pub const DEFAULT_DELTA: f64 = std::f64::consts::SQRT_2;

/// What a leave-join run did.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaveJoin {
    /// The final starts.
    pub starts: Vec<usize>,
    /// Moves kept.
    pub moves: usize,
    /// Why it stopped.
    pub stop: &'static str,
}

fn ranges_of(starts: &[usize], k: usize) -> Vec<(usize, usize)> {
    (0..starts.len())
        .map(|i| (starts[i], starts.get(i + 1).copied().unwrap_or(k)))
        .collect()
}

fn max_load(oracle: &LoadOracle, ranges: &[(usize, usize)]) -> (f64, usize, f64) {
    let loads: Vec<f64> = ranges.iter().map(|&(s, e)| oracle.load_of(s, e)).collect();
    let (h, max) = loads
        .iter()
        .copied()
        .enumerate()
        .fold(
            (0, f64::NEG_INFINITY),
            |b, (i, l)| if l > b.1 { (i, l) } else { b },
        );
    (max, h, loads.iter().sum::<f64>() / loads.len() as f64)
}

/// One leave-join move from `ranges` with heaviest node `h`: the lightest
/// leave, then the join at `h`'s load median. `None` when no node can leave.
fn one_move(
    oracle: &LoadOracle,
    ranges: &[(usize, usize)],
    h: usize,
) -> Option<Vec<(usize, usize)>> {
    let n = ranges.len();
    // (merged load, leaving node, absorbing neighbour)
    let mut best: Option<(f64, usize, usize)> = None;
    for l in (0..n).filter(|&l| l != h) {
        for nb in [l.wrapping_sub(1), l + 1] {
            if nb >= n {
                continue;
            }
            let (s, e) = (ranges[l.min(nb)].0, ranges[l.max(nb)].1);
            let merged = oracle.load_of(s, e);
            if best.is_none_or(|b| merged < b.0) {
                best = Some((merged, l, nb));
            }
        }
    }
    let (_, l, nb) = best?;
    let mut next: Vec<(usize, usize)> = ranges.to_vec();
    let (s, e) = (next[l.min(nb)].0, next[l.max(nb)].1);
    next[nb] = (s, e);
    next.remove(l);
    let h = if h > l { h - 1 } else { h };
    let (s, e) = next[h];
    let p = oracle.balance(s, e);
    next[h] = (s, p);
    next.insert(h + 1, (p, e));
    Some(next)
}

/// Runs leave-join with threshold `delta` for at most `max_moves` moves.
pub fn leave_join(oracle: &LoadOracle, n: usize, delta: f64, max_moves: usize) -> LeaveJoin {
    leave_join_from(oracle, &uniform(oracle.cells(), n), delta, max_moves)
}

/// Leave-join from the split `starts` (a checked split; `simulate-ranges`
/// rebalances the previous step's split).
pub fn leave_join_from(
    oracle: &LoadOracle,
    starts: &[usize],
    delta: f64,
    max_moves: usize,
) -> LeaveJoin {
    let (k, n) = (oracle.cells(), starts.len());
    let mut ranges = ranges_of(starts, k);
    let mut moves = 0;
    let stop = loop {
        if moves >= max_moves {
            break "move cap";
        }
        let (max, h, mean) = max_load(oracle, &ranges);
        if n < 2 || max < delta * mean {
            break "no heavy node";
        }
        let Some(next) = one_move(oracle, &ranges, h) else {
            break "no node can leave";
        };
        if !below(max_load(oracle, &next).0, max) {
            break "the next move does not help";
        }
        ranges = next;
        moves += 1;
    };
    LeaveJoin {
        starts: ranges.iter().map(|r| r.0).collect(),
        moves,
        stop,
    }
}
