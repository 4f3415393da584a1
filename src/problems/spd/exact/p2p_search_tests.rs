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
pub(super) fn upper_case(rng: &mut ChaCha8Rng, seed: u64) -> (SpdInstance, Limits, usize) {
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
pub(super) fn paper_case_sized(
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
    on_off(
        31,
        ((12, 20), (30, 80)),
        1..=8,
        (|s, on| s.set_cuts(on), |s| s.cuts, "cuts", 1000),
        Agree::Answers,
    );
}

/// A tight packing's check refutes only nodes without a solution
/// ([`Search::packing_fits`]): with and without it, every decision on the
/// paper's random P2P instances (as above) ends the same way; the check
/// only prunes, so the search with it visits a subset of the nodes in the
/// same order and finds the same solution; and it does refute nodes.
#[test]
fn packing_check_changes_no_answer() {
    use super::fit::EXTRA_CROSS_CHECKS;
    use std::sync::atomic::Ordering::Relaxed;
    let before = EXTRA_CROSS_CHECKS.load(Relaxed);
    on_off(
        41,
        ((20, 30), (60, 120)),
        3..=12,
        (
            |s, on| s.set_packing(on),
            |s| s.packing_refuted,
            "nodes refuted",
            300,
        ),
        Agree::Solutions,
    );
    // the extra host's test met clients left over (each such call checked
    // against the position lookups it replaced)
    let checked = EXTRA_CROSS_CHECKS.load(Relaxed) - before;
    assert!(
        checked > 1000,
        "only {checked} extra-host tests cross-checked"
    );
}

/// The check of branches opening the last host
/// ([`Search::last_host_fails`]): with and without it, every decision on
/// the paper's random P2P instances ends the same way with the same
/// solution and the same node count (a refuted branch counts as the node
/// it spares), and it does refute branches (each one checked against the
/// node it spares, inside the check).
#[test]
fn last_host_check_changes_no_answer() {
    on_off(
        43,
        ((20, 30), (60, 120)),
        3..=12,
        (
            |s, on| s.set_last_host(on),
            |s| s.last_host_refuted,
            "branches refuted",
            10_000,
        ),
        Agree::Nodes,
    );
}

/// The last-host check's forced moves ([`Search::all_hosts_fail`]): with
/// and without them, every decision on the paper's random P2P instances
/// ends the same way with the same solution and the same node count (a
/// branch they refute dies in its own node, checked inside the check),
/// and they do refute branches the first round passes.
#[test]
fn last_forced_moves_change_no_answer() {
    on_off(
        67,
        ((20, 30), (60, 120)),
        3..=12,
        (
            |s, on| s.set_last_forced(on),
            |s| s.last_forced_refuted.get(),
            "branches refuted past the first round",
            5_000,
        ),
        Agree::Nodes,
    );
}

/// The check of branches opening the next-to-last host
/// ([`Search::next_to_last_fails`]): with and without it, every decision
/// on the paper's random P2P instances ends the same way with the same
/// solution and the same node count, and it does refute branches (each
/// one checked against the node it spares, inside the check).
#[test]
fn next_to_last_check_changes_no_answer() {
    on_off(
        47,
        ((20, 30), (60, 120)),
        3..=12,
        (
            |s, on| s.set_next_to_last(on),
            |s| s.next_to_last_refuted,
            "branches refuted",
            1_000,
        ),
        Agree::Nodes,
    );
}

/// The check of branches opening the third host from last
/// ([`Search::third_to_last_fails`]): with and without it, every decision
/// on the paper's random P2P instances (upper and lower limits) ends the
/// same way with the same solution and never more nodes (a refuted branch
/// counts as the node it spares, whose subtree may be larger), and it does
/// refute branches.
#[test]
fn third_to_last_check_changes_no_answer() {
    on_off(
        61,
        ((20, 30), (60, 120)),
        3..=12,
        (
            |s, on| s.set_third_to_last(on),
            |s| s.third_to_last_refuted,
            "branches refuted",
            1_000,
        ),
        Agree::Solutions,
    );
}

/// The check of branches opening a host with four or five hosts left by
/// their child's packing ([`Search::opening_overpacks`]): with and without
/// it, every decision on the paper's random P2P instances (upper and lower
/// limits) ends the same way with the same solution and never more nodes,
/// and it does refute branches.
#[test]
fn early_packing_changes_no_answer() {
    on_off(
        67,
        ((20, 30), (60, 120)),
        4..=12,
        (
            |s, on| s.set_early_packing(on),
            |s| s.early_packing_refuted,
            "branches refuted",
            500,
        ),
        Agree::Solutions,
    );
}

/// Every branch the early packing check refutes, searched to the end
/// without it, has no solution (every decision on 400 paper instances,
/// upper and lower limits; the check's first version failed this).
#[test]
fn early_packing_refutes_only_dead_branches() {
    on_off(
        71,
        ((20, 30), (60, 120)),
        4..=12,
        (
            |s, on| s.set_early_packing_verify(on),
            |s| s.early_packing_refuted,
            "branches refuted and verified",
            500,
        ),
        Agree::Nodes,
    );
}

/// The two-server bound's narrowing ([`Search::pair_leaves_none`]): with
/// and without it, every decision on the paper's random P2P instances
/// (upper and lower limits) ends the same way with the same solution and
/// never more nodes, and it does refute nodes the split test alone passes
/// (in their nodes: the check of branches opening the third host from
/// last, which makes the same bound before the node, is off).
#[test]
fn pair_narrowing_changes_no_answer() {
    on_off(
        53,
        ((20, 30), (60, 120)),
        3..=12,
        (
            |s, on| {
                s.set_pair_narrowing(on);
                s.set_third_to_last(false);
            },
            |s| s.pair_narrowing_refuted,
            "nodes refuted",
            500,
        ),
        Agree::Solutions,
    );
}

/// Keeping the nodes' buffers ([`spare`]: the bounds', the states of
/// refuted nodes, scratch bitsets) instead of allocating them afresh
/// changes nothing: the same answers, solutions and node counts.
#[test]
fn kept_buffers_change_no_answer() {
    on_off(
        59,
        ((20, 30), (60, 120)),
        3..=12,
        (|s, on| s.set_keep(on), |s| s.nodes(), "nodes", 100_000),
        Agree::Nodes,
    );
}

/// A switch of the search (on or off), the counter of what it does, the
/// counter's name, and the least total that shows the test exercises it.
type Switch = (fn(&mut Search, bool), fn(&Search) -> u64, &'static str, u64);

/// How far a search with a switch on must agree with the search without.
#[derive(Clone, Copy, PartialEq)]
enum Agree {
    /// The same answers (an unknown one aside).
    Answers,
    /// The same answers and solutions, and never more nodes.
    Solutions,
    /// The same answers, solutions and node counts.
    Nodes,
}

/// Every decision (`ks`) on 400 paper instances of the given server and
/// client ranges (`paper_case_sized`, rng seeded `seed0`), with a switch
/// of the search on and off: the answers agree (an unknown one aside, and
/// beyond `Agree::Answers` only when the search without the switch ran
/// out), and as far as `agree` says beyond. The switch's counter, summed
/// over the runs with it on, must pass its least total (else the test
/// does not exercise it), and more than 50 decisions of each answer must
/// be made both ways.
fn on_off(
    seed0: u64,
    (servers, clients): ((usize, usize), (usize, usize)),
    ks: std::ops::RangeInclusive<usize>,
    (switch, counter, what, least): Switch,
    agree: Agree,
) {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(seed0);
    let (mut total, mut both) = (0, [0; 2]);
    for seed in 0..400 {
        let (inst, lim) = paper_case_sized(&mut rng, seed, servers, clients);
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        for k in ks.clone() {
            let run = |on: bool| {
                let mut s = Search::new(&inst, lim, lists.clone(), dl.clone()).expect("small");
                switch(&mut s, on);
                let ans = s.decide(k, 300_000);
                (ans, s.nodes(), counter(&s))
            };
            let ((with, n_with, c), (without, n_without, _)) = (run(true), run(false));
            total += c;
            let at = format!("seed {seed}, k {k}");
            let nodes_ok = match agree {
                Agree::Answers => true,
                Agree::Solutions => n_with <= n_without,
                Agree::Nodes => n_with == n_without,
            };
            match (&with, &without) {
                (Probe::Feasible(a), Probe::Feasible(b)) => {
                    assert!(a.metrics.hosts <= k && lim.fits(a.metrics.delay), "{at}");
                    if agree != Agree::Answers {
                        assert_eq!(a.sol.assign, b.sol.assign, "{at}");
                    }
                    assert!(nodes_ok, "{at}: {n_with} nodes with, {n_without} without");
                    both[0] += 1;
                }
                (Probe::Infeasible, Probe::Infeasible) => {
                    assert!(nodes_ok, "{at}: {n_with} nodes with, {n_without} without");
                    both[1] += 1;
                }
                (_, Probe::Unknown(_)) => {}
                (Probe::Unknown(_), _) if agree == Agree::Answers => {}
                (a, b) => panic!("{at}: {} with the switch, {} without", name(a), name(b)),
            }
        }
    }
    assert!(
        total > least,
        "only {total} {what}: the test does not exercise the switch"
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

/// Every feasible assignment of a tiny instance (brute force), with its
/// host count.
pub(super) fn all_solutions(inst: &SpdInstance, lim: &Limits) -> Vec<(Vec<usize>, usize)> {
    let mut out = Vec::new();
    crate::problems::spd::exact::p2p::tests::any_feasible(inst, lim, usize::MAX, |a, h| {
        out.push((a.to_vec(), h));
        false
    });
    out
}

/// A dive (`host-lns`) from a random feasible assignment, random hosts
/// closed and a random host cap, agrees with brute force over the
/// assignments that keep the open hosts' clients in place; what it finds
/// keeps them, meets the limits and the cap.
#[test]
fn dives_match_brute_force() {
    use rand::Rng;
    let dl = Deadline::none();
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut dives = 0;
    for seed in 0..600 {
        let (inst, lim, _) = random_case(&mut rng, seed, 6);
        let sols = all_solutions(&inst, &lim);
        if sols.is_empty() {
            continue;
        }
        let (start, u) = sols[rng.random_range(0..sols.len())].clone();
        let k = rng.random_range(1..=u);
        let closed: Vec<bool> = (0..inst.servers())
            .map(|s| start.contains(&s) && rng.random_bool(0.5))
            .collect();
        let keeps = |a: &[usize]| (0..a.len()).all(|c| closed[start[c]] || a[c] == start[c]);
        let want = sols.iter().any(|(a, h)| *h <= k && keeps(a));
        let lists = crate::problems::spd::exact::p2p::allowed_pairs(&inst, &lim).expect("feasible");
        let mut search = Search::new(&inst, lim, lists, dl.clone()).expect("small");
        match search.dive(&start, &closed, k, u64::MAX) {
            Probe::Feasible(sc) => {
                assert!(want, "seed {seed}: a dive found what brute force denies");
                assert!(sc.metrics.hosts <= k, "seed {seed}");
                assert!(lim.fits(sc.metrics.delay), "seed {seed}");
                assert!(keeps(&sc.sol.assign), "seed {seed}: a kept client moved");
            }
            Probe::Infeasible => assert!(!want, "seed {seed}: k {k}, closed {closed:?}"),
            Probe::Unknown(why) => panic!("seed {seed}: {why}"),
        }
        dives += 1;
    }
    assert!(dives > 300, "only {dives} dives");
}

/// A probing pass (`caps`) caps a server's list only where no assignment
/// within the limit (with at most `k` hosts) puts the capped clients on
/// it: brute force over every assignment of random tiny instances. (The
/// probes' solutions are ignored here, as in probing for another search's
/// limits: under a descent they would move the limit past every solution.)
#[test]
fn caps_cut_only_refuted_tails() {
    use crate::problems::spd::exact::p2p::allowed_pairs;
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let (mut capped, mut tested) = (0, 0);
    for seed in 0..600 {
        let (inst, lim, k) = random_case(&mut rng, seed, 7);
        let lim = Limits {
            lo: f64::NEG_INFINITY,
            ..lim
        };
        let Ok(lists) = allowed_pairs(&inst, &lim) else {
            continue;
        };
        let mut search = Search::new(&inst, lim, lists, Deadline::none()).expect("small");
        search.enable_caps();
        search.probes_only = true;
        search.k = k;
        let caps = search.caps.clone().expect("enabled");
        assert!(search.cap_pass(&caps).is_ok(), "seed {seed}");
        let sols: Vec<Vec<usize>> = all_solutions(&inst, &lim)
            .into_iter()
            .filter(|(_, h)| *h <= k)
            .map(|(a, _)| a)
            .collect();
        tested += usize::from(!sols.is_empty());
        for (s, list) in search.lists.iter().enumerate() {
            for &(c, _) in &list[caps.end(s)..] {
                capped += 1;
                assert!(
                    !sols.iter().any(|a| a[c] == s),
                    "seed {seed}: client {c} capped off server {s}, k {k}, {lim:?}"
                );
            }
        }
    }
    assert!(
        capped > 100 && tested > 100,
        "only {capped} pairs capped, {tested} feasible"
    );
}
