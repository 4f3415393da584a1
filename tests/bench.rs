//! Benchmark runner: CSV/JSONL agreement, best known and gaps on hand-made
//! rows, shard partition, resume after an interrupted run, error rows.

use serde_json::{Map, Value};
use serverpick::bench::export::read_jsonl;
use serverpick::bench::row::CONFLICT;
use serverpick::bench::shard::{shard_of, Shard};
use serverpick::bench::{annotate, merge, run_bench, BenchConfig, BenchRow, Dispatch, RowsOnly};
use serverpick::core::registry::Registry;
use serverpick::core::InstanceFeatures;
use serverpick::core::ProblemInstance;
use serverpick::core::SolveOptions;
use serverpick::core::{SolveRecord, Status};
use serverpick::problems::spd::file::to_file;
use serverpick::problems::spd::gen::{generate_paper_spd, PaperSpdParams};
use serverpick::problems::spd::model::CommModel;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// Four small seed-001-style instances (2 CS, 2 P2P) in `dir/inst`.
fn small_folder(dir: &Path) -> PathBuf {
    let inst = dir.join("inst");
    std::fs::create_dir_all(&inst).unwrap();
    for (k, model) in [CommModel::Cs, CommModel::P2p].into_iter().enumerate() {
        for seed in 0..2u64 {
            let p = PaperSpdParams {
                servers: 6,
                clients: 7,
                model,
                bound_factor: 1.2,
                ..PaperSpdParams::default()
            };
            let mut i = generate_paper_spd(&p, 10 * k as u64 + seed).unwrap();
            i.name = format!("{model}-{seed}");
            let text = serde_json::to_string(&to_file(&i)).unwrap();
            std::fs::write(inst.join(format!("{model}-{seed}.json")), text).unwrap();
        }
    }
    inst
}

fn config(paths: Vec<PathBuf>, out: PathBuf) -> BenchConfig {
    let mut c = BenchConfig::new(paths, out);
    c.progress = false;
    c.jobs = 2;
    c.options = SolveOptions::new(Some(20.0), 0);
    // The command layer's reports, as `serverpick bench` writes them.
    c.reports = std::sync::Arc::new(serverpick::app::report::Standard {
        registry: serverpick::problems::registry(),
    });
    c
}

fn keys(rows: &[BenchRow]) -> BTreeSet<(String, String, u32)> {
    rows.iter().map(BenchRow::key).collect()
}

/// The real engines plus `boom`, which panics, and `nothing`, which returns
/// an error record.
struct WithFailures;

/// The crate's families.
#[allow(non_upper_case_globals)]
static Registry: std::sync::LazyLock<Registry> =
    std::sync::LazyLock::new(serverpick::problems::registry);

impl Dispatch for WithFailures {
    fn read(&self, path: &std::path::Path) -> serverpick::Result<Box<dyn ProblemInstance>> {
        Registry.read_instance(path)
    }
    fn known_engines(&self) -> Vec<String> {
        let mut v = Registry.known_engines();
        v.extend(["boom".to_string(), "nothing".to_string()]);
        v
    }
    fn applicable_engines(&self, inst: &dyn ProblemInstance) -> Vec<String> {
        let mut v = Registry.applicable_engines(inst);
        v.extend(["boom".to_string(), "nothing".to_string()]);
        v
    }
    fn run_engine(
        &self,
        inst: &dyn ProblemInstance,
        engine: &str,
        opts: &SolveOptions,
    ) -> SolveRecord {
        match engine {
            "boom" => panic!("boom engine exploded on {}", inst.name()),
            "nothing" => {
                let mut r = Registry.run_engine(inst, "no-such-engine", opts);
                r.engine = "nothing".into();
                r
            }
            _ => Registry.run_engine(inst, engine, opts),
        }
    }
    fn features(&self, inst: &dyn ProblemInstance) -> InstanceFeatures {
        Registry.features(inst)
    }
}

#[test]
fn csv_and_jsonl_agree_on_a_small_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let inst = small_folder(tmp.path());
    let out = tmp.path().join("out");
    let o = run_bench(&config(vec![inst], out.clone()), &*Registry).unwrap();
    assert!(o.conflicts.is_empty(), "{:?}", o.conflicts);
    // CS: alg-m, spdcs-h, k-best, exact; P2P: alg-m, spdp2p-h, zizo, host-ls, host-search, host-lns,
    // k-best, exact.
    assert_eq!(o.rows.len(), 2 * 4 + 2 * 8);
    let jsonl: Vec<Value> = std::fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut rdr = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    let csv_rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    assert_eq!(csv_rows.len(), jsonl.len());
    for (j, c) in jsonl.iter().zip(&csv_rows) {
        let obj = j.as_object().unwrap();
        for k in obj.keys() {
            assert!(header.contains(k), "column {k} missing from the CSV");
        }
        for (col, cell) in header.iter().zip(c.iter()) {
            match obj.get(col) {
                None | Some(Value::Null) => assert_eq!(cell, "", "{col}"),
                Some(Value::String(s)) => assert_eq!(cell, s, "{col}"),
                Some(Value::Number(n)) => {
                    assert_eq!(cell.parse::<f64>().unwrap(), n.as_f64().unwrap(), "{col}")
                }
                Some(v) => assert_eq!(cell, v.to_string(), "{col}"),
            }
        }
    }
    // Every instance has a solution; where `exact` proves an optimum, best
    // known is flagged proven.
    for r in &o.rows {
        assert!(r.best_known.is_some(), "{}", r.file);
        let proven = o
            .rows
            .iter()
            .any(|q| q.file == r.file && q.status == Status::Optimal);
        assert_eq!(r.best_known_is_optimal, Some(proven));
    }
    // The per-run limit is in every row (and so in the CSV, checked above).
    assert!(o.rows.iter().all(|r| r.time_limit_s == Some(20.0)));
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("| spdcs-h |") && summary.contains("| zizo |"));
    assert!(out.join("gap-vs-time-spd.svg").exists());
    assert!(out.join("time-vs-size-spd.svg").exists());
    summary_json_matches_the_markdown(&out, &summary, o.rows.len());
    for f in ["perf-profile-spd.svg", "gap-profile-spd.svg"] {
        let svg = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(svg.contains("<svg") && svg.contains("exact"), "{f}");
        assert!(summary.contains(&format!("]({f})")), "{f} not linked");
    }
}

/// `summary.json` parses and has one entry per (problem, engine) table row
/// of `summary.md`, with the same runs and solved counts.
fn summary_json_matches_the_markdown(out: &Path, md: &str, rows: usize) {
    let text = std::fs::read_to_string(out.join("summary.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["rows"].as_u64(), Some(rows as u64));
    assert_eq!(v["instances"].as_u64(), Some(4));
    assert_eq!(v["conflicts"].as_array().map(Vec::len), Some(0));
    let from_json: Vec<(String, String, u64, u64)> = v["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            for k in ["sgm_ms_10s", "sgm_ms_1ms", "median_ms"] {
                assert!(e[k].as_f64().is_some_and(|x| x >= 0.0), "{k}: {e}");
            }
            let s = |k: &str| e[k].as_str().unwrap().to_string();
            let n = |k: &str| e[k].as_u64().unwrap();
            (s("problem"), s("engine"), n("runs"), n("solved"))
        })
        .collect();
    let mut from_md = Vec::new();
    let mut problem = String::new();
    for line in md.lines() {
        if let Some(p) = line.strip_prefix("## ") {
            problem = p.trim().to_string();
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() > 5 && cells[1] != "engine" && !cells[1].starts_with("--") {
            let n = |k: usize| cells[k].parse::<u64>().unwrap();
            from_md.push((problem.clone(), cells[1].to_string(), n(3), n(4)));
        }
    }
    assert_eq!(from_json, from_md);
    assert!(from_json.iter().any(|e| e.1 == "exact" && e.3 >= 1));
}

#[test]
fn rows_without_a_time_limit_field_still_load() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("results.jsonl");
    // A row as written before `time_limit_s` (and `stop`) existed.
    let old = r#"{"instance":"x","problem":"spd","engine":"spdcs-h","status":"feasible","reason":null,"objective":3.0,"best_known":2.0,"best_known_is_optimal":true,"gap":0.5,"time_ms":0.005961,"repetition":0,"file":"bin/spd-cs.json","bound":null,"size":16.0,"check":null,"message":null,"model":"cs","hosts":3}"#;
    std::fs::write(&path, format!("{old}\n")).unwrap();
    let read = read_jsonl(&path).unwrap();
    assert_eq!(read.rows.len(), 1);
    assert_eq!(read.rows[0].time_limit_s, None);
    assert!(!read.rows[0].extra.contains_key("time_limit_s"));
    assert!(!serverpick::bench::export::jsonl_line(&read.rows[0])
        .unwrap()
        .contains("time_limit_s"));
}

fn row(file: &str, engine: &str, status: Status, obj: Option<f64>, bound: Option<f64>) -> BenchRow {
    BenchRow {
        instance: file.into(),
        problem: "spd".into(),
        engine: engine.into(),
        status,
        reason: None,
        objective: obj,
        best_known: None,
        best_known_is_optimal: None,
        gap: None,
        time_ms: 1.0,
        cpu_ms: None,
        peak_rss_mb: None,
        repetition: 0,
        file: file.into(),
        bound,
        size: Some(1.0),
        check: None,
        message: None,
        stop: None,
        solver_status: None,
        time_limit_s: None,
        extra: Map::new(),
    }
}

#[test]
fn gap_and_best_known_on_hand_made_rows() {
    let mut rows = vec![
        // a: exact proves 4; heuristics 4 and 5.
        row("a", "exact", Status::Optimal, Some(4.0), Some(4.0)),
        row("a", "h1", Status::Feasible, Some(5.0), None),
        row("a", "h2", Status::Feasible, Some(4.0), None),
        // b: no proof: best found 3 (not optimal); error row has no gap.
        row("b", "h1", Status::Feasible, Some(3.0), None),
        row("b", "h2", Status::Feasible, Some(6.0), None),
        row("b", "h3", Status::Error, None, None),
        // c: exact timed out with bound 2 and incumbent 3; a heuristic found 2:
        // the bound proves 2 optimal.
        row("c", "exact", Status::TimeLimit, Some(3.0), Some(2.0)),
        row("c", "h1", Status::Feasible, Some(2.0), None),
    ];
    let conflicts = annotate(&mut rows);
    assert!(conflicts.is_empty());
    let get = |f: &str, e: &str| rows.iter().find(|r| r.file == f && r.engine == e).unwrap();
    assert_eq!(get("a", "h1").best_known, Some(4.0));
    assert_eq!(get("a", "h1").best_known_is_optimal, Some(true));
    assert_eq!(get("a", "h1").gap, Some(0.25));
    assert_eq!(get("a", "exact").gap, Some(0.0));
    assert_eq!(get("b", "h2").best_known, Some(3.0));
    assert_eq!(get("b", "h2").best_known_is_optimal, Some(false));
    assert_eq!(get("b", "h2").gap, Some(1.0));
    assert_eq!(get("b", "h3").gap, None);
    assert_eq!(get("c", "exact").best_known_is_optimal, Some(true));
    assert_eq!(get("c", "exact").gap, Some(0.5));
}

#[test]
fn a_beaten_optimum_or_infeasibility_is_a_conflict() {
    let mut rows = vec![
        row("a", "exact", Status::Optimal, Some(4.0), Some(4.0)),
        row("a", "h1", Status::Feasible, Some(3.0), None),
        row("b", "exact", Status::Infeasible, None, None),
        row("b", "h1", Status::Feasible, Some(7.0), None),
        row("c", "exact", Status::Optimal, Some(2.0), Some(2.0)),
        row("c", "h1", Status::Feasible, Some(2.0), None),
    ];
    let conflicts = annotate(&mut rows);
    assert_eq!(conflicts.len(), 2, "{conflicts:?}");
    assert!(conflicts[0].contains("exact") && conflicts[0].contains("h1"));
    for r in &rows {
        let expect = (r.file != "c").then(|| CONFLICT.to_string());
        assert_eq!(r.check, expect, "{} {}", r.file, r.engine);
    }
    // The beaten "optimum" is not reported as proven; best known is what was found.
    assert_eq!(rows[1].best_known, Some(3.0));
    assert_eq!(rows[1].best_known_is_optimal, Some(false));
}

#[test]
fn shards_cover_every_unit_exactly_once_and_merge_matches_a_full_run() {
    let tmp = tempfile::tempdir().unwrap();
    let inst = small_folder(tmp.path());
    let full = run_bench(
        &config(vec![inst.clone()], tmp.path().join("full")),
        &*Registry,
    )
    .unwrap();
    let n = 3;
    let mut seen: HashMap<(String, String, u32), usize> = HashMap::new();
    let mut dirs = Vec::new();
    for k in 0..n {
        let dir = tmp.path().join(format!("shard{k}"));
        let mut c = config(vec![inst.clone()], dir.clone());
        c.shard = Some(format!("{k}/{n}").parse::<Shard>().unwrap());
        let o = run_bench(&c, &*Registry).unwrap();
        for r in &o.rows {
            assert_eq!(shard_of(&r.file, &r.engine, n), k);
            *seen.entry(r.key()).or_default() += 1;
        }
        dirs.push(dir);
    }
    assert!(seen.values().all(|&c| c == 1));
    assert_eq!(
        seen.keys().cloned().collect::<BTreeSet<_>>(),
        keys(&full.rows)
    );
    let merged = merge(&dirs, &tmp.path().join("merged"), &*Registry, &RowsOnly).unwrap();
    assert_eq!(keys(&merged.rows), keys(&full.rows));
    for (m, f) in merged.rows.iter().zip(&full.rows) {
        assert_eq!(
            (m.key(), m.best_known, m.best_known_is_optimal),
            (f.key(), f.best_known, f.best_known_is_optimal)
        );
    }
    assert!("3/3".parse::<Shard>().is_err() && "x/2".parse::<Shard>().is_err());
}

#[test]
fn resume_after_an_interrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let inst = small_folder(tmp.path());
    let out = tmp.path().join("out");
    let mut c = config(vec![inst], out.clone());
    c.engines = Some(vec!["alg-m".into(), "k-best".into()]);
    c.repeat = 2;
    let full = run_bench(&c, &*Registry).unwrap();
    assert_eq!(full.rows.len(), 4 * 2 * 2);
    // Simulate Ctrl-C: 5 complete rows and half of the sixth.
    let path = out.join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!(
        "{}\n{}",
        lines[..5].join("\n"),
        &lines[5][..lines[5].len() / 2]
    );
    std::fs::write(&path, cut).unwrap();
    assert!(
        run_bench(&c, &*Registry).is_err(),
        "must refuse without --resume"
    );
    c.resume = true;
    let resumed = run_bench(&c, &*Registry).unwrap();
    assert_eq!((resumed.skipped, resumed.ran), (5, full.rows.len() - 5));
    assert_eq!(keys(&resumed.rows), keys(&full.rows));
    assert_eq!(read_jsonl(&path).unwrap().rows.len(), full.rows.len());
}

#[test]
fn failing_and_panicking_engines_give_error_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let inst = small_folder(tmp.path());
    let out = tmp.path().join("out");
    let mut c = config(vec![inst], out.clone());
    c.engines = Some(vec!["alg-m".into(), "boom".into(), "nothing".into()]);
    let o = run_bench(&c, &WithFailures).unwrap();
    assert_eq!(o.rows.len(), 4 * 3);
    for r in &o.rows {
        match r.engine.as_str() {
            "boom" => {
                assert_eq!(r.status, Status::Error);
                assert!(r.message.as_deref().unwrap().contains("panicked"));
            }
            "nothing" => assert_eq!(r.status, Status::Error),
            _ => assert_eq!(r.status, Status::Feasible),
        }
    }
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("| boom | 4 | 4 | 0 | 0 | 4 |"),
        "{summary}"
    );
    assert!(run_bench(&config(vec![], tmp.path().join("x")), &*Registry)
        .unwrap()
        .rows
        .is_empty());
}

#[test]
fn unknown_engine_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let inst = small_folder(tmp.path());
    let mut c = config(vec![inst], tmp.path().join("out"));
    c.engines = Some(vec!["nope".into()]);
    let e = run_bench(&c, &*Registry).unwrap_err();
    assert!(e.to_string().contains("unknown engine 'nope'"));
}
