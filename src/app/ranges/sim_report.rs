//! `simulate-ranges`' outputs: `steps.csv`, the max/mean-over-time and
//! migration SVGs, and the summary table.

use crate::app::report::plot::{draw_chart, ChartSpec, Series, Style};
use crate::core::table::Table;
use crate::error::{Error, Result};
use crate::problems::ranges::simulate::{summarise, StepRow, POLICIES};
use std::fmt::Write;
use std::path::Path;

/// The CSV header of `steps.csv`.
pub const STEPS_HEADER: &str = "step,policy,max_load,mean_load,max_over_mean,migrated,optimum,gap";

/// `steps.csv` as text (one row per step and policy).
pub fn steps_csv(rows: &[StepRow]) -> String {
    let mut s = format!("{STEPS_HEADER}\n");
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{:.6},{},{},{:.6}",
            r.step,
            r.policy,
            r.max_load,
            r.mean_load,
            r.max_over_mean,
            r.migrated,
            r.optimum,
            r.gap
        );
    }
    s
}

/// The summary table (one row per policy).
pub fn summary_table(rows: &[StepRow]) -> String {
    let header = [
        "policy",
        "mean max/mean",
        "worst max/mean",
        "mean gap",
        "max gap",
        "cells migrated",
    ];
    let right: Vec<bool> = header.iter().map(|h| *h != "policy").collect();
    let mut t = Table::new(&header, &right);
    for s in summarise(rows) {
        t.push(vec![
            s.policy.to_string(),
            format!("{:.3}", s.mean_max_over_mean),
            format!("{:.3}", s.worst_max_over_mean),
            format!("{:.1}%", 100.0 * s.mean_gap),
            format!("{:.1}%", 100.0 * s.max_gap),
            s.migrated.to_string(),
        ]);
    }
    t.render()
}

fn series(rows: &[StepRow], y: impl Fn(&StepRow) -> f64) -> Vec<Series> {
    POLICIES
        .iter()
        .map(|&p| Series {
            label: p.to_string(),
            points: rows
                .iter()
                .filter(|r| r.policy == p)
                .map(|r| (r.step as f64, y(r)))
                .collect(),
            style: Style::Line,
            counts: Vec::new(),
        })
        .collect()
}

/// Writes `steps.csv`, `max_over_mean.svg` and `migrated.svg` into `out`.
pub fn write_outputs(out: &Path, rows: &[StepRow], title: &str) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let csv = out.join("steps.csv");
    std::fs::write(&csv, steps_csv(rows)).map_err(|e| Error::io(&csv, e))?;
    let spec = |y: &str, what: &str| ChartSpec {
        title: format!("{what}: {title}"),
        x_desc: "step".into(),
        y_desc: y.into(),
        log_x: false,
        log_y: false,
    };
    draw_chart(
        &out.join("max_over_mean.svg"),
        &spec("max load / mean load", "max/mean over time"),
        &series(rows, |r| r.max_over_mean),
    )?;
    draw_chart(
        &out.join("migrated.svg"),
        &spec("cells migrated in the step", "migration"),
        &series(rows, |r| r.migrated as f64),
    )
}
