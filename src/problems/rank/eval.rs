//! THE rank evaluator: what an ordering of the servers is worth.
//!
//! A solution is `{"order": [server index, best first]}`, a permutation of
//! the servers. It is scored under the **instance's** preset (the file's
//! `preset`, `seed000` when absent), whatever preset produced it:
//! objective = −(score of the server the order puts first), so lower is
//! better as for every family, and an order made with another browser's
//! constants shows what that browser's pick is worth here. Metrics add the
//! "play now" pick of the order (its first joinable server) and the best
//! score any server has. Cost: `O(n)`.

use super::model::RankInstance;
use super::score::score;
use crate::core::{metrics_map, Verdict};
use serde::{Deserialize, Serialize};

/// An ordering of the servers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RankSolution {
    /// Server indices, best first (a permutation).
    pub order: Vec<usize>,
}

/// What the evaluator reports of an ordering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankReport {
    /// The preset it is scored under (the instance's).
    pub preset: String,
    /// Number of servers.
    pub servers: usize,
    /// The first server of the order.
    pub top: String,
    /// Its score.
    pub top_score: f64,
    /// The order's play-now pick (its first joinable server), if any.
    pub play_now: Option<String>,
    /// That server's score.
    pub play_now_score: Option<f64>,
    /// The highest score of any server.
    pub best_score: f64,
}

/// Why `order` is not a permutation of the servers (empty when it is).
pub fn order_violations(inst: &RankInstance, order: &[usize]) -> Vec<String> {
    let n = inst.servers.len();
    let mut out = Vec::new();
    if n == 0 {
        out.push("the instance has no servers".to_string());
    }
    if order.len() != n {
        out.push(format!("order has {} entries, expected {n}", order.len()));
    }
    let mut seen = vec![false; n];
    for (k, &i) in order.iter().enumerate() {
        match seen.get_mut(i) {
            None => out.push(format!("order[{k}] = {i} is not a server index (< {n})")),
            Some(true) => out.push(format!("order[{k}] = {i} repeats a server")),
            Some(s) => *s = true,
        }
    }
    out
}

/// Evaluates `order`: the report (when it is a permutation) and the verdict.
pub fn evaluate_order(inst: &RankInstance, order: &[usize]) -> (Option<RankReport>, Verdict) {
    let violations = order_violations(inst, order);
    if !violations.is_empty() {
        let verdict = Verdict {
            violations,
            ..Verdict::default()
        };
        return (None, verdict);
    }
    let sc = |i: usize| score(inst.preset, &inst.player, &inst.servers[i]).score;
    let best_score = (0..inst.servers.len())
        .map(sc)
        .fold(f64::NEG_INFINITY, f64::max);
    let (top, pick) = (
        order[0],
        order
            .iter()
            .copied()
            .find(|&i| inst.servers[i].is_joinable()),
    );
    let report = RankReport {
        preset: inst.preset.name().to_string(),
        servers: inst.servers.len(),
        top: inst.servers[top].name.clone(),
        top_score: sc(top),
        play_now: pick.map(|i| inst.servers[i].name.clone()),
        play_now_score: pick.map(sc),
        best_score,
    };
    let verdict = Verdict {
        objective: Some(-report.top_score),
        metrics: metrics_map(&report),
        violations: Vec::new(),
    };
    (Some(report), verdict)
}
