//! Issue 29 item 3: no declared size crashes. Every integer field of every
//! bundled instance (object fields, and the first entry of integer lists) is
//! set in turn to 2⁶⁴−1, 1e11, 2³², −1 and 0; `solve --engine all` must then
//! either solve it (exit 0 or 1) or refuse it as bad input (exit 2, naming
//! the file) — never panic (101), abort (134) or die by a signal.

mod common_cli;

use common_cli::text;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const VALUES: [&str; 5] = ["18446744073709551615", "1e11", "4294967296", "-1", "0"];

/// Paths (object keys and list indices) of the integer fields to mutate.
fn integer_fields(v: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Value::String(k.clone()));
                if x.as_i64().is_some() || x.as_u64().is_some() {
                    out.push(path.clone());
                } else {
                    integer_fields(x, path, out);
                }
                path.pop();
            }
        }
        Value::Array(a) => {
            if let Some(x) = a.first() {
                path.push(Value::from(0));
                if x.as_i64().is_some() || x.as_u64().is_some() {
                    out.push(path.clone());
                } else {
                    integer_fields(x, path, out);
                }
                path.pop();
            }
        }
        _ => {}
    }
}

fn slot<'a>(v: &'a mut Value, path: &[Value]) -> Option<&'a mut Value> {
    let mut cur = v;
    for p in path {
        cur = match p {
            Value::String(k) => cur.get_mut(k.as_str())?,
            Value::Number(i) => cur.get_mut(usize::try_from(i.as_u64()?).ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn instances() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("instances");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_integer_field_at_every_extreme_is_refused_or_solved_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut runs = 0;
    for inst in instances() {
        let original: Value =
            serde_json::from_str(&std::fs::read_to_string(&inst).unwrap()).unwrap();
        let mut fields = Vec::new();
        integer_fields(&original, &mut Vec::new(), &mut fields);
        for field in &fields {
            for raw in VALUES {
                let mut v = original.clone();
                let Some(s) = slot(&mut v, field) else {
                    continue;
                };
                *s = serde_json::from_str(raw).unwrap();
                // The bundled instances are self-contained (no side files).
                let name = inst.file_name().unwrap().to_string_lossy();
                let path = dir.path().join(format!("sweep-{runs}-{name}"));
                std::fs::write(&path, v.to_string()).unwrap();
                let o = Command::new(env!("CARGO_BIN_EXE_serverpick"))
                    .args(["solve", path.to_str().unwrap(), "--engine", "all"])
                    .args(["--time-limit", "2"])
                    .output()
                    .unwrap();
                let _ = std::fs::remove_file(&path);
                let err = text(&o.stderr);
                let what = format!("{}: {field:?} = {raw}", inst.display());
                assert!(
                    matches!(o.status.code(), Some(0..=2)),
                    "{what}: exit {:?}\n{err}",
                    o.status
                );
                assert!(!err.contains("panicked"), "{what}: {err}");
                if o.status.code() == Some(2) {
                    assert!(
                        err.contains("sweep-"),
                        "{what}: the file is not named: {err}"
                    );
                }
                runs += 1;
            }
        }
    }
    assert!(runs > 100, "only {runs} mutations");
}
