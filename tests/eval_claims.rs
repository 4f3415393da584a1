//! Issue 29 item 5: `eval` checks every claim a solution file makes, and
//! every engine's own `solve --out` file passes `eval` (fuzz3 D8, D9, D10).

mod common_cli;

use common_cli::{serverpick, text};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn data(rel: &str) -> String {
    common_cli::fuzz3(rel)
}

fn instance(name: &str) -> String {
    common_cli::bundled(name)
}

fn eval(inst: &str, sol: &str, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec!["eval", inst, sol];
    args.extend_from_slice(extra);
    let o = serverpick(&args);
    (o.status.code(), text(&o.stdout) + &text(&o.stderr))
}

#[test]
fn d8_false_objective_bound_and_metrics_fail_with_the_field_and_both_values() {
    let (code, out) = eval(
        &data("d8-eval-ignores-claims/spd-fig1-cs.json"),
        &data("d8-eval-ignores-claims/lying.solution.json"),
        &[],
    );
    assert_eq!(code, Some(1), "{out}");
    for needle in [
        "objective: the file claims 1, but the evaluator finds 2",
        "bound: the file claims 5",
        "metrics.delay: the file claims 1, but the evaluator finds 104",
    ] {
        assert!(out.contains(needle), "'{needle}' missing: {out}");
    }
    let (code, out) = eval(
        &data("d8-eval-ignores-claims/cma-small.json"),
        &data("d8-eval-ignores-claims/cma-lying.solution.json"),
        &["--json"],
    );
    assert_eq!(code, Some(1), "{out}");
    let v: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let fields: Vec<&str> = v["false_claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["objective", "bound", "metrics.total_delay"]);
}

#[test]
fn d9_the_hash_engines_own_file_passes_eval() {
    let dir = tempfile::tempdir().unwrap();
    let inst = data("d9-eval-rejects-hash-solution/ranges-tiny.json");
    let out = dir.path().to_str().unwrap();
    let o = serverpick(&["solve", &inst, "--engine", "hash", "--out", out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let file = dir.path().join("ranges-tiny.hash.solution.json");
    let (code, out) = eval(&inst, file.to_str().unwrap(), &[]);
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn d10_an_spdvr_file_against_an_spd_instance_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let inst = data("d10-eval-spdvr-file-vs-spd-instance/inst.json");
    let out = dir.path().to_str().unwrap();
    let args = ["solve", &inst, "--problem", "spdvr", "--start", "alg-m"];
    let o = serverpick(&[&args[..], &["--engine", "exact", "--out", out]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let file = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .unwrap();
    let (code, out) = eval(&inst, file.to_str().unwrap(), &[]);
    assert_eq!(code, Some(2), "{out}");
    assert!(
        out.contains("written for problem 'spdvr', not 'spd'"),
        "{out}"
    );
}

/// Every engine's `solve --out` files for every bundled instance.
fn written_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    // An SPDVR instance: the bundled SPD example with its start, as SPDVR.
    let mut spdvr = record(&root.join("spd-formats-example.json"));
    spdvr["problem"] = Value::from("spdvr");
    let spdvr_file = dir.join("spdvr-example.json");
    std::fs::write(&spdvr_file, spdvr.to_string()).unwrap();
    files.push(spdvr_file);
    for (i, f) in files.iter().enumerate() {
        let sub = dir.join(format!("{i}"));
        let inst = f.to_str().unwrap();
        let o = serverpick(&[
            "solve",
            inst,
            "--engine",
            "all",
            "--time-limit",
            "20",
            "--out",
            sub.to_str().unwrap(),
        ]);
        assert!(matches!(o.status.code(), Some(0 | 2)), "{inst}");
        for e in std::fs::read_dir(&sub).into_iter().flatten() {
            out.push((inst.to_string(), e.unwrap().path()));
        }
    }
    out
}

fn record(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn every_engines_own_file_passes_eval_and_every_lie_fails_it() {
    let dir = tempfile::tempdir().unwrap();
    let written = written_files(dir.path());
    assert!(written.len() >= 40, "only {} solution files", written.len());
    let mut lies_checked = 0;
    for (inst, file) in &written {
        let rec = record(file);
        if rec.get("solution").is_none() {
            continue; // the engine found nothing: nothing to evaluate
        }
        let f = file.to_str().unwrap();
        let (code, out) = eval(inst, f, &[]);
        let feasible = rec["status"] != "error";
        if feasible {
            assert_eq!(code, Some(0), "{f}: {out}");
        }
        let Some(obj) = rec["objective"].as_f64().filter(|_| feasible) else {
            continue;
        };
        // A false objective, a bound above the objective, a foreign problem.
        for (field, value) in [
            ("objective", Value::from(obj * 2.0 + 1.0)),
            ("bound", Value::from(obj * 2.0 + 1.0)),
            ("problem", Value::from("no-such-problem")),
        ] {
            let mut lie = rec.clone();
            lie[field] = value;
            let liar = dir.path().join("lie.json");
            std::fs::write(&liar, lie.to_string()).unwrap();
            let (code, out) = eval(inst, liar.to_str().unwrap(), &[]);
            let want = if field == "problem" { 2 } else { 1 };
            assert_eq!(code, Some(want), "{f} with a false {field}: {out}");
            assert!(out.contains(field), "{f}: {field} not named: {out}");
        }
        lies_checked += 1;
    }
    assert!(lies_checked >= 30, "{lies_checked}");
}

#[test]
fn a_claimed_optimum_beaten_by_another_file_is_false() {
    let dir = tempfile::tempdir().unwrap();
    let inst = instance("spd-fig1-cs.json");
    let out = dir.path().to_str().unwrap();
    let o = serverpick(&["solve", &inst, "--engine", "exact,alg-m", "--out", out]);
    assert_eq!(o.status.code(), Some(0));
    let exact = dir.path().join("spd-fig1-cs.exact.solution.json");
    let algm = dir.path().join("spd-fig1-cs.alg-m.solution.json");
    // alg-m claims its own (worse) objective optimal: exact's file beats it.
    let mut lie = record(&algm);
    lie["status"] = Value::from("optimal");
    lie["bound"] = lie["objective"].clone();
    let liar = dir.path().join("lie.json");
    std::fs::write(&liar, lie.to_string()).unwrap();
    let (code, _) = eval(&inst, liar.to_str().unwrap(), &[]);
    let beaten = record(&exact)["objective"].as_f64() < lie["objective"].as_f64();
    if beaten {
        let (code2, out) = eval(
            &inst,
            liar.to_str().unwrap(),
            &["--against", exact.to_str().unwrap()],
        );
        assert_eq!((code, code2), (Some(0), Some(1)), "{out}");
        assert!(
            out.contains("has a feasible solution of objective"),
            "{out}"
        );
    }
    let (code, out) = eval(
        &inst,
        exact.to_str().unwrap(),
        &["--against", algm.to_str().unwrap()],
    );
    assert_eq!(code, Some(0), "{out}");
}
