//! `points.jsonl`: each settled point of a `plan cma` run, appended and
//! flushed as soon as it is settled (so Ctrl-C keeps it), and read back by
//! `plan cma --resume`, which re-proves none of them (issue 29, fuzz3 D6).
//!
//! One line per point: the instance, the engine, `K`, its status, the open
//! set, the proven bound, nodes and time. The assignment is not stored: a
//! resumed point's set is evaluated again (one transportation problem),
//! which proves nothing anew.

use super::exact::PointResult;
use super::Planner;
use crate::core::Status;
use crate::error::{Error, Result};
use crate::io::jsonl::JsonlLog;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in the output folder.
pub const POINTS_JSONL: &str = "points.jsonl";

/// One line of `points.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PointLine {
    /// The instance's name.
    pub instance: String,
    /// The run's mode: engine, objective and gap (a point of another mode
    /// is not reused).
    pub mode: String,
    /// Mirrors opened.
    pub k: usize,
    /// The point's status.
    pub status: Status,
    /// The best set, when one was found.
    pub open: Option<Vec<usize>>,
    /// Its objective.
    pub objective: Option<f64>,
    /// The proven bound.
    pub bound: Option<f64>,
    /// Search nodes.
    pub nodes: usize,
    /// Wall time, ms.
    pub time_ms: f64,
}

/// Appends settled points to `points.jsonl`.
pub struct PointsLog {
    log: JsonlLog,
    instance: String,
    mode: String,
}

impl PointsLog {
    /// Opens `dir/points.jsonl`: appending to it when `resume`, else
    /// replacing it.
    pub fn open(dir: &Path, instance: &str, mode: &str, resume: bool) -> Result<Self> {
        Ok(PointsLog {
            log: JsonlLog::open(&dir.join(POINTS_JSONL), resume)?,
            instance: instance.into(),
            mode: mode.into(),
        })
    }

    /// Writes one point and flushes it to disk.
    pub fn append(&mut self, p: &PointResult) -> Result<()> {
        self.log.append(&PointLine {
            instance: self.instance.clone(),
            mode: self.mode.clone(),
            k: p.k,
            status: p.status,
            open: p.best.as_ref().map(|b| b.open.clone()),
            objective: p.best.as_ref().map(|b| b.objective),
            bound: p.bound,
            nodes: p.nodes,
            time_ms: p.time_ms,
        })
    }
}

/// The points a previous run of the same instance and engine settled (a
/// point its time limit or Ctrl-C stopped is solved again);
/// errors when the folder holds another run's points. A partial last line
/// (the run was killed while writing it) is dropped.
pub fn read_points(dir: &Path, planner: &mut Planner<'_>, mode: &str) -> Result<Vec<PointResult>> {
    let path = dir.join(POINTS_JSONL);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let file = path.display().to_string();
    let mut out = Vec::new();
    for (i, l) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let Ok(line) = serde_json::from_str::<PointLine>(l) else {
            if i + 1 == text.lines().count() {
                break; // the partial last line of a killed run
            }
            return Err(Error::input(
                &file,
                format!("line {}", i + 1),
                "not a plan point",
            ));
        };
        if line.instance != planner.inst.name || line.mode != mode {
            return Err(Error::Usage(format!(
                "{file}: holds the points of instance '{}' ({}), not '{}' ({mode}): \
                 run without --resume to start afresh, or choose another --out",
                line.instance, line.mode, planner.inst.name
            )));
        }
        if line.status == Status::TimeLimit {
            continue; // stopped, not settled: solved again
        }
        out.push(point_of(&line, planner, &file)?);
    }
    Ok(out)
}

fn point_of(line: &PointLine, planner: &mut Planner<'_>, file: &str) -> Result<PointResult> {
    let best = match &line.open {
        Some(open) => {
            if open.iter().any(|&j| j >= planner.mirrors()) {
                let msg = format!("k = {}: a mirror of {open:?} is not a candidate", line.k);
                return Err(Error::input(file, "open", msg));
            }
            planner.evaluate(open)?
        }
        None => None,
    };
    Ok(PointResult {
        k: line.k,
        status: line.status,
        best,
        bound: line.bound,
        nodes: line.nodes,
        time_ms: line.time_ms,
        proof: None,
    })
}
