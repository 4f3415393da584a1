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

// ---- item 3: delay limit ----

const SPD_LINKS: &str = r#"{"problem":"spd","version":1,"model":"cs","bound":100,"servers":2,"links":[[0,1,LINK]],"access":[[ACC,5],[7,1]]}"#;
const SPD_MATRIX: &str = r#"{"problem":"spd","version":1,"model":"p2p","bound":100,"servers":2,"server_latency":[[0,LINK],[LINK,0]],"access":[[ACC,5],[7,1]]}"#;

fn spd(template: &str, link: &str, acc: &str) -> String {
    template.replace("LINK", link).replace("ACC", acc)
}

#[test]
fn spd_delays_above_the_limit_are_refused_with_their_location() {
    let dir = tempfile::tempdir().unwrap();
    // At the limit: accepted.
    for t in [SPD_LINKS, SPD_MATRIX] {
        let p = write(dir.path(), "ok.json", &spd(t, "1e9", "1e9"));
        let (o, _) = solve_json(&p, "exact");
        assert!(o.status.success(), "{}", text(&o.stderr));
    }
    let cases = [
        (spd(SPD_LINKS, "2", "1e10"), "access[0][0]"),
        (spd(SPD_LINKS, "4e13", "3"), "links[0][2]"),
        (spd(SPD_MATRIX, "1000000001", "3"), "server_latency[0][1]"),
    ];
    for (i, (body, field)) in cases.iter().enumerate() {
        let name = format!("big-{i}.json");
        let p = write(dir.path(), &name, body);
        expect_user_error(
            &["solve", p.to_str().unwrap(), "--engine", "exact"],
            &[&name, field, "limit"],
        );
    }
    // In a CSV too.
    write(dir.path(), "acc.csv", "3,5\n7,20000000000\n");
    let body = spd(SPD_LINKS, "2", "3").replace("[[3,5],[7,1]]", r#"{"csv":"acc.csv"}"#);
    let p = write(dir.path(), "csv.json", &body);
    expect_user_error(
        &["solve", p.to_str().unwrap(), "--engine", "exact"],
        &["acc.csv", "row 1 column 1", "limit"],
    );
}

#[test]
fn cma_delays_above_the_limit_are_refused_with_their_location() {
    let dir = tempfile::tempdir().unwrap();
    let body =
        r#"{"problem":"cma","version":1,"mirrors":2,"capacity":[2,2],"delay":[[1,5],[D,3],[4,1]]}"#;
    let p = write(dir.path(), "ok.json", &body.replace('D', "1e9"));
    let (o, _) = solve_json(&p, "exact-flow");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let p = write(dir.path(), "big.json", &body.replace('D', "1e10"));
    expect_user_error(
        &["solve", p.to_str().unwrap(), "--engine", "exact-flow,j-sa"],
        &["big.json", "delay[1][0]", "limit"],
    );
}

// ---- item 4: declared sizes ----

#[test]
fn declared_sizes_are_checked_against_the_data_before_allocating() {
    let dir = tempfile::tempdir().unwrap();
    for (i, count) in ["4611686018427387904", "100000"].iter().enumerate() {
        let name = format!("spd-{i}.json");
        let body = format!(
            r#"{{"problem":"spd","version":1,"model":"cs","bound":100,"servers":{count},"links":[],"access":[[1]]}}"#
        );
        let p = write(dir.path(), &name, &body);
        expect_user_error(
            &["solve", p.to_str().unwrap(), "--engine", "spdcs-h"],
            &[&name, "access[0]", &format!("expected {count}")],
        );
        let name = format!("cma-{i}.json");
        let body = format!(
            r#"{{"problem":"cma","version":1,"mirrors":{count},"capacity":[1],"delay":[[1]]}}"#
        );
        let p = write(dir.path(), &name, &body);
        expect_user_error(
            &["solve", p.to_str().unwrap(), "--engine", "greedy"],
            &[&name, "delay[0]", &format!("expected {count}")],
        );
    }
    // Consistent data above the documented limits.
    let n = 10_001;
    let row = vec!["1"; n].join(",");
    let p = write(
        dir.path(),
        "many-servers.json",
        &format!(
            r#"{{"problem":"spd","version":1,"model":"cs","bound":100,"servers":{n},"links":[],"access":[[{row}]]}}"#
        ),
    );
    expect_user_error(
        &["solve", p.to_str().unwrap(), "--engine", "spdcs-h"],
        &["many-servers.json", "servers", "limit of 10000"],
    );
    let cap = vec!["1"; n].join(",");
    let p = write(
        dir.path(),
        "many-mirrors.json",
        &format!(
            r#"{{"problem":"cma","version":1,"mirrors":{n},"capacity":[{cap}],"delay":[[{row}]]}}"#
        ),
    );
    expect_user_error(
        &["solve", p.to_str().unwrap(), "--engine", "greedy"],
        &["many-mirrors.json", "mirrors", "limit of 10000"],
    );
}
