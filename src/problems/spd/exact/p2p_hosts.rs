//! `exact` for P2P, stage 1: the proven least host count.
//!
//! Host counts `lb, lb+1, …` below the incumbent's (the heuristics' best,
//! [`host-ls`](crate::problems::spd::host_ls) included) are decided upward
//! by the constraint search (`p2p_search`, with probing when a decision
//! is hard), on the run's threads side by side (`Ladder`: each worker
//! takes the least count not yet started), and each decision's final
//! search is itself split over them (`p2p_search_split`: a decision's
//! helpers wait while other decisions run, so a thread left without a
//! count helps the hard one); the first feasible count is the
//! minimum, and when every count below the incumbent's is infeasible the
//! incumbent is. Every decision's branching prefers opening the
//! incumbent's hosts (`Plan::prefer`: a solution one host smaller mostly
//! keeps them), and a decision ends at the first solution its threads
//! find (`Plan::first_solution`: any solution answers "feasible"). The
//! count does not depend on the thread count; on one thread the solution
//! is the leftmost of the least feasible count's decision, on more it
//! may be another of that count. Only when
//! the search declines (an instance too large for its bitsets) do the
//! one/two-host enumeration ([`p2p_few`]) and the level-indicator MILP
//! (`P2pModel`) run instead.

use crate::core::{StageStep, Status};
use crate::lp::model_out::install;
use crate::problems::spd::exact::p2p::{allowed_pairs, Limits, P2pModel};
use crate::problems::spd::exact::p2p_search::probe::{decide_planned, Plan};
use crate::problems::spd::exact::p2p_search::Search;
use crate::problems::spd::exact::{keep_better, p2p_few, HostStage, Probe, Scored};
use crate::problems::spd::exact::{score, Deadline};
use crate::problems::spd::model::SpdInstance;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Stage 1: the proven least host count, knowing that no solution has
/// fewer than `known_lb` hosts (1 when nothing is known).
pub(crate) fn min_hosts(
    inst: &SpdInstance,
    incumbent: Option<Scored>,
    known_lb: usize,
    dl: &Deadline,
) -> HostStage {
    min_hosts_steps(inst, incumbent, known_lb, dl).0
}

/// [`min_hosts`], and the search's decisions as the stage's steps
/// (`at most k hosts`: `feasible`, `infeasible`, `unknown` or `cancelled`,
/// in the order they ended; none on the MILP route).
pub(crate) fn min_hosts_steps(
    inst: &SpdInstance,
    incumbent: Option<Scored>,
    known_lb: usize,
    dl: &Deadline,
) -> (HostStage, Vec<StageStep>) {
    crate::problems::spd::exact::p2p::write_reference(inst, dl);
    if let Some(sc) = incumbent.as_ref().filter(|sc| sc.metrics.hosts <= known_lb) {
        return (HostStage::Proven(sc.clone()), Vec::new());
    }
    if dl.expired() {
        // The pair filter alone costs O(n²·m + n·m·log m): out of time, report
        // what is known rather than overrun the limit.
        return (HostStage::Unproven(incumbent, known_lb.max(1)), Vec::new());
    }
    let lim = Limits::bound(inst.bound);
    let allowed = match allowed_pairs(inst, &lim) {
        Ok(a) => a,
        Err(c) => {
            let stage = match incumbent {
                None => HostStage::Infeasible(format!(
                    "client {c} cannot meet μ = {} with every other client from any server",
                    inst.bound
                )),
                Some(sc) => HostStage::Failed(
                    "the pair filter rejects a feasible solution".into(),
                    Some(sc),
                ),
            };
            return (stage, Vec::new());
        }
    };
    if Search::new(inst, lim, allowed.clone(), dl.clone()).is_none() {
        return (milp_hosts(inst, incumbent, known_lb, dl), Vec::new());
    }
    search_hosts(inst, lim, &allowed, incumbent, known_lb.max(1), dl)
}

/// Decides `k = lb, lb+1, …` with the search (and probing,
/// [`decide_planned`]) until one is feasible: on the run's threads, each
/// worker takes the least count not yet started ([`Ladder`]); their
/// branching prefers opening the incumbent's hosts ([`Plan::prefer`]).
/// With the decisions as steps.
fn search_hosts(
    inst: &SpdInstance,
    lim: Limits,
    allowed: &[Vec<(usize, f64)>],
    best: Option<Scored>,
    lb: usize,
    dl: &Deadline,
) -> (HostStage, Vec<StageStep>) {
    let ub = best
        .as_ref()
        .map_or(inst.servers() + 1, |s| s.metrics.hosts);
    let threads = install(dl, rayon::current_num_threads);
    // decisions under way: a decision's helpers wait while others run
    let busy = AtomicUsize::new(0);
    // the incumbent's hosts: a solution one host smaller mostly keeps them
    let prefer = best.as_ref().map(|sc| {
        let mut on = vec![false; inst.servers()];
        for &s in &sc.sol.assign {
            if let Some(x) = on.get_mut(s) {
                *x = true;
            }
        }
        Arc::new(on)
    });
    let decide = |k: usize, dl: &Deadline| {
        busy.fetch_add(1, Ordering::Relaxed);
        let plan = Plan {
            busy: Some(&busy),
            prefer: prefer.clone(),
            first_solution: true,
            ..Plan::default()
        };
        let ans = decide_planned(inst, lim, allowed.to_vec(), k, plan, dl);
        busy.fetch_sub(1, Ordering::Relaxed);
        ans
    };
    let ladder = Ladder::climb(lb, ub, threads, dl, decide);
    let mut best = best;
    let (lo, hi) = (ladder.lo, ladder.hi);
    let stage = match ladder.found {
        Some(sc) if lo >= hi => HostStage::Proven(sc),
        found => {
            keep_better(&mut best, found);
            match best {
                _ if lo < hi => HostStage::Unproven(best, lo),
                Some(sc) => HostStage::Proven(sc),
                None => HostStage::Infeasible(format!(
                    "no assignment meets μ = {} with any number of hosts",
                    inst.bound
                )),
            }
        }
    };
    (stage, ladder.steps)
}

/// The host-count decisions the time limit left undecided, for the
/// message: `; undecided: at most 17 hosts (57.7 s)` (`None` when every
/// decision ended).
pub(crate) fn undecided_note(steps: &[StageStep]) -> Option<String> {
    let open: Vec<String> = steps
        .iter()
        .filter(|s| s.result == StageStep::UNKNOWN)
        .map(|s| format!("{} ({:.1} s)", s.step, s.ms / 1e3))
        .collect();
    (!open.is_empty()).then(|| format!("; undecided: {}", open.join(", ")))
}

/// The shared state of the upward decisions. Decisions are monotone ("at
/// most `k` hosts" infeasible refutes every smaller count, feasible implies
/// every larger one), so a refuted count cancels the smaller ones still
/// running and a feasible one cancels the larger ones. The answer is the
/// solution of the decision at the least feasible count, as one thread
/// would find it; with two threads the refutation just below the optimum
/// and the search for a solution at it run side by side.
struct Ladder {
    /// Least count not refuted.
    lo: usize,
    /// Least count whose decision found a solution (the incumbent's count
    /// while none has).
    hi: usize,
    /// Least count not started.
    next: usize,
    /// The solution of the decision at `hi`.
    found: Option<Scored>,
    /// Counts being decided, with their cancel flags.
    running: Vec<(usize, Arc<AtomicBool>)>,
    /// A decision ended undecided (deadline, interrupt, declined): stop.
    stopped: bool,
    /// The decisions that ended, in that order.
    steps: Vec<StageStep>,
}

impl Ladder {
    /// Decides the counts from `lb` on (below `ub`, the incumbent's) on
    /// `threads` workers ([`climb`]) with `decide(k, deadline)`.
    fn climb(
        lb: usize,
        ub: usize,
        threads: usize,
        dl: &Deadline,
        decide: impl Fn(usize, &Deadline) -> Option<Probe> + Sync,
    ) -> Ladder {
        let ladder = Mutex::new(Ladder {
            lo: lb,
            hi: ub,
            next: lb,
            found: None,
            running: Vec::new(),
            stopped: false,
            steps: Vec::new(),
        });
        let threads = threads.clamp(1, ub.saturating_sub(lb).max(1));
        std::thread::scope(|sc| {
            for _ in 1..threads {
                sc.spawn(|| climb(&ladder, dl, &decide));
            }
            climb(&ladder, dl, &decide);
        });
        ladder.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// The next count to decide, registered as running; `None`: nothing
    /// left to start.
    fn take(&mut self) -> Option<(usize, Arc<AtomicBool>)> {
        let k = self.next.max(self.lo);
        if self.stopped || k >= self.hi {
            return None;
        }
        self.next = k + 1;
        let flag = Arc::new(AtomicBool::new(false));
        self.running.push((k, flag.clone()));
        Some((k, flag))
    }

    /// Records the answer of the decision at `k` (and as a step, taking
    /// `ms`; `cancelled` when another decision's answer settled it first:
    /// then its answer is dropped; `unknown` when it was cut because
    /// another decision ran out of time).
    fn record(&mut self, k: usize, ans: Option<Probe>, ms: f64, cancelled: bool) {
        // (a decision cut because another one ran out of time is unknown)
        let settled = matches!(ans, Some(Probe::Feasible(_) | Probe::Infeasible));
        let result = match &ans {
            _ if cancelled && (settled || !self.stopped) => StageStep::CANCELLED,
            Some(Probe::Feasible(_)) => StageStep::FEASIBLE,
            Some(Probe::Infeasible) => StageStep::INFEASIBLE,
            Some(Probe::Unknown(_)) | None => StageStep::UNKNOWN,
        };
        self.steps.push(StageStep {
            step: format!("at most {k} host{}", if k == 1 { "" } else { "s" }),
            result: result.into(),
            ms,
        });
        if cancelled {
            return;
        }
        match ans {
            Some(Probe::Feasible(sc)) if k < self.hi => {
                self.hi = k;
                self.found = Some(sc);
            }
            Some(Probe::Feasible(_)) => {}
            Some(Probe::Infeasible) => self.lo = self.lo.max(k + 1),
            Some(Probe::Unknown(_)) | None => self.stopped = true,
        }
        let (lo, hi, stopped) = (self.lo, self.hi, self.stopped);
        for (j, flag) in &self.running {
            if stopped || *j < lo || *j >= hi {
                flag.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// One worker of [`search_hosts`]: takes counts from the ladder until none
/// is left. A cancelled decision's answer is dropped (another decision
/// already implies it).
fn climb(
    ladder: &Mutex<Ladder>,
    dl: &Deadline,
    decide: &impl Fn(usize, &Deadline) -> Option<Probe>,
) {
    let lock = || ladder.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        // (the guard must not live through the decision)
        let next = lock().take();
        let Some((k, flag)) = next else {
            return;
        };
        let (ans, ms) = crate::core::timed(|| decide(k, &dl.with_cancel(flag.clone())));
        let mut l = lock();
        l.running.retain(|(j, _)| *j != k);
        l.record(k, ans, ms, flag.load(Ordering::Relaxed));
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
#[path = "p2p_hosts_tests.rs"]
mod tests;
