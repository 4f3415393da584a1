//! The split search is the plain search: the same answer, the same
//! solution, and for refutations the same node count, on any thread count
//! and however often it donates (an odd interval donates whenever due, an
//! even one only to a waiting worker, as the engine does).

use super::super::tests::paper_case;
use super::super::{Probe, Search};
use crate::core::Deadline;
use crate::problems::spd::exact::p2p::allowed_pairs;
use crate::problems::spd::exact::p2p::tests::{exists, random_case};
use crate::problems::spd::exact::p2p::Limits;
use crate::problems::spd::model::SpdInstance;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What one decision gave: the answer's kind, the assignment found, nodes.
type Run = (&'static str, Option<Vec<usize>>, u64);

/// A search of `inst` under `lim` (`None` when the pair filter refutes
/// the case or the search declines it).
fn search_of(inst: &SpdInstance, lim: Limits) -> Option<Search<'_>> {
    let lists = allowed_pairs(inst, &lim).ok()?;
    Search::new(inst, lim, lists, Deadline::none())
}

/// The plain search (`split: None`) or a split one `(threads, every)`.
fn run(
    inst: &SpdInstance,
    lim: Limits,
    k: usize,
    split: Option<(usize, u64)>,
) -> Option<(Run, u64)> {
    let mut s = search_of(inst, lim)?;
    let ans = match split {
        None => s.decide(k, u64::MAX),
        Some((threads, every)) => {
            s.donate_every = every;
            // odd intervals: donate whenever due; even: only to idle workers
            s.always_donate = every % 2 == 1;
            s.decide_split(k, threads, None)
        }
    };
    let (kind, sol) = match ans {
        Probe::Feasible(sc) => ("feasible", Some(sc.sol.assign)),
        Probe::Infeasible => ("infeasible", None),
        Probe::Unknown(why) => panic!("no answer: {why}"),
    };
    Some(((kind, sol, s.nodes), s.pieces))
}

/// Compares one split run with the plain one; returns the pieces donated
/// where their number does not depend on timing (donating whenever due,
/// in a refutation or on one thread), 0 otherwise.
fn same(inst: &SpdInstance, lim: Limits, k: usize, split: (usize, u64), what: &str) -> u64 {
    let Some((plain, _)) = run(inst, lim, k, None) else {
        return 0;
    };
    let Some((got, pieces)) = run(inst, lim, k, Some(split)) else {
        return 0;
    };
    assert_eq!(got.0, plain.0, "{what}: answers differ");
    assert_eq!(got.1, plain.1, "{what}: a different solution");
    let refuted = plain.0 == "infeasible";
    if refuted {
        assert_eq!(got.2, plain.2, "{what}: node counts of a refutation differ");
    }
    if split.1 % 2 == 1 && (refuted || split.0 == 1) {
        pieces
    } else {
        0
    }
}

/// Tiny cases (both limits, ties): the split search agrees with brute
/// force and is the plain search, donating after every 1–3 nodes.
#[test]
fn split_search_is_the_plain_search_on_tiny_cases() {
    let mut rng = ChaCha8Rng::seed_from_u64(41);
    let mut pieces = 0;
    for seed in 0..1500 {
        let (inst, lim, k) = random_case(&mut rng, seed, 7);
        let split = (1 + seed as usize % 4, 1 + seed % 3);
        if let Some(((kind, _, _), _)) = run(&inst, lim, k, Some(split)) {
            assert_eq!(kind == "feasible", exists(&inst, &lim, k), "seed {seed}");
        }
        pieces += same(&inst, lim, k, split, &format!("seed {seed}"));
    }
    assert!(pieces > 40, "only {pieces} pieces: the test does not split");
}

/// The paper's random P2P instances ([`paper_case`]: 12–20 servers, 30–80
/// clients; μ, a tighter upper limit, a lower one): the split search on 1–4
/// threads, donating every 1–8 nodes, gives the plain search's answer
/// and solution, and its node count when it refutes.
#[test]
fn split_search_is_the_plain_search_on_paper_instances() {
    let mut rng = ChaCha8Rng::seed_from_u64(43);
    let (mut pieces, mut kinds) = (0, [0; 2]);
    for seed in 0..120 {
        let (inst, lim) = paper_case(&mut rng, seed);
        for k in 1..=8 {
            let split = (rng.random_range(1..=4), rng.random_range(1..=8));
            let what = format!("seed {seed}, k {k}, split {split:?}");
            pieces += same(&inst, lim, k, split, &what);
            if let Some(((kind, _, _), _)) = run(&inst, lim, k, None) {
                kinds[usize::from(kind == "feasible")] += 1;
            }
        }
    }
    // counted where timing cannot change them: 496 with these seeds
    assert!(
        pieces > 400,
        "only {pieces} pieces: the test does not split"
    );
    assert!(
        kinds[0] > 50 && kinds[1] > 50,
        "infeasible / feasible: {kinds:?}"
    );
}

/// A split search whose first solution wins
/// ([`Search::first_solution_wins`]) answers as brute force on 1–4
/// threads, donating every 1–3 nodes, with a solution the evaluator
/// accepts (any solution, not necessarily the leftmost); a refutation
/// takes the plain search's node count.
#[test]
fn a_first_solution_split_search_answers_as_brute_force() {
    let mut rng = ChaCha8Rng::seed_from_u64(47);
    let mut found = 0;
    for seed in 0..800 {
        let (inst, lim, k) = random_case(&mut rng, seed, 7);
        let Some(mut s) = search_of(&inst, lim) else {
            continue;
        };
        s.donate_every = 1 + seed % 3;
        s.always_donate = true;
        s.first_solution_wins(true);
        match s.decide_split(k, 1 + seed as usize % 4, None) {
            Probe::Feasible(sc) => {
                assert!(
                    exists(&inst, &lim, k),
                    "seed {seed}: a solution where none is"
                );
                assert!(
                    sc.metrics.hosts <= k,
                    "seed {seed}: {} hosts",
                    sc.metrics.hosts
                );
                assert!(lim.fits(sc.metrics.delay), "seed {seed}");
                found += 1;
            }
            Probe::Infeasible => {
                assert!(!exists(&inst, &lim, k), "seed {seed}: refuted");
                let plain = run(&inst, lim, k, None).map(|((_, _, nodes), _)| nodes);
                assert_eq!(Some(s.nodes), plain, "seed {seed}: a refutation's nodes");
            }
            Probe::Unknown(why) => panic!("seed {seed}: no answer: {why}"),
        }
    }
    assert!(found > 100, "only {found} feasible cases");
}

/// When the first solution wins, a solution ends the search: no piece
/// is handed out any more (even one left of the solution), and a piece
/// left of it stops as beaten; when the leftmost wins, the left piece
/// goes on and is handed out.
#[test]
fn a_first_solution_stops_every_piece() {
    use super::{Piece, PieceRun, Pool, Start};
    use std::sync::Arc;
    let mut rng = ChaCha8Rng::seed_from_u64(53);
    let (inst, lim, _) = random_case(&mut rng, 0, 7);
    let mut s = search_of(&inst, lim).expect("a search");
    let root = s.root_state();
    let piece = |key: Vec<u32>| Piece {
        node: key.clone(),
        key,
        start: Start::Root(root.clone()),
    };
    for first_wins in [false, true] {
        let pool = Pool::new(vec![piece(vec![0]), piece(vec![2])], first_wins);
        let left = pool.take(|| true).expect("the left piece first");
        assert_eq!(left.key, vec![0]);
        let right = pool.take(|| true).expect("then the right one");
        assert_eq!(right.key, vec![2]);
        // the left piece is still running when the right one finds a
        // solution; then a piece left of it is queued
        pool.done(Ok(Some((vec![2, 1], root.clone()))));
        pool.push(piece(vec![1]));
        s.piece = Some(PieceRun {
            pool: Arc::clone(&pool),
            key: vec![0],
            base: 1,
            from: 0,
            due: false,
            leaf: None,
        });
        assert_eq!(s.check_beaten().is_err(), first_wins, "{first_wins}");
        s.piece = None;
        let next = pool.take(|| true).map(|p| p.key);
        assert_eq!(next, (!first_wins).then(|| vec![1]), "{first_wins}");
    }
}
