//! The bench CLI front ends (`cli::bench`): argument parsing through clap,
//! a run on the bundled instances, a tiny `repro spd`, the `repro cma` hook.

use clap::Parser;
use serverpick::bench::export::read_jsonl;
use serverpick::bench::row::CONFLICT;
use serverpick::bench::summary::render_markdown;
use serverpick::cli::bench::{
    run_bench, run_bench_merge, run_repro, BenchArgs, BenchMergeArgs, ReproArgs,
};
use std::path::Path;

#[derive(Parser)]
enum Cmd {
    Bench(BenchArgs),
    BenchMerge(BenchMergeArgs),
    Repro(ReproArgs),
}

fn run(args: &[&str]) -> serverpick::Result<()> {
    let mut full = vec!["serverpick"];
    full.extend_from_slice(args);
    match Cmd::try_parse_from(full).expect("arguments parse") {
        Cmd::Bench(a) => run_bench(&a),
        Cmd::BenchMerge(a) => run_bench_merge(&a),
        Cmd::Repro(a) => run_repro(&a),
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
    // The ZIZO failure of seed 001 Fig. 5 is an error row, not a stopped run.
    assert!(rows
        .iter()
        .any(|r| r.engine == "zizo" && r.status == serverpick::model::Status::Error));
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

#[test]
fn repro_cma_says_not_available_yet() {
    let e = run(&["repro", "cma"]).unwrap_err();
    assert!(e.is_user_error() && e.to_string().contains("not available yet"));
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
