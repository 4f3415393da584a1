//! Files `plan spd` writes: `frontier.csv`, `frontier.jsonl`,
//! `frontier.svg`, and per breakpoint an instance at that bound with its
//! solution file (so `serverpick eval` re-checks every point).

use crate::app::report::plot::{draw_chart, ChartSpec, Series, Style};
use crate::core::{fill_record, Outcome, SolveRecord, Status};
use crate::error::{Error, Result};
use crate::io::solution_file::write_record;
use crate::problems::spd::eval::evaluate_spd;
use crate::problems::spd::file::{to_file, write_spd_file};
use crate::problems::spd::model::SpdInstance;
use crate::problems::spd::plan::{Breakpoint, Frontier};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The files of one breakpoint, relative to the output folder.
fn point_files(p: &Breakpoint) -> (String, String) {
    (
        format!("points/k{}.instance.json", p.hosts),
        format!("points/k{}.solution.json", p.hosts),
    )
}

fn write_text(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// Writes every file of `fr` into `dir` (created if missing); returns the
/// paths written.
pub fn write_frontier(dir: &Path, inst: &SpdInstance, fr: &Frontier) -> Result<Vec<PathBuf>> {
    let points_dir = dir.join("points");
    std::fs::create_dir_all(&points_dir).map_err(|e| Error::io(&points_dir, e))?;
    let mut written = Vec::new();
    for p in &fr.points {
        let (ifile, sfile) = point_files(p);
        let at = instance_at(inst, p);
        write_spd_file(&dir.join(&ifile), &to_file(&at))?;
        write_record(&dir.join(&sfile), &record(&at, p))?;
        written.extend([dir.join(ifile), dir.join(sfile)]);
    }
    let csv = dir.join("frontier.csv");
    write_text(&csv, &to_csv(fr))?;
    let jsonl = dir.join("frontier.jsonl");
    write_text(&jsonl, &to_jsonl(fr)?)?;
    let svg = dir.join("frontier.svg");
    draw_chart(&svg, &chart_spec(fr), &step_series(fr))?;
    written.extend([csv, jsonl, svg]);
    Ok(written)
}

/// The instance with its bound set to the breakpoint's μ.
fn instance_at(inst: &SpdInstance, p: &Breakpoint) -> SpdInstance {
    let mut at = inst.clone();
    at.name = format!("{}-k{}", inst.name, p.hosts);
    at.bound = p.mu;
    at.bound_factor = None;
    at
}

/// The breakpoint's solution file: `feasible` with the proven host lower
/// bound (gap 0 when the host count is proven; the variation stage is not
/// run, so this is never claimed `optimal`).
fn record(at: &SpdInstance, p: &Breakpoint) -> SolveRecord {
    let mut rec = SolveRecord::unsolved(&at.name, "spd", "plan");
    rec.time_ms = p.time_ms;
    let msg = match &p.note {
        None => format!(
            "plan spd breakpoint: {} hosts proven minimal at μ = {}, and μ proven the least \
             delay with {} hosts (variation not minimised)",
            p.hosts, p.mu, p.hosts
        ),
        Some(n) => format!("plan spd breakpoint: {n}"),
    };
    let outcome = Outcome {
        status: Status::Feasible,
        solution: Some(p.solution.clone()),
        bound: Some(p.hosts_lb as f64),
        message: Some(msg),
        reason: None,
        stop: None,
        solver_status: None,
        stages: Vec::new(),
    };
    fill_record(&mut rec, outcome, |sol| evaluate_spd(at, sol).verdict());
    rec
}

fn opt(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x}"))
}

/// `frontier.csv`: one row per breakpoint.
pub fn to_csv(fr: &Frontier) -> String {
    let mut s = String::from(
        "mu,factor,hosts,hosts_lb,status,delay_proven,variation,time_ms,solution_file,note\n",
    );
    for p in &fr.points {
        let note = p.note.as_deref().unwrap_or("").replace('"', "'");
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{:.1},{},\"{}\"",
            p.mu,
            opt(p.factor),
            p.hosts,
            p.hosts_lb,
            p.status,
            p.delay_proven,
            p.variation,
            p.time_ms,
            point_files(p).1,
            note
        );
    }
    s
}

/// `frontier.jsonl`: one JSON object per breakpoint (with its solution),
/// then a last line with the sweep's summary.
pub fn to_jsonl(fr: &Frontier) -> Result<String> {
    let ser = |e: serde_json::Error| Error::Usage(format!("cannot serialise the frontier: {e}"));
    let mut s = String::new();
    for p in &fr.points {
        s += &serde_json::to_string(p).map_err(ser)?;
        s.push('\n');
    }
    let summary = serde_json::json!({
        "instance": fr.instance, "model": fr.model, "gamma": fr.gamma,
        "breakpoints": fr.points.len(), "end": fr.end, "time_ms": fr.time_ms,
    });
    s += &summary.to_string();
    s.push('\n');
    Ok(s)
}

fn chart_spec(fr: &Frontier) -> ChartSpec {
    ChartSpec {
        title: format!(
            "{}: servers needed vs delay bound ({})",
            fr.instance, fr.model
        ),
        x_desc: "delay bound μ (ms)".into(),
        y_desc: "least host count".into(),
        log_x: false,
        log_y: false,
    }
}

/// The step function: each breakpoint's level runs right to the next
/// breakpoint (or 5 % past the last); proven and unproven points are
/// separate series.
fn step_series(fr: &Frontier) -> Vec<Series> {
    // points are by decreasing μ; draw by increasing μ
    let pts: Vec<&Breakpoint> = fr.points.iter().rev().collect();
    let mut line = Vec::new();
    for (i, p) in pts.iter().enumerate() {
        let right = pts.get(i + 1).map_or(p.mu * 1.05, |q| q.mu);
        line.push((p.mu, p.hosts as f64));
        line.push((right, p.hosts as f64));
    }
    let marks = |proven: bool| -> Vec<(f64, f64)> {
        pts.iter()
            .filter(|p| (p.status == "proven") == proven)
            .map(|p| (p.mu, p.hosts as f64))
            .collect()
    };
    let mut out = vec![
        Series {
            label: "least hosts h(μ)".into(),
            points: line,
            style: Style::Line,
            counts: Vec::new(),
        },
        Series {
            label: "breakpoint, proven".into(),
            points: marks(true),
            style: Style::Points,
            counts: Vec::new(),
        },
    ];
    let unproven = marks(false);
    if !unproven.is_empty() {
        out.push(Series {
            label: "breakpoint, bounds only".into(),
            points: unproven,
            style: Style::Points,
            counts: Vec::new(),
        });
    }
    out
}
