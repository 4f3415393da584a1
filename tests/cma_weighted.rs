//! CMA rows that count players (`players`): weighted = expanded in every
//! static engine, weighted exact-flow (shift classes, network simplex) =
//! the LP, the split
//! solution format, and invalid input.

mod common_cli;
mod common_plan;

use common_cli::{serverpick, text};
use common_plan::exact_opts;
use proptest::prelude::*;
use serverpick::core::{SolveOptions, SolveRecord, Status};
use serverpick::problems::cma::engines::run_cma;
use serverpick::problems::cma::file::parse_cma;
use serverpick::problems::cma::model::CmaInstance;
use serverpick::problems::cma::plan::curve::plan;

use serverpick::problems::cma::plan::lagrange::{Fix, Lagrangian};
use serverpick::problems::cma::weighted::expand;
use std::path::Path;

/// Delays with ties (small integers), counts 0..=4, capacities that may or
/// may not hold every player.
fn weighted_strategy(
    max_n: usize,
    max_k: usize,
    max_w: usize,
) -> impl Strategy<Value = CmaInstance> {
    (1..=max_n, 1..=max_k).prop_flat_map(move |(n, k)| {
        (
            prop::collection::vec(0usize..=max_w * n / k + 2, k),
            prop::collection::vec((0u32..6).prop_map(f64::from), n * k),
            prop::collection::vec(0usize..=max_w, n),
        )
            .prop_map(|(cap, delay, w)| CmaInstance::new_weighted("w", cap, delay, w).unwrap())
    })
}

fn close(a: &SolveRecord, b: &SolveRecord) -> bool {
    match (a.objective, b.objective) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-7 * x.abs().max(1.0),
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn weighted_equals_expanded_in_every_engine(inst in weighted_strategy(6, 4, 4)) {
        let opts = SolveOptions::default();
        let (unit, _) = expand(&inst).unwrap();
        prop_assume!(unit.clients() > 0);
        let base = run_cma("exact", &unit, &opts);
        for engine in ["exact-flow", "exact", "j-sa"] {
            let w = run_cma(engine, &inst, &opts);
            prop_assert_eq!(w.status, base.status, "{} {:?}", engine, w.message);
            if base.status == Status::Optimal {
                prop_assert!(close(&w, &base), "{engine}: {:?} vs {:?}", w.objective, base.objective);
                prop_assert!(w.bound.unwrap() <= w.objective.unwrap() + 1e-7);
            }
        }
        // J-greedy: the same players joining one by one, so the same total.
        let g = run_cma("j-greedy", &inst, &opts);
        let gu = run_cma("j-greedy", &unit, &opts);
        prop_assert_eq!(g.status, gu.status);
        if gu.status == Status::Feasible {
            prop_assert!(close(&g, &gu), "{:?} vs {:?}", g.objective, gu.objective);
            prop_assert!(g.objective.unwrap() >= base.objective.unwrap() - 1e-7);
        }
    }

    /// The shift-class path itself (no fallback to the network simplex):
    /// the simplex's optimum, every row's players handed out, loads within
    /// capacity, and a bound equal to the delay.
    #[test]
    fn weighted_classes_equal_the_network_simplex(inst in weighted_strategy(40, 6, 60)) {
        use serverpick::problems::cma::class_rows::solve_players_by_classes;
        use serverpick::problems::cma::transport::solve_transport;
        let total = |split: &[Vec<[usize; 2]>]| -> f64 {
            split.iter().enumerate()
                .flat_map(|(i, ps)| ps.iter().map(move |&[j, u]| (i, j, u)))
                .map(|(i, j, u)| u as f64 * inst.delay(i, j))
                .sum()
        };
        let ours = solve_players_by_classes(&inst).unwrap();
        let simplex = solve_transport(&inst, &inst.capacity).unwrap();
        match (ours, simplex) {
            (None, None) => prop_assert!(inst.total_players() > inst.total_capacity()),
            (Some(c), Some((split, _))) => {
                let (a, b) = (total(&c.solution), total(&split));
                prop_assert!((a - b).abs() <= 1e-9 * b.max(1.0), "classes {a} simplex {b}");
                prop_assert!((c.bound - a).abs() <= 1e-9 * a.max(1.0), "bound {} vs {a}", c.bound);
                let mut load = vec![0usize; inst.mirrors()];
                for (i, ps) in c.solution.iter().enumerate() {
                    prop_assert_eq!(ps.iter().map(|p| p[1]).sum::<usize>(), inst.weight(i));
                    for &[j, u] in ps {
                        load[j] += u;
                    }
                }
                prop_assert!(load.iter().zip(&inst.capacity).all(|(l, c)| l <= c));
            }
            (a, b) => prop_assert!(false, "classes {:?} simplex {:?}", a.is_some(), b.is_some()),
        }
    }

    #[test]
    fn weighted_exact_flow_equals_the_lp_on_larger_instances(inst in weighted_strategy(40, 6, 60)) {
        let opts = SolveOptions::default();
        let flow = run_cma("exact-flow", &inst, &opts);
        let lp = run_cma("exact", &inst, &opts);
        prop_assert_eq!(flow.status, lp.status, "{:?} / {:?}", flow.message, lp.message);
        if flow.status == Status::Optimal {
            prop_assert!(close(&flow, &lp), "{:?} vs {:?}", flow.objective, lp.objective);
            prop_assert!(flow.gap.unwrap() < 1e-6, "{:?}", flow.bound);
        }
    }
}

#[test]
fn all_counts_one_gives_the_unit_answer_and_format() {
    let rows = [vec![1.0, 5.0], vec![2.0, 3.0], vec![4.0, 1.0]];
    let unit = CmaInstance::from_rows("u", vec![1, 2], &rows).unwrap();
    let ones = unit.clone().with_players(vec![1, 1, 1]).unwrap();
    assert!(!ones.is_weighted());
    let opts = SolveOptions::default();
    let (a, b) = (
        run_cma("exact-flow", &unit, &opts),
        run_cma("exact-flow", &ones, &opts),
    );
    assert_eq!(a.objective, b.objective);
    // counts of 1 keep the unit solution format
    let sol = b.solution.clone().expect("a solution");
    assert!(
        sol.get("assign").is_some() && sol.get("split").is_none(),
        "{sol}"
    );
}

const WEIGHTED: &str = r#"{"problem":"cma","version":1,"mirrors":2,"capacity":[3,5],
 "delay":[[1,10],[8,2]],"players":[5,2]}"#;

fn parse(text: &str) -> Result<CmaInstance, String> {
    parse_cma(text, "w.json", Path::new(".")).map_err(|e| e.to_string())
}

#[test]
fn a_region_splits_and_the_solution_says_how() {
    let inst = parse(WEIGHTED).unwrap();
    assert_eq!(inst.total_players(), 7);
    let r = run_cma("exact-flow", &inst, &SolveOptions::default());
    assert_eq!(r.status, Status::Optimal);
    assert_eq!(r.objective, Some(3.0 + 20.0 + 4.0));
    let sol = r.solution.clone().unwrap();
    assert_eq!(
        sol["split"],
        serde_json::json!([[[0, 3], [1, 2]], [[1, 2]]])
    );
    assert_eq!(r.metrics["clients"], serde_json::json!(7));
    assert_eq!(r.metrics["loads"], serde_json::json!([3, 4]));
}

#[test]
fn players_errors_name_the_field_and_index() {
    for (players, field, what) in [
        ("[5]", "players", "expected 2"),
        ("[5, -1]", "players[1]", "not a player count"),
        ("[5, 1.5]", "players[1]", "not a player count"),
        ("[5, \"x\"]", "players[1]", "not a player count"),
        (
            "[5, 2e15]",
            "players[1]",
            "more than the limit of 1099511627776",
        ),
        ("7", "players", "expected"),
    ] {
        let text = WEIGHTED.replace("[5,2]", players);
        let err = parse(&text).unwrap_err();
        assert!(
            err.contains(field) && err.contains(what),
            "{players}: {err}"
        );
    }
    let dynamic = WEIGHTED.replace("\"players\"", "\"events\":[{\"join\":0}],\"players\"");
    let err = parse(&dynamic).unwrap_err();
    assert!(err.contains("players") && err.contains("dynamic"), "{err}");
}

#[test]
fn eval_checks_split_counts_and_capacities() {
    let dir = tempfile::tempdir().unwrap();
    let inst = dir.path().join("w.json");
    std::fs::write(&inst, WEIGHTED).unwrap();
    let run = |sol: &str| {
        let path = dir.path().join("s.json");
        std::fs::write(&path, sol).unwrap();
        let o = serverpick(&["eval", inst.to_str().unwrap(), path.to_str().unwrap()]);
        (o.status.code(), text(&o.stdout) + &text(&o.stderr))
    };
    let (code, out) = run(r#"{"split": [[[0, 3], [1, 2]], [[1, 2]]]}"#);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("27"), "{out}");
    let (code, out) = run(r#"{"split": [[[0, 3], [1, 1]], [[1, 2]]]}"#);
    assert_ne!(code, Some(0), "{out}");
    assert!(
        out.contains("split[0] places 4 players, the row has 5"),
        "{out}"
    );
    let (code, out) = run(r#"{"assign": [0, 1]}"#);
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("capacity 3"), "{out}");
    let (code, out) = run(r#"{"split": [[[0, "x"]], []]}"#);
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("split[0][0]"), "{out}");
}

#[test]
fn gen_players_writes_counts_that_solve() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.json");
    let o = serverpick(&[
        "gen",
        "cma",
        "--scenario",
        "static",
        "--mirrors",
        "4",
        "--clients",
        "30",
        "--players",
        "1..20",
        "--slack",
        "0.1",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let inst = serverpick::problems::cma::file::read_cma(&out).unwrap();
    assert!(inst.players().is_some() && inst.total_players() >= 30);
    assert!(inst.total_capacity() >= inst.total_players());
    let o = serverpick(&[
        "solve",
        out.to_str().unwrap(),
        "--engine",
        "exact-flow,j-greedy",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("optimal"), "{}", text(&o.stdout));
    let bad = serverpick(&[
        "gen",
        "cma",
        "--scenario",
        "join",
        "--players",
        "1..3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("--players"),
        "{}",
        text(&bad.stderr)
    );
}

/// Weighted instances for planning: up to 5 candidates, 8 regions of 0..=6
/// players, delays with ties, open costs or not.
fn plan_strategy() -> impl Strategy<Value = CmaInstance> {
    (1usize..=5, 1usize..=8).prop_flat_map(|(m, n)| {
        (
            prop::collection::vec(0usize..=3 * n, m),
            prop::collection::vec((0u32..6).prop_map(f64::from), n * m),
            prop::collection::vec(0usize..=6, n),
            prop::option::of(prop::collection::vec((0u32..20).prop_map(f64::from), m)),
        )
            .prop_map(|(cap, delay, w, cost)| {
                let mut inst = CmaInstance::new_weighted("p", cap, delay, w).unwrap();
                inst.open_cost = cost;
                inst
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn plan_on_counts_equals_plan_on_the_expanded_rows(inst in plan_strategy()) {
        let (mut unit, _) = expand(&inst).unwrap();
        prop_assume!(unit.clients() > 0);
        unit.open_cost = inst.open_cost.clone();
        let base = plan(&unit, &exact_opts("exact", None)).unwrap();
        let tol = 1e-6;
        for engine in ["exact", "milp", "greedy", "swap"] {
            let p = plan(&inst, &exact_opts(engine, None)).unwrap();
            for (w, u) in p.points.iter().zip(&base.points) {
                prop_assert_eq!(w.best.is_some(), u.best.is_some(), "{} K={}", engine, w.k);
                let (Some(wb), Some(ub)) = (&w.best, &u.best) else { continue };
                if engine == "exact" || engine == "milp" {
                    prop_assert_eq!(w.status, Status::Optimal, "{} K={}", engine, w.k);
                    prop_assert!((wb.objective - ub.objective).abs() <= tol,
                        "{engine} K={}: {} vs expanded {}", w.k, wb.objective, ub.objective);
                    prop_assert!(w.bound.unwrap() <= ub.objective + tol);
                } else {
                    prop_assert!(wb.objective >= ub.objective - tol, "{engine} K={}", w.k);
                }
                let sol = serverpick::problems::cma::engines::CmaSolution::from_split(wb.split.clone());
                let ev = serverpick::problems::cma::engines::evaluate_cma_solution(&inst, &sol, 100.0);
                prop_assert!(ev.is_feasible(), "{:?}", ev.violations);
                prop_assert!((ev.metrics.total_delay - wb.delay).abs() <= tol);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The Lagrangian bound with counts equals the unit one on the expanded
    /// rows with each region's multiplier copied to its players.
    #[test]
    fn weighted_lagrangian_equals_the_expanded_one(
        inst in plan_strategy(),
        lam in prop::collection::vec(0.0f64..7.0, 8),
        k in 1usize..=5,
    ) {
        let (unit, origin) = expand(&inst).unwrap();
        prop_assume!(unit.clients() > 0 && k <= inst.mirrors());
        let cost = vec![0.0; inst.mirrors()];
        let lambda: Vec<f64> = (0..inst.clients()).map(|i| lam[i]).collect();
        let unit_lambda: Vec<f64> = origin.iter().map(|&i| lambda[i]).collect();
        let fix = vec![Fix::Free; inst.mirrors()];
        let w = Lagrangian::new(&inst, &cost).evaluate(&lambda, &fix, k);
        let u = Lagrangian::new(&unit, &cost).evaluate(&unit_lambda, &fix, k);
        prop_assert_eq!(w.is_some(), u.is_some());
        if let (Some(w), Some(u)) = (w, u) {
            prop_assert!((w.value - u.value).abs() < 1e-9, "{} vs {}", w.value, u.value);
            prop_assert!((w.free_value - u.free_value).abs() < 1e-9);
        }
    }
}

#[test]
fn plan_cli_takes_counts_and_eval_accepts_its_solution() {
    let dir = tempfile::tempdir().unwrap();
    let inst = dir.path().join("w.json");
    std::fs::write(&inst, WEIGHTED).unwrap();
    let out = dir.path().join("plan");
    let o = serverpick(&[
        "plan",
        "cma",
        inst.to_str().unwrap(),
        "--mirrors",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["players"], serde_json::json!(7), "{plan}");
    let sol = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("solution.json"))
        .expect("a solution file");
    let o = serverpick(&["eval", inst.to_str().unwrap(), sol.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    assert!(text(&o.stdout).contains("27"), "{}", text(&o.stdout));
}
