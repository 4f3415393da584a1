//! The command line's contract with a user (issues 15 and 16): one
//! vocabulary across commands, clear refusals with exit 2, no panic on a
//! closed pipe or a full disk, no silent overwrite, no false alarm.

mod common_cli;

use common_cli::{serverpick, text};
use std::path::{Path, PathBuf};
use std::process::Command;

fn instance(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("instances")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn engine_and_engines_are_both_accepted_everywhere() {
    let cs = instance("spd-fig1-cs.json");
    for flag in ["--engine", "--engines"] {
        let o = serverpick(&["solve", &cs, flag, "spdcs-h"]);
        assert!(o.status.success(), "solve {flag}: {}", text(&o.stderr));
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("b");
        let o = serverpick(&[
            "bench",
            &cs,
            flag,
            "spdcs-h",
            "-q",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "bench {flag}: {}", text(&o.stderr));
    }
}

#[test]
fn a_problem_or_engine_of_another_family_is_refused_with_exit_2() {
    let cma = instance("cma-small.json");
    let o = serverpick(&["solve", &cma, "--problem", "spdvr"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("cannot be solved as 'spdvr'"));
    let o = serverpick(&[
        "solve",
        &instance("spd-fig1-cs.json"),
        "--engine",
        "j-greedy",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no engine of --engine j-greedy solves a 'spd' instance"));
    assert!(text(&o.stderr).contains("nothing was solved"));
    let o = serverpick(&["solve", &cma, "--start", "spdcs-h"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--start does not apply"));
}

#[test]
fn repro_help_lists_only_its_familys_parameters() {
    let o = serverpick(&["repro", "cma", "--help"]);
    assert!(o.status.success());
    assert!(!text(&o.stdout).contains("kbest"), "{}", text(&o.stdout));
    let o = serverpick(&["repro", "spd", "--help"]);
    assert!(text(&o.stdout).contains("--kbest-max-subsets"));
}

fn solve_out(inst: &str, out: &Path) {
    let o = serverpick(&[
        "solve",
        inst,
        "--engine",
        "spdcs-h",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn eval_refuses_a_solution_written_for_another_instance_and_speaks_json() {
    let dir = tempfile::tempdir().unwrap();
    solve_out(&instance("spd-fig1-cs.json"), dir.path());
    let sol = dir.path().join("spd-fig1-cs.spdcs-h.solution.json");
    let sol = sol.to_str().unwrap();
    let o = serverpick(&[
        "eval",
        &instance("planetlabdata_1-cs-20s-60c-f1-s11.json"),
        sol,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert!(text(&o.stderr).contains("written for instance 'spd-fig1-cs'"));
    let o = serverpick(&["eval", &instance("spd-fig1-cs.json"), sol, "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["feasible"], true);
    assert_eq!(v["metrics"]["hosts"].as_f64(), v["objective"].as_f64());
}

#[test]
fn two_files_with_one_instance_name_do_not_overwrite_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    let text_of = std::fs::read_to_string(instance("spd-fig1-cs.json")).unwrap();
    for f in ["a.json", "b.json"] {
        std::fs::write(inputs.join(f), &text_of).unwrap();
    }
    let out = dir.path().join("out");
    solve_out(inputs.to_str().unwrap(), &out);
    let files: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
}

#[test]
fn a_closed_pipe_is_quiet_and_a_full_disk_is_reported() {
    let bin = env!("CARGO_BIN_EXE_serverpick");
    let dir = instance("");
    let o = Command::new("bash")
        .args([
            "-o",
            "pipefail",
            "-c",
            &format!("'{bin}' solve '{dir}' --engine alg-m --json | head -c 1"),
        ])
        .output()
        .unwrap();
    assert!(!text(&o.stderr).contains("panicked"), "{}", text(&o.stderr));
    assert!(o.status.success(), "{}", text(&o.stderr));
    if Path::new("/dev/full").exists() {
        let tmp = tempfile::tempdir().unwrap();
        solve_out(&instance("spd-fig1-cs.json"), tmp.path());
        let sol = tmp.path().join("spd-fig1-cs.spdcs-h.solution.json");
        let o = Command::new("bash")
            .args([
                "-c",
                &format!(
                    "'{bin}' eval '{}' '{}' > /dev/full",
                    instance("spd-fig1-cs.json"),
                    sol.display()
                ),
            ])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains("cannot write the output"));
        assert!(!text(&o.stderr).contains("panicked"));
    }
}

/// Issue 15.1: exact-flow's optimum and j-sa's equal total differ in the
/// last digits on a 30,000-client file; that is no contradiction.
#[test]
fn rounding_noise_between_exact_engines_is_no_false_alarm() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.json");
    let g = serverpick(&[
        "gen",
        "cma",
        "--scenario",
        "static",
        "--mirrors",
        "10",
        "--clients",
        "30000",
        "--seed",
        "1",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(g.status.success(), "{}", text(&g.stderr));
    let o = serverpick(&["solve", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    assert!(!text(&o.stderr).contains("BUG"));
}

#[test]
fn bench_merge_warns_of_missing_and_repeated_shards_and_keeps_existing_results() {
    let dir = tempfile::tempdir().unwrap();
    let s0 = dir.path().join("s0");
    let inst = instance("spd-fig1-cs.json");
    let o = serverpick(&[
        "bench",
        &inst,
        "--shard",
        "0/2",
        "-q",
        "--out",
        s0.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let merged = dir.path().join("m");
    let (s, m) = (s0.to_str().unwrap(), merged.to_str().unwrap());
    let o = serverpick(&["bench-merge", s, s, "--out", m]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("shard 0/2 is given twice"), "{err}");
    assert!(err.contains("shard(s) 1/2 missing"), "{err}");
    let o = serverpick(&["bench-merge", s, "--out", m]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "merging into a folder with results"
    );
}

#[test]
fn a_solution_file_is_an_spdvr_start() {
    let dir = tempfile::tempdir().unwrap();
    let inst = instance("planetlabdata_1-cs-20s-60c-f1-s11.json");
    solve_out(&inst, dir.path());
    let start = dir
        .path()
        .join("planetlabdata_1-cs-20s-60c-f1-s11.spdcs-h.solution.json");
    let by_file = serverpick(&[
        "solve",
        &inst,
        "--start",
        start.to_str().unwrap(),
        "--engine",
        "chains",
        "--json",
    ]);
    assert!(by_file.status.success(), "{}", text(&by_file.stderr));
    let by_engine = serverpick(&[
        "solve", &inst, "--start", "spdcs-h", "--engine", "chains", "--json",
    ]);
    let a: serde_json::Value = serde_json::from_slice(&by_file.stdout).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&by_engine.stdout).unwrap();
    assert_eq!(a["problem"], "spdvr");
    assert_eq!(a["metrics"], b["metrics"]);
    let o = serverpick(&["solve", &inst, "--start", "no-such-thing"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("neither a solution file nor an SPD engine"));
}

#[test]
fn a_fifo_as_the_instance_file_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo on this system
    }
    let o = serverpick(&["solve", fifo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("not a regular file"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn an_instance_takes_a_whole_solution_file_as_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let inst = instance("spd-fig1-cs.json");
    solve_out(&inst, dir.path());
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("spd-fig1-cs.spdcs-h.solution.json")).unwrap(),
    )
    .unwrap();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&inst).unwrap()).unwrap();
    v["problem"] = "spdvr".into();
    v["start"] = record;
    let file = dir.path().join("vr.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let o = serverpick(&[
        "solve",
        file.to_str().unwrap(),
        "--engine",
        "chains",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (r["problem"].as_str(), r["status"].as_str()),
        (Some("spdvr"), Some("optimal"))
    );
}

/// The one solution file `solve --out DIR` wrote, and its record.
fn the_solution_file(dir: &Path) -> (PathBuf, serverpick::core::SolveRecord) {
    let file = std::fs::read_dir(dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let rec = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    (file, rec)
}

/// `solve --json` records say where the time went (issue 25): read, solve,
/// evaluate and, with `--out`, write; the solution file carries the first
/// three and reads back as a record.
#[test]
fn solve_json_records_carry_the_timing_breakdown() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sol");
    let cma = instance("cma-small.json");
    let o = serverpick(&[
        "solve",
        &cma,
        "--engine",
        "j-greedy",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let line: serde_json::Value = serde_json::from_str(text(&o.stdout).trim()).unwrap();
    let timing = &line["timing"];
    for key in ["read_ms", "solve_ms", "evaluate_ms", "write_ms"] {
        let ms = timing[key].as_f64();
        assert!(ms.is_some_and(|ms| ms >= 0.0), "{key} in {timing}");
    }
    assert_eq!(timing["solve_ms"], line["time_ms"]);
    let (_, rec) = the_solution_file(&out);
    let t = rec.timing.expect("timing in the solution file");
    assert!(t.read_ms.is_some() && t.evaluate_ms.is_some() && t.write_ms.is_none());
}

/// SPD `exact` says where its time went by stage (`timing.stages`, in the
/// order they ran, within `solve_ms`): start, hosts, and with the
/// lexicographic stages delay and variation; CS and P2P alike. The
/// solution file keeps them and `eval` accepts it.
#[test]
fn spd_exact_records_carry_stage_times() {
    let cases = [
        ("planetlabdata_1-p2p-20s-60c-f1.1-s11.json", true),
        ("planetlabdata_1-p2p-20s-60c-f1.1-s11.json", false),
        ("planetlabdata_1-cs-20s-60c-f1-s11.json", true),
    ];
    for (file, lexicographic) in cases {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sol");
        let path = instance(file);
        let mut args = vec!["solve", &path, "--engine", "exact", "--json"];
        args.extend(["--out", out.to_str().unwrap()]);
        if !lexicographic {
            args.push("--no-lexicographic");
        }
        let o = serverpick(&args);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let line: serde_json::Value = serde_json::from_str(text(&o.stdout).trim()).unwrap();
        assert_eq!(line["status"], "optimal", "{file}");
        let stages = line["timing"]["stages"].as_array().expect("stages");
        let names: Vec<&str> = stages
            .iter()
            .map(|s| s["stage"].as_str().unwrap())
            .collect();
        let want: &[&str] = if lexicographic {
            &["start", "hosts", "delay", "variation"]
        } else {
            &["start", "hosts"]
        };
        assert_eq!(names, want, "{file}");
        let total: f64 = stages.iter().map(|s| s["ms"].as_f64().unwrap()).sum();
        let solve = line["timing"]["solve_ms"].as_f64().unwrap();
        assert!(stages.iter().all(|s| s["ms"].as_f64().unwrap() >= 0.0));
        assert!(total <= solve * (1.0 + 1e-9), "{total} > {solve}");
        let (sol, rec) = the_solution_file(&out);
        assert_eq!(rec.timing.expect("timing").stages.len(), want.len());
        let e = serverpick(&["eval", &path, sol.to_str().unwrap()]);
        assert!(e.status.success(), "{}", text(&e.stderr));
    }
    // a heuristic reports no stages
    let path = instance("planetlabdata_1-p2p-20s-60c-f1.1-s11.json");
    let o = serverpick(&["solve", &path, "--engine", "spdp2p-h", "--json"]);
    let line: serde_json::Value = serde_json::from_str(text(&o.stdout).trim()).unwrap();
    assert!(line["timing"].get("stages").is_none(), "{line}");
}

/// One `gen spd --model p2p` instance of `servers × clients` at `factor`
/// with `seed`, written into `dir`: its path.
fn gen_p2p(
    dir: &std::path::Path,
    (servers, clients): (usize, usize),
    factor: &str,
    seed: u64,
) -> std::path::PathBuf {
    let (n, m, s) = (servers.to_string(), clients.to_string(), seed.to_string());
    let d = dir.to_str().unwrap();
    let g = serverpick(&[
        "gen",
        "spd",
        "--servers",
        &n,
        "--clients",
        &m,
        "--model",
        "p2p",
        "--factor",
        factor,
        "--count",
        "1",
        "--seed",
        &s,
        "--out",
        d,
    ]);
    assert!(g.status.success(), "{}", text(&g.stderr));
    let f = factor.trim_end_matches(".0");
    dir.join(format!("paper-p2p-{n}s-{m}c-f{f}-s{s}.json"))
}

/// `solve FILE --engine exact --json` with `extra` flags: its one record.
fn exact_json(path: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "solve",
        path.to_str().unwrap(),
        "--engine",
        "exact",
        "--json",
    ];
    args.extend_from_slice(extra);
    let o = serverpick(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_str(text(&o.stdout).trim()).unwrap()
}

/// P2P `exact`'s `hosts` stage lists its decisions as steps (`at most k
/// hosts` and the answer): on one thread every count from 1 up to one
/// below the start's, each refuted, which proves the start's count (a
/// `gen spd` instance where the heuristics' lower bound does not, with a
/// start budget of 1,000 nodes: with the default 40,000 the start's
/// restarted search refutes one host fewer itself). The solution file
/// keeps them.
#[test]
fn p2p_host_stage_lists_its_decisions() {
    let dir = tempfile::tempdir().unwrap();
    let path = gen_p2p(dir.path(), (40, 200), "1.0", 4);
    let out = dir.path().join("sol");
    let out_arg = out.to_str().unwrap();
    let line = exact_json(
        &path,
        &[
            "--threads",
            "1",
            "--no-lexicographic",
            "--host-search-nodes",
            "1000",
            "--out",
            out_arg,
        ],
    );
    assert_eq!(line["status"], "optimal");
    let hosts = line["metrics"]["hosts"].as_u64().unwrap() as usize;
    let stage = &line["timing"]["stages"][1];
    assert_eq!(stage["stage"], "hosts");
    let steps = stage["steps"].as_array().expect("steps");
    let got: Vec<(String, String)> = steps
        .iter()
        .map(|s| {
            (
                s["step"].as_str().unwrap().into(),
                s["result"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = (1..hosts)
        .map(|k| {
            let s = if k == 1 { "" } else { "s" };
            (format!("at most {k} host{s}"), "infeasible".to_string())
        })
        .collect();
    assert!(hosts > 2, "the instance should need a few decisions");
    assert_eq!(got, want);
    assert!(steps.iter().all(|s| s["ms"].as_f64().unwrap() >= 0.0));
    let (_, rec) = the_solution_file(&out);
    let t = rec.timing.expect("timing");
    assert_eq!(t.stages[1].steps.len(), hosts - 1);
}

/// P2P `exact`'s `delay` and `variation` stages list the solutions their
/// descents kept (`delay 583.64`: `feasible`, each better than the one
/// before) and end with the proof below the optimum (`delay below …`:
/// `infeasible`), the optimum being the solution's own metrics.
#[test]
fn p2p_descents_list_their_solutions() {
    let dir = tempfile::tempdir().unwrap();
    let path = gen_p2p(dir.path(), (30, 120), "1.2", 2);
    let line = exact_json(&path, &["--threads", "2"]);
    assert_eq!(line["status"], "optimal");
    let stages = line["timing"]["stages"].as_array().expect("stages");
    let mut kept = 0;
    for name in ["delay", "variation"] {
        let stage = stages.iter().find(|s| s["stage"] == name).expect(name);
        let steps = stage["steps"].as_array().expect("steps");
        let (last, found) = steps.split_last().expect("the proof's step");
        let optimum = line["metrics"][name].as_f64().unwrap();
        assert_eq!(last["step"], format!("{name} below {optimum}"));
        assert_eq!(last["result"], "infeasible");
        let values: Vec<f64> = found
            .iter()
            .map(|s| {
                assert_eq!(s["result"], "feasible");
                let step = s["step"].as_str().unwrap();
                step[name.len() + 1..].parse().unwrap()
            })
            .collect();
        assert!(values.windows(2).all(|w| w[1] <= w[0]), "{values:?}");
        if let Some(v) = values.last() {
            assert_eq!(*v, optimum);
        }
        kept += values.len();
    }
    assert!(kept > 0, "the descents should improve on the start here");
}
