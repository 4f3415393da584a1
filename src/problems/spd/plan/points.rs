//! `points.jsonl` of `plan spd`: each breakpoint appended and flushed as it
//! is found (Ctrl-C keeps them), read back by `plan spd --resume`, which
//! continues the sweep below the last one and solves none of them again.

use super::{Breakpoint, PlanOptions};
use crate::error::{Error, Result};
use crate::io::jsonl::JsonlLog;
use crate::problems::spd::model::SpdSolution;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in the output folder.
pub const POINTS_JSONL: &str = "points.jsonl";

/// What a breakpoint depends on besides the instance.
fn mode(opts: &PlanOptions) -> String {
    format!(
        "range {:?} time limit {:?} seed {}",
        opts.range, opts.time_limit, opts.seed
    )
}

#[derive(Serialize)]
struct Line<'a> {
    instance: &'a str,
    mode: String,
    point: &'a Breakpoint,
}

/// A stored breakpoint (the status read as text).
#[derive(Deserialize)]
struct Stored {
    instance: String,
    mode: String,
    point: StoredPoint,
}

#[derive(Deserialize)]
struct StoredPoint {
    mu: f64,
    factor: Option<f64>,
    hosts: usize,
    hosts_lb: usize,
    status: String,
    delay_proven: bool,
    variation: f64,
    note: Option<String>,
    time_ms: f64,
    solution: SpdSolution,
}

/// Appends breakpoints to `points.jsonl`.
pub struct PointsLog {
    log: JsonlLog,
    instance: String,
    mode: String,
}

impl PointsLog {
    /// Opens `dir/points.jsonl`: appending when `resume`, else replacing it.
    pub fn open(dir: &Path, instance: &str, opts: &PlanOptions, resume: bool) -> Result<Self> {
        Ok(PointsLog {
            log: JsonlLog::open(&dir.join(POINTS_JSONL), resume)?,
            instance: instance.into(),
            mode: mode(opts),
        })
    }

    /// Appends one breakpoint and flushes it; a failed write is reported,
    /// not fatal (the frontier is still written at the end).
    pub fn append(&mut self, p: &Breakpoint) {
        let line = Line {
            instance: &self.instance,
            mode: self.mode.clone(),
            point: p,
        };
        if let Err(e) = self.log.append(&line) {
            eprintln!("serverpick: {e}");
        }
    }
}

/// The breakpoints a previous run of the same instance and options left in
/// `dir` (none when there is no file); a partial last line is dropped.
pub fn read_points(dir: &Path, instance: &str, opts: &PlanOptions) -> Result<Vec<Breakpoint>> {
    let path = dir.join(POINTS_JSONL);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let (file, want) = (path.display().to_string(), mode(opts));
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Ok(s) = serde_json::from_str::<Stored>(l) else {
            if i + 1 == lines.len() {
                break; // the partial last line of a killed run
            }
            return Err(Error::input(
                &file,
                format!("line {}", i + 1),
                "not a breakpoint",
            ));
        };
        if s.instance != instance || s.mode != want {
            return Err(Error::Usage(format!(
                "{file}: holds the breakpoints of '{}' ({}), not '{instance}' ({want}): run \
                 without --resume to start afresh, or choose another --out",
                s.instance, s.mode
            )));
        }
        out.push(breakpoint(s.point));
    }
    Ok(out)
}

fn breakpoint(p: StoredPoint) -> Breakpoint {
    Breakpoint {
        mu: p.mu,
        factor: p.factor,
        hosts: p.hosts,
        hosts_lb: p.hosts_lb,
        status: if p.status == "proven" {
            "proven"
        } else {
            "bounds"
        },
        delay_proven: p.delay_proven,
        variation: p.variation,
        note: p.note,
        time_ms: p.time_ms,
        solution: p.solution,
    }
}
