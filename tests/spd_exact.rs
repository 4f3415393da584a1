//! `exact` for SPD: brute force on tiny instances, never worse than any
//! heuristic, infeasibility, time limits and disconnected networks.

mod common_spd;

use common_spd::{best_over_assignments, random_spd_tiny, Key};
use proptest::prelude::*;
use serverpick::core::SolveOptions;
use serverpick::core::{SolveRecord, Status};
use serverpick::net::network::ServerNetwork;
use serverpick::problems::spd::engines::LEXICOGRAPHIC;
use serverpick::problems::spd::engines::{run_spd, spd_engine};
use serverpick::problems::spd::eval::approx_eq;
use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use serverpick::problems::spd::model::{BoundSpec, CommModel, SpdInstance};

/// Every assignment (and every root for CS), scored by the evaluator.
fn brute_force(inst: &SpdInstance) -> Option<Key> {
    let (n, m) = (inst.servers(), inst.clients());
    let options: Vec<Vec<usize>> = (0..m)
        .map(|c| (0..n).filter(|&s| inst.access(c, s).is_finite()).collect())
        .collect();
    let roots: Vec<Option<usize>> = match inst.model {
        CommModel::Cs => (0..n).map(Some).collect(),
        CommModel::P2p => vec![None],
    };
    best_over_assignments(inst, &options, &roots)
}

fn exact(inst: &SpdInstance) -> SolveRecord {
    let opts = SolveOptions::new(Some(60.0), 0);
    run_spd(spd_engine("exact").expect("exact exists"), inst, &opts)
}

fn key_of(rec: &SolveRecord) -> Key {
    let get = |k: &str| rec.metrics.get(k).and_then(|v| v.as_f64()).expect("metric");
    (get("hosts") as usize, get("delay"), get("variation"))
}

/// `exact` agrees with brute force on hosts, delay and variation.
fn agrees(inst: &SpdInstance) -> Result<(), TestCaseError> {
    let rec = exact(inst);
    match brute_force(inst) {
        None => prop_assert_eq!(rec.status, Status::Infeasible, "{:?}", rec.message),
        Some(b) => {
            prop_assert_eq!(rec.status, Status::Optimal, "{:?}", rec.message);
            let k = key_of(&rec);
            prop_assert_eq!(k.0, b.0, "hosts");
            prop_assert!(approx_eq(k.1, b.1), "delay {} vs brute force {}", k.1, b.1);
            prop_assert!(
                approx_eq(k.2, b.2),
                "variation {} vs brute force {}",
                k.2,
                b.2
            );
            prop_assert_eq!(rec.bound, Some(b.0 as f64));
            let msg = rec.message.unwrap_or_default();
            prop_assert!(msg.starts_with("proven lexicographic optimum"), "{}", msg);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn cs_matches_brute_force(n in 1usize..=5, m in 1usize..=6, p in 0.2f64..1.0,
                              f in prop::sample::select(vec![0.9, 1.0, 1.1, 1.25, 1.6, 2.5]), seed in any::<u64>()) {
        agrees(&random_spd_tiny(CommModel::Cs, n, m, p, f, seed))?;
    }

    #[test]
    fn p2p_matches_brute_force(n in 1usize..=5, m in 1usize..=6, p in 0.2f64..1.0,
                               f in prop::sample::select(vec![0.6, 0.8, 1.0, 1.25, 1.6]), seed in any::<u64>()) {
        agrees(&random_spd_tiny(CommModel::P2p, n, m, p, f, seed))?;
    }
}

#[test]
fn brute_force_agrees_on_the_largest_tiny_instances() {
    for seed in 0..3 {
        agrees(&random_spd_tiny(CommModel::Cs, 6, 6, 0.5, 1.1, seed)).unwrap();
        agrees(&random_spd_tiny(CommModel::P2p, 7, 6, 0.4, 0.9, seed)).unwrap();
    }
}

fn heuristic_names(model: CommModel) -> Vec<&'static str> {
    match model {
        CommModel::Cs => vec!["alg-m", "spdcs-h", "k-best"],
        CommModel::P2p => vec![
            "alg-m",
            "spdp2p-h",
            "zizo",
            "host-ls",
            "host-search",
            "host-lns",
            "k-best",
        ],
    }
}

/// `exact` is never beaten by a heuristic: fewer hosts, or at equal hosts
/// a lower delay.
fn never_worse(inst: &SpdInstance) -> Result<(), TestCaseError> {
    let rec = exact(inst);
    let opts = SolveOptions::default();
    for name in heuristic_names(inst.model) {
        let h = run_spd(spd_engine(name).expect("engine"), inst, &opts);
        if h.status != Status::Feasible {
            continue;
        }
        prop_assert_eq!(
            rec.status,
            Status::Optimal,
            "{} found a solution; exact: {:?}",
            name,
            rec.message
        );
        let (e, hk) = (key_of(&rec), key_of(&h));
        prop_assert!(e.0 <= hk.0, "{}: {} hosts < exact {}", name, hk.0, e.0);
        if e.0 == hk.0 {
            prop_assert!(
                e.1 <= hk.1 + 1e-9 * hk.1.max(1.0),
                "{}: delay {} < exact {}",
                name,
                hk.1,
                e.1
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10))]

    #[test]
    fn exact_is_never_worse_than_a_heuristic(servers in 6usize..=12, clients in 10usize..=30,
                                             f in 1.0f64..1.5, p2p in any::<bool>(), seed in 0u64..1000) {
        let model = if p2p { CommModel::P2p } else { CommModel::Cs };
        let p = PaperSpdParams { servers, clients, model, bound_factor: f, ..PaperSpdParams::default() };
        never_worse(&generate_paper_spd(&p, seed).expect("generated"))?;
    }
}

#[test]
fn cs_below_gamma_is_infeasible_and_says_gamma() {
    let inst = random_spd_tiny(CommModel::Cs, 4, 5, 0.8, 0.95, 7);
    let rec = exact(&inst);
    assert_eq!(rec.status, Status::Infeasible);
    let msg = rec.message.unwrap_or_default();
    assert!(msg.contains("Γ"), "{msg}");
    assert!(rec.metrics.contains_key("gamma"));
}

#[test]
fn p2p_without_any_assignment_is_infeasible() {
    // two clients that can only reach two disconnected servers
    let net = ServerNetwork::new(2, &[]);
    let access = vec![vec![Some(5.0), None], vec![None, Some(5.0)]];
    let inst = SpdInstance::new(
        "split",
        CommModel::P2p,
        net,
        &access,
        BoundSpec::Absolute(100.0),
    )
    .unwrap();
    assert_eq!(exact(&inst).status, Status::Infeasible);
    // a bound below every pair
    let net = ServerNetwork::new(2, &[(0, 1, 1.0)]);
    let access = vec![vec![Some(5.0), Some(6.0)], vec![Some(7.0), Some(5.0)]];
    let inst = SpdInstance::new(
        "tight",
        CommModel::P2p,
        net,
        &access,
        BoundSpec::Absolute(9.0),
    )
    .unwrap();
    assert_eq!(exact(&inst).status, Status::Infeasible);
}

/// A zero time limit returns the heuristic incumbent with a valid bound.
#[test]
fn zero_time_limit_returns_the_incumbent_and_a_bound() {
    for model in [CommModel::Cs, CommModel::P2p] {
        let inst = common_spd::paper_spd(30, 120, model, 1.0, 3);
        let opts = SolveOptions::new(Some(0.0), 0);
        let rec = run_spd(spd_engine("exact").unwrap(), &inst, &opts);
        assert_eq!(rec.status, Status::TimeLimit, "{model}: {:?}", rec.message);
        let hosts = rec.objective.expect("an incumbent");
        let bound = rec.bound.expect("a bound");
        assert!(bound >= 1.0 && bound <= hosts, "{bound} vs {hosts}");
    }
}

#[test]
fn disconnected_networks_do_not_panic_and_stay_exact() {
    for seed in 0..6 {
        agrees(&random_spd_tiny(CommModel::Cs, 5, 5, 0.0, 1.2, seed)).unwrap();
        agrees(&random_spd_tiny(CommModel::P2p, 5, 5, 0.15, 1.2, seed)).unwrap();
    }
}

#[test]
fn lexicographic_off_still_proves_hosts() {
    let inst = random_spd_tiny(CommModel::Cs, 5, 6, 0.6, 1.1, 11);
    let opts = SolveOptions::default()
        .with(&LEXICOGRAPHIC, false)
        .expect("a flag");
    let rec = run_spd(spd_engine("exact").unwrap(), &inst, &opts);
    let b = brute_force(&inst).expect("feasible at f = 1.1");
    assert_eq!(rec.status, Status::Optimal);
    assert_eq!(key_of(&rec).0, b.0);
    assert!(key_of(&rec).1 >= b.1 - 1e-9);
}

/// Instances that need three or more hosts go through the MILP (host count
/// and every lexicographic test); they must agree with brute force too.
#[test]
fn three_or_more_hosts_agree_with_brute_force() {
    let mut checked = [0usize; 2];
    for seed in 0..400u64 {
        for (i, model) in [CommModel::Cs, CommModel::P2p].into_iter().enumerate() {
            if checked[i] >= 6 {
                continue;
            }
            let f = if model == CommModel::Cs {
                1.0
            } else {
                [0.5, 0.6, 0.7, 0.8][seed as usize % 4]
            };
            let p = if model == CommModel::Cs { 0.3 } else { 0.9 };
            let inst = random_spd_tiny(model, 5, 6, p, f, seed);
            if brute_force(&inst).is_some_and(|b| b.0 >= 3) {
                agrees(&inst).unwrap();
                checked[i] += 1;
            }
        }
    }
    assert_eq!(
        checked,
        [6, 6],
        "not enough instances with k* >= 3: {checked:?}"
    );
}

/// Found by `p2p_matches_brute_force`: μ = f·Γ is infinite when Γ is (three
/// isolated servers); no single server serves everyone, and hosts in different
/// components have infinite pair delay, which meets no bound.
#[test]
fn infinite_bound_on_isolated_servers_is_infeasible() {
    let inst = random_spd_tiny(CommModel::P2p, 3, 6, 0.2, 0.6, 2378386850404183489);
    assert!(inst.bound.is_infinite());
    assert_eq!(brute_force(&inst), None);
    let r = run_spd(
        spd_engine("exact").unwrap(),
        &inst,
        &SolveOptions::default(),
    );
    assert_eq!(r.status, Status::Infeasible, "{:?}", r.message);
}
