//! A bench killed mid-run (SIGINT, SIGKILL) and resumed gives exactly the
//! rows of an uninterrupted run (issue 15), and a resumed run recognises its
//! folder however it is spelled.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_serverpick")
}

fn instances() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("instances")
}

/// (file, engine, repetition) → (status, objective), from results.jsonl.
fn rows(out: &Path) -> BTreeMap<(String, String, u64), (String, Option<f64>)> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let key = (
                v["file"].as_str().unwrap().to_string(),
                v["engine"].as_str().unwrap().to_string(),
                v["repetition"].as_u64().unwrap(),
            );
            (
                key,
                (
                    v["status"].as_str().unwrap().to_string(),
                    v["objective"].as_f64(),
                ),
            )
        })
        .collect()
}

fn bench(inst: &str, out: &Path, resume: bool) -> std::process::Child {
    let mut c = Command::new(bin());
    c.args([
        "bench",
        inst,
        "--jobs",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    if resume {
        c.arg("--resume");
    }
    c.stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn interrupted_then_resumed_equals_uninterrupted() {
    let dir = tempfile::tempdir().unwrap();
    let inst = instances().display().to_string();
    let full = dir.path().join("full");
    assert!(bench(&inst, &full, false).wait().unwrap().success());
    let expected = rows(&full);
    assert!(expected.len() > 20);
    for (signal, delay_ms) in [("KILL", 150u64), ("INT", 250)] {
        let out = dir.path().join(format!("cut-{signal}"));
        let mut child = bench(&inst, &out, false);
        std::thread::sleep(Duration::from_millis(delay_ms));
        let pid = child.id().to_string();
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status();
        let _ = child.wait();
        let status = bench(&inst, &out, true).wait().unwrap();
        assert!(status.success(), "resume after SIG{signal}");
        assert_eq!(rows(&out), expected, "after SIG{signal}");
    }
}

#[test]
fn resume_recognises_the_folder_spelled_differently() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let inst = instances().join("spd-fig1-cs.json");
    let plain = inst.display().to_string();
    assert!(bench(&plain, &out, false).wait().unwrap().success());
    let before = rows(&out);
    let dotted = instances()
        .join(".")
        .join("spd-fig1-cs.json")
        .display()
        .to_string();
    assert!(bench(&dotted, &out, true).wait().unwrap().success());
    assert_eq!(rows(&out), before, "nothing re-run, no duplicate rows");
}
