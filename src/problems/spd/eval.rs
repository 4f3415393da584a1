//! The SPD evaluator: the one place where SPD/SPDVR metrics are computed and
//! feasibility is checked (problems.md §1, "Both models").
//!
//! CS: `p(c) = a(c,σ(c)) + D(σ(c), r)`, delay `2·max p`, variation
//! `2·(max p − min p)`, hosts `{σ(c)} ∪ {r}`. P2P: pair delay
//! `q(i,j) = a(i,σi) + D(σi,σj) + a(j,σj)` over distinct clients, delay
//! `max q`, variation `max q − min q`, hosts `{σ(c)}`. A single-client P2P
//! session has no pair: delay and variation are 0.
//!
//! The P2P extremes are found per host pair from each host's two largest and
//! two smallest access latencies, so evaluation is `O(m + k²)` for `k` hosts
//! instead of the `O(m²)` pair scan.

use crate::core::{metrics_map, within_bound, Verdict};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use serde::{Deserialize, Serialize};

/// Metrics of a structurally valid solution.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpdMetrics {
    /// `|H|`.
    pub hosts: usize,
    /// Session delay `D` (ms).
    pub delay: f64,
    /// Delay variation `V` (ms).
    pub variation: f64,
    /// Number of relay servers.
    pub relays: usize,
    /// The root (CS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root: Option<usize>,
    /// The hosts, ascending.
    pub host_list: Vec<usize>,
    /// Relay servers (on canonical paths, not hosts), ascending.
    pub relay_list: Vec<usize>,
}

impl SpdMetrics {
    /// The lexicographic SPD key: hosts, then delay, then variation.
    pub fn key(&self) -> (usize, f64, f64) {
        (self.hosts, self.delay, self.variation)
    }

    /// True when `self` is strictly better than `other` on (hosts, delay,
    /// variation), comparing latencies with a 1e-9 relative tolerance.
    pub fn better_than(&self, other: &SpdMetrics) -> bool {
        lex_less(self.key(), other.key())
    }
}

/// Strict lexicographic `a < b` on (hosts, delay, variation) with tolerance.
pub fn lex_less(a: (usize, f64, f64), b: (usize, f64, f64)) -> bool {
    if a.0 != b.0 {
        return a.0 < b.0;
    }
    if !approx_eq(a.1, b.1) {
        return a.1 < b.1;
    }
    !approx_eq(a.2, b.2) && a.2 < b.2
}

/// Equality of latencies up to a 1e-9 relative tolerance.
pub fn approx_eq(x: f64, y: f64) -> bool {
    x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
}

/// The evaluator's verdict on one solution.
#[derive(Debug, Clone, PartialEq)]
pub struct SpdEvaluation {
    /// Metrics; `None` when the solution is structurally invalid.
    pub metrics: Option<SpdMetrics>,
    /// Every reason the solution is not feasible (empty when feasible).
    pub violations: Vec<String>,
}

impl SpdEvaluation {
    /// True when the solution is valid and meets the bound.
    pub fn is_feasible(&self) -> bool {
        self.metrics.is_some() && self.violations.is_empty()
    }

    /// The metrics as a solution file records them.
    pub fn report(&self) -> SpdReport {
        let m = self.metrics.as_ref();
        SpdReport {
            hosts: m.map(|m| m.hosts),
            delay: m.map(|m| m.delay),
            variation: m.map(|m| m.variation),
            relays: m.map(|m| m.relays),
            host_list: m.map(|m| m.host_list.clone()),
            relay_list: m.map(|m| m.relay_list.clone()),
            feasible: self.is_feasible(),
            violations: self.violations.clone(),
        }
    }

    /// The verdict for the record filler: objective = the host count.
    pub fn verdict(&self) -> Verdict {
        let mut violations = self.violations.clone();
        if self.metrics.is_none() && violations.is_empty() {
            violations.push("the solution has no metrics".into());
        }
        Verdict {
            objective: self.metrics.as_ref().map(|m| m.hosts as f64),
            metrics: metrics_map(&self.report()),
            violations,
        }
    }
}

/// SPD metrics as solution files and benchmark rows carry them (`metrics`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SpdReport {
    /// `|H|`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<usize>,
    /// Session delay `D` (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<f64>,
    /// Delay variation `V` (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variation: Option<f64>,
    /// Number of relay servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relays: Option<usize>,
    /// The hosts, ascending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_list: Option<Vec<usize>>,
    /// Relay servers, ascending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_list: Option<Vec<usize>>,
    /// Whether the evaluator accepts the solution.
    pub feasible: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<String>,
}

/// Evaluates `sol` on `inst` against the instance's bound μ.
pub fn evaluate_spd(inst: &SpdInstance, sol: &SpdSolution) -> SpdEvaluation {
    let structural = structural_violations(inst, sol);
    if !structural.is_empty() {
        return SpdEvaluation {
            metrics: None,
            violations: structural,
        };
    }
    let mut violations = Vec::new();
    let metrics = match inst.model {
        CommModel::Cs => cs_metrics(inst, sol, sol.root.unwrap_or(0)),
        CommModel::P2p => p2p_metrics(inst, sol),
    };
    if !metrics.delay.is_finite() {
        violations.push("some hosts cannot reach each other in the server network".to_string());
    } else if !within_bound(metrics.delay, inst.bound) {
        violations.push(format!(
            "delay {:.6} exceeds the bound {:.6}",
            metrics.delay, inst.bound
        ));
    }
    SpdEvaluation {
        metrics: Some(metrics),
        violations,
    }
}

fn structural_violations(inst: &SpdInstance, sol: &SpdSolution) -> Vec<String> {
    let (n, m) = (inst.servers(), inst.clients());
    let mut v = Vec::new();
    if sol.assign.len() != m {
        v.push(format!(
            "assign has {} entries, expected {m} (one per client)",
            sol.assign.len()
        ));
        return v;
    }
    match (inst.model, sol.root) {
        (CommModel::Cs, None) => v.push("a CS solution needs a root".to_string()),
        (CommModel::Cs, Some(r)) if r >= n => {
            v.push(format!("root {r} is not a server (there are {n})"))
        }
        (CommModel::P2p, Some(_)) => v.push("a P2P solution has no root".to_string()),
        _ => {}
    }
    for (c, &s) in sol.assign.iter().enumerate() {
        if s >= n {
            v.push(format!("assign[{c}] = {s} is not a server (there are {n})"));
        } else if !inst.access(c, s).is_finite() {
            v.push(format!(
                "assign[{c}] = {s}: client {c} has no access to server {s}"
            ));
        }
    }
    v
}

/// The distinct hosts of an assignment, ascending.
pub(crate) fn hosts_of(assign: &[usize]) -> Vec<usize> {
    sorted_unique(assign.to_vec())
}

/// Per server, the [`Extremes`] of its clients' accesses in `assign`
/// (which must name valid servers): `O(m + n)`.
pub(crate) fn p2p_extremes(inst: &SpdInstance, assign: &[usize]) -> Vec<Extremes> {
    let mut ext = vec![Extremes::EMPTY; inst.servers()];
    for (c, &s) in assign.iter().enumerate() {
        ext[s].push(inst.access(c, s));
    }
    ext
}

fn sorted_unique(mut xs: Vec<usize>) -> Vec<usize> {
    xs.sort_unstable();
    xs.dedup();
    xs
}

fn relays_of(inst: &SpdInstance, is_host: &[bool], pairs: &[(usize, usize)]) -> Vec<usize> {
    let mut relays = Vec::new();
    for &(s, t) in pairs {
        if let Some(path) = inst.network.path(s, t) {
            relays.extend(path.into_iter().filter(|&x| !is_host[x]));
        }
    }
    sorted_unique(relays)
}

fn cs_metrics(inst: &SpdInstance, sol: &SpdSolution, r: usize) -> SpdMetrics {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (c, &s) in sol.assign.iter().enumerate() {
        let p = inst.cs_path(c, s, r);
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let mut host_list = sol.assign.clone();
    host_list.push(r);
    let host_list = sorted_unique(host_list);
    let mut is_host = vec![false; inst.servers()];
    host_list.iter().for_each(|&h| is_host[h] = true);
    let pairs: Vec<(usize, usize)> = host_list.iter().map(|&h| (h, r)).collect();
    let relay_list = relays_of(inst, &is_host, &pairs);
    SpdMetrics {
        hosts: host_list.len(),
        delay: 2.0 * hi,
        variation: 2.0 * (hi - lo),
        relays: relay_list.len(),
        root: Some(r),
        host_list,
        relay_list,
    }
}

/// Two largest and two smallest access latencies among a host's clients
/// (also the exact P2P search's, so that it tests pairs as this evaluator
/// sums them).
#[derive(Clone, Copy)]
pub(crate) struct Extremes {
    pub(crate) count: usize,
    pub(crate) max1: f64,
    pub(crate) max2: f64,
    pub(crate) min1: f64,
    pub(crate) min2: f64,
}

impl Extremes {
    pub(crate) const EMPTY: Extremes = Extremes {
        count: 0,
        max1: f64::NEG_INFINITY,
        max2: f64::NEG_INFINITY,
        min1: f64::INFINITY,
        min2: f64::INFINITY,
    };

    pub(crate) fn push(&mut self, a: f64) {
        self.count += 1;
        if a > self.max1 {
            self.max2 = self.max1;
            self.max1 = a;
        } else if a > self.max2 {
            self.max2 = a;
        }
        if a < self.min1 {
            self.min2 = self.min1;
            self.min1 = a;
        } else if a < self.min2 {
            self.min2 = a;
        }
    }
}

/// The smallest and the largest P2P pair delay of `sol` (`(+∞, -∞)` for
/// a single client: no pair), `O(m + k²)` for `m` clients and `k` hosts.
/// The assignment must name valid servers (the structural checks first).
pub(crate) fn p2p_pair_range(inst: &SpdInstance, sol: &SpdSolution) -> (f64, f64) {
    let ext = p2p_extremes(inst, &sol.assign);
    let host_list = hosts_of(&sol.assign);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (i, &s) in host_list.iter().enumerate() {
        let e = ext[s];
        if e.count >= 2 {
            hi = hi.max(e.max1 + e.max2);
            lo = lo.min(e.min1 + e.min2);
        }
        for &t in &host_list[i + 1..] {
            let d = inst.network.dist(s, t);
            hi = hi.max(e.max1 + d + ext[t].max1);
            lo = lo.min(e.min1 + d + ext[t].min1);
        }
    }
    (lo, hi)
}

fn p2p_metrics(inst: &SpdInstance, sol: &SpdSolution) -> SpdMetrics {
    let (mut lo, mut hi) = p2p_pair_range(inst, sol);
    if hi == f64::NEG_INFINITY {
        // a single client: no pair
        (lo, hi) = (0.0, 0.0);
    }
    let host_list = sorted_unique(sol.assign.clone());
    let mut is_host = vec![false; inst.servers()];
    host_list.iter().for_each(|&h| is_host[h] = true);
    let mut pairs = Vec::new();
    for (i, &s) in host_list.iter().enumerate() {
        for &t in &host_list[i + 1..] {
            pairs.push((s, t));
        }
    }
    let relay_list = relays_of(inst, &is_host, &pairs);
    SpdMetrics {
        hosts: host_list.len(),
        delay: hi,
        variation: if hi.is_finite() {
            hi - lo
        } else {
            f64::INFINITY
        },
        relays: relay_list.len(),
        root: None,
        host_list,
        relay_list,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::spd::model::seed001_fig1 as fig1;

    #[test]
    fn cs_example_of_fig2() {
        // Fig. 2: root B; a→B (55) gives 2·55 = 110 directly.
        let inst = fig1(CommModel::Cs, 110.0).unwrap();
        let sol = SpdSolution {
            root: Some(1),
            assign: vec![1, 3, 1, 3, 1],
        };
        let ev = evaluate_spd(&inst, &sol);
        let m = ev.metrics.clone().unwrap();
        // paths: a 55, b 25+12=37, c 37, d 39+12=51, e 37
        assert_eq!(m.delay, 110.0);
        assert_eq!(m.variation, 2.0 * (55.0 - 37.0));
        assert_eq!(m.hosts, 2);
        assert!(ev.is_feasible());
    }

    #[test]
    fn p2p_single_host_counts_distinct_pairs_only() {
        let inst = fig1(CommModel::P2p, 110.0).unwrap();
        let sol = SpdSolution {
            root: None,
            assign: vec![1, 1, 1, 1, 1],
        };
        let m = evaluate_spd(&inst, &sol).metrics.unwrap();
        // accesses to B: 55, 32, 37, 64, 37 → max pair 64+55, min pair 32+37
        assert_eq!(m.delay, 119.0);
        assert_eq!(m.variation, 119.0 - 69.0);
        assert_eq!(m.hosts, 1);
    }

    #[test]
    fn p2p_pairs_match_brute_force() {
        let inst = fig1(CommModel::P2p, 110.0).unwrap();
        let sol = SpdSolution {
            root: None,
            assign: vec![0, 3, 2, 3, 4],
        };
        let m = evaluate_spd(&inst, &sol).metrics.unwrap();
        let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
        for i in 0..5 {
            for j in 0..5 {
                if i != j {
                    let (si, sj) = (sol.assign[i], sol.assign[j]);
                    let q = inst.access(i, si) + inst.network.dist(si, sj) + inst.access(j, sj);
                    lo = lo.min(q);
                    hi = hi.max(q);
                }
            }
        }
        assert_eq!(m.delay, hi);
        assert_eq!(m.variation, hi - lo);
        // hosts 0,2,3,4 pairwise through 1 (A-B-D): B is a relay
        assert_eq!(m.relay_list, vec![1]);
    }

    #[test]
    fn structural_errors_are_reported_not_panics() {
        let inst = fig1(CommModel::Cs, 110.0).unwrap();
        let bad = SpdSolution {
            root: None,
            assign: vec![9, 0, 0, 0, 0],
        };
        let ev = evaluate_spd(&inst, &bad);
        assert!(ev.metrics.is_none());
        assert_eq!(ev.violations.len(), 2);
        let short = SpdSolution {
            root: Some(0),
            assign: vec![0],
        };
        assert!(!evaluate_spd(&inst, &short).is_feasible());
    }
}
