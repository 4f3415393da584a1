//! THE ranges evaluator (problems.md §6): every ranges metric is computed
//! here, from the instance and a solution, and the solution is checked here.
//! It imports no engine (the engines' load oracle is checked against
//! [`range_load`] in the tests).
//!
//! Definitions (docs/ranges.md):
//! - **load** of node `n` = Σ publication rates of its cells + Σ rates of the
//!   subscriptions that touch it (own at least one of their cells), each
//!   subscription counted once per node however many of its intervals or
//!   cells fall there;
//! - **matching load** of node `n` = Σ over subscriptions `s` of
//!   `rate(s) · Σ publish(c)` over the cells `c` of `s` that `n` owns: the
//!   rate of (publication, subscription) matches made at the rendezvous
//!   owning the publication's cell. Its total over the nodes does not depend
//!   on the split; its maximum does;
//! - **fan-out** of a subscription = the number of distinct nodes it touches
//!   (mean and p95 by nearest rank, over subscriptions, unweighted);
//! - objective = the maximum node load.
//!
//! Cost: `O(K + N + Σ_s runs(s))` where `runs(s)` is the number of maximal
//! same-owner runs of cells the subscription's intervals cross (its fan-out
//! for a contiguous split, at most its cell count in general).

use crate::core::{metrics_map, Verdict};
use crate::problems::ranges::model::{
    check_starts, starts_to_owner, RangesInstance, RangesSolution,
};
use serde::{Deserialize, Serialize};

/// The metrics of a solution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RangesMetrics {
    /// The objective: the largest node load.
    pub max_load: f64,
    /// Σ loads / N.
    pub mean_load: f64,
    /// `max_load / mean_load` (1 when the mean is 0).
    pub max_over_mean: f64,
    /// The largest matching load.
    pub max_matching: f64,
    /// Σ matching loads / N.
    pub mean_matching: f64,
    /// `max_matching / mean_matching` (1 when the mean is 0).
    pub matching_max_over_mean: f64,
    /// Mean subscription fan-out (0 without subscriptions).
    pub fanout_mean: f64,
    /// 95th percentile (nearest rank) of the fan-out.
    pub fanout_p95: usize,
    /// Largest fan-out.
    pub fanout_max: usize,
    /// Nodes owning no cell.
    pub empty_nodes: usize,
    /// Whether every node owns one contiguous range, in node order.
    pub contiguous: bool,
    /// Load per node.
    pub loads: Vec<f64>,
    /// Matching load per node.
    pub matching: Vec<f64>,
}

/// The evaluator's verdict on one solution.
#[derive(Debug, Clone)]
pub struct RangesEvaluation {
    /// Metrics (present when the solution is well formed).
    pub metrics: Option<RangesMetrics>,
    /// Every violation found (empty = feasible).
    pub violations: Vec<String>,
}

impl RangesEvaluation {
    /// The shared verdict: objective = max load.
    pub fn verdict(&self) -> Verdict {
        Verdict {
            objective: self.metrics.as_ref().map(|m| m.max_load),
            metrics: self.metrics.as_ref().map(metrics_map).unwrap_or_default(),
            violations: self.violations.clone(),
        }
    }
}

/// The owner per cell of a solution, or why it is not a valid one.
pub fn owners(inst: &RangesInstance, sol: &RangesSolution) -> Result<Vec<usize>, Vec<String>> {
    let (k, n) = (inst.cells(), inst.nodes);
    match sol {
        RangesSolution::Split(s) => match check_starts(&s.starts, k, n, "solution") {
            Ok(()) => Ok(starts_to_owner(&s.starts, k)),
            Err(e) => Err(vec![e.to_string()]),
        },
        RangesSolution::Owners(o) => {
            let mut v = Vec::new();
            if o.owner.len() != k {
                let len = o.owner.len();
                v.push(format!(
                    "owner has {len} entries, expected {k} (one per cell)"
                ));
            }
            let bad: Vec<usize> = (0..o.owner.len()).filter(|&c| o.owner[c] >= n).collect();
            for &c in bad.iter().take(5) {
                v.push(format!(
                    "owner[{c}] = {} is not a node (0..{n})",
                    o.owner[c]
                ));
            }
            if bad.len() > 5 {
                v.push(format!("… {} bad node indices in all", bad.len()));
            }
            if v.is_empty() {
                Ok(o.owner.clone())
            } else {
                Err(v)
            }
        }
    }
}

/// Evaluates a solution.
pub fn evaluate(inst: &RangesInstance, sol: &RangesSolution) -> RangesEvaluation {
    match owners(inst, sol) {
        Ok(owner) => RangesEvaluation {
            metrics: Some(evaluate_owner(inst, &owner)),
            violations: Vec::new(),
        },
        Err(violations) => RangesEvaluation {
            metrics: None,
            violations,
        },
    }
}

/// The metrics of a valid owner vector (`K` entries, each `< N`).
pub fn evaluate_owner(inst: &RangesInstance, owner: &[usize]) -> RangesMetrics {
    let n = inst.nodes;
    let mut loads = vec![0.0; n];
    let mut matching = vec![0.0; n];
    let mut prefix = Vec::with_capacity(owner.len() + 1);
    prefix.push(0.0);
    for (c, &o) in owner.iter().enumerate() {
        loads[o] += inst.publish[c];
        prefix.push(prefix[c] + inst.publish[c]);
    }
    let run_end = run_ends(owner);
    let mut seen = vec![usize::MAX; n];
    let mut fanout = Vec::with_capacity(inst.subscriptions.len());
    for (s, sub) in inst.subscriptions.iter().enumerate() {
        let mut f = 0;
        for &[a, b] in &sub.ranges {
            let mut c = a;
            while c <= b {
                let (o, e) = (owner[c], run_end[c].min(b));
                matching[o] += sub.rate * (prefix[e + 1] - prefix[c]);
                if seen[o] != s {
                    seen[o] = s;
                    f += 1;
                    loads[o] += sub.rate;
                }
                c = e + 1;
            }
        }
        fanout.push(f);
    }
    summarise(owner, loads, matching, fanout)
}

/// `run_end[c]` = the last cell of the run of equal owners holding `c`.
fn run_ends(owner: &[usize]) -> Vec<usize> {
    let mut end = vec![0; owner.len()];
    for c in (0..owner.len()).rev() {
        end[c] = match owner.get(c + 1) {
            Some(&next) if next == owner[c] => end[c + 1],
            _ => c,
        };
    }
    end
}

fn ratio(max: f64, mean: f64) -> f64 {
    if mean > 0.0 {
        max / mean
    } else {
        1.0
    }
}

fn summarise(
    owner: &[usize],
    loads: Vec<f64>,
    matching: Vec<f64>,
    mut fanout: Vec<usize>,
) -> RangesMetrics {
    let n = loads.len().max(1) as f64;
    let max_load = loads.iter().copied().fold(0.0, f64::max);
    let mean_load = loads.iter().sum::<f64>() / n;
    let max_matching = matching.iter().copied().fold(0.0, f64::max);
    let mean_matching = matching.iter().sum::<f64>() / n;
    let mut owns = vec![false; loads.len()];
    owner.iter().for_each(|&o| owns[o] = true);
    fanout.sort_unstable();
    let fanout_mean = if fanout.is_empty() {
        0.0
    } else {
        fanout.iter().sum::<usize>() as f64 / fanout.len() as f64
    };
    let p95 = match fanout.len() {
        0 => 0,
        len => fanout[(0.95 * len as f64).ceil() as usize - 1],
    };
    RangesMetrics {
        max_load,
        mean_load,
        max_over_mean: ratio(max_load, mean_load),
        max_matching,
        mean_matching,
        matching_max_over_mean: ratio(max_matching, mean_matching),
        fanout_mean,
        fanout_p95: p95,
        fanout_max: fanout.last().copied().unwrap_or(0),
        empty_nodes: owns.iter().filter(|&&o| !o).count(),
        contiguous: owner.windows(2).all(|w| w[0] <= w[1]),
        loads,
        matching,
    }
}

/// The load of one node owning cells `a..=b`, straight from the definition:
/// `O(b − a + I)` (`I` = total intervals). The reference for the engines'
/// oracle.
pub fn range_load(inst: &RangesInstance, a: usize, b: usize) -> f64 {
    let publish: f64 = inst.publish[a..=b].iter().sum();
    let touching: f64 = inst
        .subscriptions
        .iter()
        .filter(|s| s.ranges.iter().any(|&[x, y]| x <= b && y >= a))
        .map(|s| s.rate)
        .sum();
    publish + touching
}

/// Cells whose owner differs between two owner vectors of one instance (a
/// change of split moves them); cells only one vector has count as moved.
pub fn moved_cells(before: &[usize], after: &[usize]) -> usize {
    let common = before.iter().zip(after).filter(|(a, b)| a != b).count();
    common + before.len().abs_diff(after.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::ranges::file::parse_ranges;
    use crate::problems::ranges::model::{Owners, Starts};

    pub(crate) const TINY: &str = r#"{"problem": "ranges", "version": 1, "name": "ranges-tiny",
        "nodes": 3, "cells": 8, "publish": [5, 1, 1, 9, 2, 2, 1, 3],
        "subscriptions": [{"ranges": [[0, 2]], "rate": 4}, {"ranges": [[3, 3], [6, 7]], "rate": 1}],
        "map": {"width": 4, "height": 2, "curve": "hilbert"}}"#;

    #[test]
    fn hand_computed_loads_on_the_formats_example() {
        let inst = parse_ranges(TINY, "tiny", "tiny").unwrap();
        // Split {0,1,2} {3,4,5} {6,7}:
        // node 0: 5+1+1 = 7 publications + sub 0 (4) = 11;
        // node 1: 9+2+2 = 13 + sub 1 (cell 3) = 14;
        // node 2: 1+3 = 4 + sub 1 (cells 6, 7; once) = 5.
        let sol = RangesSolution::Split(Starts {
            starts: vec![0, 3, 6],
        });
        let m = evaluate(&inst, &sol).metrics.unwrap();
        assert_eq!(m.loads, vec![11.0, 14.0, 5.0]);
        assert_eq!(m.max_load, 14.0);
        assert_eq!(m.mean_load, 10.0);
        assert!((m.max_over_mean - 1.4).abs() < 1e-12);
        // Matching: node 0: 4·7 = 28; node 1: 1·9 = 9; node 2: 1·(1+3) = 4.
        assert_eq!(m.matching, vec![28.0, 9.0, 4.0]);
        // Fan-outs 1 and 2.
        assert_eq!((m.fanout_mean, m.fanout_p95, m.fanout_max), (1.5, 2, 2));
        assert!(m.contiguous);
        // The same owners cell by cell give the same metrics.
        let owner = vec![0, 0, 0, 1, 1, 1, 2, 2];
        let o = evaluate(&inst, &RangesSolution::Owners(Owners { owner }));
        assert_eq!(o.metrics.unwrap(), m);
        // Split {0} {1,2,3} {4..7}: node 0: 5+4 = 9; node 1: 11+4+1 = 16;
        // node 2: 8+1 = 9.
        let sol = RangesSolution::Split(Starts {
            starts: vec![0, 1, 4],
        });
        let m = evaluate(&inst, &sol).metrics.unwrap();
        assert_eq!(m.loads, vec![9.0, 16.0, 9.0]);
        assert_eq!(range_load(&inst, 1, 3), 16.0);
    }

    #[test]
    fn bad_solutions_are_rejected_by_name() {
        let inst = parse_ranges(TINY, "tiny", "tiny").unwrap();
        let bad = |s: RangesSolution| evaluate(&inst, &s).violations.join("; ");
        let split = |v: Vec<usize>| RangesSolution::Split(Starts { starts: v });
        assert!(bad(split(vec![0, 3])).contains("expected 3"));
        assert!(bad(split(vec![0, 4, 2])).contains("starts[2]"));
        assert!(bad(split(vec![1, 4, 6])).contains("starts[0]"));
        assert!(bad(split(vec![0, 4, 9])).contains("beyond"));
        let owners = |v: Vec<usize>| RangesSolution::Owners(Owners { owner: v });
        assert!(bad(owners(vec![0; 7])).contains("expected 8"));
        assert!(bad(owners(vec![0, 0, 0, 0, 0, 0, 0, 3])).contains("owner[7]"));
        // A scattered owner vector is valid, not contiguous.
        let m = evaluate(&inst, &owners(vec![0, 1, 0, 1, 2, 2, 0, 0]));
        assert!(!m.metrics.unwrap().contiguous);
        assert_eq!(moved_cells(&[0, 0, 1], &[0, 1, 1]), 1);
    }
}
