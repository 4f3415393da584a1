//! Issue 15: inputs at the limits — huge capacities, huge delays, declared
//! sizes, unbounded CSV reads, generator parameters, error locations and
//! nested duplicate keys. Every reproducer goes through the CLI.

mod common_cli;

use common_cli::{serverpick, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
    let (o, records) = solve_json(&p, "exact-flow,exact,j-greedy,j-sa");
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
        // Above every stated maximum (issue 29): refused as too large
        // before the data are looked at; else checked against the data.
        let needles: [&str; 3] = if i == 0 {
            [&name, "servers", "too large (max"]
        } else {
            [&name, "access[0]", &format!("expected {count}")]
        };
        expect_user_error(
            &["solve", p.to_str().unwrap(), "--engine", "spdcs-h"],
            &needles,
        );
        let name = format!("cma-{i}.json");
        let body = format!(
            r#"{{"problem":"cma","version":1,"mirrors":{count},"capacity":[1],"delay":[[1]]}}"#
        );
        let p = write(dir.path(), &name, &body);
        let needles: [&str; 3] = if i == 0 {
            [&name, "mirrors", "too large (max"]
        } else {
            [&name, "delay[0]", &format!("expected {count}")]
        };
        expect_user_error(
            &["solve", p.to_str().unwrap(), "--engine", "j-greedy"],
            &needles,
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
        &["solve", p.to_str().unwrap(), "--engine", "j-greedy"],
        &["many-mirrors.json", "mirrors", "limit of 10000"],
    );
}

// ---- item 5: CSV reads ----

/// A CMA instance whose delay matrix (3 rows × 2 mirrors) is `{"csv": rel}`.
fn cma_csv(rel: &str) -> String {
    format!(
        r#"{{"problem":"cma","version":1,"mirrors":2,"capacity":[2,2],"delay":{{"csv":{}}}}}"#,
        serde_json::Value::from(rel)
    )
}

fn solve_cma(path: &Path, allow_any: bool) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_serverpick"));
    cmd.args(["solve", path.to_str().unwrap(), "--engine", "j-greedy"]);
    if allow_any {
        cmd.env("SERVERPICK_ALLOW_ANY_PATH", "1");
    } else {
        cmd.env_remove("SERVERPICK_ALLOW_ANY_PATH");
    }
    cmd.output().expect("the binary runs")
}

fn assert_user_error(o: &Output, needles: &[&str]) -> String {
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}{}", text(&o.stdout));
    for n in needles {
        assert!(err.contains(n), "'{n}' missing from: {err}");
    }
    err
}

#[test]
fn csv_paths_follow_the_folder_policy_unless_opted_out() {
    let root = tempfile::tempdir().unwrap();
    let inst = root.path().join("inst");
    std::fs::create_dir(&inst).unwrap();
    std::fs::create_dir(inst.join("data")).unwrap();
    write(&inst, "data/d.csv", "1,5\n2,3\n4,1\n");
    // Inside the folder (a sub-folder too): read.
    let p = write(&inst, "in.json", &cma_csv("data/d.csv"));
    let o = solve_cma(&p, false);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Outside: refused without echoing the outside file's contents.
    write(root.path(), "secret.csv", "secret-token,1\n2,3\n4,1\n");
    let abs = root.path().join("secret.csv");
    for (name, rel) in [
        ("dotdot.json", "../secret.csv".to_string()),
        ("abs.json", abs.to_str().unwrap().to_string()),
        ("dev.json", "/dev/zero".to_string()),
    ] {
        let p = write(&inst, name, &cma_csv(&rel));
        let err = assert_user_error(
            &solve_cma(&p, false),
            &[name, "delay", "SERVERPICK_ALLOW_ANY_PATH"],
        );
        assert!(!err.contains("secret-token"), "{err}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&abs, inst.join("link.csv")).unwrap();
        let p = write(&inst, "link.json", &cma_csv("link.csv"));
        let err = assert_user_error(&solve_cma(&p, false), &["link.json", "outside"]);
        assert!(!err.contains("secret-token"), "{err}");
    }
    // With the opt-in the outside file is read (and its bad cell reported).
    let p = write(&inst, "dotdot.json", &cma_csv("../secret.csv"));
    assert_user_error(&solve_cma(&p, true), &["secret.csv", "row 0 column 0"]);
    write(root.path(), "good.csv", "1,5\n2,3\n4,1\n");
    let p = write(&inst, "good.json", &cma_csv("../good.csv"));
    let o = solve_cma(&p, true);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn csv_matrices_must_be_bounded_regular_files() {
    let dir = tempfile::tempdir().unwrap();
    // /dev/zero, even with the opt-in: not a regular file (no unbounded read).
    let p = write(dir.path(), "zero.json", &cma_csv("/dev/zero"));
    assert_user_error(
        &solve_cma(&p, true),
        &["zero.json", "delay", "not a regular file"],
    );
    // A directory.
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let p = write(dir.path(), "dir.json", &cma_csv("sub"));
    let err = assert_user_error(
        &solve_cma(&p, false),
        &["dir.json", "delay", "not a regular file"],
    );
    assert!(!err.contains("Is a directory"), "{err}");
    // A FIFO would block forever when opened.
    #[cfg(unix)]
    {
        let made = Command::new("mkfifo")
            .arg(dir.path().join("pipe.csv"))
            .status()
            .unwrap();
        assert!(made.success());
        let p = write(dir.path(), "fifo.json", &cma_csv("pipe.csv"));
        assert_user_error(&solve_cma(&p, false), &["fifo.json", "not a regular file"]);
    }
    // Larger than the declared shape allows: a 2 × 2 server matrix padded
    // far beyond 2 · (2 · 32 + 2) + 4096 bytes.
    let pad = " ".repeat(10_000);
    write(dir.path(), "lat.csv", &format!("0,1{pad}\n1,0\n"));
    let p = write(
        dir.path(),
        "big.json",
        r#"{"problem":"spd","version":1,"model":"p2p","bound":100,"servers":2,"server_latency":{"csv":"lat.csv"},"access":[[1,2]]}"#,
    );
    expect_user_error(
        &["solve", p.to_str().unwrap(), "--engine", "exact"],
        &["big.json", "server_latency", "lat.csv", "bytes"],
    );
    // The same matrix without padding is read.
    write(dir.path(), "lat.csv", "0,1\n1,0\n");
    let (o, _) = solve_json(&p, "exact");
    assert!(o.status.success(), "{}", text(&o.stderr));
}

// ---- item 8: generator parameters ----

#[test]
fn generator_parameters_are_validated_with_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.json");
    let out = out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--clients", "100000000000"], "--clients"),
        (&["--clients", "0"], "--clients"),
        (&["--mirrors", "0"], "--mirrors"),
        (&["--mirrors", "20000"], "--mirrors"),
        (&["--clients", "2000000", "--mirrors", "100"], "delays"),
        (&["--scenario", "static", "--slack", "NaN"], "--slack"),
        (&["--scenario", "static", "--slack=-0.5"], "--slack"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["gen", "cma", "--out", out];
        args.extend_from_slice(extra);
        expect_user_error(&args, &[needle]);
        assert!(!Path::new(out).exists(), "{extra:?} wrote a file");
    }
    let spd_out = dir.path().join("spd");
    let spd_out = spd_out.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["--servers", "100000"], "--servers"),
        (&["--servers", "0"], "--servers"),
        (&["--clients", "0"], "--clients"),
        (&["--clients", "1000000"], "--clients"),
        (&["--factor", "NaN"], "--factor"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["gen", "spd", "--out", spd_out];
        args.extend_from_slice(extra);
        expect_user_error(&args, &[needle]);
    }
    // A small static instance with slack is generated and solvable.
    let g = serverpick(&[
        "gen",
        "cma",
        "--scenario",
        "static",
        "--clients",
        "7",
        "--mirrors",
        "2",
        "--slack",
        "0.5",
        "--out",
        out,
    ]);
    assert!(g.status.success(), "{}", text(&g.stderr));
    let (o, records) = solve_json(Path::new(out), "j-greedy");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(records[0]["status"], "feasible", "{}", records[0]);
}

// ---- item 9: serde errors name file, field and index ----

const SPD_START: &str = r#"{"problem":"PROBLEM","version":1,"name":"myname","model":"cs","bound":BOUND,"servers":2,"links":[[0,1,3]],"access":[[1,20],[20,1]],"start":{"root":0,"assign":ASSIGN}}"#;

fn spd_start(problem: &str, bound: &str, assign: &str) -> String {
    SPD_START
        .replace("PROBLEM", problem)
        .replace("BOUND", bound)
        .replace("ASSIGN", assign)
}

#[test]
fn type_errors_name_the_file_field_and_index() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "neg.json", &spd_start("spd", "100", "[0, -1]"));
    let err = expect_user_error(
        &["solve", p.to_str().unwrap()],
        &["neg.json: start.assign[1]: ", "-1"],
    );
    assert!(!err.contains("line 1 column"), "{err}");
    let p = write(
        dir.path(),
        "res.json",
        r#"{"problem":"cma","version":1,"mirrors":2,"resources":{"bandwidth":[1,"x"],"cpu":[1,1],"b":1,"ls":0,"lc":1},"delay":[[1,2]]}"#,
    );
    expect_user_error(
        &["solve", p.to_str().unwrap()],
        &["res.json: resources.bandwidth[1]: "],
    );
    let p = write(
        dir.path(),
        "ver.json",
        r#"{"problem":"cma","version":"1","mirrors":1,"capacity":[1],"delay":[[1]]}"#,
    );
    expect_user_error(&["solve", p.to_str().unwrap()], &["ver.json: version: "]);
    // A solution file's type error is located too.
    let inst = write(dir.path(), "ok.json", &spd_start("spd", "100", "[0, 1]"));
    let sol = write(dir.path(), "sol.json", r#"{"root": 0, "assign": [0, "x"]}"#);
    expect_user_error(
        &["eval", inst.to_str().unwrap(), sol.to_str().unwrap()],
        &["sol.json: assign[1]: "],
    );
}

#[test]
fn spdvr_start_errors_name_the_file_not_the_instance_name() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "vr.json", &spd_start("spdvr", "1", "[1, 0]"));
    let err = expect_user_error(&["solve", p.to_str().unwrap()], &["vr.json: start: "]);
    assert!(!err.contains("myname:"), "{err}");
}

// ---- item 10: duplicate keys at every level ----

#[test]
fn duplicate_keys_are_rejected_at_every_nesting_level() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "ev.json",
            r#"{"problem":"cma","version":1,"mirrors":2,"capacity":[2,2],"delay":[[1,5],[2,3]],"events":[{"join":0},{"join":0,"join":1}]}"#,
            "events[1]",
        ),
        (
            "res.json",
            r#"{"problem":"cma","version":1,"mirrors":1,"resources":{"bandwidth":[1],"cpu":[1],"b":1,"b":2,"ls":0,"lc":1},"delay":[[1]]}"#,
            "resources",
        ),
        (
            "start.json",
            r#"{"problem":"spd","version":1,"model":"cs","bound":100,"servers":2,"links":[[0,1,3]],"access":[[1,2]],"start":{"root":0,"root":1,"assign":[0]}}"#,
            "start",
        ),
        (
            "top.json",
            r#"{"problem":"cma","version":1,"version":1,"mirrors":1,"capacity":[1],"delay":[[1]]}"#,
            "",
        ),
    ];
    for (name, body, field) in cases {
        let p = write(dir.path(), name, body);
        let prefix = if field.is_empty() {
            format!("{name}: duplicate key")
        } else {
            format!("{name}: {field}: duplicate key")
        };
        expect_user_error(&["simulate", p.to_str().unwrap()], &[&prefix]);
        expect_user_error(&["solve", p.to_str().unwrap()], &[&prefix]);
    }
    // Solution files too.
    let inst = write(dir.path(), "ok.json", &spd_start("spd", "100", "[0, 1]"));
    let sol = write(
        dir.path(),
        "sol.json",
        r#"{"engine":"x","status":"feasible","solution":{"root":0,"assign":[0,1],"assign":[1,1]}}"#,
    );
    expect_user_error(
        &["eval", inst.to_str().unwrap(), sol.to_str().unwrap()],
        &["sol.json: solution: duplicate key \"assign\""],
    );
}
