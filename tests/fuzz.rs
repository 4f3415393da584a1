//! The fuzz harness (issue 15): structured mutations of every bundled
//! instance (every family: the corpus is `instances/*.json` plus
//! `tests/fuzz/*.json`), of solution files and of command lines, run
//! through the real binary. The oracle:
//!
//! - no panic, no abort, no hang: every run exits 0, 1 or 2 within
//!   [`HANG_SECS`], and stderr never says "panicked at";
//! - invalid input exits 2 with a message that names the file;
//! - on input `solve` accepts, no engine's solution is rejected by the
//!   evaluator and no engine contradicts another (`solve` never exits 1).
//!
//! CI replays a fixed stream of [`DEFAULT_CASES`] cases. On demand:
//! `SERVERPICK_FUZZ_SECONDS=3600 SERVERPICK_FUZZ_SEED=7 cargo test --release
//! --test fuzz -- --nocapture` runs for an hour (any seed) and prints counts
//! (`SERVERPICK_BIN=/path/to/a/copy` tests a copy of the binary, so the tree
//! can be rebuilt meanwhile).

use rand::seq::IndexedRandom;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Cases per family of mutation in CI.
const DEFAULT_CASES: usize = 120;
/// A run longer than this is a hang (every run is given --time-limit 2).
const HANG_SECS: u64 = 60;

/// The binary under test: `SERVERPICK_BIN` (a copy, for long runs while the
/// tree is rebuilt) or the one cargo built.
fn bin() -> String {
    std::env::var("SERVERPICK_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_serverpick").into())
}

fn corpus() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("instances"), root.join("tests/fuzz")] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
        {
            let text = std::fs::read_to_string(&p).unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), v));
        }
    }
    out
}

/// What a run did.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], dir: &Path) -> Run {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let started = Instant::now();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let so = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let se = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if started.elapsed() > Duration::from_secs(HANG_SECS) {
            child.kill().ok();
            panic!("hang: {args:?} ran over {HANG_SECS} s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: so.join().unwrap(),
        stderr: se.join().unwrap(),
    }
}

/// A value the mutator plants: wrong types, extremes, empties, and sizes a
/// reader must refuse before allocating (issue 29: 1e11, 2³², 1e20).
fn odd_value(rng: &mut ChaCha8Rng) -> Value {
    let choices: [fn(&mut ChaCha8Rng) -> Value; 15] = [
        |_| Value::from(100_000_000_000u64),
        |_| Value::from(4_294_967_296u64),
        |_| Value::from(1e20),
        |_| Value::Null,
        |_| Value::Bool(true),
        |_| Value::from(-1),
        |_| Value::from(0),
        |_| Value::from(u64::MAX),
        |_| Value::from(1e308),
        |_| Value::from(-1e-300),
        |_| Value::from("NaN"),
        |_| Value::Array(vec![]),
        |_| Value::Object(Map::new()),
        |r| Value::from(r.random_range(0..100_000u64)),
        |r| Value::from(r.random_range(-1e12..1e12f64)),
    ];
    (choices.choose(rng).unwrap())(rng)
}

/// Mutates one random node of `v` (a key dropped, a value replaced, an array
/// grown, shrunk or shuffled, a number scaled).
fn mutate(v: &mut Value, rng: &mut ChaCha8Rng) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            let keys: Vec<String> = m.keys().cloned().collect();
            let k = keys.choose(rng).unwrap().clone();
            match rng.random_range(0..10) {
                0 => {
                    m.remove(&k);
                }
                1 => {
                    m.insert(format!("{k}_x"), odd_value(rng));
                }
                2 | 3 => {
                    m.insert(k, odd_value(rng));
                }
                _ => mutate(m.get_mut(&k).unwrap(), rng),
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.random_range(0..a.len());
            match rng.random_range(0..8) {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let x = a[i].clone();
                    a.push(x);
                }
                2 => {
                    let j = rng.random_range(0..a.len());
                    a.swap(i, j)
                }
                3 => a[i] = odd_value(rng),
                _ => mutate(&mut a[i], rng),
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            *v = match rng.random_range(0..5) {
                0 => Value::from(-x),
                1 => Value::from(x * 1e9),
                2 => Value::from(x + 1.0),
                3 => Value::from(x.floor() as i64 + 1),
                _ => odd_value(rng),
            };
        }
        _ => *v = odd_value(rng),
    }
}

/// Valid-looking changes: numbers replaced by others of the same kind
/// (whole numbers stay whole and >= 0, latencies stay >= 0, with ties and
/// zeros likely), so the engines see many instances the readers accept.
fn perturb(v: &mut Value, rng: &mut ChaCha8Rng, p: f64) {
    match v {
        Value::Object(m) => m
            .iter_mut()
            .filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "version" | "servers" | "mirrors" | "nodes" | "cells"
                )
            })
            .for_each(|(_, x)| perturb(x, rng, p)),
        Value::Array(a) => a.iter_mut().for_each(|x| perturb(x, rng, p)),
        Value::Number(n) if rng.random_bool(p) => {
            *v = match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => Value::from(rng.random_range(0..=u.saturating_mul(2).max(3))),
                (None, Some(x)) => Value::from(match rng.random_range(0..4) {
                    0 => 0.0,
                    1 => x.abs().round(),
                    _ => x.abs() * rng.random_range(0.0..3.0),
                }),
                _ => Value::from(0),
            }
        }
        _ => {}
    }
}

/// The largest char boundary of `s` at or below `i`.
fn boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Text-level damage: truncation, a duplicated key, stray bytes.
fn damage(text: &str, rng: &mut ChaCha8Rng) -> String {
    match rng.random_range(0..3) {
        0 => text[..boundary(text, text.len() * rng.random_range(1..10) / 10)].to_string(),
        1 => text.replacen('{', r#"{"name": "dup", "name": "dup", "#, 1),
        _ => {
            let at = boundary(text, rng.random_range(0..text.len()));
            let mut s = text.to_string();
            s.insert_str(at, ["\u{0}", "}", ",", "\"", "[[["][rng.random_range(0..5)]);
            s
        }
    }
}

fn check_common(r: &Run, what: &str) {
    assert!(
        matches!(r.code, 0..=2),
        "{what}: exit {} (abort?)\n{}",
        r.code,
        r.stderr
    );
    assert!(
        !r.stderr.contains("panicked at"),
        "{what}: panic\n{}",
        r.stderr
    );
}

/// One instance case; returns whether `solve` accepted the input.
fn instance_case(rng: &mut ChaCha8Rng, corpus: &[(String, Value)], dir: &Path) -> bool {
    let (name, base) = corpus.choose(rng).unwrap();
    let text = if rng.random_range(0..6) == 0 {
        damage(&serde_json::to_string(base).unwrap(), rng)
    } else if rng.random_bool(0.5) {
        let mut v = base.clone();
        let share = rng.random_range(0.02..0.3);
        perturb(&mut v, rng, share);
        serde_json::to_string(&v).unwrap()
    } else {
        let mut v = base.clone();
        for _ in 0..rng.random_range(1..4) {
            mutate(&mut v, rng);
        }
        serde_json::to_string(&v).unwrap()
    };
    let file = format!("case-{}.json", rng.next_u32());
    std::fs::write(dir.join(&file), &text).unwrap();
    let what = format!(
        "solve {file} (from {name}): {}",
        &text[..boundary(&text, 400)]
    );
    let r = run(&["solve", &file, "--json", "--time-limit", "2"], dir);
    check_common(&r, &what);
    assert_ne!(
        r.code, 1,
        "{what}: engines contradict each other\n{}",
        r.stderr
    );
    if r.code == 2 {
        assert!(
            r.stderr.contains(&file),
            "{what}: the message names no file\n{}",
            r.stderr
        );
        return false;
    }
    for line in r.stdout.lines() {
        let rec: Value = serde_json::from_str(line).unwrap();
        assert_ne!(
            rec["reason"], "rejected",
            "{what}: an engine's solution was rejected\n{line}"
        );
        assert_ne!(rec["reason"], "panicked", "{what}: {line}");
    }
    true
}

/// One solution-file case: a solved bundled instance's solution, mutated.
fn solution_case(rng: &mut ChaCha8Rng, solutions: &[(String, String, Value)], dir: &Path) {
    let (inst, file, base) = solutions.choose(rng).unwrap();
    let mut v = base.clone();
    for _ in 0..rng.random_range(1..4) {
        mutate(&mut v, rng);
    }
    let sol = dir.join(format!("sol-{}.json", rng.next_u32()));
    std::fs::write(&sol, serde_json::to_string(&v).unwrap()).unwrap();
    let r = run(&["eval", inst, sol.to_str().unwrap()], dir);
    check_common(&r, &format!("eval {inst} on a mutation of {file}: {v}"));
}

/// One command-line case: flags and values from the vocabulary, shuffled.
fn cli_case(rng: &mut ChaCha8Rng, inst: &str, dir: &Path) {
    let commands = [
        "solve",
        "eval",
        "bench",
        "gen",
        "simulate",
        "repro",
        "bench-merge",
    ];
    let flags = [
        "--engine",
        "--engines",
        "--time-limit",
        "--problem",
        "--start",
        "--out",
        "--seed",
        "--json",
        "--wide",
        "--kbest-max-subsets",
        "--lexicographic",
        "--shard",
        "--repeat",
        "--jobs",
        "--policy",
        "--servers",
        "--clients",
        "--mirrors",
        "--slack",
        "--help",
    ];
    let values = [
        "all",
        "exact",
        "-1",
        "0",
        "1",
        "NaN",
        "1e400",
        "cs",
        "spdvr",
        "x/0",
        "0/0",
        "j-sa/l-sa",
        "18446744073709551616",
        "",
        "none",
        inst,
    ];
    let mut args: Vec<String> = vec![commands.choose(rng).unwrap().to_string()];
    if rng.random_range(0..3) > 0 {
        args.push(inst.to_string());
    }
    for _ in 0..rng.random_range(0..5) {
        args.push(flags.choose(rng).unwrap().to_string());
        if rng.random_range(0..4) > 0 {
            args.push(values.choose(rng).unwrap().to_string());
        }
    }
    // Generators must not write huge files in the harness: cap their sizes.
    if args[0] == "gen" || args[0] == "repro" {
        return;
    }
    let out = dir.join(format!("o-{}", rng.next_u32()));
    if args.iter().any(|a| a == "--out") || args[0] == "bench" {
        args.push("--out".into());
        args.push(out.display().to_string());
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(&refs, dir);
    check_common(&r, &format!("{args:?}"));
}

fn budget() -> (usize, Option<Duration>) {
    let secs = std::env::var("SERVERPICK_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok());
    (DEFAULT_CASES, secs.map(Duration::from_secs))
}

fn seed() -> u64 {
    std::env::var("SERVERPICK_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_123)
}

#[test]
fn fuzz_instances_solutions_and_command_lines() {
    let corpus = corpus();
    assert!(corpus.len() >= 5, "corpus");
    let dir = tempfile::tempdir().unwrap();
    let inst_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances");
    // Solutions to mutate: every bundled instance's solution files.
    let sol_dir = dir.path().join("solutions");
    let inst = inst_dir.display().to_string();
    let r = run(
        &["solve", &inst, "--out", sol_dir.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut solutions = Vec::new();
    for e in std::fs::read_dir(&sol_dir).unwrap() {
        let p = e.unwrap().path();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let Some(name) = v["instance"].as_str() else {
            continue;
        };
        let file = inst_dir.join(format!("{name}.json"));
        if file.exists() {
            solutions.push((file.display().to_string(), p.display().to_string(), v));
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed());
    let (cases, limit) = budget();
    let started = Instant::now();
    let (mut n, mut accepted) = (0usize, 0usize);
    loop {
        let done = match limit {
            Some(l) => started.elapsed() >= l,
            None => n >= cases,
        };
        if done {
            break;
        }
        accepted += usize::from(instance_case(&mut rng, &corpus, dir.path()));
        solution_case(&mut rng, &solutions, dir.path());
        let one = corpus.choose(&mut rng).unwrap();
        cli_case(
            &mut rng,
            &inst_dir.join(&one.0).display().to_string(),
            dir.path(),
        );
        n += 1;
    }
    eprintln!(
        "fuzz: {n} rounds (each: a mutated instance, a mutated solution, a command line), \
         {accepted} mutated instances accepted and solved, in {:.1} s, seed {}",
        started.elapsed().as_secs_f64(),
        seed()
    );
}
