//! `serverpick repro playnow` (issue 12): the quick study writes
//! findings.md, the CSV files and SVG figures; a seed gives identical files;
//! the timeline keeps the pool's invariants (players on servers <= slots,
//! players conserved); bad flags are refused with exit 2.

mod common_cli;

use common_cli::{serverpick, text};
use std::path::Path;

fn quick(out: &Path, extra: &[&str]) {
    let mut args = vec![
        "repro",
        "playnow",
        "--quick",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = serverpick(&args);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn quick_study_writes_findings_figures_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pn");
    quick(&out, &[]);
    let md = read(&out.join("findings.md"));
    assert!(md.contains("## Do huge servers steal players?"));
    assert!(md.contains("## J-playnow on seed 002's scenarios"));
    assert!(md.contains("| join-5m | j-playnow/l-ignore |"));
    assert!(md.contains("`j-playnow/l-sa` is not run"));
    for p in [
        "seed000",
        "ns2-v2",
        "tf2-quickplay",
        "ping-only",
        "fullest-first",
        "cma-optimum",
    ] {
        assert!(md.contains(&format!("- `{p}`: ")), "{p}");
    }
    let svgs = std::fs::read_dir(out.join("figures"))
        .unwrap()
        .filter(|e| {
            let p = e.as_ref().unwrap().path();
            p.extension().is_some_and(|x| x == "svg") && read(&p).contains("<svg")
        })
        .count();
    assert_eq!(svgs, 2 * 5 + 2);
    let cma = read(&out.join("cma.csv"));
    // j-sa/l-sa is exact: its gap to bf is 0 on every run
    for line in cma.lines().filter(|l| l.contains(",j-sa/l-sa,")) {
        let gap: f64 = line.rsplit(',').nth(1).unwrap().parse().unwrap();
        assert!(gap.abs() < 1e-6, "{line}");
    }
}

#[test]
fn a_seed_gives_identical_files_and_another_seed_another_pool() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, c) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("c"),
    );
    quick(&a, &["--no-cma", "--seed", "7"]);
    quick(&b, &["--no-cma", "--seed", "7"]);
    quick(&c, &["--no-cma", "--seed", "8"]);
    for f in ["timeline.csv", "summary.csv", "findings.md"] {
        assert_eq!(read(&a.join(f)), read(&b.join(f)), "{f}");
    }
    assert_ne!(read(&a.join("timeline.csv")), read(&c.join("timeline.csv")));
    assert!(!a.join("cma.csv").exists());
}

#[test]
fn the_timeline_keeps_the_pool_invariants() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pn");
    // an overloaded pool turns players away; a synthetic one needs no matrix
    quick(&out, &["--no-cma", "--synthetic", "--loads", "0.3,1.5"]);
    let csv = read(&out.join("timeline.csv"));
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let mut rejected_somewhere = false;
    let mut rows = 0;
    for line in lines {
        let v: Vec<&str> = line.split(',').collect();
        let n = |name: &str| v[col(name)].parse::<f64>().unwrap();
        let (arrived, departed, rejected) = (n("arrived"), n("departed"), n("rejected"));
        let present = n("present");
        assert_eq!(arrived, present + departed + rejected, "{line}");
        assert!(n("max_fill") <= 1.0, "{line}");
        assert!(present <= 288.0 && n("on_viable") <= present, "{line}");
        assert!(n("viable") <= 10.0 && n("share_largest") <= 1.0, "{line}");
        assert!(
            n("p95_ping_ms") >= 0.0 && n("mean_ping_ms") <= n("p95_ping_ms") + 1e-9
                || present == 0.0
        );
        rejected_somewhere |= rejected > 0.0;
        rows += 1;
    }
    // 2 loads × 7 policies × 24 samples
    assert_eq!(rows, 2 * 7 * 24);
    assert!(rejected_somewhere);
}

#[test]
fn bad_flags_are_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pn");
    let o = out.to_str().unwrap();
    for extra in [
        vec!["--loads", "0"],
        vec!["--loads", "nan"],
        vec!["--cma-scale", "-1"],
        vec!["--matrix", "/nonexistent/matrix"],
        vec!["--synthetic", "--matrix", "x"],
    ] {
        let mut args = vec!["repro", "playnow", "--quick", "--no-cma", "--out", o];
        if extra[0] == "--cma-scale" {
            args.retain(|a| *a != "--no-cma");
        }
        args.extend_from_slice(&extra);
        let r = serverpick(&args);
        assert_eq!(r.status.code(), Some(2), "{extra:?}: {}", text(&r.stderr));
    }
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "0 1\n1\n").unwrap();
    let r = serverpick(&[
        "repro",
        "playnow",
        "--quick",
        "--no-cma",
        "--out",
        o,
        "--matrix",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
}
