//! THE CMA evaluator (problems.md §3): every CMA metric is computed here, from
//! the instance and an assignment, and feasibility is checked here. Every
//! static engine's result and every step of the dynamic simulation go
//! through it.
//!
//! An assignment is a mirror per client row; `None` = the client is absent
//! (dynamic problem). A static solution assigns every row.
//! Cost: `O(n + k)` per evaluation; the delay CDF sorts, `O(n log n)`.

use crate::core::{metrics_map, Verdict};
use crate::problems::cma::model::CmaInstance;
use serde::{Deserialize, Serialize};

/// Default delay requirement for "players under a threshold" (paper §4.1).
pub const DEFAULT_THRESHOLD_MS: f64 = 100.0;

/// Metrics of an assignment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CmaMetrics {
    /// Number of assigned (present) players (rows count their players).
    pub present: usize,
    /// `Σ d(i, σ(i))` over present clients (ms).
    pub total_delay: f64,
    /// Total / present (0 when nobody is present).
    pub avg_delay: f64,
    /// Largest delay of a present client (0 when nobody is present).
    pub max_delay: f64,
    /// Clients per mirror.
    pub loads: Vec<usize>,
    /// The threshold used for `under_threshold`.
    pub threshold: f64,
    /// Present clients with delay `<= threshold`.
    pub under_threshold: usize,
    /// `under_threshold / present` (1 when nobody is present).
    pub share_under_threshold: f64,
}

/// The evaluator's verdict.
#[derive(Debug, Clone)]
pub struct CmaEvaluation {
    /// Metrics over the validly assigned clients.
    pub metrics: CmaMetrics,
    /// Every violation found (empty = feasible).
    pub violations: Vec<String>,
}

impl CmaEvaluation {
    /// True when no constraint is violated.
    pub fn is_feasible(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Evaluates a (possibly partial) assignment: `assign[i] = Some(j)` puts
/// client row `i` (all its players) on mirror `j`, `None` = absent. Checks
/// the length, mirror indices and capacities.
pub fn evaluate_cma(inst: &CmaInstance, assign: &[Option<usize>], threshold: f64) -> CmaEvaluation {
    evaluate_iter(
        inst,
        assign.len(),
        assign
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.map(|j| (i, j, row_weight(inst, i)))),
        threshold,
    )
}

/// Evaluates a static solution: every row assigned (`assign[i]` = the
/// mirror of all of row `i`'s players).
pub fn evaluate_cma_static(inst: &CmaInstance, assign: &[usize], threshold: f64) -> CmaEvaluation {
    evaluate_iter(
        inst,
        assign.len(),
        assign
            .iter()
            .enumerate()
            .map(|(i, &j)| (i, j, row_weight(inst, i))),
        threshold,
    )
}

/// Evaluates a static solution that may split rows: `split[i]` lists
/// `[mirror, players]` pairs whose players add up to row `i`'s count.
pub fn evaluate_cma_split(
    inst: &CmaInstance,
    split: &[Vec<[usize; 2]>],
    threshold: f64,
) -> CmaEvaluation {
    let n = inst.clients();
    let mut violations = Vec::new();
    if split.len() != n {
        violations.push(format!(
            "split has {} entries, expected {n} (one per client row)",
            split.len()
        ));
    }
    let mut bad_sums = 0usize;
    for (i, pairs) in split.iter().enumerate().take(n) {
        let sum = pairs.iter().fold(0usize, |a, &[_, c]| a.saturating_add(c));
        if sum != inst.weight(i) {
            bad_sums += 1;
            if bad_sums <= 5 {
                violations.push(format!(
                    "split[{i}] places {sum} players, the row has {}",
                    inst.weight(i)
                ));
            }
        }
    }
    if bad_sums > 5 {
        violations.push(format!("… {bad_sums} rows with wrong counts in all"));
    }
    let triples = split
        .iter()
        .enumerate()
        .flat_map(|(i, pairs)| pairs.iter().map(move |&[j, c]| (i, j, c)));
    let tally = tally_assignment(inst, triples, threshold, &mut violations);
    push_capacity_violations(inst, &tally.loads, &mut violations);
    CmaEvaluation {
        metrics: tally.into_metrics(threshold),
        violations,
    }
}

/// Players of row `i`, 0 for a row the instance does not have (reported by
/// the tally as a bad index).
fn row_weight(inst: &CmaInstance, i: usize) -> usize {
    if i < inst.clients() {
        inst.weight(i)
    } else {
        0
    }
}

fn evaluate_iter(
    inst: &CmaInstance,
    len: usize,
    triples: impl Iterator<Item = (usize, usize, usize)>,
    threshold: f64,
) -> CmaEvaluation {
    let n = inst.clients();
    let mut violations = Vec::new();
    if len != n {
        violations.push(format!(
            "assign has {len} entries, expected {n} (one per client row)"
        ));
    }
    let tally = tally_assignment(inst, triples, threshold, &mut violations);
    push_capacity_violations(inst, &tally.loads, &mut violations);
    CmaEvaluation {
        metrics: tally.into_metrics(threshold),
        violations,
    }
}

/// Sums over the valid (client, mirror) pairs of an assignment.
struct Tally {
    loads: Vec<usize>,
    total: f64,
    max: f64,
    present: usize,
    under: usize,
}

impl Tally {
    fn into_metrics(self, threshold: f64) -> CmaMetrics {
        let Tally {
            loads,
            total,
            max,
            present,
            under,
        } = self;
        CmaMetrics {
            present,
            total_delay: total,
            avg_delay: if present > 0 {
                total / present as f64
            } else {
                0.0
            },
            max_delay: max,
            loads,
            threshold,
            under_threshold: under,
            share_under_threshold: if present > 0 {
                under as f64 / present as f64
            } else {
                1.0
            },
        }
    }
}

/// Tallies loads and delays of the in-range `(row, mirror, players)`
/// triples; out-of-range ones are reported (the first five, then a count).
fn tally_assignment(
    inst: &CmaInstance,
    triples: impl Iterator<Item = (usize, usize, usize)>,
    threshold: f64,
    violations: &mut Vec<String>,
) -> Tally {
    let (n, k) = (inst.clients(), inst.mirrors());
    let mut loads = vec![0usize; k];
    let (mut total, mut max, mut present, mut under) = (0.0, 0.0f64, 0usize, 0usize);
    let mut bad_index = 0usize;
    for (i, j, c) in triples {
        if i >= n || j >= k {
            bad_index += 1;
            if bad_index <= 5 {
                violations.push(format!(
                    "row {i}: mirror {j} is not a mirror index (0..{k})"
                ));
            }
            continue;
        }
        if c == 0 {
            continue;
        }
        let d = inst.delay(i, j);
        loads[j] = loads[j].saturating_add(c);
        total += c as f64 * d;
        max = max.max(d);
        present = present.saturating_add(c);
        if d <= threshold {
            under = under.saturating_add(c);
        }
    }
    if bad_index > 5 {
        violations.push(format!("… {} bad mirror indices in all", bad_index));
    }
    Tally {
        loads,
        total,
        max,
        present,
        under,
    }
}

/// A violation per mirror with more clients than its capacity.
fn push_capacity_violations(inst: &CmaInstance, loads: &[usize], violations: &mut Vec<String>) {
    for (j, (&l, &c)) in loads.iter().zip(&inst.capacity).enumerate() {
        if l > c {
            violations.push(format!(
                "mirror {} has {l} clients, capacity {c}",
                inst.mirror_label(j)
            ));
        }
    }
}

/// The delay CDF of an assignment: `(delay, share of present clients with a
/// delay <= it)`, one point per distinct delay, ascending.
pub fn delay_cdf(inst: &CmaInstance, assign: &[Option<usize>]) -> Vec<(f64, f64)> {
    let mut delays: Vec<f64> = assign
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.filter(|&j| j < inst.mirrors()).map(|j| inst.delay(i, j)))
        .collect();
    delays.sort_by(f64::total_cmp);
    let n = delays.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (idx, &d) in delays.iter().enumerate() {
        let share = (idx + 1) as f64 / n;
        match out.last_mut() {
            Some(last) if last.0 == d => last.1 = share,
            _ => out.push((d, share)),
        }
    }
    out
}

/// Transfers between two states: clients present in both whose mirror
/// changed (a joiner or a leaver is not a transfer).
pub fn count_transfers(before: &[Option<usize>], after: &[Option<usize>]) -> usize {
    before
        .iter()
        .zip(after)
        .filter(|(b, a)| matches!((b, a), (Some(x), Some(y)) if x != y))
        .count()
}

/// CMA metrics as solution files and benchmark rows carry them (`metrics`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CmaReport {
    /// Total delay (ms).
    pub total_delay: f64,
    /// Average delay (ms).
    pub avg_delay: f64,
    /// Largest delay (ms).
    pub max_delay: f64,
    /// Assigned clients.
    pub clients: usize,
    /// Clients per mirror.
    pub loads: Vec<usize>,
    /// The delay requirement (ms).
    pub threshold: f64,
    /// Clients within it.
    pub under_threshold: usize,
    /// Their share.
    pub share_under_threshold: f64,
    /// Whether the evaluator accepts the assignment.
    pub feasible: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<String>,
}

impl CmaEvaluation {
    /// The metrics as a solution file records them.
    pub fn report(&self) -> CmaReport {
        let m = &self.metrics;
        CmaReport {
            total_delay: m.total_delay,
            avg_delay: m.avg_delay,
            max_delay: m.max_delay,
            clients: m.present,
            loads: m.loads.clone(),
            threshold: m.threshold,
            under_threshold: m.under_threshold,
            share_under_threshold: m.share_under_threshold,
            feasible: self.is_feasible(),
            violations: self.violations.clone(),
        }
    }

    /// The verdict for the record filler: objective = the total delay.
    pub fn verdict(&self) -> Verdict {
        Verdict {
            objective: Some(self.metrics.total_delay),
            metrics: metrics_map(&self.report()),
            violations: self.violations.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig3() -> CmaInstance {
        let rows = vec![
            vec![4.0, 5.0, 10.0],
            vec![4.0, 5.0, 10.0],
            vec![1.0, 8.0, 10.0],
            vec![2.0, 4.0, 10.0],
            vec![2.0, 4.0, 10.0],
        ];
        CmaInstance::from_rows("fig3", vec![2, 2, 2], &rows).unwrap()
    }

    #[test]
    fn metrics_of_the_fig3_start_and_result() {
        let inst = fig3();
        // start: a→I b→I d→G e→H f→H = 10+10+1+4+4
        let ev = evaluate_cma_static(&inst, &[2, 2, 0, 1, 1], 100.0);
        assert!(ev.is_feasible());
        assert_eq!(ev.metrics.total_delay, 29.0);
        assert_eq!(ev.metrics.max_delay, 10.0);
        assert_eq!(ev.metrics.loads, vec![1, 2, 2]);
        let ev = evaluate_cma_static(&inst, &[1, 2, 0, 0, 1], 5.0);
        assert_eq!(ev.metrics.total_delay, 22.0);
        assert!((ev.metrics.avg_delay - 4.4).abs() < 1e-12);
        assert_eq!(ev.metrics.under_threshold, 4);
    }

    #[test]
    fn capacity_and_index_violations_are_reported() {
        let inst = fig3();
        let ev = evaluate_cma_static(&inst, &[0, 0, 0, 1, 1], 100.0);
        assert!(!ev.is_feasible());
        assert!(
            ev.violations[0].contains("capacity 2"),
            "{:?}",
            ev.violations
        );
        let ev = evaluate_cma_static(&inst, &[0, 0, 7, 1], 100.0);
        assert_eq!(ev.violations.len(), 2, "{:?}", ev.violations);
    }

    #[test]
    fn cdf_and_transfers() {
        let inst = fig3();
        let a = vec![Some(2), None, Some(0), Some(1), Some(1)];
        let cdf = delay_cdf(&inst, &a);
        assert_eq!(cdf, vec![(1.0, 0.25), (4.0, 0.75), (10.0, 1.0)]);
        let b = vec![Some(1), Some(0), Some(0), Some(1), None];
        assert_eq!(count_transfers(&a, &b), 1);
        let ev = evaluate_cma(&inst, &a, 100.0);
        assert_eq!(ev.metrics.present, 4);
    }
}
