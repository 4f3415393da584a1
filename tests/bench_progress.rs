//! Progress off a terminal (issue 72): with stderr a file, `bench` prints a
//! progress line every `--progress-every` seconds while units run; `-q`
//! silences it.

mod common_cli;

use common_cli::bundled;
use std::process::{Command, Stdio};

/// Runs bench on one instance with a built-in engine and an external one
/// that sleeps 2.5 s (its answer `{}` is rejected: an error row), stderr to
/// a file; returns what it printed there.
fn bench_stderr(extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.txt");
    let status = Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .args([
            "bench",
            &bundled("spd-fig1-cs.json"),
            "-e",
            "alg-m",
            "--engine-cmd",
            "slow=sh -c \"sleep 2.5; echo {}\"",
            "--progress-every",
            "1",
            "--out",
        ])
        .arg(dir.path().join("out"))
        .args(extra)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read_to_string(&log).unwrap()
}

fn progress_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("bench: ") && l.contains(" done, ") && l.contains(" running, "))
        .collect()
}

#[test]
fn a_run_longer_than_the_interval_prints_progress_lines() {
    let err = bench_stderr(&[]);
    let lines = progress_lines(&err);
    assert!(!lines.is_empty(), "no progress line in:\n{err}");
    // Two units: "bench: D/2 done, R running, L left, E error(s); … elapsed,
    // about … left" (or "time left unknown …" before the first finishes).
    for l in &lines {
        let counts = l.strip_prefix("bench: ").unwrap();
        let n: Vec<usize> = counts
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .take(5)
            .map(|w| w.parse().unwrap())
            .collect();
        let (done, total, running, left) = (n[0], n[1], n[2], n[3]);
        assert_eq!(total, 2, "{l}");
        assert_eq!(done + running + left, 2, "{l}");
        assert!(
            counts.contains(" running, ") && counts.contains(" left, "),
            "{l}"
        );
        assert!(
            l.contains(" elapsed, ") && (l.ends_with(" left") || l.contains("unknown")),
            "{l}"
        );
    }
}

#[test]
fn quiet_prints_no_progress_lines() {
    let err = bench_stderr(&["-q"]);
    assert!(progress_lines(&err).is_empty(), "{err}");
}
