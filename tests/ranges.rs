//! The ranges family (problems.md §6): `exact` against an O(N·K²) DP and
//! brute force, `exact` ≤ every other engine, ownership round trips, load
//! monotonicity, the oracle against the definition, invalid input named by
//! file, field and index, generator curves, and the CLI on the bundled file.

use proptest::prelude::*;
use serverpick::core::{SolveOptions, Status};
use serverpick::problems::ranges::engines::{engine_names, run_ranges};
use serverpick::problems::ranges::eval::{evaluate, range_load};
use serverpick::problems::ranges::exact::{exact_split, probe};
use serverpick::problems::ranges::file::{parse_ranges, read_ranges};
use serverpick::problems::ranges::gen::{generate_ranges, GenRangesConfig, MapShape};
use serverpick::problems::ranges::model::{
    owner_to_starts, starts_to_owner, Curve, RangesInstance, RangesSolution, Starts, Subscription,
};
use serverpick::problems::ranges::oracle::LoadOracle;
use std::path::Path;
use std::process::Command;

fn instance(publish: Vec<f64>, subs: Vec<(Vec<[usize; 2]>, f64)>, nodes: usize) -> RangesInstance {
    RangesInstance {
        name: "p".into(),
        nodes,
        publish,
        subscriptions: subs
            .into_iter()
            .map(|(r, rate)| Subscription {
                ranges: serverpick::problems::ranges::model::normalise(&r),
                rate,
            })
            .collect(),
        map: None,
        source: None,
    }
}

/// Random instances: K cells, small integer rates, 0..6 subscriptions of
/// 1..3 intervals each.
fn arb_instance(max_k: usize, max_n: usize) -> impl Strategy<Value = RangesInstance> {
    (1..=max_k, 1..=max_n).prop_flat_map(|(k, n)| {
        let interval = (0..k, 0..k).prop_map(|(a, b)| [a.min(b), a.max(b)]);
        let sub = (prop::collection::vec(interval, 1..=3), 0u32..6);
        (
            prop::collection::vec(0u32..10, k),
            prop::collection::vec(sub, 0..6),
        )
            .prop_map(move |(p, s)| {
                let publish = p.into_iter().map(f64::from).collect();
                let subs = s.into_iter().map(|(r, x)| (r, f64::from(x))).collect();
                instance(publish, subs, n)
            })
    })
}

/// The O(N·K²) DP over contiguous splits (empty ranges allowed), on the
/// evaluator's definition of a range's load.
fn dp(inst: &RangesInstance) -> f64 {
    let k = inst.cells();
    let mut best = vec![f64::INFINITY; k + 1]; // best[j]: cells 0..j on the nodes so far
    best[0] = 0.0;
    for _ in 0..inst.nodes {
        let mut next = best.clone();
        for (j, slot) in next.iter_mut().enumerate().skip(1) {
            for (i, &b) in best.iter().enumerate().take(j) {
                *slot = slot.min(b.max(range_load(inst, i, j - 1)));
            }
        }
        best = next;
    }
    best[k]
}

/// Every split, scored by the evaluator.
fn brute_force(inst: &RangesInstance) -> f64 {
    fn rec(inst: &RangesInstance, starts: &mut Vec<usize>, best: &mut f64) {
        let k = inst.cells();
        if starts.len() == inst.nodes {
            let sol = RangesSolution::Split(Starts {
                starts: starts.clone(),
            });
            if let Some(m) = evaluate(inst, &sol).metrics {
                *best = best.min(m.max_load);
            }
            return;
        }
        let from = *starts.last().unwrap_or(&0);
        let range = if starts.is_empty() { 0..=0 } else { from..=k };
        for s in range {
            starts.push(s);
            rec(inst, starts, best);
            starts.pop();
        }
    }
    let mut best = f64::INFINITY;
    rec(inst, &mut Vec::new(), &mut best);
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn exact_equals_dp_and_brute_force(inst in arb_instance(7, 3)) {
        let e = exact_split(&LoadOracle::new(&inst), inst.nodes);
        prop_assert_eq!(e.objective, dp(&inst));
        prop_assert_eq!(e.objective, brute_force(&inst));
        prop_assert_eq!(e.bound, e.objective);
        // The proof: the probe just below the optimum fails.
        if e.objective > 0.0 {
            let below = probe(&LoadOracle::new(&inst), inst.nodes, e.objective * (1.0 - 1e-9));
            prop_assert!(!below.feasible);
        }
    }

    #[test]
    fn exact_equals_dp_on_larger_instances(inst in arb_instance(30, 6)) {
        let e = exact_split(&LoadOracle::new(&inst), inst.nodes);
        prop_assert_eq!(e.objective, dp(&inst));
    }

    #[test]
    fn exact_is_at_most_every_contiguous_engine(inst in arb_instance(40, 6), seed in 0u64..50) {
        let opts = SolveOptions::new(None, seed);
        let ex = run_ranges("exact", &inst, &opts);
        prop_assert_eq!(ex.status, Status::Optimal);
        let best = ex.objective.unwrap();
        for engine in engine_names() {
            let r = run_ranges(&engine, &inst, &opts);
            prop_assert!(r.objective.is_some(), "{} gave no objective", engine);
            let contiguous = r.metrics["contiguous"].as_bool().unwrap();
            if contiguous {
                prop_assert!(best <= r.objective.unwrap() + 1e-9, "{} beat exact", engine);
            }
        }
    }

    #[test]
    fn ownership_round_trips(k in 1usize..40, n in 1usize..8, cuts in prop::collection::vec(0usize..40, 0..8)) {
        let mut starts: Vec<usize> = cuts.into_iter().map(|c| c % (k + 1)).take(n - 1).collect();
        starts.push(0);
        starts.sort_unstable();
        starts.resize(n, k);
        let owner = starts_to_owner(&starts, k);
        let back = owner_to_starts(&owner, n).unwrap();
        // Empty ranges may sit anywhere between equal starts; owners agree.
        prop_assert_eq!(starts_to_owner(&back, k), owner);
    }

    #[test]
    fn load_is_monotone_under_inclusion_and_the_oracle_is_the_definition(
        inst in arb_instance(25, 1), a in 0usize..25, b in 0usize..25, c in 0usize..25, d in 0usize..25,
    ) {
        let k = inst.cells();
        let mut v = [a % k, b % k, c % k, d % k];
        v.sort_unstable();
        // [v1, v2] ⊆ [v0, v3]
        let o = LoadOracle::new(&inst);
        prop_assert!(range_load(&inst, v[1], v[2]) <= range_load(&inst, v[0], v[3]));
        prop_assert_eq!(o.load(v[0], v[3]), range_load(&inst, v[0], v[3]));
        prop_assert_eq!(o.load(v[1], v[2]), range_load(&inst, v[1], v[2]));
    }
}

const TINY: &str = r#"{"problem": "ranges", "version": 1, "name": "t", "nodes": 3, "cells": 8,
  "publish": [5, 1, 1, 9, 2, 2, 1, 3],
  "subscriptions": [{"ranges": [[0, 2]], "rate": 4}, {"ranges": [[3, 3], [6, 7]], "rate": 1}]}"#;

#[test]
fn invalid_input_is_named_by_file_field_and_index() {
    let err = |text: &str| parse_ranges(text, "f.json", "f").unwrap_err().to_string();
    let e = err(&TINY.replace("[6, 7]", "[6, 8]"));
    assert!(e.starts_with("f.json: subscriptions[1].ranges[1]:"), "{e}");
    let e = err(&TINY.replace("[5, 1, 1", "[5, -1, 1"));
    assert!(e.starts_with("f.json: publish[1]:"), "{e}");
    let e = err(&TINY.replace("\"rate\": 4", "\"rate\": -4"));
    assert!(e.starts_with("f.json: subscriptions[0].rate:"), "{e}");
    let e = err(&TINY.replace("\"rate\": 4", "\"rate\": 4, \"extra\": 1"));
    assert!(
        e.starts_with("f.json: subscriptions[0]:") && e.contains("unknown field"),
        "{e}"
    );
    let e = err(&TINY.replace("\"nodes\": 3", "\"nodes\": 3, \"bogus\": 1"));
    assert!(e.contains("unknown field"), "{e}");
    let e = err(&TINY.replace("\"cells\": 8", "\"cells\": 9"));
    assert!(e.starts_with("f.json: publish:"), "{e}");
    let e = err(&TINY.replace("\"nodes\": 3", "\"nodes\": 0"));
    assert!(e.starts_with("f.json: nodes:"), "{e}");
    let map = r#""map": {"width": 3, "height": 2, "curve": "hilbert"}, "nodes""#;
    let e = err(&TINY.replace("\"nodes\"", map));
    assert!(e.starts_with("f.json: map:"), "{e}");
    let map = r#""map": {"width": 4, "height": 2, "curve": "spiral"}, "nodes""#;
    let e = err(&TINY.replace("\"nodes\"", map));
    assert!(e.starts_with("f.json: map:"), "{e}");
}

#[test]
fn the_bundled_instance_reads_and_exact_is_optimal() {
    let inst = read_ranges(Path::new("instances/ranges-tiny.json")).unwrap();
    assert_eq!((inst.cells(), inst.nodes), (8, 3));
    let r = run_ranges("exact", &inst, &SolveOptions::default());
    assert_eq!(r.status, Status::Optimal);
    assert_eq!(r.objective, Some(11.0));
    assert_eq!(brute_force(&inst), 11.0);
}

#[test]
fn generated_instances_have_colyseus_sizes_and_are_seeded() {
    let cfg = GenRangesConfig {
        players: 96,
        seed: 3,
        ..GenRangesConfig::default()
    };
    let a = generate_ranges(&cfg).unwrap();
    let map = a.map.unwrap();
    // rect: 20 units high, 96 · 25 / 20 = 120 units wide.
    assert_eq!((map.width, map.height, a.nodes), (120, 20, 96));
    assert_eq!(a.publish.iter().sum::<f64>(), 96.0);
    assert_eq!(a.subscriptions.len(), 96);
    assert_eq!(generate_ranges(&cfg).unwrap(), a);
    let b = generate_ranges(&GenRangesConfig {
        seed: 4,
        ..cfg.clone()
    })
    .unwrap();
    assert_ne!(a.publish, b.publish);
    let sq = generate_ranges(&GenRangesConfig {
        shape: MapShape::Sqr,
        curve: Curve::Z,
        players: 64,
        ..cfg
    })
    .unwrap();
    assert_eq!(sq.map.map(|m| (m.width, m.height)), Some((40, 40)));
    // exact beats or ties every contiguous engine here too.
    let opts = SolveOptions::default();
    let ex = run_ranges("exact", &a, &opts).objective.unwrap();
    for e in ["uniform", "nbr-adjust", "leave-join"] {
        assert!(
            ex <= run_ranges(e, &a, &opts).objective.unwrap() + 1e-9,
            "{e}"
        );
    }
}

#[test]
fn cli_solves_evaluates_and_generates() {
    let bin = env!("CARGO_BIN_EXE_serverpick");
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(bin)
        .args([
            "solve",
            "instances/ranges-tiny.json",
            "--engine",
            "all",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("optimal") && table.contains("leave-join"),
        "{table}"
    );
    let sol = dir.path().join("ranges-tiny.exact.solution.json");
    let out = Command::new(bin)
        .args(["eval", "instances/ranges-tiny.json"])
        .arg(&sol)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("max load   11"),
        "{text}"
    );
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"owner": [0, 0, 1, 1, 2, 2, 2, "x"]}"#).unwrap();
    let out = Command::new(bin)
        .args(["eval", "instances/ranges-tiny.json"])
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("solution.owner[7]"),
        "{err}"
    );
    let gen = dir.path().join("g.json");
    let out = Command::new(bin)
        .args(["gen", "ranges", "--players", "32", "--seed", "5", "--out"])
        .arg(&gen)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read_ranges(&gen).unwrap().nodes, 32);
}

/// `exact` is optimal among contiguous splits only: a scattered owner vector
/// (what `hash` returns) can beat it, so `exact` does not bound `hash`
/// (docs/ranges.md, "Open: exact vs hash").
#[test]
fn a_scattered_owner_vector_can_beat_the_contiguous_optimum() {
    let inst = instance(vec![10.0, 10.0, 1.0, 1.0], vec![], 2);
    let e = exact_split(&LoadOracle::new(&inst), 2);
    assert_eq!(e.objective, 12.0);
    let owner = serverpick::problems::ranges::model::Owners {
        owner: vec![0, 1, 0, 1],
    };
    let m = evaluate(&inst, &RangesSolution::Owners(owner))
        .metrics
        .unwrap();
    assert_eq!(m.max_load, 11.0);
}

/// `hash` rows report the problem `ranges-any` (any ownership), so
/// `exact`'s contiguous optimum is never held against them: no false
/// conflict when a scattered ownership beats it.
#[test]
fn hash_rows_are_checked_apart_from_contiguous_splits() {
    use serverpick::bench::{annotate, BenchRow};
    use serverpick::core::Status;
    let row = |engine: &str, problem: &str, status: Status, obj: f64| BenchRow {
        instance: "r".into(),
        problem: problem.into(),
        engine: engine.into(),
        status,
        reason: None,
        objective: Some(obj),
        best_known: None,
        best_known_is_optimal: None,
        gap: None,
        time_ms: 1.0,
        cpu_ms: None,
        peak_rss_mb: None,
        repetition: 0,
        file: "r.json".into(),
        bound: Some(12.0).filter(|_| engine == "exact"),
        size: None,
        check: None,
        message: None,
        stop: None,
        solver_status: None,
        time_limit_s: None,
        extra: serde_json::Map::new(),
    };
    let mut rows = vec![
        row("exact", "ranges", Status::Optimal, 12.0),
        row("hash", "ranges-any", Status::Feasible, 11.0),
    ];
    assert!(annotate(&mut rows).is_empty());
    let mut same = vec![
        row("exact", "ranges", Status::Optimal, 12.0),
        row("hash", "ranges", Status::Feasible, 11.0),
    ];
    assert_eq!(
        annotate(&mut same).len(),
        1,
        "within one problem it is a conflict"
    );
}
