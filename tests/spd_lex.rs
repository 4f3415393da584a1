//! Issue 10: the lexicographic stages of `exact` (least delay, then least
//! variation at the least host count) checked against an enumeration over
//! host sets, and the regression instance that exposed the bug.

mod common_spd;

use common_spd::{best_over_assignments, random_spd_in, Key};
use proptest::prelude::*;
use serverpick::core::SolveOptions;
use serverpick::core::{SolveRecord, Status};
use serverpick::io::solution_file::read_solution;
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::eval::{approx_eq, evaluate_spd, lex_less};
use serverpick::problems::spd::file::read_spd;
use serverpick::problems::spd::model::{CommModel, SpdInstance, SpdSolution};
use std::path::Path;

/// The `k`-subsets of `0..n`, ascending.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn go(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for s in start..n {
            cur.push(s);
            go(s + 1, n, k, cur, out);
            cur.pop();
        }
    }
    go(0, n, k, &mut cur, &mut out);
    out
}

/// The lexicographic optimum by enumeration over host sets: for `k = 1, 2,
/// …`, every host set `H` of size `k` (and every root in `H` for CS), every
/// assignment of the clients to servers of `H`, scored by the evaluator. The
/// first `k` with a feasible solution is the least host count; the best key
/// over all its host sets is the optimum. `None`: infeasible.
fn by_host_sets(inst: &SpdInstance) -> Option<Key> {
    let (n, m) = (inst.servers(), inst.clients());
    for k in 1..=n {
        let mut best: Option<Key> = None;
        for h in subsets(n, k) {
            let roots: Vec<Option<usize>> = match inst.model {
                CommModel::Cs => h.iter().copied().map(Some).collect(),
                CommModel::P2p => vec![None],
            };
            let options = vec![h.clone(); m];
            if let Some(key) = best_over_assignments(inst, &options, &roots) {
                if best.is_none_or(|b| lex_less(key, b)) {
                    best = Some(key);
                }
            }
        }
        // solutions using fewer than k hosts were found at a smaller k
        if best.is_some() {
            return best;
        }
    }
    None
}

fn exact(inst: &SpdInstance, time_limit: Option<f64>) -> SolveRecord {
    let opts = SolveOptions::new(time_limit, 0);
    run_spd(spd_engine("exact").expect("exact exists"), inst, &opts)
}

fn key_of(rec: &SolveRecord) -> Key {
    let get = |k: &str| rec.metrics.get(k).and_then(|v| v.as_f64()).expect("metric");
    (get("hosts") as usize, get("delay"), get("variation"))
}

fn is_proven(rec: &SolveRecord) -> bool {
    rec.status == Status::Optimal
        && rec
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("proven lexicographic optimum"))
}

/// `exact` proves the lexicographic optimum and it is the enumeration's.
fn agrees(inst: &SpdInstance) -> Result<(), TestCaseError> {
    let rec = exact(inst, Some(120.0));
    match by_host_sets(inst) {
        None => prop_assert_eq!(rec.status, Status::Infeasible, "{:?}", rec.message),
        Some(b) => {
            prop_assert!(is_proven(&rec), "{:?} {:?}", rec.status, rec.message);
            let k = key_of(&rec);
            prop_assert_eq!(k.0, b.0, "hosts");
            prop_assert!(approx_eq(k.1, b.1), "delay {} vs enumeration {}", k.1, b.1);
            prop_assert!(
                approx_eq(k.2, b.2),
                "variation {} vs enumeration {}",
                k.2,
                b.2
            );
        }
    }
    Ok(())
}

proptest! {
    // 2 × 400 cases; links in 1..4 and access in 1..6 ms make many ties
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn cs_lexicographic_matches_host_set_enumeration(
        n in 2usize..=5, m in 2usize..=7,
        f in prop::sample::select(vec![1.0, 1.0, 1.05, 1.2]), seed in any::<u64>()) {
        agrees(&random_spd_in(n, m, CommModel::Cs, f, seed, 4, 12))?;
    }

    #[test]
    fn p2p_lexicographic_matches_host_set_enumeration(
        n in 2usize..=5, m in 2usize..=7,
        f in prop::sample::select(vec![0.8, 0.9, 0.9, 1.0, 1.1]), seed in any::<u64>()) {
        agrees(&random_spd_in(n, m, CommModel::P2p, f, seed, 4, 12))?;
    }
}

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/regressions")
        .join(name)
}

/// Issue 10: HiGHS's presolve declared feasible variation (and delay) tests
/// infeasible, and `exact` claimed a lexicographic optimum with variation
/// 147.725 although 142.792 is reachable with 7 hosts and delay 166.340.
/// Ignored: proving it takes minutes in release mode (every infeasibility
/// claim is re-checked without presolve); run with `--ignored`.
#[test]
#[ignore]
fn regression_p2p_40s_200c_lex_variation() {
    let inst = read_spd(&data("spd-p2p-40s-200c-lex-variation.json")).expect("the instance reads");
    let better: SpdSolution =
        read_solution(&data("spd-p2p-40s-200c-lex-variation.better-solution.json"))
            .expect("the better solution reads");
    let ev = evaluate_spd(&inst, &better);
    assert!(ev.is_feasible());
    let rec = exact(&inst, None);
    if is_proven(&rec) {
        let (h, d, v) = key_of(&rec);
        assert_eq!(h, 7);
        assert!(approx_eq(d, 166.34), "delay {d}");
        assert!(v <= 142.792 + 1e-6, "variation {v}");
    }
}

/// A variation test on which HiGHS's MIP ends with a solve error (its
/// presolved answer does not fit the original model): `exact` must retry
/// without presolve and prove the optimum, not stop at `time_limit`.
#[test]
fn regression_p2p_10s_28c_highs_solve_error() {
    let inst = read_spd(&data("spd-p2p-10s-28c-highs-solve-error.json")).expect("reads");
    let rec = exact(&inst, Some(120.0));
    assert!(is_proven(&rec), "{:?}: {:?}", rec.status, rec.message);
    let (h, d, v) = key_of(&rec);
    assert_eq!(h, 3);
    assert!(approx_eq(d, 498.884), "delay {d}");
    assert!(approx_eq(v, 241.971), "variation {v}");
}
