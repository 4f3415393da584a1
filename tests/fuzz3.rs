//! The hostile-input reproducers of `../shared/regressions/fuzz3/` (issue
//! 29), each through the CLI: D1, D2, D3 (declared sizes), D7 (a huge but
//! finite SPDVR bound), D11 (a symlink loop). D4, D12 (time limits) are in
//! `scripts/limits_harness.sh` and `tests/time_limits.rs`; D8–D10 in
//! `tests/eval_claims.rs`.

mod common_cli;

use common_cli::{serverpick, text};
use std::path::Path;

fn data(rel: &str) -> String {
    common_cli::fuzz3(rel)
}

fn refused(args: &[&str], needles: &[&str]) {
    let o = serverpick(args);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: '{n}' missing: {err}");
    }
}

#[test]
fn d1_d2_huge_declared_sizes_are_refused_naming_the_field() {
    for f in ["nodes-u64max.json", "nodes-1e11.json"] {
        let p = data(&format!("d1-ranges-huge-nodes/{f}"));
        refused(&["solve", &p], &[f, "nodes", "too large (max"]);
    }
    for f in ["servers-u64max.json", "servers-1e11.json"] {
        let p = data(&format!("d2-ag-huge-servers/{f}"));
        refused(&["solve", &p], &[f, "servers", "too large (max"]);
    }
}

#[test]
fn d3_a_bad_file_stops_bench_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    refused(
        &[
            "bench",
            &data("d3-bench-abort/in"),
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--jobs",
            "1",
        ],
        &["b-ranges-nodes-1e11.json", "nodes"],
    );
    assert!(!out.join("results.jsonl").exists());
}

#[test]
fn d7_a_huge_finite_spdvr_bound_is_solved() {
    let src =
        std::fs::read_to_string(data("d7-spdvr-exact-big-bound/spdvr-bound-1e15.json")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for bound in ["1000000000000000.0", "1e20", "1e308"] {
        let p = dir.path().join("big.json");
        std::fs::write(&p, src.replace("1000000000000000.0", bound)).unwrap();
        let o = serverpick(&["solve", p.to_str().unwrap(), "--engine", "exact", "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let rec: serde_json::Value =
            serde_json::from_str(text(&o.stdout).lines().next().unwrap()).unwrap();
        assert_eq!(rec["status"], "optimal", "bound {bound}: {rec}");
    }
}

#[test]
fn d11_a_symlink_loop_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set");
    std::fs::create_dir_all(set.join("sub")).unwrap();
    let inst = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/spd-fig1-cs.json");
    std::fs::copy(&inst, set.join("a.json")).unwrap();
    std::os::unix::fs::symlink("..", set.join("sub/loop")).unwrap();
    let o = serverpick(&[
        "solve",
        set.to_str().unwrap(),
        "--engine",
        "exact",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).lines().count(), 1, "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("symlinked folder"),
        "{}",
        text(&o.stderr)
    );
    let out = dir.path().join("bench");
    let o = serverpick(&[
        "bench",
        set.to_str().unwrap(),
        "--engine",
        "alg-m",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let rows = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 1);
}

/// M1: messages people can read.
#[test]
fn m1_messages_name_what_is_wrong_in_plain_words() {
    let m1 = |f: &str| data(&format!("m1-minor-messages/{f}"));
    let err = |args: &[&str]| {
        let o = serverpick(args);
        (o.status.code(), text(&o.stderr), text(&o.stdout))
    };
    // A huge count: "too large", the number short.
    let (code, e, _) = err(&["solve", &m1("spd-servers-1e20.json")]);
    assert_eq!(code, Some(2));
    assert!(e.contains("servers: 1e20 is too large (max"), "{e}");
    // No Rust debug text.
    let (code, e, _) = err(&["solve", &m1("spd-asym.json")]);
    assert_eq!(code, Some(2));
    assert!(!e.contains("Some("), "{e}");
    assert!(
        e.contains("10 differs from server_latency[1][0] = 11"),
        "{e}"
    );
    // A UTF-8 BOM in JSON is accepted, as in CSV.
    let (code, e, _) = err(&["solve", &m1("spd-bom.json"), "--engine", "alg-m"]);
    assert_eq!(code, Some(0), "{e}");
    // --out naming a file.
    let inst = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/spd-fig1-cs.json");
    let (code, e, _) = err(&[
        "bench",
        inst.to_str().unwrap(),
        "--out",
        &m1("not-a-dir"),
        "-q",
    ]);
    assert_eq!(code, Some(2));
    assert!(e.contains("is a file, not a folder"), "{e}");
    // The AG table shows every value it has when one metric is NaN.
    let (code, _, out) = err(&[
        "solve",
        &m1("ag-interaction-1e308.json"),
        "--engine",
        "hybrid",
    ]);
    assert_eq!(code, Some(0));
    let row = out.lines().last().unwrap();
    assert!(
        row.split_whitespace().filter(|c| *c == "-").count() <= 1,
        "{row}"
    );
    // Rates whose sum overflows are refused when read.
    let (code, e, _) = err(&["solve", &m1("ranges-rate-1e308.json")]);
    assert_eq!(code, Some(2), "{e}");
    assert!(e.contains("subscriptions: the rates add up to"), "{e}");
    // --time-limit: a negative value is refused by name, 0 means none.
    let (code, e, _) = err(&["solve", inst.to_str().unwrap(), "--time-limit", "-1"]);
    assert_eq!(code, Some(2));
    assert!(
        e.contains("--time-limit -1: expected seconds > 0, or 0 or 'none'"),
        "{e}"
    );
    let (code, _, _) = err(&["solve", inst.to_str().unwrap(), "--time-limit", "0"]);
    assert_eq!(code, Some(0));
}
