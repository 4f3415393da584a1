//! `bench-merge`: one result set from several folders (e.g. one per
//! shard of `bench --shard K/N`), best known and gaps recomputed across
//! all of them.

use crate::bench::dispatch::Dispatch;
use crate::bench::export;
use crate::bench::reports::Reports;
use crate::bench::runner::{finish, sort_rows, BenchOutcome, RESULTS_JSONL, RUN_JSON};
use crate::bench::shard::Shard;
use crate::error::{Error, Result};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn same_dir(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Warns when the folders' shards (their `run.json`) do not cover `0..N`
/// exactly once.
fn check_shards(dirs: &[PathBuf]) {
    let mut shards: Vec<Shard> = Vec::new();
    for d in dirs {
        let info = std::fs::read_to_string(d.join(RUN_JSON)).ok();
        let shard = info
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v.get("shard").and_then(|s| s.as_str()).map(str::to_string))
            .and_then(|s| s.parse::<Shard>().ok());
        match shard {
            Some(s) if shards.contains(&s) => {
                eprintln!(
                    "bench-merge: warning: shard {s} is given twice ({})",
                    d.display()
                )
            }
            Some(s) => shards.push(s),
            None => return, // an unsharded folder: nothing to check
        }
    }
    let Some(count) = shards.first().map(|s| s.count) else {
        return;
    };
    if shards.iter().any(|s| s.count != count) {
        eprintln!("bench-merge: warning: the folders come from different shard counts");
        return;
    }
    let missing: Vec<String> = (0..count)
        .filter(|k| !shards.iter().any(|s| s.index == *k))
        .map(|k| format!("{k}/{count}"))
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "bench-merge: warning: shard(s) {} missing: the merged set is incomplete",
            missing.join(", ")
        );
    }
}

/// `bench-merge`: combines the result sets of `dirs` (e.g. one per shard)
/// into `out`, recomputing best known and gaps across all of them. A row
/// whose (file, engine, repetition) appeared in an earlier folder is dropped.
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    dispatch: &dyn Dispatch,
    reports: &dyn Reports,
) -> Result<BenchOutcome> {
    if dirs.is_empty() {
        return Err(Error::Usage("bench-merge needs at least one folder".into()));
    }
    let target = out.join(RESULTS_JSONL);
    let out_is_input = dirs.iter().any(|d| same_dir(d, out));
    if target.exists() && !out_is_input {
        return Err(Error::ResultsExist {
            path: target,
            hint: "already holds results: merge into a new folder".into(),
        });
    }
    check_shards(dirs);
    let mut rows = Vec::new();
    let mut seen = HashSet::new();
    let mut dropped = 0usize;
    for d in dirs {
        let path = d.join(RESULTS_JSONL);
        if !path.exists() {
            return Err(Error::Usage(format!(
                "{}: no such results file",
                path.display()
            )));
        }
        let read = export::read_jsonl(&path)?;
        if read.dropped_partial_line {
            eprintln!(
                "bench-merge: {}: dropped an incomplete last line (an interrupted write); \
                 `bench --resume` in that folder re-runs its unit",
                path.display()
            );
        }
        for r in read.rows {
            if seen.insert(r.key()) {
                rows.push(r);
            } else {
                dropped += 1;
            }
        }
    }
    if dropped > 0 {
        eprintln!("bench-merge: dropped {dropped} duplicate row(s)");
    }
    crate::io::create_out_dir(out)?;
    let known = dispatch.known_engines();
    sort_rows(&mut rows, &known);
    let note = format!("Merged from {} result folder(s).", dirs.len());
    let conflicts = finish(out, &mut rows, Some(&note), &known, reports)?;
    Ok(BenchOutcome {
        ran: 0,
        skipped: 0,
        rows,
        conflicts,
    })
}
