//! Issue 29 item 2 (fuzz3 D5, D6): `plan` keeps every settled point when
//! stopped. Ctrl-C (SIGINT) after the first point is written exits 130 with
//! the points written so far and the partial curve; `plan cma --resume`
//! completes the folder, keeping the points that are there, and ends with
//! the points of an uninterrupted run.

mod common_cli;

use common_cli::{serverpick, text};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_serverpick"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Waits until `file` has at least one line (or 60 s), then sends SIGINT.
fn interrupt_after_first_point(child: &mut Child, file: &Path) -> Option<i32> {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        let lines = std::fs::read_to_string(file).map_or(0, |t| t.lines().count());
        if lines >= 1 || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id().to_string();
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    child.wait().unwrap().code()
}

/// `(k, objective)` of every point of `curve.jsonl` that has a solution.
fn curve(dir: &Path) -> Vec<(u64, Option<f64>, String)> {
    std::fs::read_to_string(dir.join("curve.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["k"].as_u64().unwrap(),
                v["objective"].as_f64(),
                v["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// A 3,000 × 30 CMA instance whose curve takes a few seconds.
fn cma_instance(dir: &Path) -> std::path::PathBuf {
    let inst = dir.join("c.json");
    let args = "gen cma --scenario static --mirrors 30 --clients 3000 --slack 0.3 --seed 4 --out";
    let mut args: Vec<&str> = args.split(' ').collect();
    args.push(inst.to_str().unwrap());
    let gen = serverpick(&args);
    assert_eq!(gen.status.code(), Some(0), "{}", text(&gen.stderr));
    inst
}

#[test]
fn plan_cma_interrupted_keeps_its_points_and_resume_completes_them() {
    let dir = tempfile::tempdir().unwrap();
    let inst = cma_instance(dir.path());
    let f = inst.to_str().unwrap();
    let full = dir.path().join("full");
    let o = serverpick(&["plan", "cma", f, "--out", full.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));

    let part = dir.path().join("part");
    let mut child = spawn(&["plan", "cma", f, "--out", part.to_str().unwrap()]);
    let code = interrupt_after_first_point(&mut child, &part.join("points.jsonl"));
    // Interrupted (130), or it finished before the signal arrived (0).
    assert!(matches!(code, Some(130 | 0)), "{code:?}");
    let kept = std::fs::read_to_string(part.join("points.jsonl")).unwrap();
    assert!(kept.lines().count() >= 1);
    assert!(part.join("plan.json").exists() && part.join("curve.svg").exists());
    // --resume completes the folder.
    let resumed = serverpick(&[
        "plan",
        "cma",
        f,
        "--out",
        part.to_str().unwrap(),
        "--resume",
    ]);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    let (a, b) = (curve(&full), curve(&part));
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(&b) {
        assert_eq!((x.0, &x.2), (y.0, &y.2));
        match (x.1, y.1) {
            (Some(p), Some(q)) => assert!((p - q).abs() <= 1e-6 * p.abs().max(1.0), "{x:?} {y:?}"),
            (p, q) => assert_eq!(p, q),
        }
    }
    // Another instance's folder is refused on --resume.
    let other = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances/cma-small.json");
    let o = serverpick(&[
        "plan",
        "cma",
        other.to_str().unwrap(),
        "--out",
        part.to_str().unwrap(),
        "--resume",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}

#[test]
fn plan_cma_past_its_deadline_reports_the_points_left_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let inst = cma_instance(dir.path());
    let out = dir.path().join("out");
    let o = serverpick(&[
        "plan",
        "cma",
        inst.to_str().unwrap(),
        "--time-limit",
        "0.001",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let c = curve(&out);
    assert_eq!(c.len(), 30);
    // Each K is infeasible (too little capacity) or reported at once with
    // the cheap bound; none was solved.
    assert!(
        c.iter().all(|p| p.2 == "time_limit" || p.2 == "infeasible"),
        "{c:?}"
    );
    let lines = std::fs::read_to_string(out.join("curve.jsonl")).unwrap();
    for l in lines.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        if v["status"] == "time_limit" {
            assert!(v["bound"].as_f64().is_some_and(|b| b > 0.0), "{v}");
        }
    }
}

#[test]
fn plan_spd_interrupted_keeps_its_breakpoints_and_resume_completes_them() {
    let dir = tempfile::tempdir().unwrap();
    let args = "gen spd --servers 40 --clients 200 --model p2p --factor 1.0 --seed 1 --out";
    let mut args: Vec<&str> = args.split(' ').collect();
    args.push(dir.path().to_str().unwrap());
    let gen = serverpick(&args);
    assert_eq!(gen.status.code(), Some(0), "{}", text(&gen.stderr));
    let f = dir.path().join("paper-p2p-40s-200c-f1-s1.json");
    let f = f.to_str().unwrap();
    let out = dir.path().join("out");
    let out_s = out.to_str().unwrap();
    let mut child = spawn(&["plan", "spd", f, "--out", out_s]);
    let code = interrupt_after_first_point(&mut child, &out.join("points.jsonl"));
    assert!(matches!(code, Some(130 | 0)), "{code:?}");
    let lines = |p: &Path| std::fs::read_to_string(p).unwrap().lines().count();
    let (kept, written) = (
        lines(&out.join("points.jsonl")),
        lines(&out.join("frontier.jsonl")),
    );
    assert!(
        kept >= 1 && written >= kept,
        "{kept} kept, {written} in the frontier"
    );
    // --resume goes on below the last breakpoint and ends with the frontier
    // of an uninterrupted run.
    let o = serverpick(&["plan", "spd", f, "--out", out_s, "--resume"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let full = dir.path().join("full");
    let o = serverpick(&["plan", "spd", f, "--out", full.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(frontier(&out), frontier(&full));
}

/// `(μ, hosts, status)` of every breakpoint of `frontier.jsonl`.
fn frontier(dir: &Path) -> Vec<(String, u64, String)> {
    std::fs::read_to_string(dir.join("frontier.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v.get("mu").is_some()) // the last line sums the run up
        .map(|v| {
            (
                format!("{:.6}", v["mu"].as_f64().unwrap()),
                v["hosts"].as_u64().unwrap(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn plan_spd_time_limit_is_one_deadline_for_the_whole_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let args = "gen spd --servers 60 --clients 300 --model p2p --factor 1.0 --seed 1 --out";
    let mut args: Vec<&str> = args.split(' ').collect();
    args.push(dir.path().to_str().unwrap());
    assert_eq!(serverpick(&args).status.code(), Some(0));
    let f = dir.path().join("paper-p2p-60s-300c-f1-s1.json");
    let out = dir.path().join("out");
    let o = serverpick(&[
        "plan",
        "spd",
        f.to_str().unwrap(),
        "--time-limit",
        "0.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // The sweep (seconds without a limit) ends at the deadline, with the
    // breakpoints found before it.
    let text_out = std::fs::read_to_string(out.join("frontier.jsonl")).unwrap();
    let last: serde_json::Value = serde_json::from_str(text_out.lines().last().unwrap()).unwrap();
    let end = last["end"].as_str().unwrap();
    assert!(end.starts_with("time_limit before μ"), "{end}");
}
