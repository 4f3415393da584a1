//! The library API that hosts (the Python package) use: instances from
//! memory checked like files, written back to equal instances, solutions
//! evaluated from JSON, function engines through the one runner.

use serde_json::{json, Value};
use serverpick::bench::runner::ForeignEngines;
use serverpick::bench::{run_bench, BenchConfig};
use serverpick::core::{ProblemInstance, SolveOptions, Source, Status};
use serverpick::external::callback::{CallError, FnEngine};
use serverpick::problems::{parse_instance, read_instance};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const STATIC: &[&str] = &[
    "spd-fig1-cs.json",
    "spd-fig1-p2p.json",
    "spd-fig5-zizo-fails.json",
    "spd-formats-example.json",
    "planetlabdata_1-cs-20s-60c-f1-s11.json",
    "planetlabdata_1-p2p-20s-60c-f1.1-s11.json",
    "cma-small.json",
    "cma-paper-fig3.json",
    "cma-dynamic-small.json",
    "cma-plan-planetlab-12m.json",
    "ag-small.json",
    "ranges-tiny.json",
    "rank-browser-tiny.json",
];

fn bundled(name: &str) -> PathBuf {
    Path::new("instances").join(name)
}

fn from_memory(text: String, file: &str) -> serverpick::Result<Box<dyn ProblemInstance>> {
    parse_instance(&Source::memory(text, file, "instance"))
}

#[test]
fn text_in_memory_reads_like_the_file() {
    for name in STATIC {
        let path = bundled(name);
        let file = read_instance(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mem = parse_instance(&Source::read(&path).unwrap()).unwrap();
        assert_eq!(file.features(), mem.features(), "{name}");
        assert_eq!(
            file.applicable_engines(),
            mem.applicable_engines(),
            "{name}"
        );
        // a name-less text takes the default name given
        let mut v: Value = serde_json::from_str(&text).unwrap();
        if let Some(o) = v.as_object_mut() {
            o.remove("name");
        }
        let anon = from_memory(v.to_string(), "<mem>").unwrap();
        assert_eq!(anon.name(), "instance", "{name}");
    }
}

#[test]
fn every_written_instance_reads_back_equal() {
    for name in STATIC {
        let inst = read_instance(&bundled(name)).unwrap();
        let Ok(value) = inst.to_value() else {
            assert_eq!(
                inst.family().name(),
                "rank",
                "{name}: only rank writes no file"
            );
            continue;
        };
        let again = from_memory(value.to_string(), "<mem>").unwrap();
        assert_eq!(again.to_value().unwrap(), value, "{name}");
        assert_eq!(again.features(), inst.features(), "{name}");
        // NaN marks "no link": compare as text
        let text = |i: &dyn ProblemInstance| format!("{:?}", i.arrays());
        assert_eq!(text(again.as_ref()), text(inst.as_ref()), "{name}");
        assert_eq!(again.name(), inst.name(), "{name}");
    }
}

#[test]
fn arrays_have_the_documented_shapes() {
    let spd = read_instance(&bundled("spd-fig1-cs.json")).unwrap();
    let shapes: Vec<(&str, Vec<usize>)> = spd
        .arrays()
        .iter()
        .map(|a| (a.name, a.shape.clone()))
        .collect();
    assert_eq!(
        shapes,
        [
            ("access", vec![5, 5]),
            ("server_latency", vec![5, 5]),
            ("distance", vec![5, 5]),
            ("mu", vec![])
        ]
    );
    let cma = read_instance(&bundled("cma-small.json")).unwrap();
    let delay = &cma.arrays()[0];
    assert_eq!((delay.name, delay.shape.clone()), ("delay", vec![8, 3]));
    assert_eq!(delay.data.len(), 24);
}

#[test]
fn from_arrays_is_checked_like_a_file() {
    use serverpick::io::json_text::HostArray;
    use serverpick::problems::{cma, spd};
    let a = |shape: Vec<usize>, data: &'static [f64]| HostArray::of_slice(shape, data);
    let text = cma::arrays::text_from_arrays(
        "<arrays>",
        Some("x"),
        a(vec![2, 2], &[1.0, 2.0, 3.0, 4.0]),
        a(vec![2], &[1.0, 1.0]),
        None,
    )
    .unwrap();
    let inst = from_memory(text, "<arrays>").unwrap();
    assert_eq!(inst.arrays()[0].data, [1.0, 2.0, 3.0, 4.0]);
    let cma_err = |delay: HostArray<'static>, capacity: HostArray<'static>, players| {
        cma::arrays::text_from_arrays("<arrays>", None, delay, capacity, players)
            .and_then(|t| from_memory(t, "<arrays>"))
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    let d = || a(vec![1, 2], &[1.0, 2.0]);
    let e = cma_err(d(), a(vec![2], &[1.5, 1.0]), None);
    assert!(e.starts_with("<arrays>: capacity[0]: 1.5"), "{e}");
    // What JSON cannot hold is named, not written as null.
    let e = cma_err(
        a(vec![1, 2], &[f64::INFINITY, 2.0]),
        a(vec![2], &[1.0, 1.0]),
        None,
    );
    assert!(e.starts_with("<arrays>: delay[0][0]: inf"), "{e}");
    // A capacity of the wrong length is the capacity's error.
    let e = cma_err(d(), a(vec![1], &[3.0]), None);
    assert!(
        e.starts_with("<arrays>: capacity: has 1 values, expected 2"),
        "{e}"
    );
    // Large whole counts stay integers, so the reader names its limit.
    let e = cma_err(d(), a(vec![2], &[3.0, 5.0]), Some(a(vec![1], &[1e18])));
    assert!(
        e.contains("players") && e.contains("limit of 1099511627776"),
        "{e}"
    );

    let text = spd::file::text_from_arrays(
        "<arrays>",
        None,
        "p2p",
        100.0,
        a(vec![2, 2], &[0.0, 5.0, 5.0, 0.0]),
        a(vec![2, 2], &[1.0, f64::NAN, 2.0, 3.0]),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["access"], json!([[1.0, null], [2.0, 3.0]]));
    let inst = from_memory(text, "<arrays>").unwrap();
    assert!(inst.arrays()[0].data[1].is_nan());
    let e = spd::file::text_from_arrays(
        "<arrays>",
        None,
        "cs",
        f64::NAN,
        a(vec![1, 1], &[0.0]),
        a(vec![1, 1], &[1.0]),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "<arrays>: mu: NaN is not a delay bound (a finite number of ms)"
    );
}

#[test]
fn json_solutions_evaluate_like_files() {
    let dir = tempfile::tempdir().unwrap();
    for name in STATIC {
        let inst = read_instance(&bundled(name)).unwrap();
        for engine in inst.applicable_engines().into_iter().take(2) {
            let rec = inst.run_engine(&engine, &SolveOptions::new(Some(20.0), 1));
            let Some(sol) = rec.solution.clone() else {
                continue;
            };
            let path = dir.path().join("s.json");
            std::fs::write(&path, serde_json::to_string(&rec).unwrap()).unwrap();
            let from_file = inst.eval_file(&path).unwrap().verdict;
            let from_value = inst.eval_value(sol, "mem").unwrap().verdict;
            assert_eq!(from_file.objective, from_value.objective, "{name} {engine}");
            assert_eq!(
                from_file.violations, from_value.violations,
                "{name} {engine}"
            );
            assert_eq!(from_value.objective, rec.objective, "{name} {engine}");
        }
    }
    let cma = read_instance(&bundled("cma-small.json")).unwrap();
    let e = cma
        .eval_value(json!({"assign": [0, "x"]}), "mem")
        .unwrap_err();
    assert_eq!(e.to_string(), "mem: assign[1]: \"x\" is not a mirror index");
    let cs = read_instance(&bundled("spd-fig1-cs.json")).unwrap();
    assert!(
        cs.solution_from_assignment(&[0; 5]).is_err(),
        "a CS solution needs its root"
    );
    let p2p = read_instance(&bundled("spd-fig1-p2p.json")).unwrap();
    assert_eq!(
        p2p.solution_from_assignment(&[1, 2]).unwrap(),
        json!({"assign": [1, 2]})
    );
}

/// A function engine: every client on mirror `m`, or what `mode` says.
fn engine(name: &str, mode: &'static str) -> Arc<dyn serverpick::core::ForeignEngine> {
    Arc::new(
        FnEngine::new(name, move |inst: &dyn ProblemInstance, _ctx: &_| {
            let n = inst.arrays().first().map(|a| a.shape[0]).unwrap_or(0);
            match mode {
                "raise" => Err(CallError::Raised("ValueError: no".into())),
                "junk" => Err(CallError::Rejected("not JSON data".into())),
                "lie" => Ok(json!({"solution": {"assign": vec![0; n]}, "objective": 1.0})),
                _ => Ok(json!(vec![0; n])),
            }
        })
        .only(vec!["cma".into()]),
    )
}

#[test]
fn function_engines_run_in_bench_beside_built_in_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = BenchConfig::new(
        vec![bundled("cma-small.json"), bundled("spd-fig1-cs.json")],
        dir.path().join("out"),
    );
    c.progress = false;
    c.engines = Some(vec!["exact".into()]);
    c.foreign = ForeignEngines(vec![
        engine("zero", "ok"),
        engine("raise", "raise"),
        engine("junk", "junk"),
        engine("lie", "lie"),
    ]);
    let out = run_bench(&c, &serverpick::problems::registry()).unwrap();
    let row = |inst: &str, e: &str| {
        out.rows
            .iter()
            .find(|r| r.instance == inst && r.engine == e)
            .unwrap_or_else(|| panic!("no row {inst} {e}"))
    };
    // `only(["cma"])`: no function row on the SPD instance
    assert_eq!(
        out.rows
            .iter()
            .filter(|r| r.instance == "spd-fig1-cs")
            .count(),
        1
    );
    // every client on mirror 0 exceeds its capacity: rejected by the evaluator
    assert_eq!(row("small-static", "zero").status, Status::Error);
    assert_eq!(
        row("small-static", "raise").reason.map(|r| r.as_str()),
        Some("raised")
    );
    assert_eq!(
        row("small-static", "junk").reason.map(|r| r.as_str()),
        Some("rejected")
    );
    assert!(row("small-static", "lie")
        .message
        .as_deref()
        .unwrap_or("")
        .contains("claims objective"));
    assert_eq!(row("small-static", "exact").status, Status::Optimal);
    // a name taken by a built-in engine is refused before anything runs
    c.foreign = ForeignEngines(vec![engine("exact", "ok")]);
    c.out = dir.path().join("out2");
    assert!(run_bench(&c, &serverpick::problems::registry())
        .unwrap_err()
        .to_string()
        .contains("taken"));
}

#[test]
fn try_run_args_returns_errors_instead_of_printing() {
    let e =
        serverpick::app::cli::try_run_args(["serverpick", "solve", "--no-such-flag"]).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    let e =
        serverpick::app::cli::try_run_args(["serverpick", "eval", "instances/none.json", "x.json"])
            .unwrap_err();
    assert!(e.to_string().contains("none.json"), "{e}");
}
