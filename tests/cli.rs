//! The command line: gen → solve → eval round trip, exit codes, messages.

mod common_cli;

use common_cli::{serverpick, text};
use std::path::Path;

#[test]
fn gen_solve_eval_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let inst_dir = dir.path().join("inst");
    let sol_dir = dir.path().join("sol");
    let g = serverpick(&[
        "gen",
        "spd",
        "--servers",
        "6",
        "--clients",
        "9",
        "--model",
        "cs,p2p",
        "--factor",
        "1.2",
        "--count",
        "2",
        "--seed",
        "3",
        "--out",
        inst_dir.to_str().unwrap(),
    ]);
    assert!(g.status.success(), "{}", text(&g.stderr));
    assert_eq!(std::fs::read_dir(&inst_dir).unwrap().count(), 4);
    let s = serverpick(&[
        "solve",
        inst_dir.to_str().unwrap(),
        "--engine",
        "all",
        "--out",
        sol_dir.to_str().unwrap(),
    ]);
    assert!(s.status.success(), "{}", text(&s.stderr));
    let table = text(&s.stdout);
    for engine in ["alg-m", "spdcs-h", "spdp2p-h", "zizo", "k-best", "exact"] {
        assert!(table.contains(engine), "{engine} missing from\n{table}");
    }
    let mut checked = 0;
    for entry in std::fs::read_dir(&sol_dir).unwrap() {
        let path = entry.unwrap().path();
        let record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if record.get("solution").is_none() {
            continue;
        }
        let name = record["instance"].as_str().unwrap();
        let inst = inst_dir.join(format!("{name}.json"));
        let e = serverpick(&["eval", inst.to_str().unwrap(), path.to_str().unwrap()]);
        assert!(
            e.status.success(),
            "eval rejected {}: {}",
            path.display(),
            text(&e.stdout)
        );
        assert!(text(&e.stdout).contains("verdict    feasible"));
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} solutions checked");
}

#[test]
fn bundled_instances_solve() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances");
    let s = serverpick(&[
        "solve",
        dir.to_str().unwrap(),
        "--engine",
        "alg-m,spdcs-h,spdp2p-h,zizo",
        "--json",
    ]);
    assert!(s.status.success(), "{}", text(&s.stderr));
    let records: Vec<serde_json::Value> = text(&s.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let spd_files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            let t = std::fs::read_to_string(e.as_ref().unwrap().path()).unwrap_or_default();
            t.contains(r#""problem": "spd""#)
        })
        .count();
    assert_eq!(records.len(), 4 * spd_files, "four engines per SPD file");
    for r in &records {
        let (inst, engine) = (
            r["instance"].as_str().unwrap(),
            r["engine"].as_str().unwrap(),
        );
        match (r["status"].as_str().unwrap(), r["reason"].as_str()) {
            ("feasible", None) => assert!(r["objective"].as_f64().unwrap() >= 1.0),
            ("error", Some("not_applicable")) => {
                let p2p_only = engine == "spdp2p-h" || engine == "zizo";
                assert!(p2p_only || engine == "spdcs-h", "{r}");
            }
            // Seed 001 Fig. 5: ZIZO's zoom-in already breaks μ.
            ("error", Some("no_solution")) => {
                assert_eq!((inst, engine), ("spd-fig5-zizo-fails", "zizo"), "{r}")
            }
            _ => panic!("unexpected record {r}"),
        }
    }
}

#[test]
fn bad_input_exits_2_with_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("broken.json");
    std::fs::write(&p, r#"{"problem":"spd","version":1,"model":"cs","bound":5,"servers":2,"links":[[0,1,1]],"access":[[1]]}"#).unwrap();
    let s = serverpick(&["solve", p.to_str().unwrap()]);
    assert_eq!(s.status.code(), Some(2));
    let err = text(&s.stderr);
    assert!(
        err.contains("broken.json") && err.contains("access[0]"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances");
    let s = serverpick(&["solve", dir.to_str().unwrap(), "--engine", "nope"]);
    assert_eq!(s.status.code(), Some(2));
    assert!(text(&s.stderr).contains("unknown engine 'nope'"));
    let s = serverpick(&["solve", "/no/such/dir"]);
    assert_eq!(s.status.code(), Some(2));
    let s = serverpick(&["solve", dir.to_str().unwrap(), "--time-limit", "-3"]);
    assert_eq!(s.status.code(), Some(2));
    let s = serverpick(&["frobnicate"]);
    assert_eq!(s.status.code(), Some(2));
}

#[test]
fn eval_flags_an_infeasible_solution() {
    let dir = tempfile::tempdir().unwrap();
    let inst = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/spd-fig5-zizo-fails.json");
    let sol = dir.path().join("nearest.json");
    // every client at its nearest server: pair delay 19 > μ = 18
    std::fs::write(&sol, r#"{"assign": [0, 1, 1]}"#).unwrap();
    let e = serverpick(&["eval", inst.to_str().unwrap(), sol.to_str().unwrap()]);
    assert_eq!(e.status.code(), Some(1));
    let out = text(&e.stdout);
    assert!(
        out.contains("delay      19.000") && out.contains("exceeds the bound"),
        "{out}"
    );
}

#[test]
fn spdvr_from_a_computed_start_and_from_the_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances");
    let pl = dir.join("planetlabdata_1-cs-20s-60c-f1-s11.json");
    let s = serverpick(&[
        "solve",
        pl.to_str().unwrap(),
        "--problem",
        "spdvr",
        "--start",
        "spdcs-h",
    ]);
    assert!(s.status.success(), "{}", text(&s.stderr));
    let out = text(&s.stdout);
    assert!(
        out.contains("var. before") && out.contains("chains") && out.contains("optimal"),
        "{out}"
    );
    let ex = dir.join("spd-formats-example.json");
    let s = serverpick(&[
        "solve",
        ex.to_str().unwrap(),
        "--problem",
        "spdvr",
        "--engine",
        "chains",
    ]);
    assert!(s.status.success(), "{}", text(&s.stderr));
    // no start in the file and none named: a usage error naming the way out
    let s = serverpick(&["solve", pl.to_str().unwrap(), "--problem", "spdvr"]);
    assert_eq!(s.status.code(), Some(2));
    assert!(text(&s.stderr).contains("--start"), "{}", text(&s.stderr));
}
