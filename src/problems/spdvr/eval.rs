//! The SPDVR evaluator (problems.md §2): SPDVR's extra rules on top of the
//! SPD evaluator [`evaluate_spd`], which alone computes delay and variation.
//!
//! A result `A'` of a start `A` is feasible when the SPD evaluator accepts it
//! (`D(A') <= μ`) and it uses only hosts of `A`: for CS, the same root and
//! every contact server in `H(A) = {σ_A(c)} ∪ {r}` (so the root's own server
//! may take clients even if `A` gave it none); for P2P, every contact server
//! in `H(A) = {σ_A(c)}`. `|H(A')| <= |H(A)|` follows.

use crate::core::{metrics_map, Verdict};
use crate::error::{Error, Result};
use crate::problems::spd::eval::{evaluate_spd, SpdEvaluation, SpdMetrics, SpdReport};
use crate::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use serde::{Deserialize, Serialize};

/// The evaluator's verdict on an SPDVR result.
#[derive(Debug, Clone, PartialEq)]
pub struct SpdvrEvaluation {
    /// The start's metrics (before).
    pub before: SpdMetrics,
    /// The SPD evaluation of the result (after): metrics and SPD violations.
    pub after: SpdEvaluation,
    /// SPDVR's own violations (hosts outside the start's, another root).
    pub violations: Vec<String>,
}

impl SpdvrEvaluation {
    /// True when the result is a feasible SPD solution that keeps to the
    /// start's hosts (and root).
    pub fn is_feasible(&self) -> bool {
        self.after.is_feasible() && self.violations.is_empty()
    }

    /// The verdict for the record filler: objective = the variation after;
    /// metrics before and after.
    pub fn verdict(&self) -> Verdict {
        let mut report = SpdvrReport::before_only(&self.before);
        report.after = self.after.report();
        report.after.feasible = self.is_feasible();
        Verdict {
            objective: self.after.metrics.as_ref().map(|m| m.variation),
            metrics: metrics_map(&report),
            violations: self.all_violations(),
        }
    }

    /// Every violation, SPD's and SPDVR's.
    pub fn all_violations(&self) -> Vec<String> {
        let mut v = self.after.violations.clone();
        v.extend(self.violations.iter().cloned());
        v
    }
}

/// SPDVR metrics as solution files and benchmark rows carry them: the
/// start's (before) and the result's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SpdvrReport {
    /// The start's variation.
    pub variation_before: f64,
    /// The start's delay.
    pub delay_before: f64,
    /// The start's host count.
    pub hosts_before: usize,
    /// The result's metrics.
    #[serde(flatten)]
    pub after: SpdReport,
}

impl SpdvrReport {
    /// The start's metrics alone (a run with no result).
    pub fn before_only(before: &SpdMetrics) -> Self {
        SpdvrReport {
            variation_before: before.variation,
            delay_before: before.delay,
            hosts_before: before.hosts,
            after: SpdReport::default(),
        }
    }
}

/// The hosts a result may use: `H(A)` of a start (CS: contact servers and the
/// root), as a membership vector over the servers.
pub fn allowed_hosts(inst: &SpdInstance, start: &SpdSolution) -> Vec<bool> {
    let mut allowed = vec![false; inst.servers()];
    for &s in &start.assign {
        if let Some(a) = allowed.get_mut(s) {
            *a = true;
        }
    }
    if inst.model == CommModel::Cs {
        if let Some(a) = start.root.and_then(|r| allowed.get_mut(r)) {
            *a = true;
        }
    }
    allowed
}

/// Checks that `start` is a feasible SPD solution of `inst` and returns its
/// metrics; an infeasible or malformed start is an input error naming why.
pub fn check_start(inst: &SpdInstance, start: &SpdSolution) -> Result<SpdMetrics> {
    let ev = evaluate_spd(inst, start);
    match ev.metrics {
        Some(m) if ev.violations.is_empty() => Ok(m),
        _ => Err(Error::input(
            &inst.name,
            "start",
            format!(
                "the start solution is not a feasible SPD solution: {}",
                ev.violations.join("; ")
            ),
        )),
    }
}

/// Evaluates `result` as an SPDVR answer to `start` on `inst`.
///
/// Errors when the start itself is infeasible (an input error: SPDVR needs
/// a valid start).
pub fn evaluate_spdvr(
    inst: &SpdInstance,
    start: &SpdSolution,
    result: &SpdSolution,
) -> Result<SpdvrEvaluation> {
    let before = check_start(inst, start)?;
    let after = evaluate_spd(inst, result);
    let mut violations = Vec::new();
    if after.metrics.is_some() {
        if inst.model == CommModel::Cs && result.root != start.root {
            let root = |r: Option<usize>| r.map_or_else(|| "none".into(), |r| r.to_string());
            violations.push(format!(
                "root {} differs from the start's root {}",
                root(result.root),
                root(start.root)
            ));
        }
        let allowed = allowed_hosts(inst, start);
        for (c, &s) in result.assign.iter().enumerate() {
            if !allowed.get(s).copied().unwrap_or(false) {
                violations.push(format!(
                    "assign[{c}] = {s} is not a host of the start (hosts {:?})",
                    before.host_list
                ));
            }
        }
    }
    Ok(SpdvrEvaluation {
        before,
        after,
        violations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::network::ServerNetwork;
    use crate::problems::spd::model::BoundSpec;

    fn tiny(model: CommModel) -> SpdInstance {
        let net = ServerNetwork::new(3, &[(0, 1, 5.0), (1, 2, 5.0)]);
        let access = vec![
            vec![Some(10.0), Some(12.0), Some(30.0)],
            vec![Some(20.0), Some(11.0), Some(14.0)],
        ];
        SpdInstance::new("tiny", model, net, &access, BoundSpec::Absolute(100.0)).unwrap()
    }

    #[test]
    fn root_server_is_an_allowed_host_in_cs() {
        let inst = tiny(CommModel::Cs);
        let start = SpdSolution {
            root: Some(1),
            assign: vec![0, 0],
        };
        let moved = SpdSolution {
            root: Some(1),
            assign: vec![1, 1],
        };
        let ev = evaluate_spdvr(&inst, &start, &moved).unwrap();
        assert!(ev.is_feasible(), "{:?}", ev.all_violations());
        assert_eq!(ev.before.hosts, 2);
        assert_eq!(ev.after.metrics.unwrap().hosts, 1);
    }

    #[test]
    fn new_hosts_and_new_roots_are_rejected() {
        let inst = tiny(CommModel::Cs);
        let start = SpdSolution {
            root: Some(1),
            assign: vec![0, 0],
        };
        let other_root = SpdSolution {
            root: Some(0),
            assign: vec![0, 0],
        };
        let ev = evaluate_spdvr(&inst, &start, &other_root).unwrap();
        assert!(!ev.is_feasible());
        let new_host = SpdSolution {
            root: Some(1),
            assign: vec![0, 2],
        };
        assert!(!evaluate_spdvr(&inst, &start, &new_host)
            .unwrap()
            .is_feasible());
        let p2p = tiny(CommModel::P2p);
        let s = SpdSolution {
            root: None,
            assign: vec![0, 0],
        };
        let r = SpdSolution {
            root: None,
            assign: vec![0, 1],
        };
        assert!(!evaluate_spdvr(&p2p, &s, &r).unwrap().is_feasible());
    }

    #[test]
    fn infeasible_start_is_an_input_error() {
        let mut inst = tiny(CommModel::P2p);
        inst.bound = 5.0;
        let s = SpdSolution {
            root: None,
            assign: vec![0, 1],
        };
        let err = evaluate_spdvr(&inst, &s, &s).unwrap_err();
        assert!(err.to_string().contains("start"), "{err}");
    }
}
