//! The bench CLI front ends (`cli::bench`): argument parsing through clap,
//! a run on the bundled instances, a tiny `repro spd` and `repro cma`.

use serverpick::app::report::summary::render_markdown;
use serverpick::bench::export::read_jsonl;
use serverpick::bench::row::CONFLICT;
use std::path::Path;

/// Runs the real command line in process: exit 0 → `Ok`, 2 → a usage
/// error, anything else → a failed check.
fn run(args: &[&str]) -> serverpick::Result<()> {
    let mut full = vec!["serverpick"];
    full.extend_from_slice(args);
    match serverpick::app::cli::run_args(full) {
        0 => Ok(()),
        2 => Err(serverpick::Error::Usage("exit code 2".into())),
        c => Err(serverpick::Error::Solver(format!("exit code {c}"))),
    }
}

fn instances() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .display()
        .to_string()
}

#[test]
fn bench_on_the_bundled_instances_then_shards_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let o = out.to_str().unwrap();
    let engines = "alg-m,spdcs-h,spdp2p-h,zizo";
    run(&[
        "bench",
        &instances(),
        "-e",
        engines,
        "--out",
        o,
        "-q",
        "--jobs",
        "2",
    ])
    .unwrap();
    let rows = read_jsonl(&out.join("results.jsonl")).unwrap().rows;
    assert!(!rows.is_empty());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["rows"].as_u64(), Some(rows.len() as u64));
    for f in ["perf-profile-spd.svg", "gap-profile-spd.svg"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    // The ZIZO failure of seed 001 Fig. 5 is an error row, not a stopped run.
    assert!(rows
        .iter()
        .any(|r| r.engine == "zizo" && r.status == serverpick::core::Status::Error));
    // Same folder again without --resume: refused; with --resume: nothing to do.
    assert!(run(&["bench", &instances(), "-e", engines, "--out", o, "-q"]).is_err());
    run(&[
        "bench",
        &instances(),
        "-e",
        engines,
        "--out",
        o,
        "-q",
        "--resume",
    ])
    .unwrap();
    assert_eq!(read_jsonl(&out.join("results.jsonl")).unwrap().rows, rows);
    let mut shard_dirs = Vec::new();
    for k in 0..2 {
        let d = tmp.path().join(format!("s{k}"));
        let shard = format!("{k}/2");
        let d_str = d.to_str().unwrap();
        run(&[
            "bench",
            &instances(),
            "-e",
            engines,
            "--out",
            d_str,
            "-q",
            "--shard",
            &shard,
        ])
        .unwrap();
        shard_dirs.push(d_str.to_string());
    }
    let merged = tmp.path().join("merged");
    let mut args = vec!["bench-merge"];
    args.extend(shard_dirs.iter().map(String::as_str));
    args.extend(["--out", merged.to_str().unwrap()]);
    run(&args).unwrap();
    let m = read_jsonl(&merged.join("results.jsonl")).unwrap().rows;
    let strip = |v: &[serverpick::bench::BenchRow]| {
        v.iter()
            .map(|r| (r.key(), r.objective, r.best_known, r.gap))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&m), strip(&rows));
    assert!(run(&["bench", &instances(), "--shard", "2/2", "--out", o]).is_err());
}

#[test]
fn repro_spd_on_a_tiny_grid_draws_the_figures() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("repro");
    let o = out.to_str().unwrap();
    run(&[
        "repro",
        "spd",
        "--servers",
        "8",
        "--clients",
        "10,12",
        "--factors",
        "1.0,1.3",
        "--instances-per-cell",
        "2",
        "--out",
        o,
        "-q",
        "-e",
        "alg-m,spdcs-h,spdp2p-h,zizo",
    ])
    .unwrap();
    // Per model 2 client counts × 2 networks × 2 factors = 8 instances; CS
    // runs alg-m and spdcs-h, P2P alg-m, spdp2p-h and zizo.
    let rows = read_jsonl(&out.join("results.jsonl")).unwrap().rows;
    assert_eq!(rows.len(), 8 * 2 + 8 * 3);
    for model in ["cs", "p2p"] {
        for fig in [
            "servers-vs-f",
            "servers-vs-clients",
            "delay-vs-clients",
            "runtime-vs-clients",
        ] {
            let p = out.join(format!("fig-{fig}-{model}.svg"));
            let svg = std::fs::read_to_string(&p).unwrap();
            assert!(svg.contains("alg-m"), "{} has no legend", p.display());
        }
    }
    let md = std::fs::read_to_string(out.join("figures.md")).unwrap();
    assert!(md.contains("| spdcs-h |") && md.contains("| zizo |"));
    run(&["repro", "spd", "--out", o, "--figures-only"]).unwrap();
}

fn events(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

const CMA_POLICY_DIRS: [&str; 5] = [
    "j-greedy_l-ignore",
    "j-greedy_l-greedy",
    "j-sa_l-sa",
    "j-sa-rebuild_l-sa-rebuild",
    "bf",
];

#[test]
fn repro_cma_on_a_shrunk_grid_writes_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("repro-cma");
    let o = out.to_str().unwrap();
    let args = [
        "repro",
        "cma",
        "--mirrors",
        "5,10",
        "--scale",
        "0.04",
        "--timing-runs",
        "2",
        "--out",
        o,
        "-q",
    ];
    run(&args).unwrap();
    let runs = [
        "join-5m",
        "join-10m",
        "leave-5m",
        "leave-10m",
        "dynamic-5m",
        "dynamic-10m",
    ];
    for label in runs {
        assert!(out.join(format!("instances/cma-{label}.json")).is_file());
        assert!(out
            .join(format!("instances/static/cma-static-{label}.json"))
            .is_file());
        for p in CMA_POLICY_DIRS {
            for f in ["events.csv", "events.jsonl", "summary.md"] {
                let path = out.join("sim").join(label).join(p).join(f);
                assert!(path.is_file(), "{} missing", path.display());
            }
        }
        // J-SA/L-SA stays optimal: its total equals BF's after every event.
        let sa = events(&out.join("sim").join(label).join("j-sa_l-sa/events.jsonl"));
        let bf = events(&out.join("sim").join(label).join("bf/events.jsonl"));
        assert_eq!(sa.len(), bf.len());
        assert!(!sa.is_empty());
        for (a, b) in sa.iter().zip(&bf) {
            let (x, y) = (
                a["total_delay"].as_f64().unwrap(),
                b["total_delay"].as_f64().unwrap(),
            );
            assert!(
                (x - y).abs() <= 1e-6 * (1.0 + y),
                "{label} step {}: {x} vs {y}",
                a["step"]
            );
        }
        for stem in ["avg-delay", "max-delay", "under-threshold", "transfers"] {
            let svg = out.join(format!("figures/fig-{stem}-{label}.svg"));
            assert!(std::fs::read_to_string(&svg).unwrap().contains("j-sa/l-sa"));
        }
    }
    for fig in [
        "cdf-join-5m",
        "cdf-join-10m",
        "runtime-join",
        "runtime-leave",
        "runtime-dynamic",
    ] {
        assert!(
            out.join(format!("figures/fig-{fig}.svg")).is_file(),
            "{fig}"
        );
    }
    for f in [
        "results.csv",
        "summary.md",
        "gap-vs-time-cma.svg",
        "time-vs-size-cma.svg",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }
    // The static instances: 6 × (exact-flow, exact, j-greedy, j-sa); the exact
    // engines and J-SA agree on every instance.
    let rows = read_jsonl(&out.join("results.jsonl")).unwrap().rows;
    assert_eq!(rows.len(), 6 * 4);
    for r in rows.iter().filter(|r| r.engine != "j-greedy") {
        assert_eq!(r.status, serverpick::core::Status::Optimal, "{r:?}");
        let best = r.best_known.unwrap();
        assert!((r.objective.unwrap() - best).abs() <= 1e-6 * (1.0 + best));
    }
    let md = std::fs::read_to_string(out.join("figures.md")).unwrap();
    assert!(md.contains("## Paper vs here") && md.contains("## Headline numbers"));
    assert!(md.contains("| J-SA/L-SA equals BF (the optimum) after every event |"));
    assert!(md.contains("0 of "), "L-SA vs BF mismatch count");
    // The same folder again: refused without --resume.
    assert!(run(&args).unwrap_err().is_user_error());
}

#[test]
fn repro_cma_instances_round_trip_through_simulate() {
    use serverpick::problems::cma::sim::{simulate, SimOptions};
    use serverpick::problems::cma::Instance;
    use serverpick::problems::read_instance;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let o = out.to_str().unwrap();
    run(&[
        "repro",
        "cma",
        "--scenarios",
        "dynamic",
        "--mirrors",
        "5",
        "--scale",
        "0.03",
        "--policies",
        "j-greedy/l-greedy,bf",
        "--out",
        o,
        "-q",
        "-e",
        "exact-flow,j-greedy",
    ])
    .unwrap();
    let loaded = read_instance(&out.join("instances/cma-dynamic-5m.json")).unwrap();
    let Some(Instance(inst)) = loaded.as_any().downcast_ref::<Instance>() else {
        panic!("not a CMA instance")
    };
    assert_eq!(inst.clients(), 39);
    let sim = simulate(inst, "j-greedy/l-greedy", &SimOptions::default()).unwrap();
    let written = events(&out.join("sim/dynamic-5m/j-greedy_l-greedy/events.jsonl"));
    assert_eq!(sim.records.len(), written.len());
    for (r, w) in sim.records.iter().zip(&written) {
        assert_eq!(r.present as u64, w["present"].as_u64().unwrap());
        assert_eq!(r.transfers as u64, w["transfers"].as_u64().unwrap());
        assert_eq!(r.total_delay, w["total_delay"].as_f64().unwrap());
    }
    assert_eq!(
        read_jsonl(&out.join("results.jsonl")).unwrap().rows.len(),
        2
    );
    assert!(!out.join("sim/dynamic-5m/j-sa_l-sa").exists());
}

#[test]
fn repro_cma_refuses_bad_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let o = tmp.path().join("x");
    let o = o.to_str().unwrap();
    for bad in [
        ["--scale", "0"],
        ["--scenarios", "static"],
        ["--policies", "j-sa/l-greedy"],
        ["--mirrors", "0"],
        ["--threshold=-1", "--gen-seed=2"],
    ] {
        let mut args = vec!["repro", "cma", "--out", o, "-q"];
        args.extend(bad);
        let e = run(&args).unwrap_err();
        assert!(e.is_user_error(), "{bad:?}: {e}");
    }
    assert!(!tmp.path().join("x").join("instances").exists());
}

#[test]
fn conflicts_lead_the_summary() {
    let md = render_markdown(
        &[],
        &["x.json: exact claims 4 but h found 3".into()],
        None,
        &[],
    );
    assert!(md.contains("⚠ 1 CONFLICT(S)") && md.contains(CONFLICT));
    assert!(md.find("CONFLICT").unwrap() < md.find("rows over").unwrap());
}
