//! Tests of the probing passes and the probed decision
//! ([`super::probe`]): what a pass drops, the decision against brute force
//! and the plain search, and the branching's preferred servers.

use super::tests::{paper_case_sized, upper_case};
use super::*;
use crate::problems::spd::exact::p2p::tests::exists;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Probing drops only pairs that no assignment with at most `k` hosts
/// uses (brute force with the pair fixed), for probes of 1 and 20 nodes,
/// and a solution a probe finds is one.
#[test]
fn probing_drops_only_pairs_no_solution_uses() {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    use crate::problems::spd::exact::p2p::tests::exists_with;
    use probe::Shave;
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut dropped_total = 0;
    for seed in 0..800 {
        let (inst, lim, k) = upper_case(&mut rng, seed);
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        let per = [1, probe::PER_PROBE, probe::PER_PROBE * probe::ESCALATE][seed as usize % 3];
        let mut search = Search::new(&inst, lim, lists.clone(), Deadline::none()).expect("small");
        match search.shave(k, per, probe::PassThreads::ONE) {
            Shave::Found(Probe::Feasible(sc)) => {
                assert!(
                    sc.metrics.hosts <= k && lim.fits(sc.metrics.delay),
                    "seed {seed}"
                );
            }
            Shave::Found(_) => panic!("seed {seed}: a probe's solution failed the evaluator"),
            Shave::Stopped(why) => panic!("seed {seed}: {why}"),
            Shave::Kept(kept, dropped) => {
                dropped_total += dropped;
                for (s, list) in lists.iter().enumerate() {
                    for &(c, _) in list.iter().filter(|p| !kept[s].contains(p)) {
                        assert!(
                            !exists_with(&inst, &lim, k, Some((c, s))),
                            "seed {seed}: dropped client {c} on server {s}, k {k}, {lim:?}"
                        );
                    }
                }
            }
        }
    }
    // the test must exercise dropping, not only keep everything
    assert!(dropped_total > 200, "only {dropped_total} pairs dropped");
}

/// The probed decision agrees with brute force on `cases` random
/// decisions (rng seeded `rng_seed`), each run as `plan(seed, servers,
/// rng)` says.
fn probed_matches_brute_force(
    rng_seed: u64,
    cases: u64,
    plan: impl Fn(u64, usize, &mut ChaCha8Rng) -> probe::Plan<'static>,
) {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(rng_seed);
    for seed in 0..cases {
        let (inst, lim, k) = upper_case(&mut rng, seed);
        let want = exists(&inst, &lim, k);
        let plan = plan(seed, inst.servers(), &mut rng);
        let got = match allowed_pairs(&inst, &lim) {
            Err(_) => Probe::Infeasible,
            Ok(lists) => probe::decide_planned(&inst, lim, lists, k, plan, &dl).expect("small"),
        };
        match got {
            Probe::Feasible(sc) => {
                assert!(want, "seed {seed}: found a solution brute force denies");
                assert!(
                    sc.metrics.hosts <= k && lim.fits(sc.metrics.delay),
                    "seed {seed}"
                );
            }
            Probe::Infeasible => assert!(!want, "seed {seed}: k {k} {lim:?}"),
            Probe::Unknown(why) => panic!("seed {seed}: {why}"),
        }
    }
}

/// The probed decision (first plain search cut to one node, so probing
/// and the support rounds always run) agrees with brute force.
#[test]
fn probed_decision_matches_brute_force() {
    probed_matches_brute_force(29, 1200, |_, _, _| probe::Plan {
        first_try: 1,
        ..Default::default()
    });
}

/// A preferred set of servers ([`probe::Plan::prefer`], random here)
/// reorders the branching only: the probed decision still agrees with
/// brute force.
#[test]
fn preferred_servers_change_no_answer() {
    probed_matches_brute_force(31, 600, |seed, n, rng| probe::Plan {
        first_try: 1 + seed % 3,
        prefer: Some(Arc::new((0..n).map(|_| rng.random_bool(0.4)).collect())),
        ..Default::default()
    });
}

/// With probes of one node and no plain search between passes (so that
/// passes fade with the decision open and the deeper pass, of
/// [`probe::ESCALATE`] nodes a probe, runs), the probed
/// decision agrees with the plain search on paper instances of 20–30
/// servers, at every host count up to the least.
#[test]
fn escalated_probing_agrees_with_the_plain_search() {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    let before = probe::ESCALATED.with(|n| n.get());
    let mut rng = ChaCha8Rng::seed_from_u64(37);
    for seed in 0..24 {
        let (inst, lim) = paper_case_sized(&mut rng, seed, (20, 30), (60, 120));
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        if lim.lo > f64::NEG_INFINITY {
            continue;
        }
        for k in 1..=inst.servers() {
            let mut plain =
                Search::new(&inst, lim, lists.clone(), Deadline::none()).expect("small");
            let want = match plain.decide(k, u64::MAX / 2) {
                Probe::Feasible(_) => true,
                Probe::Infeasible => false,
                Probe::Unknown(why) => panic!("seed {seed}, k {k}: the plain search: {why}"),
            };
            let plan = probe::Plan {
                first_try: 1,
                per_probe: 1,
                restarts: false,
                ..Default::default()
            };
            let got = probe::decide_planned(&inst, lim, lists.clone(), k, plan, &Deadline::none());
            match got.expect("small") {
                Probe::Feasible(sc) => {
                    assert!(want, "seed {seed}, k {k}: the plain search refutes it");
                    assert!(
                        sc.metrics.hosts <= k && lim.fits(sc.metrics.delay),
                        "seed {seed}"
                    );
                }
                Probe::Infeasible => {
                    assert!(!want, "seed {seed}, k {k}: the plain search finds one")
                }
                Probe::Unknown(why) => panic!("seed {seed}, k {k}: {why}"),
            }
            if want {
                break;
            }
        }
    }
    let escalated = probe::ESCALATED.with(|n| n.get()) - before;
    assert!(escalated > 0, "no deeper pass ran");
}

/// The rule behind probing's binary search, on every position brute force
/// refutes: [`Search::drop_above`] drops only pairs that no assignment with
/// at most `k` hosts uses.
#[test]
fn dropping_above_a_refuted_pair_is_sound() {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    use crate::problems::spd::exact::p2p::tests::exists_with;
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut checked = 0;
    for seed in 0..400 {
        let (inst, lim, k) = upper_case(&mut rng, seed);
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        let search = Search::new(&inst, lim, lists.clone(), Deadline::none()).expect("small");
        for (s, list) in lists.iter().enumerate() {
            let ok: Vec<bool> = list
                .iter()
                .map(|&(c, _)| exists_with(&inst, &lim, k, Some((c, s))))
                .collect();
            for p in (0..list.len()).filter(|&p| !ok[p]) {
                let mut dead = vec![false; list.len()];
                search.drop_above(s, p, &mut dead);
                for i in (0..list.len()).filter(|&i| dead[i]) {
                    checked += 1;
                    assert!(!ok[i], "seed {seed}: server {s}, refuted {p}, dropped {i}");
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} drops checked");
}
