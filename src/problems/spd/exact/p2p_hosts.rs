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
//! incumbent is. The answer does not depend on the thread count. Only when
//! the search declines (an instance too large for its bitsets) do the
//! one/two-host enumeration ([`p2p_few`]) and the level-indicator MILP
//! (`P2pModel`) run instead.

use crate::core::{StageStep, Status};
use crate::lp::model_out::install;
use crate::problems::spd::exact::p2p::{allowed_pairs, Limits, P2pModel};
use crate::problems::spd::exact::p2p_search::probe::decide_probed;
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
/// [`decide_probed`]) until one is feasible: on the run's threads, each
/// worker takes the least count not yet started ([`Ladder`]). With the
/// decisions as steps.
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
    let decide = |k: usize, dl: &Deadline| {
        busy.fetch_add(1, Ordering::Relaxed);
        let ans = decide_probed(inst, lim, allowed.to_vec(), k, dl, Some(&busy));
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
mod tests {
    use super::*;
    use crate::problems::spd::exact::p2p::tests::tiny;
    use std::collections::BTreeSet;

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

    /// The host stage returns the same solution on 1, 2 and 3 threads
    /// (the solution of the decision at the least feasible count).
    #[test]
    fn host_stage_is_the_same_on_any_thread_count() {
        let dl = Deadline::none();
        for seed in 0..60 {
            let inst = tiny(7, 12, [0.6, 0.8, 1.0][seed as usize % 3], 5000 + seed);
            let run = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a pool");
                let (stage, steps) = pool.install(|| min_hosts_steps(&inst, None, 1, &dl));
                let sol = match stage {
                    HostStage::Proven(sc) => Some(sc.sol.assign),
                    HostStage::Infeasible(_) => None,
                    _ => panic!("seed {seed}: not proven"),
                };
                let hosts = sol
                    .as_ref()
                    .map(|a| a.iter().collect::<BTreeSet<_>>().len());
                check_steps(&steps, hosts, threads, inst.servers());
                sol
            };
            let one = run(1);
            assert_eq!(run(2), one, "seed {seed}");
            assert_eq!(run(3), one, "seed {seed}");
        }
    }

    /// The host stage's steps say what each decision answered: on one
    /// thread every count from 1 up, refuted, then the least feasible one
    /// (all refuted when nothing is feasible); on more, in the order they
    /// ended, every answer agrees with the least count `hosts`, and the
    /// count just below it is refuted. No steps only when the pair filter
    /// alone shows that nothing is feasible.
    fn check_steps(steps: &[StageStep], hosts: Option<usize>, threads: usize, n: usize) {
        let parse = |st: &StageStep| -> usize {
            let k = st.step.trim_start_matches("at most ").split(' ').next();
            k.and_then(|k| k.parse().ok()).expect("a count")
        };
        if steps.is_empty() {
            // (only the pair filter settles a stage without a decision)
            assert!(hosts.is_none(), "a solution without steps");
            return;
        }
        let least = hosts.unwrap_or(n + 1);
        for st in steps {
            let k = parse(st);
            assert_eq!(
                st.step,
                format!("at most {k} host{}", if k == 1 { "" } else { "s" })
            );
            assert!(st.ms >= 0.0);
            match st.result.as_str() {
                "infeasible" => assert!(k < least, "{steps:?}"),
                "feasible" => assert!(k >= least, "{steps:?}"),
                "cancelled" => assert!(threads > 1, "{steps:?}"),
                other => panic!("{other} in {steps:?}"),
            }
        }
        if threads == 1 {
            let got: Vec<(usize, &str)> = steps
                .iter()
                .map(|s| (parse(s), s.result.as_str()))
                .collect();
            let mut want: Vec<(usize, &str)> =
                (1..least.min(n + 1)).map(|k| (k, "infeasible")).collect();
            want.extend(hosts.map(|h| (h, "feasible")));
            assert_eq!(got, want);
        } else if least > 1 {
            let below = steps.iter().find(|s| parse(s) == least - 1).expect("k*-1");
            assert_eq!(below.result, "infeasible", "{steps:?}");
        }
    }

    /// A solution to tag decisions with (its delay field carries `k`).
    fn tagged(k: usize) -> Scored {
        let inst = tiny(4, 5, 1.5, 3);
        let HostStage::Proven(mut sc) = min_hosts(&inst, None, 1, &Deadline::none()) else {
            panic!("the tagging instance is feasible");
        };
        sc.metrics.delay = k as f64;
        sc
    }

    /// Scripted monotone decisions (infeasible below `opt`, feasible from
    /// it; those above `opt + 1` wait to be cancelled): every thread count
    /// ends at `opt` with the solution of decision `opt`, cancels what it no
    /// longer needs, and stops at an undecided one. The waiting decisions
    /// also end at a deadline (so that a missing cancel fails the test
    /// instead of hanging it); none may end that way.
    #[test]
    fn ladder_keeps_the_least_feasible_decision() {
        use std::sync::atomic::AtomicUsize;
        for threads in [1, 2, 3, 5] {
            for opt in 2..9 {
                let dl = Deadline::after(Some(120.0));
                let never_cancelled = AtomicUsize::new(0);
                let decide = |k: usize, d: &Deadline| {
                    if k < opt {
                        return Some(Probe::Infeasible);
                    }
                    if k > opt + 1 {
                        // a hard decision: only cancelling should end it
                        while !d.expired() {
                            std::thread::yield_now();
                        }
                        if !d.interrupted() {
                            never_cancelled.fetch_add(1, Ordering::Relaxed);
                        }
                        return Some(Probe::Unknown("stopped".into()));
                    }
                    Some(Probe::Feasible(tagged(k)))
                };
                let l = Ladder::climb(2, 9, threads, &dl, decide);
                assert_eq!(
                    never_cancelled.load(Ordering::Relaxed),
                    0,
                    "never cancelled"
                );
                assert_eq!((l.lo, l.hi), (opt, opt), "threads {threads}, opt {opt}");
                let found = l.found.expect("a solution");
                assert_eq!(found.metrics.delay, opt as f64, "threads {threads}");
                assert!(!l.stopped && l.running.is_empty());
            }
            let dl = Deadline::none();
            // an undecided count stops the climb with the bound below it
            let decide = |k: usize, _: &Deadline| match k {
                0..=3 => Some(Probe::Infeasible),
                4 => Some(Probe::Unknown("deadline".into())),
                _ => Some(Probe::Feasible(tagged(k))),
            };
            let l = Ladder::climb(1, 9, threads, &dl, decide);
            assert!(l.stopped && l.lo == 4, "threads {threads}: lo {}", l.lo);
        }
    }

    /// A decision's step says `cancelled` when another decision's answer
    /// settled it, and `unknown` when it was cut because another one ran
    /// out of time.
    #[test]
    fn steps_tell_cancelled_from_cut() {
        let result = |first: Probe| {
            let mut l = Ladder {
                lo: 5,
                hi: 9,
                next: 7,
                found: None,
                running: Vec::new(),
                stopped: false,
                steps: Vec::new(),
            };
            let (five, six) = (
                Arc::new(AtomicBool::new(false)),
                Arc::new(AtomicBool::new(false)),
            );
            l.running = vec![(5, five.clone()), (6, six)];
            l.record(6, Some(first), 2.0, false);
            // decision 5 was flagged by that answer and ends undecided
            assert!(five.load(Ordering::Relaxed));
            l.record(5, Some(Probe::Unknown("cut".into())), 1.0, true);
            assert_eq!(l.steps[0].step, "at most 6 hosts");
            (l.steps[0].result.clone(), l.steps[1].result.clone())
        };
        let got = result(Probe::Infeasible);
        assert_eq!(got, ("infeasible".into(), "cancelled".into()));
        let got = result(Probe::Unknown("time limit".into()));
        assert_eq!(got, ("unknown".into(), "unknown".into()));
    }

    /// A time-limited run's message names the host counts left undecided,
    /// with how long each ran; refuted, found and cancelled ones are not
    /// named, and with none undecided there is no note.
    #[test]
    fn the_message_names_the_undecided_host_counts() {
        let step = |k: usize, result: &str, ms: f64| StageStep {
            step: format!("at most {k} hosts"),
            result: result.into(),
            ms,
        };
        let steps = [
            step(13, "infeasible", 6200.0),
            step(15, "unknown", 11_840.0),
            step(16, "cancelled", 3.0),
            step(14, "unknown", 6_151.0),
        ];
        assert_eq!(
            undecided_note(&steps).as_deref(),
            Some("; undecided: at most 15 hosts (11.8 s), at most 14 hosts (6.2 s)")
        );
        assert_eq!(undecided_note(&steps[..1]), None);
        assert_eq!(undecided_note(&[]), None);
        // and the ladder's own records: a cut decision is named, a
        // cancelled one is not
        let mut l = Ladder {
            lo: 5,
            hi: 9,
            next: 8,
            found: None,
            running: Vec::new(),
            stopped: false,
            steps: Vec::new(),
        };
        l.record(7, Some(Probe::Unknown("time limit".into())), 2500.0, false);
        l.record(6, Some(Probe::Unknown("cut".into())), 1000.0, true);
        l.record(5, Some(Probe::Infeasible), 400.0, true);
        assert_eq!(
            undecided_note(&l.steps).as_deref(),
            Some("; undecided: at most 7 hosts (2.5 s), at most 6 hosts (1.0 s)")
        );
    }
}
