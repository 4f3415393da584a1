//! External engines (issue 22): a command in any language runs beside the
//! built-in engines, judged by the same evaluator; every misbehaviour gives
//! exactly one clear row and leaves the others intact.

mod common_cli;

use common_cli::{bundled, serverpick, text};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// cma-small's optimum (exact-flow) and a worse feasible assignment.
const CMA_OPT: f64 = 145.0;
const WORSE: &str = "[0,0,0,1,1,1,2,2]";
const WORSE_TOTAL: f64 = 155.0;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_serverpick")
}

/// Writes `text` to `dir/name` and returns its path.
fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The rows of `out/results.jsonl` by engine (one repetition, one file).
fn rows(out: &Path) -> Vec<Value> {
    let t = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    t.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn by_engine(rows: &[Value]) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    for r in rows {
        let e = r["engine"].as_str().unwrap().to_string();
        assert!(m.insert(e.clone(), r.clone()).is_none(), "two rows for {e}");
    }
    m
}

/// Runs `serverpick bench ARGS -q --out OUT`, which must succeed.
fn bench_ok(out: &Path, args: &[&str]) {
    let mut all = vec!["bench"];
    all.extend_from_slice(args);
    all.extend(["-q", "--out", out.to_str().unwrap()]);
    let o = serverpick(&all);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// No process whose command line contains `marker` is left.
fn none_left(marker: &str) -> bool {
    let out = Command::new("pgrep").args(["-f", marker]).output().unwrap();
    out.stdout.is_empty()
}

fn status(r: &Value) -> (&str, Option<&str>) {
    (r["status"].as_str().unwrap(), r["reason"].as_str())
}

#[test]
fn an_optimum_gets_gap_zero_and_a_worse_answer_the_evaluators_gap() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let opt = serverpick(&[
        "solve",
        &bundled("cma-small.json"),
        "-e",
        "exact-flow",
        "--json",
    ]);
    let opt_line = text(&opt.stdout);
    let answer = write(d, "opt.json", opt_line.lines().next().unwrap());
    let worse = write(d, "worse.json", &format!(r#"{{"assign": {WORSE}}}"#));
    let out = d.join("out");
    bench_ok(
        &out,
        &[
            &bundled("cma-small.json"),
            "-e",
            "j-greedy",
            "--engine-cmd",
            &format!("replay=cp {answer} {{solution}}"),
            "--engine-cmd",
            &format!("worse=cat {worse}"),
        ],
    );
    let r = by_engine(&rows(&out));
    assert_eq!(status(&r["replay"]), ("optimal", None));
    assert_eq!(r["replay"]["gap"].as_f64(), Some(0.0));
    assert_eq!(r["replay"]["objective"].as_f64(), Some(CMA_OPT));
    assert_eq!(status(&r["worse"]), ("feasible", None));
    assert_eq!(r["worse"]["objective"].as_f64(), Some(WORSE_TOTAL));
    let gap = r["worse"]["gap"].as_f64().unwrap();
    assert!(
        (gap - (WORSE_TOTAL - CMA_OPT) / CMA_OPT).abs() < 1e-12,
        "{gap}"
    );
    for e in ["replay", "worse"] {
        assert!(r[e]["cpu_ms"].as_f64().is_some(), "{e}: cpu time recorded");
        assert!(out
            .join("logs")
            .join(format!("{}.{e}.r0.log", safe(&bundled("cma-small.json"))))
            .exists());
    }
}

fn safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[test]
fn every_misbehaviour_gives_one_clear_row_and_the_others_stay() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = format!(r#"{{"solution": {{"assign": {WORSE}}}}}"#);
    let infeasible = write(d, "infeasible.json", r#"{"assign": [0,0,0,0,0,0,0,0]}"#);
    let other = write(
        d,
        "other.json",
        &format!(r#"{{"solution": {{"assign": {WORSE}}}, "instance_sha256": "00ff"}}"#),
    );
    let false_opt = write(
        d,
        "false-opt.json",
        &format!(
            r#"{{"solution": {{"assign": {WORSE}}}, "status": "optimal", "bound": {WORSE_TOTAL}}}"#
        ),
    );
    let forker = write(
        d,
        "forker.sh",
        &format!("sleep 7.125 &\nprintf '%s' '{good}'\n"),
    );
    let stubborn = write(
        d,
        "stubborn.sh",
        "trap '' TERM\nwhile :; do sleep 0.0517; done\n",
    );
    let flood = write(d, "flood.sh", "head -c 100000000 /dev/zero | tr '\\0' x\n");
    let engines: Vec<(&str, String)> = vec![
        ("exit1", "sh -c 'echo boom >&2; exit 1'".into()),
        ("segv", "sh -c 'kill -SEGV $$'".into()),
        ("sleeper", "sleep 7.123".into()),
        ("stubborn", format!("sh {stubborn}")),
        ("forker", format!("sh {forker}")),
        ("flood", format!("sh {flood}")),
        (
            "nonjson",
            "sh -c 'echo not json > \"$0\"' {solution}".into(),
        ),
        ("infeasible", format!("cat {infeasible}")),
        ("other", format!("cat {other}")),
        ("false-opt", format!("cp {false_opt} {{solution}}")),
        ("missing", "true".into()),
    ];
    let out = d.join("out");
    let mut args: Vec<String> = [
        "bench",
        &bundled("cma-small.json"),
        "-e",
        "j-greedy,exact-flow",
    ]
    .map(String::from)
    .to_vec();
    for (name, cmd) in &engines {
        args.push("--engine-cmd".into());
        args.push(format!("{name}={cmd}"));
    }
    args.extend(["--time-limit", "1", "--jobs", "2", "-q", "--out"].map(String::from));
    args.push(out.display().to_string());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = serverpick(&argv);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a false optimum is a CONFLICT: {}",
        text(&o.stderr)
    );
    let r = by_engine(&rows(&out));
    assert_eq!(r.len(), engines.len() + 2, "one row per engine");
    assert_eq!(status(&r["j-greedy"]), ("feasible", None));
    assert_eq!(status(&r["exact-flow"]), ("optimal", None));
    let says = |e: &str, st: (&str, Option<&str>), words: &[&str]| {
        assert_eq!(status(&r[e]), st, "{e}: {}", r[e]);
        let m = r[e]["message"].as_str().unwrap_or_default();
        for w in words {
            assert!(m.contains(w), "{e}: message {m:?} lacks {w:?}");
        }
    };
    let failed = ("error", Some("command_failed"));
    let rejected = ("error", Some("rejected"));
    says("exit1", failed, &["exited with code 1", "boom", "log:"]);
    says("segv", failed, &["SIGSEGV"]);
    says(
        "sleeper",
        ("time_limit", None),
        &["killed at the time limit"],
    );
    says(
        "stubborn",
        ("time_limit", None),
        &["killed at the time limit"],
    );
    says("forker", ("feasible", None), &[]);
    says("flood", rejected, &["cut"]);
    says("nonjson", rejected, &["not JSON"]);
    says("infeasible", rejected, &["evaluator rejects"]);
    says("other", rejected, &["another instance"]);
    says(
        "missing",
        ("error", Some("no_solution")),
        &["wrote no solution"],
    );
    assert_eq!(r["false-opt"]["check"].as_str(), Some("CONFLICT"));
    for e in ["sleeper", "stubborn"] {
        // Killed by the runner at its limit, never before it. How soon after
        // it (limit + grace) is a timing: scripts/limits_harness.sh X1.
        assert_eq!(r[e]["stop"].as_str(), Some("time_limit"), "{e}");
        let ms = r[e]["time_ms"].as_f64().unwrap();
        assert!(
            ms >= 1000.0,
            "{e} ended after {ms} ms, before its 1 s limit"
        );
    }
    for marker in ["sleep 7.123", "sleep 7.125", "sleep 0.0517"] {
        assert!(none_left(marker), "a '{marker}' process survived");
    }
    let log = std::fs::metadata(
        out.join("logs")
            .join(format!("{}.flood.r0.log", safe(&bundled("cma-small.json")))),
    )
    .unwrap();
    assert!(
        log.len() < 2 << 20,
        "the flood's log is capped: {} bytes",
        log.len()
    );
}

#[test]
fn a_memory_limit_stops_a_greedy_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    bench_ok(
        &out,
        &[
            &bundled("cma-small.json"),
            "-e",
            "j-greedy",
            "--engine-cmd",
            "hog=python3 -c 'bytearray(400 << 20)'",
            "--engine-mem-limit",
            "100",
        ],
    );
    let r = by_engine(&rows(&out));
    assert_eq!(status(&r["hog"]), ("error", Some("command_failed")));
    assert!(r["hog"]["message"]
        .as_str()
        .unwrap()
        .contains("MemoryError"));
}

fn bench_child(inst: &Path, cmd: &str, out: &Path, resume: bool) -> std::process::Child {
    let mut c = Command::new(bin());
    c.args([
        "bench",
        inst.to_str().unwrap(),
        "-e",
        "j-greedy",
        "--jobs",
        "1",
        "-q",
    ]);
    c.args(["--engine-cmd", cmd, "--out", out.to_str().unwrap()]);
    if resume {
        c.arg("--resume");
    }
    c.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// (file, engine, repetition) → (status, objective).
fn keyed(out: &Path) -> BTreeMap<(String, String, u64), (String, Option<f64>)> {
    rows(out)
        .iter()
        .map(|v| {
            (
                (
                    v["file"].as_str().unwrap().to_string(),
                    v["engine"].as_str().unwrap().to_string(),
                    v["repetition"].as_u64().unwrap(),
                ),
                (
                    v["status"].as_str().unwrap().to_string(),
                    v["objective"].as_f64(),
                ),
            )
        })
        .collect()
}

/// Three copies of cma-small and a slow external engine.
fn slow_setup(d: &Path) -> (PathBuf, String) {
    let inst = d.join("inst");
    std::fs::create_dir(&inst).unwrap();
    let small = std::fs::read_to_string(bundled("cma-small.json")).unwrap();
    for f in ["a", "b", "c"] {
        write(&inst, &format!("{f}.json"), &small);
    }
    let answer = write(d, "answer.json", &format!(r#"{{"assign": {WORSE}}}"#));
    let script = write(d, "slow.sh", &format!("sleep 0.813\ncat {answer}\n"));
    (inst, format!("slow=sh {script}"))
}

#[test]
fn ctrl_c_kills_the_commands_keeps_finished_rows_and_resume_completes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (inst, cmd) = slow_setup(d);
    let full = d.join("full");
    assert!(bench_child(&inst, &cmd, &full, false)
        .wait()
        .unwrap()
        .success());
    let expected = keyed(&full);
    assert_eq!(expected.len(), 6);
    let cut = d.join("cut");
    let mut child = bench_child(&inst, &cmd, &cut, false);
    std::thread::sleep(Duration::from_millis(1200));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let code = child.wait().unwrap().code();
    assert_eq!(code, Some(130), "an interrupted bench exits 130");
    assert!(none_left("sleep 0.813"), "the running command was killed");
    let kept = keyed(&cut);
    assert!(kept.len() < expected.len(), "{kept:?}");
    assert!(
        kept.values().all(|(s, _)| s != "time_limit"),
        "no half-run row kept: {kept:?}"
    );
    assert!(bench_child(&inst, &cmd, &cut, true)
        .wait()
        .unwrap()
        .success());
    assert_eq!(keyed(&cut), expected);
}

#[test]
fn shards_with_external_engines_merge_to_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (inst, _) = slow_setup(d);
    let answer = d.join("answer.json").display().to_string();
    let cmd = format!("quick=cat {answer}");
    let run = |out: &Path, shard: Option<&str>| {
        let mut a = vec![
            "bench",
            inst.to_str().unwrap(),
            "-e",
            "j-greedy,exact-flow",
            "-q",
        ];
        a.extend(["--engine-cmd", &cmd, "--out", out.to_str().unwrap()]);
        if let Some(s) = shard {
            a.extend(["--shard", s]);
        }
        let o = serverpick(&a);
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    run(&d.join("one"), None);
    run(&d.join("s0"), Some("0/2"));
    run(&d.join("s1"), Some("1/2"));
    let merged = d.join("merged");
    let o = serverpick(&[
        "bench-merge",
        d.join("s0").to_str().unwrap(),
        d.join("s1").to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(keyed(&merged), keyed(&d.join("one")));
    assert_eq!(keyed(&merged).len(), 9);
}

#[test]
fn an_engines_file_restricts_families_and_sets_env_and_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "answer.json", &format!(r#"{{"assign": {WORSE}}}"#));
    let toml = write(
        d,
        "engines.toml",
        r#"
[[engine]]
name = "from-file"
command = ["sh", "-c", "test \"$MARK\" = yes && cat answer.json"]
families = ["cma"]
env = { MARK = "yes" }
"#,
    );
    let out = d.join("out");
    bench_ok(
        &out,
        &[
            &bundled("cma-small.json"),
            &bundled("spd-fig1-cs.json"),
            "-e",
            "j-greedy,spdcs-h",
            "--engines-file",
            &toml,
        ],
    );
    let rs = rows(&out);
    let mine: Vec<&Value> = rs.iter().filter(|r| r["engine"] == "from-file").collect();
    assert_eq!(mine.len(), 1, "cma only");
    assert_eq!(status(mine[0]), ("feasible", None));
    // A bad engines file names the file and the entry.
    let bad = write(
        d,
        "bad.toml",
        "[[engine]]\nname = \"x\"\ncommand = [\"run\", \"{nope}\"]\n",
    );
    let o = serverpick(&["bench", &bundled("cma-small.json"), "--engines-file", &bad]);
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("bad.toml") && e.contains("engine[0]") && e.contains("{nope}"),
        "{e}"
    );
}

#[test]
fn solve_runs_external_engines_beside_built_in_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let answer = write(d, "answer.json", &format!(r#"{{"assign": {WORSE}}}"#));
    let o = serverpick(&[
        "solve",
        &bundled("cma-small.json"),
        &bundled("spd-fig1-cs.json"),
        "-e",
        "exact-flow,mine",
        "--engine-cmd",
        &format!("mine@cma=cat {answer}"),
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let recs: Vec<Value> = text(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let engines: Vec<&str> = recs.iter().map(|r| r["engine"].as_str().unwrap()).collect();
    assert_eq!(engines, ["exact-flow", "mine"], "mine is for cma only");
    assert_eq!(recs[1]["objective"].as_f64(), Some(WORSE_TOTAL));
    assert!(recs[1]["instance_sha256"]
        .as_str()
        .is_some_and(|s| s.len() == 64));
    // A name clash with a built-in engine is refused up front.
    let o = serverpick(&[
        "solve",
        &bundled("cma-small.json"),
        "--engine-cmd",
        "exact=true",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("built-in"));
}

#[test]
fn solution_files_from_elsewhere_are_imported_matched_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sols = d.join("sols");
    let o = serverpick(&[
        "solve",
        &bundled("cma-small.json"),
        &bundled("spd-fig1-cs.json"),
        "-e",
        "j-greedy,spdcs-h",
        "--out",
        sols.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // A solution for another version of cma-small: its name matches, its
    // hash does not.
    write(
        &sols,
        "stale.json",
        &format!(
            r#"{{"instance": "small-static", "engine": "stale", "instance_sha256": "{}", "solution": {{"assign": {WORSE}}}}}"#,
            "ab".repeat(32)
        ),
    );
    let out = d.join("out");
    bench_ok(
        &out,
        &[
            &bundled("cma-small.json"),
            &bundled("spd-fig1-cs.json"),
            "-e",
            "exact-flow,exact",
            "--solutions",
            sols.to_str().unwrap(),
        ],
    );
    let rs = rows(&out);
    let get = |inst: &str, e: &str| {
        rs.iter()
            .find(|r| r["instance"] == inst && r["engine"] == e)
            .unwrap_or_else(|| panic!("no {e} row for {inst}"))
    };
    assert_eq!(status(get("small-static", "j-greedy")), ("feasible", None));
    assert_eq!(status(get("spd-fig1-cs", "spdcs-h")), ("feasible", None));
    assert!(get("small-static", "j-greedy")["gap"].as_f64().unwrap() > 0.0);
    let stale = get("small-static", "stale");
    assert_eq!(status(stale), ("error", Some("rejected")));
    assert!(stale["message"]
        .as_str()
        .unwrap()
        .contains("another version"));
}

#[test]
fn the_bundled_examples_run_as_engines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ex = root.join("examples/external");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let cover = format!(
        "cover@spd=python3 {} {{instance}} {{solution}}",
        ex.join("spd_set_cover.py").display()
    );
    let regret = format!(
        "regret@cma=python3 {} {{instance}} {{solution}}",
        ex.join("cma_regret_greedy.py").display()
    );
    let shell = format!(
        "shell@cma=sh -c '{} solve \"$0\" -e j-greedy --json' {{instance}}",
        bin()
    );
    bench_ok(
        &out,
        &[
            &bundled("spd-fig1-cs.json"),
            &bundled("spd-fig1-p2p.json"),
            &bundled("cma-small.json"),
            "-e",
            "exact,exact-flow,j-greedy",
            "--engine-cmd",
            &cover,
            "--engine-cmd",
            &regret,
            "--engine-cmd",
            &shell,
        ],
    );
    let rs = rows(&out);
    let of = |e: &str| rs.iter().filter(|r| r["engine"] == e).collect::<Vec<_>>();
    assert_eq!(of("cover").len(), 2);
    for r in of("cover")
        .into_iter()
        .chain(of("regret"))
        .chain(of("shell"))
    {
        assert_eq!(status(r), ("feasible", None), "{r}");
        assert!(r["gap"].as_f64().unwrap() >= 0.0);
    }
    // The one-liner replays j-greedy: the same objective.
    assert_eq!(of("shell")[0]["objective"], of("j-greedy")[0]["objective"]);
    // The engines file declares the same two scripts.
    let out2 = dir.path().join("out2");
    bench_ok(
        &out2,
        &[
            &bundled("spd-fig1-cs.json"),
            &bundled("cma-small.json"),
            "-e",
            "exact",
            "--engines-file",
            ex.join("engines.toml").to_str().unwrap(),
        ],
    );
    let again = rows(&out2);
    for e in ["cover", "regret"] {
        let r: Vec<&Value> = again.iter().filter(|r| r["engine"] == e).collect();
        assert_eq!(r.len(), 1, "{e}");
        assert_eq!(status(r[0]), ("feasible", None), "{e}");
        assert_eq!(r[0]["objective"], of(e)[0]["objective"], "{e}");
    }
    // On Fig. 1 (CS) greedy set cover finds the optimum's two hosts.
    let cs = of("cover")
        .into_iter()
        .find(|r| r["instance"] == "spd-fig1-cs")
        .unwrap();
    assert_eq!(cs["hosts"].as_f64(), Some(2.0));
}

#[test]
fn eval_refuses_a_solution_file_of_another_version_of_the_instance() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sols = d.join("sols");
    let o = serverpick(&[
        "solve",
        &bundled("cma-small.json"),
        "-e",
        "j-greedy",
        "--out",
        sols.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let sol = sols.join("small-static.j-greedy.solution.json");
    let sol = sol.to_str().unwrap();
    assert!(serverpick(&["eval", &bundled("cma-small.json"), sol])
        .status
        .success());
    // The same instance, one byte different (a trailing newline): refused.
    let edited = std::fs::read_to_string(bundled("cma-small.json")).unwrap() + "\n";
    let copy = write(d, "cma-small.json", &edited);
    let o = serverpick(&["eval", &copy, sol]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("instance_sha256"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn each_repetition_gets_its_own_seed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let answer = write(d, "answer.json", &format!(r#"{{"assign": {WORSE}}}"#));
    let out = d.join("out");
    bench_ok(
        &out,
        &[
            &bundled("cma-small.json"),
            "-e",
            "j-greedy",
            "--engine-cmd",
            &format!("seeded=sh -c 'echo seed=$0 >&2; cat {answer}' {{seed}}"),
            "--repeat",
            "2",
            "--seed",
            "40",
        ],
    );
    let key = safe(&bundled("cma-small.json"));
    for (k, seed) in [(0, 40), (1, 41)] {
        let log = std::fs::read_to_string(out.join("logs").join(format!("{key}.seeded.r{k}.log")))
            .unwrap();
        assert!(log.contains(&format!("seed={seed}")), "{log}");
    }
}
