//! `plan cma`: the exact p-median against brute force over every K-subset
//! (random small instances with ties, optional opening costs), heuristics
//! never better than exact, `--max-avg-delay` against the curve, input
//! errors naming the field, and the CLI's out folder checked by `eval`.

mod common_cli;
mod common_plan;

use common_cli::{serverpick, text};
use common_plan::{brute_force, exact_opts};
use proptest::prelude::*;
use serverpick::core::Status;
use serverpick::problems::cma::model::CmaInstance;
use serverpick::problems::cma::plan::curve::{plan, PlanOptions};
use std::path::Path;

fn arb_instance() -> impl Strategy<Value = CmaInstance> {
    (1usize..=6, 1usize..=12).prop_flat_map(|(m, n)| {
        (
            proptest::collection::vec(0usize..=n, m),
            proptest::collection::vec(0u8..6, n * m),
            proptest::option::of(proptest::collection::vec(0u8..8, m)),
        )
            .prop_map(move |(cap, d, cost)| {
                let mut inst =
                    CmaInstance::new("p", cap, d.iter().map(|&x| x as f64).collect()).unwrap();
                inst.open_cost = cost.map(|c| c.iter().map(|&x| x as f64).collect());
                inst
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn exact_matches_brute_force_and_heuristics_never_beat_it(inst in arb_instance()) {
        let cost = inst.open_cost.clone().unwrap_or_else(|| vec![0.0; inst.mirrors()]);
        let exact = plan(&inst, &exact_opts("exact", None)).unwrap();
        let tol = 1e-6;
        for p in &exact.points {
            let truth = brute_force(&inst, &cost, p.k);
            match truth {
                None => prop_assert_eq!(p.status, Status::Infeasible, "K={}", p.k),
                Some(t) => {
                    prop_assert_eq!(p.status, Status::Optimal, "K={}", p.k);
                    let b = p.best.as_ref().unwrap();
                    prop_assert!((b.objective - t).abs() <= tol, "K={}: {} vs brute {}", p.k, b.objective, t);
                    prop_assert!(p.bound.unwrap() <= t + tol, "K={}: bound {} above {}", p.k, p.bound.unwrap(), t);
                    prop_assert_eq!(b.open.len(), p.k);
                    let opened: f64 = b.open.iter().map(|&j| cost[j]).sum();
                    prop_assert!((b.delay + opened - b.objective).abs() <= tol);
                }
            }
        }
        for engine in ["greedy", "swap"] {
            let h = plan(&inst, &PlanOptions { engine: engine.into(), ..exact_opts("exact", None) }).unwrap();
            for (p, e) in h.points.iter().zip(&exact.points) {
                if let (Some(hb), Some(eb)) = (&p.best, &e.best) {
                    prop_assert!(hb.objective >= eb.objective - tol, "{engine} K={}", p.k);
                    prop_assert_eq!(p.status, Status::Feasible);
                }
                if e.best.is_none() {
                    prop_assert!(p.best.is_none());
                }
            }
        }
    }

    #[test]
    fn highs_milp_agrees_with_exact(inst in arb_instance()) {
        let exact = plan(&inst, &exact_opts("exact", None)).unwrap();
        let milp = plan(&inst, &PlanOptions { engine: "milp".into(), ..exact_opts("exact", None) }).unwrap();
        for (p, e) in milp.points.iter().zip(&exact.points) {
            prop_assert_eq!(p.best.is_some(), e.best.is_some(), "K={}", p.k);
            if let (Some(pb), Some(eb)) = (&p.best, &e.best) {
                prop_assert_eq!(p.status, Status::Optimal);
                prop_assert!((pb.objective - eb.objective).abs() <= 1e-6, "K={}: milp {} exact {}", p.k, pb.objective, eb.objective);
                prop_assert!(p.bound.unwrap() <= eb.objective + 1e-6);
            }
        }
    }

    #[test]
    fn max_avg_delay_is_the_smallest_k_on_the_curve_meeting_it(inst in arb_instance(), d in 0.0f64..5.0) {
        let mut inst = inst;
        inst.open_cost = None;
        let curve = plan(&inst, &exact_opts("exact", None)).unwrap();
        let n = inst.clients() as f64;
        let want = curve
            .points
            .iter()
            .find(|p| p.best.as_ref().is_some_and(|b| b.delay / n <= d + 1e-9))
            .map(|p| p.k);
        let got = plan(&inst, &PlanOptions { max_avg_delay: Some(d), ..exact_opts("exact", None) }).unwrap();
        prop_assert_eq!(got.chosen, want);
    }
}

#[test]
fn a_larger_generated_instance_is_proven_and_the_curve_never_rises() {
    use serverpick::problems::cma::gen::{generate_cma, GenCmaConfig, Scenario};
    let inst = generate_cma(&GenCmaConfig {
        scenario: Scenario::Static,
        mirrors: 12,
        clients: Some(600),
        slack: 2.0,
        seed: 5,
        ..GenCmaConfig::default()
    })
    .unwrap();
    let p = plan(&inst, &PlanOptions::default()).unwrap();
    let mut last = f64::INFINITY;
    for pt in &p.points {
        if let Some(b) = &pt.best {
            assert_eq!(pt.status, Status::Optimal, "K={}", pt.k);
            assert!(pt.bound.unwrap() <= b.objective + 1e-6);
            assert!(b.objective <= last + 1e-6, "K={} rises", pt.k);
            last = b.objective;
        }
    }
}

fn write_instance(dir: &Path, extra: &str) -> String {
    let path = dir.join("inst.json");
    let text = format!(
        r#"{{"problem": "cma", "version": 1, "name": "tiny", "mirrors": ["A", "B", "C", "D"],
  "capacity": [3, 3, 2, 4]{extra},
  "delay": [[1, 5, 9, 4], [2, 4, 8, 6], [9, 1, 3, 7], [8, 2, 2, 5], [5, 5, 1, 3], [4, 9, 9, 1]]}}"#
    );
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn the_cli_writes_the_out_folder_and_eval_accepts_the_solution() {
    let dir = tempfile::tempdir().unwrap();
    let inst = write_instance(dir.path(), "");
    let out = dir.path().join("out");
    let o = serverpick(&[
        "plan",
        "cma",
        &inst,
        "--mirrors",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("optimal"), "{}", text(&o.stdout));
    for f in [
        "plan.json",
        "curve.csv",
        "curve.jsonl",
        "curve.svg",
        "curve-total.svg",
        "solution.json",
        "solutions/k2.json",
    ] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let sol = out.join("solution.json");
    let e = serverpick(&["eval", &inst, sol.to_str().unwrap()]);
    assert!(e.status.success(), "{}{}", text(&e.stdout), text(&e.stderr));
    // The file is filled by the CMA evaluator and never claims the
    // instance's optimum: the K-mirror proof sits in its metrics.
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sol).unwrap()).unwrap();
    assert_eq!(rec["status"], "feasible", "{rec}");
    assert!(rec["bound"].is_null(), "{rec}");
    assert_eq!(rec["metrics"]["plan_status"], "optimal", "{rec}");
    assert_eq!(rec["objective"], rec["metrics"]["total_delay"], "{rec}");
    // The whole curve: K = 1 is infeasible (no mirror holds 6 players).
    let out2 = dir.path().join("curve");
    let o = serverpick(&["plan", "cma", &inst, "--out", out2.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let csv = std::fs::read_to_string(out2.join("curve.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    assert!(
        csv.lines().nth(1).unwrap().starts_with("1,infeasible"),
        "{csv}"
    );
    let best = out2.join("solution.json");
    let e = serverpick(&["eval", &inst, best.to_str().unwrap()]);
    assert!(e.status.success(), "{}", text(&e.stderr));
}

#[test]
fn max_avg_delay_on_the_cli_prints_the_fewest_mirrors() {
    let dir = tempfile::tempdir().unwrap();
    let inst = write_instance(dir.path(), "");
    let out = dir.path().join("out");
    let o = serverpick(&[
        "plan",
        "cma",
        &inst,
        "--max-avg-delay",
        "1000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("K = 2"), "{}", text(&o.stdout));
    let o = serverpick(&[
        "plan",
        "cma",
        &inst,
        "--max-avg-delay",
        "0.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
}

#[test]
fn bad_input_is_refused_with_exit_2_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let inst = write_instance(dir.path(), "");
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    for (args, field) in [
        (vec!["--mirrors", "0"], "--mirrors"),
        (vec!["--mirrors", "5"], "--mirrors"),
        (vec!["--max-avg-delay", "-1"], "--max-avg-delay"),
        (vec!["--gap", "2"], "--gap"),
        (vec!["--engine", "magic"], "--engine"),
        (
            vec!["--mirrors", "2", "--max-avg-delay", "3"],
            "--max-avg-delay",
        ),
    ] {
        let mut all = vec!["plan", "cma", inst.as_str(), "--out", out];
        all.extend(args.iter());
        let o = serverpick(&all);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(field),
            "{args:?}: {}",
            text(&o.stderr)
        );
    }
    for (extra, field) in [
        (r#", "open_cost": [1, 2]"#, "open_cost"),
        (r#", "open_cost": [1, 2, -3, 4]"#, "open_cost[2]"),
    ] {
        let bad = write_instance(dir.path(), extra);
        let o = serverpick(&["plan", "cma", &bad, "--out", out]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains(field), "{}", text(&o.stderr));
    }
}

#[test]
fn open_costs_are_read_and_change_the_objective() {
    let dir = tempfile::tempdir().unwrap();
    let inst = write_instance(dir.path(), r#", "open_cost": [0, 0, 0, 100]"#);
    let out = dir.path().join("out");
    let o = serverpick(&["plan", "cma", &inst, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("plan.json")).unwrap()).unwrap();
    assert_eq!(plan["with_open_costs"], true);
    // Opening costs make the cheapest point one without the costly mirror D.
    let k = plan["chosen_k"].as_u64().unwrap() as usize;
    let point = &plan["points"][k - 1];
    assert!(
        !point["open"].as_array().unwrap().iter().any(|m| m == "D"),
        "{point}"
    );
}
