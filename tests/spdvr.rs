//! SPDVR: chains = exact on CS, exact = brute force on tiny P2P, the
//! heuristics never worsen the start nor break μ, hosts never increase, the
//! paper's chain example (hand-computed, see `fig1_chain_example`), errors.

mod common_spd;

use common_spd::random_spd_complete;
use proptest::prelude::*;
use serverpick::core::SolveOptions;
use serverpick::core::{SolveRecord, Status};
use serverpick::net::network::ServerNetwork;
use serverpick::problems::spd::eval::evaluate_spd;
use serverpick::problems::spd::model::{
    seed001_fig1 as fig1, BoundSpec, CommModel, SpdInstance, SpdSolution,
};
use serverpick::problems::spdvr::engines::{run_spdvr, spdvr_engine_names, start_for};
use serverpick::Error;

fn opts() -> SolveOptions {
    SolveOptions::new(Some(30.0), 0)
}

fn metric(r: &SolveRecord, key: &str) -> f64 {
    r.metrics[key].as_f64().unwrap()
}

fn run(engine: &str, inst: &SpdInstance, start: &SpdSolution) -> SolveRecord {
    let r = run_spdvr(engine, inst, start, &opts()).unwrap();
    assert!(
        matches!(r.status, Status::Optimal | Status::Feasible),
        "{engine}: {:?} {:?}",
        r.status,
        r.message
    );
    r
}

/// Every engine that applies keeps to μ, never raises the variation above
/// the start's and never uses more hosts.
fn check_monotone(r: &SolveRecord, inst: &SpdInstance) {
    assert!(metric(r, "delay") <= inst.bound * (1.0 + 1e-9), "{r:?}");
    assert!(metric(r, "variation") <= metric(r, "variation_before") + 1e-9);
    assert!(metric(r, "hosts") <= metric(r, "hosts_before"));
    assert_eq!(r.objective, Some(metric(r, "variation")));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn chains_equals_exact_on_cs(seed in 0u64..10_000, m in 5usize..30, f in 1.0f64..1.6) {
        let inst = random_spd_complete(seed, 7, m, CommModel::Cs, f);
        let start = start_for(&inst, Some("spdcs-h"), &opts()).unwrap();
        let chains = run("chains", &inst, &start);
        let exact = run("exact", &inst, &start);
        prop_assert_eq!(exact.status, Status::Optimal);
        check_monotone(&chains, &inst);
        check_monotone(&exact, &inst);
        let (vc, ve) = (metric(&chains, "variation"), metric(&exact, "variation"));
        prop_assert!((vc - ve).abs() <= 1e-6 * vc.max(1.0), "chains {} exact {}", vc, ve);
        // Chains' optimality claim carries its certificate (issue 16).
        prop_assert_eq!(chains.status, Status::Optimal);
        prop_assert!(chains.gap.is_some_and(|g| g < 1e-9), "{:?}", chains.bound);
    }
}

/// Minimum P2P variation over every assignment into the start's hosts.
fn brute_force_p2p(inst: &SpdInstance, start: &SpdSolution) -> f64 {
    let mut hosts = start.assign.clone();
    hosts.sort_unstable();
    hosts.dedup();
    let (m, k) = (inst.clients(), hosts.len());
    let mut best = f64::INFINITY;
    let mut idx = vec![0usize; m];
    loop {
        let sol = SpdSolution {
            root: None,
            assign: idx.iter().map(|&i| hosts[i]).collect(),
        };
        let ev = evaluate_spd(inst, &sol);
        if ev.is_feasible() {
            best = best.min(ev.metrics.unwrap().variation);
        }
        let mut c = 0;
        while c < m && idx[c] + 1 == k {
            idx[c] = 0;
            c += 1;
        }
        if c == m {
            return best;
        }
        idx[c] += 1;
    }
}

#[test]
fn exact_equals_brute_force_on_tiny_p2p() {
    let mut checked = 0;
    for seed in 0..40u64 {
        let inst = random_spd_complete(seed, 6, 4 + (seed as usize % 4), CommModel::P2p, 1.2);
        let Ok(start) = start_for(&inst, Some("alg-m"), &opts()) else {
            continue;
        };
        let brute = brute_force_p2p(&inst, &start);
        let exact = run("exact", &inst, &start);
        assert_eq!(exact.status, Status::Optimal);
        let ve = metric(&exact, "variation");
        assert!(
            (ve - brute).abs() <= 1e-6 * brute.max(1.0),
            "seed {seed}: {ve} vs {brute}"
        );
        for engine in ["spdvrp2p-h", "p2p-vr-ls"] {
            let r = run(engine, &inst, &start);
            check_monotone(&r, &inst);
            assert!(metric(&r, "variation") >= brute - 1e-6);
        }
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} instances had a start");
}

#[test]
fn p2p_heuristics_never_worsen_and_ls_beats_algorithm_2() {
    for seed in 0..6u64 {
        let inst = random_spd_complete(100 + seed, 12, 40, CommModel::P2p, 1.3);
        let start = start_for(&inst, Some("spdp2p-h"), &opts()).unwrap();
        let alg2 = run("spdvrp2p-h", &inst, &start);
        let ls = run("p2p-vr-ls", &inst, &start);
        check_monotone(&alg2, &inst);
        check_monotone(&ls, &inst);
        assert!(metric(&ls, "variation") <= metric(&alg2, "variation") + 1e-9);
    }
}

#[test]
fn exact_p2p_is_not_beaten_by_the_heuristics() {
    for seed in 0..3u64 {
        let inst = random_spd_complete(200 + seed, 10, 20, CommModel::P2p, 1.3);
        let start = start_for(&inst, Some("spdp2p-h"), &opts()).unwrap();
        let exact = run("exact", &inst, &start);
        assert_eq!(exact.status, Status::Optimal);
        let bound = exact.bound.unwrap();
        for engine in ["spdvrp2p-h", "p2p-vr-ls"] {
            let r = run(engine, &inst, &start);
            assert!(metric(&r, "variation") >= bound - 1e-6);
        }
    }
}

/// §III-B's example (μ = 139, root D, start = Fig. 3's a→A b→D c→B d→D
/// e→C, S' = {A,B,C,D}), hand-computed with the path `a(c,s) + D(s,D)` (not
/// Table II, which omits `D(s,r)`): entries with `2p <= 139`, sorted:
/// bD 25, dD 39, cC 42, bB 44, aC 49, cB 49, eB 49, bC 53, eD 55, aA 62,
/// eC 66, aB 67. Client d has only dD 39 (the root's own server), so every
/// chain contains it; head bD 25 needs up to 49 (width 24), head dD 39 needs
/// up to 49 (width 10): window [39, 49], V = 20, D = 98; each client on its
/// least entry: a→C, b→B, c→C, d→D, e→B. The start has V = 2·(66 − 25) = 82
/// (the paper's 82). Reading line 5 literally (`p < μ` on one-way paths)
/// would admit e.g. dC 70 and give the window [66, 73] (width 7) whose delay
/// 146 breaks μ: the erratum matters here.
#[test]
fn fig1_chain_example() {
    let inst = fig1(CommModel::Cs, 139.0).unwrap();
    let start = SpdSolution {
        root: Some(3),
        assign: vec![0, 3, 1, 3, 2],
    };
    let r = run("chains", &inst, &start);
    assert_eq!(metric(&r, "variation_before"), 82.0);
    assert_eq!(metric(&r, "delay_before"), 132.0);
    assert_eq!(metric(&r, "variation"), 20.0);
    assert_eq!(metric(&r, "delay"), 98.0);
    let sol: SpdSolution = serde_json::from_value(r.solution.unwrap()).unwrap();
    assert_eq!(sol.assign, vec![2, 1, 2, 3, 1]);
    let exact = run("exact", &inst, &start);
    assert_eq!(metric(&exact, "variation"), 20.0);
}

#[test]
fn chains_may_use_the_root_that_no_client_used() {
    let net = ServerNetwork::new(3, &[(0, 1, 5.0), (1, 2, 5.0)]);
    let access = vec![
        vec![Some(10.0), Some(12.0), Some(30.0)],
        vec![Some(20.0), Some(11.0), Some(14.0)],
    ];
    let inst = SpdInstance::new(
        "root",
        CommModel::Cs,
        net,
        &access,
        BoundSpec::Absolute(100.0),
    )
    .unwrap();
    let start = SpdSolution {
        root: Some(1),
        assign: vec![0, 0],
    };
    // via 0: paths 15 and 25 (V 20); via the root 1: 12 and 11 (V 2)
    let r = run("chains", &inst, &start);
    assert_eq!(metric(&r, "variation"), 2.0);
    assert_eq!(metric(&r, "hosts"), 1.0);
}

#[test]
fn infeasible_start_is_an_input_error() {
    let inst = fig1(CommModel::Cs, 100.0).unwrap();
    let start = SpdSolution {
        root: Some(3),
        assign: vec![0, 3, 1, 3, 2], // delay 132 > 100
    };
    for engine in spdvr_engine_names() {
        match run_spdvr(&engine, &inst, &start, &opts()) {
            Err(Error::Input(e)) => assert!(e.message.contains("exceeds the bound"), "{e}"),
            other => panic!("{engine}: expected an input error, got {other:?}"),
        }
    }
    assert!(matches!(
        run_spdvr("no-such", &inst, &start, &opts()),
        Err(Error::UnknownEngine { .. })
    ));
}

#[test]
fn start_comes_from_the_instance_or_a_named_engine() {
    let mut inst = fig1(CommModel::Cs, 139.0).unwrap();
    assert!(start_for(&inst, None, &opts()).is_err());
    let given = SpdSolution {
        root: Some(3),
        assign: vec![0, 3, 1, 3, 2],
    };
    inst.start = Some(given.clone());
    assert_eq!(start_for(&inst, None, &opts()).unwrap(), given);
    let computed = start_for(&inst, Some("spdcs-h"), &opts()).unwrap();
    assert!(evaluate_spd(&inst, &computed).is_feasible());
    assert!(start_for(&inst, Some("spdp2p-h"), &opts()).is_err()); // CS instance
}

#[test]
fn engines_refuse_the_other_model_politely() {
    let inst = fig1(CommModel::P2p, 139.0).unwrap();
    let start = SpdSolution {
        root: None,
        assign: vec![0, 3, 1, 3, 2],
    };
    let r = run_spdvr("chains", &inst, &start, &opts()).unwrap();
    assert_eq!(r.status, Status::Error);
    assert_eq!(metric(&r, "variation_before"), 50.0); // Table IV: 114 − 64
}
