//! Issue 15: inputs at the limits — huge capacities, huge delays, declared
//! sizes, unbounded CSV reads, generator parameters, error locations and
//! nested duplicate keys. Every reproducer goes through the CLI.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn serverpick(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn text(o: &[u8]) -> String {
    String::from_utf8_lossy(o).into_owned()
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn solve_json(path: &Path, engines: &str) -> (Output, Vec<serde_json::Value>) {
    let o = serverpick(&[
        "solve",
        path.to_str().unwrap(),
        "--engine",
        engines,
        "--json",
    ]);
    let records = text(&o.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (o, records)
}

/// Runs the CLI and expects a user error (exit 2) whose message contains every
/// one of `needles`; returns stderr.
fn expect_user_error(args: &[&str], needles: &[&str]) -> String {
    let o = serverpick(args);
    let err = text(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{args:?}: {err}{}",
        text(&o.stdout)
    );
    for n in needles {
        assert!(err.contains(n), "{args:?}: '{n}' missing from: {err}");
    }
    err
}

// ---- item 2: capacity sums ----

#[test]
fn huge_capacities_do_not_wrap_around() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "cap.json",
        r#"{"problem":"cma","version":1,"mirrors":2,"capacity":[18446744073709551615,2],"delay":[[1,5],[2,3],[4,1]]}"#,
    );
    let (o, records) = solve_json(&p, "exact-flow,exact,greedy,j-sa");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(records.len(), 4, "{}", text(&o.stdout));
    for r in &records {
        assert_ne!(r["status"], "infeasible", "{r}");
        assert_eq!(r["objective"].as_f64(), Some(4.0), "{r}");
    }
    // The same capacities with events: three joins fit.
    let p = write(
        dir.path(),
        "cap-events.json",
        r#"{"problem":"cma","version":1,"mirrors":2,"capacity":[18446744073709551615,2],"delay":[[1,5],[2,3],[4,1]],"events":[{"join":0},{"join":1},{"join":2}]}"#,
    );
    let s = serverpick(&[
        "simulate",
        p.to_str().unwrap(),
        "--out",
        dir.path().join("sim").to_str().unwrap(),
    ]);
    assert!(s.status.success(), "{}", text(&s.stderr));
}
