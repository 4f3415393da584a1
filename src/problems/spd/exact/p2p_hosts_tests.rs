//! Tests of the host stage ([`super`]): the search against the MILP, the
//! ladder's answers and steps on any thread count.

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

/// The host stage proves the same count on 1, 2 and 3 threads, with
/// steps that agree with it and a solution of that many hosts; on one
/// thread the same solution every time (the leftmost of the least
/// feasible count's decision; on more, the first found,
/// [`Plan::first_solution`]).
#[test]
fn host_stage_proves_the_same_count_on_any_thread_count() {
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
                HostStage::Proven(sc) => {
                    let on = sc.sol.assign.iter().collect::<BTreeSet<_>>().len();
                    assert_eq!(on, sc.metrics.hosts, "seed {seed}");
                    Some(sc.sol.assign)
                }
                HostStage::Infeasible(_) => None,
                _ => panic!("seed {seed}: not proven"),
            };
            let hosts = sol
                .as_ref()
                .map(|a| a.iter().collect::<BTreeSet<_>>().len());
            check_steps(&steps, hosts, threads, inst.servers());
            (hosts, sol)
        };
        let one = run(1);
        assert_eq!(run(1).1, one.1, "seed {seed}: one thread, another solution");
        assert_eq!(run(2).0, one.0, "seed {seed}");
        assert_eq!(run(3).0, one.0, "seed {seed}");
    }
}

/// A feasible solution with more hosts than `sc`: clients moved one
/// at a time to a server no client uses, while the evaluator accepts.
fn spread(inst: &SpdInstance, sc: &Scored) -> Option<Scored> {
    let mut assign = sc.sol.assign.clone();
    for c in 0..assign.len() {
        for s in 0..inst.servers() {
            let old = assign[c];
            if assign.contains(&s) {
                continue;
            }
            assign[c] = s;
            let sol = crate::problems::spd::model::SpdSolution {
                root: None,
                assign: assign.clone(),
            };
            if score(inst, sol).is_some() {
                break;
            }
            assign[c] = old;
        }
    }
    let sol = crate::problems::spd::model::SpdSolution { root: None, assign };
    score(inst, sol).filter(|x| x.metrics.hosts > sc.metrics.hosts)
}

/// With an incumbent above the least count, whose hosts the decisions
/// prefer to open ([`Plan::prefer`]), the host stage proves the same
/// count as without one on 1, 2 and 3 threads.
#[test]
fn preferring_the_incumbents_hosts_changes_no_count() {
    let dl = Deadline::none();
    let mut runs = 0;
    for seed in 0..80 {
        let inst = tiny(8, 14, [0.8, 1.0, 1.2][seed as usize % 3], 7000 + seed);
        let HostStage::Proven(least) = min_hosts(&inst, None, 1, &dl) else {
            continue;
        };
        let Some(inc) = spread(&inst, &least) else {
            continue;
        };
        runs += 1;
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            let stage = pool.install(|| min_hosts(&inst, Some(inc.clone()), 1, &dl));
            let HostStage::Proven(sc) = stage else {
                panic!("seed {seed}, {threads} threads: not proven");
            };
            assert_eq!(sc.metrics.hosts, least.metrics.hosts, "seed {seed}");
            sc.sol.assign
        };
        let one = run(1);
        assert_eq!(run(1), one, "seed {seed}: one thread, another solution");
        run(2);
        run(3);
    }
    assert!(runs >= 20, "only {runs} incumbents above the least count");
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
