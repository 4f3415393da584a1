//! The constraint search against brute force on tiny instances with ties.

use super::*;
use crate::problems::spd::exact::p2p::tests::{exists, random_case};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Feasibility agrees with brute force for random thresholds (both sides)
/// and host caps; found solutions meet them.
#[test]
fn search_matches_brute_force() {
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for seed in 0..1500 {
        let (inst, lim, k) = random_case(&mut rng, seed, 7);
        let want = exists(&inst, &lim, k);
        let got = decide(&inst, lim, k, u64::MAX, &dl).expect("small enough");
        match got {
            Probe::Feasible(sc) => {
                assert!(want, "seed {seed}: found a solution brute force denies");
                assert!(sc.metrics.hosts <= k, "seed {seed}");
                assert!(lim.fits(sc.metrics.delay), "seed {seed}");
            }
            Probe::Infeasible => assert!(
                !want,
                "seed {seed}: {} clients, k {k} {lim:?}",
                inst.clients()
            ),
            Probe::Unknown(why) => panic!("seed {seed}: {why}"),
        }
    }
}

/// A tiny random case without a lower limit (probing runs only then); in
/// half of them a tight upper threshold, so that many same-host pairs
/// break it (a client with a large access then needs a server of its own).
fn upper_case(rng: &mut ChaCha8Rng, seed: u64) -> (SpdInstance, Limits, usize) {
    use rand::Rng;
    let (inst, mut lim, k) = random_case(rng, seed, 7);
    lim.lo = f64::NEG_INFINITY;
    if rng.random::<bool>() {
        lim.hi = f64::from(rng.random_range(8..=30u32));
    }
    (inst, lim, k)
}

/// A paper random P2P instance of 12–20 servers and 30–80 clients, f =
/// 1.0–1.3 by `seed`, with limits by `seed % 4`: μ, a tighter upper one,
/// a lower one (then cuts are off), μ.
pub(super) fn paper_case(rng: &mut ChaCha8Rng, seed: u64) -> (SpdInstance, Limits) {
    paper_case_sized(rng, seed, (12, 20), (30, 80))
}

/// [`paper_case`] with servers and clients drawn from the given ranges.
fn paper_case_sized(
    rng: &mut ChaCha8Rng,
    seed: u64,
    servers: (usize, usize),
    clients: (usize, usize),
) -> (SpdInstance, Limits) {
    use crate::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
    use crate::problems::spd::model::CommModel;
    use rand::Rng;
    let p = PaperSpdParams {
        servers: rng.random_range(servers.0..=servers.1),
        clients: rng.random_range(clients.0..=clients.1),
        model: CommModel::P2p,
        bound_factor: [1.0, 1.1, 1.2, 1.3][seed as usize % 4],
        ..PaperSpdParams::default()
    };
    let inst = generate_paper_spd(&p, seed).expect("valid parameters");
    let mut lim = Limits::bound(inst.bound);
    match seed % 4 {
        1 => lim.hi = inst.bound * rng.random_range(0.8..1.0),
        2 => lim.lo = inst.bound * rng.random_range(0.0..0.5),
        _ => {}
    }
    (inst, lim)
}

/// Refuted branches cut their siblings' windows only where no solution
/// is ([`Search::cap_refuted`]): with and without the cuts, every decision
/// on the paper's random P2P instances of 12–20 servers and 30–80 clients
/// (limits: μ, a tighter upper one, now and then a lower one, which must
/// switch the cuts off) ends the same way, and the cuts do happen. (The
/// solutions may differ: cut windows change the branching order. Brute
/// force is out of reach at this size; the tiny cases above cover it.)
#[test]
fn cut_windows_change_no_answer() {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let (mut cuts, mut both) = (0, [0; 2]);
    for seed in 0..400 {
        let (inst, lim) = paper_case(&mut rng, seed);
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        for k in 1..=8 {
            let run = |cut: bool| {
                let mut s = Search::new(&inst, lim, lists.clone(), dl.clone()).expect("small");
                s.set_cuts(cut);
                let ans = s.decide(k, 300_000);
                (ans, s.cuts)
            };
            let ((with, n_cuts), (without, _)) = (run(true), run(false));
            cuts += n_cuts;
            let name = |p: &Probe| match p {
                Probe::Feasible(_) => "feasible",
                Probe::Infeasible => "infeasible",
                Probe::Unknown(_) => "unknown",
            };
            match (&with, &without) {
                (Probe::Feasible(a), Probe::Feasible(_)) => {
                    assert!(
                        a.metrics.hosts <= k && lim.fits(a.metrics.delay),
                        "seed {seed}"
                    );
                    both[0] += 1;
                }
                (Probe::Infeasible, Probe::Infeasible) => both[1] += 1,
                (_, Probe::Unknown(_)) | (Probe::Unknown(_), _) => {}
                (a, b) => panic!(
                    "seed {seed}, k {k}: {} with cuts, {} without",
                    name(a),
                    name(b)
                ),
            }
        }
    }
    assert!(
        cuts > 1000,
        "only {cuts} cuts: the test does not exercise them"
    );
    assert!(
        both[0] > 50 && both[1] > 50,
        "feasible / infeasible decisions: {both:?}"
    );
}

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
        let per = [1, 20][seed as usize % 2];
        let mut search = Search::new(&inst, lim, lists.clone(), Deadline::none()).expect("small");
        match search.shave(k, per) {
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

/// The probed decision (first plain search cut to one node, so probing
/// and the support rounds always run) agrees with brute force.
#[test]
fn probed_decision_matches_brute_force() {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    for seed in 0..1200 {
        let (inst, lim, k) = upper_case(&mut rng, seed);
        let want = exists(&inst, &lim, k);
        let got = match allowed_pairs(&inst, &lim) {
            Err(_) => Probe::Infeasible,
            Ok(lists) => probe::decide_planned(
                &inst,
                lim,
                lists,
                k,
                probe::Plan {
                    first_try: 1,
                    ..Default::default()
                },
                &dl,
            )
            .expect("small"),
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

/// A tight packing's check refutes only nodes without a solution
/// ([`Search::packing_fits`]): with and without it, every decision on the
/// paper's random P2P instances (as above) ends the same way; the check
/// only prunes, so the search with it visits a subset of the nodes in the
/// same order and finds the same solution; and it does refute nodes.
#[test]
fn packing_check_changes_no_answer() {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let (mut refuted, mut both) = (0, [0; 2]);
    for seed in 0..400 {
        let (inst, lim) = paper_case_sized(&mut rng, seed, (20, 30), (60, 120));
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        for k in 3..=12 {
            let run = |on: bool| {
                let mut s = Search::new(&inst, lim, lists.clone(), dl.clone()).expect("small");
                s.set_packing(on);
                let ans = s.decide(k, 300_000);
                (ans, s.nodes(), s.packing_refuted)
            };
            let ((with, n_with, r), (without, n_without, _)) = (run(true), run(false));
            refuted += r;
            match (&with, &without) {
                (Probe::Feasible(a), Probe::Feasible(b)) => {
                    assert_eq!(a.sol.assign, b.sol.assign, "seed {seed}, k {k}");
                    assert!(n_with <= n_without, "seed {seed}, k {k}");
                    both[0] += 1;
                }
                (Probe::Infeasible, Probe::Infeasible) => {
                    assert!(n_with <= n_without, "seed {seed}, k {k}");
                    both[1] += 1;
                }
                (Probe::Infeasible | Probe::Feasible(_), Probe::Unknown(_)) => {}
                (a, b) => panic!(
                    "seed {seed}, k {k}: {} with the check, {} without",
                    name(a),
                    name(b)
                ),
            }
        }
    }
    assert!(
        refuted > 300,
        "only {refuted} nodes refuted: the test does not exercise the check"
    );
    assert!(
        both[0] > 50 && both[1] > 50,
        "feasible / infeasible decisions: {both:?}"
    );
}

fn name(p: &Probe) -> &'static str {
    match p {
        Probe::Feasible(_) => "feasible",
        Probe::Infeasible => "infeasible",
        Probe::Unknown(_) => "unknown",
    }
}
