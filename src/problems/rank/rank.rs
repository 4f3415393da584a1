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
    let mut out: Vec<Ranked> = inst
        .servers
        .iter()
        .enumerate()
        .map(|(index, s)| Ranked {
            index,
            breakdown: score(preset, &inst.player, s),
        })
        .collect();
    out.sort_by(|a, b| b.breakdown.score.total_cmp(&a.breakdown.score));
    out
}

/// The server order alone (indices, best first).
pub fn order(inst: &RankInstance, preset: Preset) -> Vec<usize> {
    rank(inst, preset).into_iter().map(|r| r.index).collect()
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
