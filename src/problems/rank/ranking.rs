//! Ranking: servers ordered by score, and "play now" (the best joinable
//! server).
//!
//! Ties keep file order (a stable sort on the score, descending). Cost:
//! `O(n)` scores and one `O(n log n)` sort; play now alone is `O(n)`.

use super::model::RankInstance;
use super::score::{score, Breakdown, Preset};

/// One server's place in a ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The server's index in the file.
    pub index: usize,
    /// Its score and factors.
    pub breakdown: Breakdown,
}

/// Every server with its breakdown, ordered by score (highest first; ties
/// in file order).
pub fn rank(inst: &RankInstance, preset: Preset) -> Vec<Ranked> {
    // sort small (index, score) pairs, then build the breakdowns in order
    order_scores(inst, preset)
        .into_iter()
        .map(|(index, _)| Ranked {
            index,
            breakdown: score(preset, &inst.player, &inst.servers[index]),
        })
        .collect()
}

/// The server order alone: `(index, score)`, best first, ties in file
/// order (the breakdowns are not kept).
pub fn order_scores(inst: &RankInstance, preset: Preset) -> Vec<(usize, f64)> {
    let mut out: Vec<(usize, f64)> = inst
        .servers
        .iter()
        .enumerate()
        .map(|(i, s)| (i, score(preset, &inst.player, s).score))
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// The server order alone (indices, best first).
pub fn order(inst: &RankInstance, preset: Preset) -> Vec<usize> {
    order_scores(inst, preset)
        .into_iter()
        .map(|(i, _)| i)
        .collect()
}

/// "Play now": the best-scoring joinable server (joinable is a filter
/// here), the first in file order among equals; `None` when no server is
/// joinable.
pub fn play_now(inst: &RankInstance, preset: Preset) -> Option<Ranked> {
    let mut best: Option<Ranked> = None;
    for (index, s) in inst.servers.iter().enumerate() {
        if !s.is_joinable() {
            continue;
        }
        let breakdown = score(preset, &inst.player, s);
        if best
            .as_ref()
            .is_none_or(|b| breakdown.score > b.breakdown.score)
        {
            best = Some(Ranked { index, breakdown });
        }
    }
    best
}
