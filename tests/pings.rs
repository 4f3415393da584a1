//! Ping lists as input (`--from-pings`, issue 24): the pair-list importer
//! (symmetric completion, directions combined, missing pairs completed by
//! shortest paths or refused, unknown ids, duplicate pairs, bad numbers,
//! empty files, missing columns) and `gen cma` / `gen spd` on it. Every list
//! is written by the test.

mod common_cli;

use common_cli::{serverpick, text};
use serverpick::error::Error;
use serverpick::net::ping_import::{import_pings, PingImportConfig};
use serverpick::net::pings::{read_pings, Combine, Missing, PingMatrix, PingOptions};
use serverpick::net::sites_csv::{read_sites, SiteOptions};
use serverpick::problems::cma::file::read_cma;
use std::path::{Path, PathBuf};

/// Writes `body` to `dir/name` and returns the path.
fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).expect("writes");
    p
}

fn opts(combine: Combine, missing: Missing) -> PingOptions {
    PingOptions {
        rtt_column: "avg".into(),
        combine,
        missing,
    }
}

fn read(dir: &Path, body: &str, o: &PingOptions) -> Result<PingMatrix, Error> {
    read_pings(&write(dir, "p.csv", body), None, o)
}

/// The error reading `body` as `p.csv` with the default options.
fn refusal(dir: &Path, body: &str) -> String {
    read(dir, body, &PingOptions::default())
        .expect_err("refused")
        .to_string()
}

/// `a–b` both ways (10 and 14), `b–c` and `c–d` one way, `a–d` 30:
/// `a–c` and `b–d` are gaps.
const CHAIN: &str = "source,destination,avg,min\n\
                     a,b,10,9\n\
                     b,a,14,8\n\
                     b,c,5,5\n\
                     d,c,7,6\n\
                     a,d,30,\n";

fn at(m: &PingMatrix, a: &str, b: &str) -> f64 {
    let i = m.ids.iter().position(|s| s == a).expect("a site");
    let j = m.ids.iter().position(|s| s == b).expect("a site");
    m.rtt(i, j)
}

#[test]
fn directions_combine_by_mean_or_min_and_the_matrix_is_symmetric() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mean = read(dir.path(), CHAIN, &opts(Combine::Mean, Missing::Complete)).expect("reads");
    assert_eq!(mean.ids, ["a", "b", "c", "d"]);
    assert_eq!(at(&mean, "a", "b"), 12.0);
    let min = read(dir.path(), CHAIN, &opts(Combine::Min, Missing::Complete)).expect("reads");
    assert_eq!(at(&min, "a", "b"), 10.0);
    for m in [&mean, &min] {
        for i in 0..4 {
            assert_eq!(m.rtt(i, i), 0.0);
            for j in 0..4 {
                assert_eq!(m.rtt(i, j), m.rtt(j, i), "{i} {j}");
            }
        }
        // one direction only: that value
        assert_eq!(at(m, "c", "d"), 7.0);
        assert_eq!(m.report.both_directions, 1);
        assert_eq!(m.report.measured, 4);
    }
}

#[test]
fn missing_pairs_are_completed_by_shortest_paths_and_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m = read(dir.path(), CHAIN, &opts(Combine::Mean, Missing::Complete)).expect("reads");
    // by hand: a–c = a–b (mean 12) + b–c 5 = 17; b–d = b–c 5 + c–d 7 = 12
    // (not b–a–d = 42); measured a–d stays 30 although a–b–c–d is 24.
    assert_eq!(at(&m, "a", "c"), 17.0);
    assert_eq!(at(&m, "b", "d"), 12.0);
    assert_eq!(at(&m, "a", "d"), 30.0);
    assert_eq!(m.report.completed, 2);
    assert_eq!(
        m.report.examples,
        vec![
            ("a".into(), "c".into(), 17.0),
            ("b".into(), "d".into(), 12.0)
        ]
    );
    // The min column has an empty cell (a–d not measured there): a gap,
    // completed by a–b–c–d = 8 + 5 + 6 = 19.
    let o = PingOptions {
        rtt_column: "MIN".into(),
        combine: Combine::Min,
        missing: Missing::Complete,
    };
    let m = read(dir.path(), CHAIN, &o).expect("reads");
    assert_eq!(at(&m, "a", "d"), 19.0);
    assert_eq!(m.report.empty_cells, 1);
    assert_eq!(m.report.completed, 3);
}

#[test]
fn missing_error_refuses_and_lists_the_pairs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = read(dir.path(), CHAIN, &opts(Combine::Mean, Missing::Error))
        .expect_err("refused")
        .to_string();
    assert!(e.contains("p.csv") && e.contains("2 site pairs"), "{e}");
    assert!(e.contains("a-c") && e.contains("b-d"), "{e}");
    // A complete list passes.
    let full = "source,destination,avg\nx,y,1\ny,z,2\nx,z,4\n";
    let m = read(dir.path(), full, &opts(Combine::Mean, Missing::Error)).expect("complete");
    assert_eq!(m.report.completed, 0);
    assert_eq!(at(&m, "x", "z"), 4.0);
}

#[test]
fn pairs_no_path_joins_are_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = "source,destination,avg\na,b,1\nc,d,2\n";
    let e = refusal(dir.path(), body);
    assert!(e.contains("4 site pairs cannot be completed"), "{e}");
    assert!(e.contains("a-c"), "{e}");
}

#[test]
fn unknown_ids_name_the_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sites = write(dir.path(), "s.csv", "id,population\na,1\nb,2\nc,3\nd,4\n");
    let s = read_sites(&sites, &SiteOptions::default()).expect("sites");
    let body = "source,destination,avg\na,b,1\nb,c,2\nc,e,3\n";
    let e = read_pings(
        &write(dir.path(), "p.csv", body),
        Some(&s),
        &PingOptions::default(),
    )
    .expect_err("unknown id")
    .to_string();
    assert!(e.contains("p.csv: line 4 column 2 (destination)"), "{e}");
    assert!(e.contains("'e'") && e.contains("s.csv"), "{e}");
    // A site of the sites file without any measurement cannot be completed.
    let body = "source,destination,avg\na,b,1\nb,c,2\n";
    let e = read_pings(
        &write(dir.path(), "p.csv", body),
        Some(&s),
        &PingOptions::default(),
    )
    .expect_err("d unmeasured")
    .to_string();
    assert!(
        e.contains("cannot be completed") && e.contains("a-d"),
        "{e}"
    );
}

#[test]
fn duplicate_pairs_name_both_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    let body = "source,destination,avg\na,b,1\nb,c,2\na,b,3\n";
    let e = refusal(dir.path(), body);
    assert!(
        e.contains("line 4") && e.contains("already on line 2"),
        "{e}"
    );
    assert!(e.contains("a → b"), "{e}");
    // The reverse direction is not a duplicate; a self pair is ignored.
    let body = "source,destination,avg\na,b,1\nb,a,3\na,a,0\n";
    let m = read(dir.path(), body, &PingOptions::default()).expect("reads");
    assert_eq!(at(&m, "a", "b"), 2.0);
    assert_eq!(m.report.self_pairs, 1);
}

#[test]
fn bad_numbers_name_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (cell, what) in [
        ("abc", "'abc' is not a number"),
        ("-1", "-1"),
        ("inf", "inf"),
        ("2e9", "delay limit"),
    ] {
        let body = format!("source,destination,avg\na,b,1\nb,c,{cell}\n");
        let e = refusal(dir.path(), &body);
        assert!(e.contains("p.csv: line 3 column 3 (avg)"), "{cell}: {e}");
        assert!(e.contains(what), "{cell}: {e}");
    }
    // A short line names the missing column.
    let e = refusal(dir.path(), "source,destination,avg\na,b\n");
    assert!(e.contains("line 2 column 3 (avg)"), "{e}");
    // An empty site id.
    let e = refusal(dir.path(), "source,destination,avg\n,b,1\n");
    assert!(
        e.contains("line 2 column 1 (source)") && e.contains("empty site id"),
        "{e}"
    );
}

#[test]
fn empty_files_and_missing_columns_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let o = PingOptions::default();
    let e = read(dir.path(), "", &o).expect_err("empty").to_string();
    assert!(e.contains("p.csv") && e.contains("empty file"), "{e}");
    let e = read(dir.path(), "source,destination,avg\n", &o)
        .expect_err("header only")
        .to_string();
    assert!(e.contains("no pairs"), "{e}");
    let e = read(dir.path(), "source,destination,min\na,b,1\n", &o)
        .expect_err("no avg")
        .to_string();
    assert!(
        e.contains("line 1") && e.contains("no column 'avg'") && e.contains("--rtt-column"),
        "{e}"
    );
    let e = read(dir.path(), "src,destination,avg\na,b,1\n", &o)
        .expect_err("no source")
        .to_string();
    assert!(e.contains("no column 'source'"), "{e}");
}

#[test]
fn sites_give_populations_and_candidates() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = PingImportConfig {
        pings: write(dir.path(), "p.csv", CHAIN),
        sites: Some(write(
            dir.path(),
            "s.csv",
            "id,name,lat,lon,population,mirror\na,A,0,0,100,yes\nb,B,0,0,0,no\nc,C,0,0,50,1\nd,D,0,0,20,\n",
        )),
        site: SiteOptions {
            population_column: Some("population".into()),
            candidates_column: Some("mirror".into()),
        },
        ..PingImportConfig::default()
    };
    let imp = import_pings(&cfg).expect("imports");
    assert_eq!(imp.candidates, [0, 2]);
    assert_eq!(imp.clients, [0, 2, 3]);
    assert_eq!(imp.players, Some(vec![100, 50, 20]));
    let list = PingImportConfig {
        site: SiteOptions::default(),
        candidates: Some(vec!["d".into(), "b".into()]),
        ..cfg.clone()
    };
    let imp = import_pings(&list).expect("imports");
    assert_eq!(imp.candidates, [1, 3]);
    assert_eq!(imp.clients, [0, 1, 2, 3]);
    let bad = PingImportConfig {
        candidates: Some(vec!["z".into()]),
        ..list
    };
    let e = import_pings(&bad)
        .expect_err("unknown candidate")
        .to_string();
    assert!(e.contains("--candidates z"), "{e}");
}

#[test]
fn gen_cma_from_pings_writes_a_named_instance_with_its_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(dir.path(), "p.csv", CHAIN);
    let out = dir.path().join("c.json");
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &p.display().to_string(),
        "--candidates",
        "a,c",
        "-o",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("2 completed by shortest paths"),
        "{}",
        text(&o.stderr)
    );
    let inst = read_cma(&out).expect("a CMA instance");
    assert_eq!(inst.mirror_names, Some(vec!["a".into(), "c".into()]));
    assert_eq!(inst.clients(), 4);
    // row b: b–a 12, b–c 5; row d: d–a 30 (measured), d–c 7
    assert_eq!(inst.row(1), [12.0, 5.0]);
    assert_eq!(inst.row(3), [30.0, 7.0]);
    let source = inst.source.clone().unwrap_or_default();
    assert!(
        source.contains("--from-pings") && source.contains("2 completed"),
        "{source}"
    );
    let o = serverpick(&[
        "solve",
        &out.display().to_string(),
        "--engine",
        "exact-flow",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // --missing error refuses on the CLI too, naming the file.
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &p.display().to_string(),
        "--missing",
        "error",
        "-o",
        &out.display().to_string(),
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("p.csv") && text(&o.stderr).contains("a-c"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn gen_spd_from_pings_writes_one_instance_per_model_and_factor() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(dir.path(), "p.csv", CHAIN);
    let out = dir.path().join("spd");
    let o = serverpick(&[
        "gen",
        "spd",
        "--from-pings",
        &p.display().to_string(),
        "--candidates",
        "a,b,c",
        "--model",
        "cs,p2p",
        "--factor",
        "1.2",
        "-o",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .expect("out")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, ["p-cs-3s-4c-f1.2.json", "p-p2p-3s-4c-f1.2.json"]);
    let o = serverpick(&["solve", &out.display().to_string(), "--engine", "exact"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The grid flags do not apply.
    let o = serverpick(&[
        "gen",
        "spd",
        "--from-pings",
        &p.display().to_string(),
        "--servers",
        "3",
        "-o",
        "x",
    ]);
    assert!(!o.status.success());
}

#[test]
fn populations_become_row_player_counts_or_repeated_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(dir.path(), "p.csv", CHAIN);
    let s = write(
        dir.path(),
        "s.csv",
        "id,population,mirror\na,3,yes\nb,0,no\nc,2,yes\nd,1,no\n",
    );
    let base = [
        "gen",
        "cma",
        "--from-pings",
        &p.display().to_string(),
        "--sites-csv",
        &s.display().to_string(),
        "--population-column",
        "population",
        "--candidates-column",
        "mirror",
    ]
    .map(String::from)
    .to_vec();
    let run = |extra: &[&str]| {
        let mut args = base.clone();
        args.extend(extra.iter().map(|x| x.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = serverpick(&refs);
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    let weighted = dir.path().join("w.json");
    run(&["-o", &weighted.display().to_string()]);
    let inst = read_cma(&weighted).expect("weighted instance");
    assert_eq!(
        inst.client_names,
        Some(vec!["a".into(), "c".into(), "d".into()])
    );
    assert_eq!(inst.players(), Some(&[3, 2, 1][..]));
    assert_eq!(inst.capacity, [6, 6]);
    // plan cma takes the counts: K = 1 opens c (a: 3 × 17, d: 1 × 7 → 58
    // over 6 players) rather than a (2 × 17 + 30 = 64).
    let out = dir.path().join("plan");
    let o = serverpick(&[
        "plan",
        "cma",
        &weighted.display().to_string(),
        "--mirrors",
        "1",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("plan.json")).expect("plan.json"))
            .expect("json");
    let point = &plan["points"][0];
    assert_eq!(point["open"], serde_json::json!(["c"]));
    assert_eq!(point["total_delay"], serde_json::json!(58.0));
}

#[test]
fn site_limits_and_bad_site_cells_are_refused_with_their_line() {
    use serverpick::net::sites_csv::PINGS_MAX_SITES;
    let dir = tempfile::tempdir().expect("tempdir");
    // A chain over one site more than allowed: refused at the line that
    // names it, before the n × n table is allocated.
    let mut body = String::from("source,destination,avg\n");
    for i in 0..PINGS_MAX_SITES {
        body.push_str(&format!("s{i},s{},1\n", i + 1));
    }
    let e = refusal(dir.path(), &body);
    let last = PINGS_MAX_SITES + 1;
    assert!(
        e.contains(&format!("line {last} column 2 (destination)")),
        "{e}"
    );
    assert!(
        e.contains(&format!("{PINGS_MAX_SITES} sites allowed")),
        "{e}"
    );
    // A bad population on the CLI names the sites file, line and column.
    let p = write(dir.path(), "p.csv", CHAIN);
    let s = write(dir.path(), "s.csv", "id,pop\na,1\nb,2.5\nc,1\nd,1\n");
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &p.display().to_string(),
        "--sites-csv",
        &s.display().to_string(),
        "--population-column",
        "pop",
        "-o",
        &dir.path().join("x.json").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("s.csv: line 3 column 2 (pop): '2.5'"), "{err}");
    // A population column without a sites file is a usage error.
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &p.display().to_string(),
        "--population-column",
        "pop",
        "-o",
        "x.json",
    ]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("--sites-csv"),
        "{}",
        text(&o.stderr)
    );
}
