//! `plan cma` with every site a candidate (`gen cma --scenario sites`):
//! `exact` = `milp` = brute force over every K-subset on small instances
//! (seeds, K, with and without opening costs, binding and non-binding
//! capacities); a bound is rounded up only on integral data; errors stay
//! clear.

mod common_cli;
mod common_plan;

use common_cli::{serverpick, text};
use common_plan::{brute_force, exact_opts};
use proptest::prelude::*;
use serverpick::core::Status;
use serverpick::problems::cma::model::CmaInstance;
use serverpick::problems::cma::plan::curve::{check_options, plan, PlanOptions};
use serverpick::problems::cma::plan::exact::round_bound;
use serverpick::problems::cma::plan::Planner;
use serverpick::problems::cma::sites::{generate_sites, SitesConfig};

fn sites(n: usize, seed: u64, open_cost: bool, cap: Option<usize>) -> CmaInstance {
    generate_sites(&SitesConfig {
        sites: n,
        max_open_cost: open_cost.then_some(40),
        capacity: cap.map(|c| vec![c]),
        seed,
        ..SitesConfig::default()
    })
    .unwrap()
}

/// Checks exact and milp against brute force for `k`.
fn agree(inst: &CmaInstance, k: usize) {
    let cost = inst.open_cost.clone().unwrap_or(vec![0.0; inst.mirrors()]);
    let want = brute_force(inst, &cost, k);
    for engine in ["exact", "milp"] {
        let p = plan(inst, &exact_opts(engine, Some(k))).unwrap();
        let pt = p.point(k).unwrap();
        match want {
            None => assert_eq!(pt.status, Status::Infeasible, "{engine} k={k}"),
            Some(w) => {
                assert_eq!(pt.status, Status::Optimal, "{engine} k={k}");
                let got = pt.best.as_ref().unwrap().objective;
                assert!((got - w).abs() < 1e-6, "{engine} k={k}: {got} vs {w}");
                let bound = pt.bound.unwrap();
                assert!(bound <= w + 1e-6, "{engine} k={k}: bound {bound} above {w}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn exact_equals_milp_equals_brute_force(
        seed in 0u64..10_000,
        n in 2usize..=10,
        k_frac in 0.0f64..1.0,
        open_cost in any::<bool>(),
        binding in any::<bool>(),
    ) {
        let k = 1 + ((n as f64 * k_frac) as usize).min(n - 1);
        // Binding: each site holds about n/k players (sometimes too few).
        let cap = binding.then(|| (n / k).max(1));
        let inst = sites(n, seed, open_cost, cap);
        agree(&inst, k);
    }
}

#[test]
fn a_larger_sites_instance_is_proven_and_matches_milp() {
    let inst = sites(60, 7, true, None);
    for k in [3, 20] {
        let e = plan(&inst, &exact_opts("exact", Some(k))).unwrap();
        let m = plan(&inst, &exact_opts("milp", Some(k))).unwrap();
        let (e, m) = (e.point(k).unwrap(), m.point(k).unwrap());
        assert_eq!(e.status, Status::Optimal);
        assert!(e.proof.is_some());
        let (eo, mo) = (
            e.best.as_ref().unwrap().objective,
            m.best.as_ref().unwrap().objective,
        );
        assert!((eo - mo).abs() < 1e-6, "k={k}: exact {eo}, milp {mo}");
    }
}

#[test]
fn bounds_round_up_only_on_integral_data() {
    assert_eq!(round_bound(1254.13, true, 0.01), 1255.0);
    assert_eq!(round_bound(1254.13, false, 0.01), 1254.13);
    assert_eq!(round_bound(1255.004, true, 0.01), 1255.0);
    // Fractional delays: the optimum (0.3 + 0.4 = 0.7 for K = 1 here) is
    // below any rounded-up bound, so rounding would be wrong.
    let delay = vec![0.0, 0.3, 0.3, 0.0, 0.4, 0.7];
    let inst = CmaInstance::new("frac", vec![3, 3], delay).unwrap();
    assert!(!Planner::new(&inst).integral());
    let p = plan(&inst, &exact_opts("exact", Some(1))).unwrap();
    let pt = p.point(1).unwrap();
    let obj = pt.best.as_ref().unwrap().objective;
    assert!((obj - 0.7).abs() < 1e-9, "{obj}");
    assert!(pt.bound.unwrap() <= obj + 1e-9);
    assert!(pt.proof.is_some_and(|s| !s.contains("rounding")));
    // The same instance in integral units (×10) is integral.
    let inst10 = sites(5, 1, false, None);
    assert!(Planner::new(&inst10).integral());
}

#[test]
fn errors_stay_clear() {
    let inst = sites(6, 3, false, None);
    let too_many = check_options(&inst, &exact_opts("exact", Some(7))).unwrap_err();
    assert!(too_many.to_string().contains("--mirrors 7"), "{too_many}");
    let zero = check_options(&inst, &exact_opts("exact", Some(0))).unwrap_err();
    assert!(zero.to_string().contains("--mirrors 0"), "{zero}");
    // Capacities below the players: 6 players, 2 sites of capacity 2.
    let tight = sites(6, 3, false, Some(2));
    let p = plan(&tight, &exact_opts("exact", Some(2))).unwrap();
    assert_eq!(p.point(2).unwrap().status, Status::Infeasible);
    let p = plan(&tight, &exact_opts("exact", Some(3))).unwrap();
    assert_eq!(p.point(3).unwrap().status, Status::Optimal);
    let up_to = |k: usize, one: Option<usize>| PlanOptions {
        max_mirrors: Some(k),
        ..exact_opts("exact", one)
    };
    let e = check_options(&inst, &up_to(7, None)).unwrap_err();
    assert!(e.to_string().contains("--max-mirrors 7"), "{e}");
    let e = check_options(&inst, &up_to(0, None)).unwrap_err();
    assert!(e.to_string().contains("--max-mirrors 0"), "{e}");
    let e = check_options(&inst, &up_to(3, Some(2))).unwrap_err();
    assert!(e.to_string().contains("exclude each other"), "{e}");
}

#[test]
fn a_curve_up_to_k_is_the_whole_curve_cut_at_k() {
    let inst = sites(24, 5, true, None);
    let whole = plan(&inst, &exact_opts("exact", None)).unwrap();
    let cut = plan(
        &inst,
        &PlanOptions {
            max_mirrors: Some(6),
            ..exact_opts("exact", None)
        },
    )
    .unwrap();
    assert_eq!(cut.points.len(), 6);
    for p in &cut.points {
        let w = whole.point(p.k).unwrap();
        assert_eq!(p.status, Status::Optimal);
        let (a, b) = (p.best.as_ref().unwrap(), w.best.as_ref().unwrap());
        assert!((a.objective - b.objective).abs() < 1e-9);
    }
}

#[test]
fn gen_sites_on_the_cli_writes_a_plannable_instance() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let f = file.to_str().unwrap();
    let out = serverpick(&[
        "gen",
        "cma",
        "--scenario",
        "sites",
        "--sites",
        "40",
        "--open-cost",
        "30",
        "--seed",
        "5",
        "-o",
        f,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let plan_dir = dir.path().join("plan");
    let out = serverpick(&[
        "plan",
        "cma",
        f,
        "--mirrors",
        "8",
        "--out",
        plan_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = std::fs::read_to_string(plan_dir.join("plan.json")).unwrap();
    assert!(json.contains("\"proof\""), "{json}");
    let bad = serverpick(&["gen", "cma", "--scenario", "sites", "-o", f]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("--sites"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn a_tree_over_its_node_budget_is_finished_by_highs() {
    // Budget 1: every point whose root does not prune goes to HiGHS.
    let inst = sites(16, 5, true, None);
    let opts = PlanOptions {
        max_mirrors: Some(6),
        exact: serverpick::problems::cma::plan::exact::ExactSettings {
            gap: 0.0,
            node_budget: Some(1),
            ..Default::default()
        },
        ..exact_opts("exact", None)
    };
    let p = plan(&inst, &opts).unwrap();
    let mut handed = 0;
    for point in &p.points {
        assert_eq!(point.status, Status::Optimal, "K = {}", point.k);
        let best = point.best.as_ref().unwrap();
        let cost = inst.open_cost.clone().unwrap_or_else(|| vec![0.0; 16]);
        let brute = brute_force(&inst, &cost, point.k).unwrap();
        assert!((best.objective - brute).abs() < 1e-6, "K = {}", point.k);
        assert!((point.bound.unwrap() - brute).abs() < 1e-6);
        handed += usize::from(point.proof == Some("milp"));
    }
    assert!(handed > 0, "no point needed more than the root");
}
