//! The `solve` table of SPD and SPDVR runs.

use crate::core::table::{fmt_ms, Table};
use crate::core::{SolveRecord, SolveRow};
use crate::problems::spd::eval::SpdReport;
use serde_json::Value;

/// Delay and variation of an SPDVR run's start, when a row has one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Before {
    /// The start's delay.
    pub delay: Option<f64>,
    /// The start's variation.
    pub variation: Option<f64>,
}

/// The table's columns, with the start's columns when `with_before`.
fn header(with_before: bool) -> Vec<&'static str> {
    let mut header = vec![
        "instance", "model", "problem", "engine", "status", "hosts", "bound", "delay",
    ];
    if with_before {
        header.push("delay before");
    }
    header.push("variation");
    if with_before {
        header.push("var. before");
    }
    header.extend(["relays", "time ms", "note"]);
    header
}

/// Renders `rows`; `before` gives an SPDVR row's start metrics (the columns
/// appear when some row has them).
pub fn render(rows: &[SolveRow], before: impl Fn(&SolveRecord) -> Option<Before>) -> String {
    let befores: Vec<Option<Before>> = rows.iter().map(|r| before(&r.record)).collect();
    let with_before = befores.iter().any(Option::is_some);
    let header = header(with_before);
    let right: Vec<bool> = header
        .iter()
        .map(|h| {
            !matches!(
                *h,
                "instance" | "model" | "problem" | "engine" | "status" | "note"
            )
        })
        .collect();
    let mut t = Table::new(&header, &right);
    for (row, b) in rows.iter().zip(&befores) {
        t.push(cells(row, b.as_ref(), with_before));
    }
    t.render()
}

/// One row's cells.
fn cells(row: &SolveRow, b: Option<&Before>, with_before: bool) -> Vec<String> {
    let r = &row.record;
    let m: SpdReport = serde_json::from_value(Value::Object(r.metrics.clone())).unwrap_or_default();
    let int = |v: Option<usize>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
    let bound = r.bound.map(|b| {
        if r.problem == "spd" {
            format!("{b:.0}")
        } else {
            format!("{b:.1}")
        }
    });
    let model = row
        .features
        .features
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("-");
    let mut cells = vec![
        r.instance.clone(),
        model.to_string(),
        r.problem.clone(),
        r.engine.clone(),
        r.status.to_string(),
        int(m.hosts),
        bound.unwrap_or_else(|| "-".into()),
        fmt_ms(m.delay),
    ];
    if with_before {
        cells.push(fmt_ms(b.and_then(|b| b.delay)));
    }
    cells.push(fmt_ms(m.variation));
    if with_before {
        cells.push(fmt_ms(b.and_then(|b| b.variation)));
    }
    cells.extend([int(m.relays), format!("{:.1}", r.time_ms), note(r)]);
    cells
}

/// The run's message, shortened for a table cell.
pub fn note(r: &SolveRecord) -> String {
    crate::core::table::note(r.message.as_deref().unwrap_or_default())
}
