//! `exact` for P2P, stage 1: the proven least host count.
//!
//! Host counts `lb, lb+1, …` below the incumbent's (the heuristics' best,
//! [`host-ls`](crate::problems::spd::host_ls) included) are decided one by
//! one by the constraint search ([`p2p_search`], with probing when a
//! decision is hard); the first feasible count
//! is the minimum, and when every count below the incumbent's is infeasible
//! the incumbent is. Only when the search declines (an instance too large
//! for its bitsets) do the one/two-host enumeration ([`p2p_few`]) and the
//! level-indicator MILP ([`P2pModel`]) run instead.

use crate::core::Status;
use crate::problems::spd::exact::p2p::{allowed_pairs, Limits, P2pModel};
use crate::problems::spd::exact::p2p_search::probe::decide_probed;
use crate::problems::spd::exact::p2p_search::Search;
use crate::problems::spd::exact::{keep_better, p2p_few, HostStage, Probe, Scored};
use crate::problems::spd::exact::{score, Deadline};
use crate::problems::spd::model::SpdInstance;

/// Stage 1: the proven least host count, knowing that no solution has
/// fewer than `known_lb` hosts (1 when nothing is known).
pub(crate) fn min_hosts(
    inst: &SpdInstance,
    incumbent: Option<Scored>,
    known_lb: usize,
    dl: &Deadline,
) -> HostStage {
    crate::problems::spd::exact::p2p::write_reference(inst, dl);
    if let Some(sc) = incumbent.as_ref().filter(|sc| sc.metrics.hosts <= known_lb) {
        return HostStage::Proven(sc.clone());
    }
    if dl.expired() {
        // The pair filter alone costs O(n²·m + n·m·log m): out of time, report
        // what is known rather than overrun the limit.
        return HostStage::Unproven(incumbent, known_lb.max(1));
    }
    let lim = Limits::bound(inst.bound);
    let allowed = match allowed_pairs(inst, &lim) {
        Ok(a) => a,
        Err(c) => {
            return match incumbent {
                None => HostStage::Infeasible(format!(
                    "client {c} cannot meet μ = {} with every other client from any server",
                    inst.bound
                )),
                Some(sc) => HostStage::Failed(
                    "the pair filter rejects a feasible solution".into(),
                    Some(sc),
                ),
            }
        }
    };
    if Search::new(inst, lim, allowed.clone(), dl.clone()).is_none() {
        return milp_hosts(inst, incumbent, known_lb, dl);
    }
    search_hosts(inst, lim, &allowed, incumbent, known_lb.max(1), dl)
}

/// Decides `k = lb, lb+1, …` with the search (and probing,
/// [`decide_probed`]) until one is feasible.
fn search_hosts(
    inst: &SpdInstance,
    lim: Limits,
    allowed: &[Vec<(usize, f64)>],
    best: Option<Scored>,
    lb: usize,
    dl: &Deadline,
) -> HostStage {
    let ub = best
        .as_ref()
        .map_or(inst.servers() + 1, |s| s.metrics.hosts);
    for k in lb..ub {
        match decide_probed(inst, lim, allowed.to_vec(), k, dl) {
            Some(Probe::Feasible(sc)) => return HostStage::Proven(sc),
            Some(Probe::Infeasible) => {}
            Some(Probe::Unknown(_)) | None => return HostStage::Unproven(best, k),
        }
    }
    match best {
        Some(sc) => HostStage::Proven(sc),
        None => HostStage::Infeasible(format!(
            "no assignment meets μ = {} with any number of hosts",
            inst.bound
        )),
    }
}

/// One and two hosts by enumeration ([`p2p_few`]): `Ok` when that
/// settles the host count (or the deadline hit), else the incumbent and the
/// proven lower bound 3.
#[allow(clippy::result_large_err)]
fn few_hosts(
    inst: &SpdInstance,
    incumbent: Option<Scored>,
    dl: &Deadline,
) -> Result<HostStage, (Option<Scored>, usize)> {
    let lim = Limits::bound(inst.bound);
    let best = incumbent;
    for k in 1..=2 {
        if let Some(sc) = best.as_ref().filter(|s| s.metrics.hosts <= k) {
            return Ok(HostStage::Proven(sc.clone()));
        }
        let probe = match k {
            1 => p2p_few::single_host(inst, &lim),
            _ => p2p_few::at_most_two_hosts(inst, &lim, dl),
        };
        match probe {
            // the incumbent has more than k hosts: the found solution wins
            Probe::Feasible(sc) => return Ok(HostStage::Proven(sc)),
            Probe::Infeasible => {}
            Probe::Unknown(_) => return Ok(HostStage::Unproven(best, k)),
        }
    }
    Err((best, 3))
}

/// The MILP route (for instances the search declines): few hosts by
/// enumeration, then the level-indicator MILP minimising the host count.
fn milp_hosts(
    inst: &SpdInstance,
    incumbent: Option<Scored>,
    known_lb: usize,
    dl: &Deadline,
) -> HostStage {
    let Ok(model) = P2pModel::new(inst, Limits::bound(inst.bound), dl) else {
        return match incumbent {
            None => HostStage::Infeasible("a client has no usable server".into()),
            Some(sc) => HostStage::Failed("the pair filter failed".into(), Some(sc)),
        };
    };
    let (mut best, few_lb) = if known_lb >= 3 {
        (incumbent, known_lb)
    } else {
        match few_hosts(inst, incumbent, dl) {
            Ok(done) => return done,
            Err(state) => state,
        }
    };
    // The few-host stage proved `few_lb` hosts necessary: an incumbent with
    // that many is optimal without the MILP.
    if let Some(sc) = best.as_ref().filter(|sc| sc.metrics.hosts <= few_lb) {
        return HostStage::Proven(sc.clone());
    }
    let start = best.as_ref().map(|s| s.sol.clone());
    let ans = model.solve(None, false, start.as_ref(), dl);
    keep_better(&mut best, ans.solution.and_then(|s| score(inst, s)));
    let why = ans.message.unwrap_or_default();
    let lb = ans.bound.map_or(1.0, |b| (b - 1e-6).ceil().max(1.0)) as usize;
    let lb = lb.max(few_lb);
    match (ans.status, best) {
        (Status::Optimal, Some(sc)) if sc.metrics.hosts <= lb => HostStage::Proven(sc),
        (Status::Infeasible, None) => HostStage::Infeasible(format!(
            "the host-count MILP is infeasible: no assignment meets μ = {}",
            inst.bound
        )),
        (Status::TimeLimit, best) => {
            let lb = best.as_ref().map_or(lb, |s| lb.min(s.metrics.hosts));
            HostStage::Unproven(best, lb)
        }
        (Status::Optimal, best) => HostStage::Failed(
            format!("the MILP optimum {lb} has no solution the evaluator accepts ({why})"),
            best,
        ),
        (status, best) => HostStage::Failed(format!("{status}: {why}"), best),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problems::spd::exact::p2p::tests::tiny;

    /// Two formulations agree: the constraint search's least host count is
    /// the level-indicator MILP's (with the one/two-host enumeration), on
    /// random instances with many ties.
    #[test]
    fn search_and_milp_agree_on_the_host_count() {
        let dl = Deadline::none();
        for seed in 0..150 {
            let inst = tiny(6, 9, [0.6, 0.8, 1.0][seed as usize % 3], 1000 + seed);
            let hosts = |h: HostStage| match h {
                HostStage::Proven(sc) => Some(sc.metrics.hosts),
                HostStage::Infeasible(_) => None,
                _ => panic!("seed {seed}: not proven"),
            };
            let want = hosts(milp_hosts(&inst, None, 1, &dl));
            let got = hosts(min_hosts(&inst, None, 1, &dl));
            assert_eq!(got, want, "seed {seed}");
        }
    }
}
