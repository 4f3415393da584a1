//! fuzz4 reproducers (issue 69): ping imports, messages and display. Each
//! test names its finding; the inputs are in `tests/data/fuzz4/`.

mod common_cli;
use common_cli::{serverpick, text};

fn data(rel: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz4")
        .join(rel)
        .display()
        .to_string()
}

/// F13: `gen --from-pings` refuses what every reader would refuse: a
/// completed path above the delay limit, or a `--unit-scale` that pushes a
/// latency above it. A file it writes is one `solve` reads.
#[test]
fn f13_gen_from_pings_writes_only_readable_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = |n: &str| dir.path().join(n).display().to_string();
    let pings = data("F13/pings.csv");
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &pings,
        "--out",
        &out("c.json"),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("completed path") && err.contains("a-c"),
        "{err}"
    );
    let o = serverpick(&["gen", "spd", "--from-pings", &pings, "--out", &out("s")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let small = data("F13/small.csv");
    let o = serverpick(&[
        "gen",
        "spd",
        "--from-pings",
        &small,
        "--unit-scale",
        "1e9",
        "--out",
        &out("u"),
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--unit-scale"), "{err}");
    // Within the limit: written, and read back.
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &small,
        "--out",
        &out("ok.json"),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = serverpick(&["solve", &out("ok.json"), "--engine", "exact-flow"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// M4: k-best's refusal gives the real count of subset-root pairs,
/// C(100, 21) · 21, not a saturated u64.
#[test]
fn m4_k_best_refusal_names_the_real_count() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g").display().to_string();
    let o = serverpick(&[
        "gen",
        "spd",
        "--servers",
        "100",
        "--clients",
        "1000",
        "--model",
        "cs",
        "--factor",
        "1.0",
        "--seed",
        "3",
        "--out",
        &g,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let o = serverpick(&[
        "solve",
        &g,
        "--engine",
        "k-best",
        "--time-limit",
        "10",
        "--json",
    ]);
    let out = text(&o.stdout);
    assert!(!out.contains("18446744073709551615"), "{out}");
    assert!(out.contains("subset-root pairs"), "{out}");
}

/// M5: a population total above the limit names the sites file and the site.
#[test]
fn m5_population_total_names_the_sites_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.json").display().to_string();
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &data("M-minor/p3.csv"),
        "--sites-csv",
        &data("M-minor/sites-big.csv"),
        "--population-column",
        "population",
        "--out",
        &out,
    ]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("sites-big.csv") && !err.contains("<memory>"),
        "{err}"
    );
}

/// M6: a capacity above the players is not changed silently.
#[test]
fn m6_capacity_clamp_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cap.json").display().to_string();
    let p3 = data("M-minor/p3.csv");
    let o = serverpick(&[
        "gen",
        "cma",
        "--from-pings",
        &p3,
        "--capacity",
        "100",
        "--out",
        &out,
    ]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("--capacity above the 3 players"), "{err}");
}

/// M9: zero players print `0.000`, never `-0.000`.
#[test]
fn m9_plan_cma_prints_no_negative_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p").display().to_string();
    let o = serverpick(&["plan", "cma", &data("M-minor/zero.json"), "--out", &out]);
    let printed = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        printed.contains("0.000") && !printed.contains("-0.000"),
        "{printed}"
    );
}

/// Issue 69's small items: the bundled regret-greedy example reads CSV
/// delay matrices (it crashed on them) and is judged feasible.
#[test]
fn the_regret_greedy_example_reads_csv_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let inst = dir.path().join("c.json").display().to_string();
    let o = serverpick(&[
        "gen",
        "cma",
        "--scenario",
        "static",
        "--mirrors",
        "4",
        "--clients",
        "50",
        "--csv",
        "--out",
        &inst,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/external/cma_regret_greedy.py");
    let cmd = format!("rg=python3 {} {{instance}} {{solution}}", script.display());
    let o = serverpick(&["solve", &inst, "--engine-cmd", &cmd, "--json"]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
    let rg: serde_json::Value = out
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|r| r["engine"] == "rg")
        .expect("a row for rg");
    assert_eq!(rg["status"], "feasible", "{rg}");
}
