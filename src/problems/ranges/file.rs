//! Reading and writing ranges instance files (formats.md "Ranges instance")
//! and ranges solutions.
//!
//! ```json
//! {"problem": "ranges", "version": 1, "name": "ranges-tiny", "nodes": 3,
//!  "cells": 8, "publish": [5, 1, 1, 9, 2, 2, 1, 3],
//!  "subscriptions": [{"ranges": [[0, 2]], "rate": 4},
//!                    {"ranges": [[3, 3], [6, 7]], "rate": 1}],
//!  "map": {"width": 4, "height": 2, "curve": "hilbert"}}
//! ```
//!
//! - `nodes` >= 1, `cells` >= 1, `publish`: `cells` rates >= 0;
//! - every subscription has at least one inclusive interval `[a, b]` with
//!   `a <= b < cells` and a rate >= 0; intervals may overlap or touch (they
//!   are merged: a subscription counts once per node whatever its shape);
//! - `map` (optional): `width · height = cells`, `curve` one of `hilbert`,
//!   `z`, `row` (and `x`, column by column, this crate's extension);
//! - `source` (optional): provenance.
//!
//! Unknown fields are rejected; every error names the file, field and index.

use crate::error::{Error, Result};
use crate::io::solution_file::solution_from_value;
use crate::problems::ranges::model::{
    normalise, MapSpec, Owners, RangesInstance, RangesSolution, Starts, Subscription,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::Path;

/// The file as written, before validation.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RangesFile {
    /// `"ranges"`.
    pub problem: String,
    /// Format version (1).
    pub version: u32,
    /// Instance name (defaults to the file stem).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `N`.
    pub nodes: usize,
    /// `K`.
    pub cells: usize,
    /// A rate per cell.
    pub publish: Vec<Value>,
    /// `{"ranges": [[a, b], …], "rate": r}` each.
    pub subscriptions: Vec<Value>,
    /// The map, when the cells come from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<Value>,
    /// Free-form provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// Reads and validates a ranges instance file.
pub fn read_ranges(path: &Path) -> Result<RangesInstance> {
    let src = crate::core::Source::read(path)?;
    parse_ranges(&src.text, &src.file, &src.default_name)
}

/// The most DHT nodes an instance may declare (engines keep a few vectors of
/// one entry per node).
pub const MAX_NODES: usize = 10_000_000;

/// The most the rates (publications plus each subscription once per
/// interval) may add up to: sums of loads stay finite.
pub const MAX_TOTAL_RATE: f64 = 1e300;

/// `problem`, `version` and `nodes` (1 to [`MAX_NODES`]).
fn check_header(raw: &RangesFile, file: &str) -> Result<()> {
    if raw.problem != "ranges" {
        let msg = format!("'{}' is not \"ranges\"", raw.problem);
        return Err(Error::input(file, "problem", msg));
    }
    if raw.version != 1 {
        let msg = format!("version {} is not supported (1 is)", raw.version);
        return Err(Error::input(file, "version", msg));
    }
    if raw.nodes == 0 {
        return Err(Error::input(file, "nodes", "at least one node is needed"));
    }
    if raw.nodes > MAX_NODES {
        let msg = format!("{} is too large (max {MAX_NODES})", raw.nodes);
        return Err(Error::input(file, "nodes", msg));
    }
    Ok(())
}

/// Parses a ranges instance from JSON text (`file` names it in errors,
/// `default_name` is used when the file has no `name`).
pub fn parse_ranges(text: &str, file: &str, default_name: &str) -> Result<RangesInstance> {
    let raw: RangesFile =
        serde_json::from_str(text).map_err(|e| Error::input(file, "", e.to_string()))?;
    check_header(&raw, file)?;
    let k = raw.cells;
    if k == 0 {
        return Err(Error::input(file, "cells", "at least one cell is needed"));
    }
    if raw.publish.len() != k {
        let msg = format!(
            "has {} rates, expected {k} (one per cell)",
            raw.publish.len()
        );
        return Err(Error::input(file, "publish", msg));
    }
    let publish = raw
        .publish
        .iter()
        .enumerate()
        .map(|(i, v)| rate(v, file, &format!("publish[{i}]")))
        .collect::<Result<Vec<f64>>>()?;
    let subscriptions = raw
        .subscriptions
        .iter()
        .enumerate()
        .map(|(i, v)| subscription(v, k, file, i))
        .collect::<Result<Vec<_>>>()?;
    // Every load the engines sum (a node's, a prefix's, a bound's) is at
    // most this total: kept far from overflowing to infinity.
    let total: f64 = publish.iter().sum::<f64>()
        + subscriptions
            .iter()
            .map(|s| s.rate * s.ranges.len() as f64)
            .sum::<f64>();
    if total.is_nan() || total > MAX_TOTAL_RATE {
        return Err(Error::input(
            file,
            "subscriptions",
            format!(
                "the rates add up to {total:e}, beyond the largest number the engines sum \
                 safely ({MAX_TOTAL_RATE:e})"
            ),
        ));
    }
    let map = match &raw.map {
        Some(v) => Some(map_spec(v, k, file)?),
        None => None,
    };
    Ok(RangesInstance {
        name: raw.name.unwrap_or_else(|| default_name.into()),
        nodes: raw.nodes,
        publish,
        subscriptions,
        map,
        source: raw.source,
    })
}

fn rate(v: &Value, file: &str, field: &str) -> Result<f64> {
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(Error::input(file, field, format!("{v} is not a rate >= 0"))),
    }
}

fn subscription(v: &Value, k: usize, file: &str, i: usize) -> Result<Subscription> {
    let field = format!("subscriptions[{i}]");
    let s: Subscription =
        serde_json::from_value(v.clone()).map_err(|e| Error::input(file, &field, e.to_string()))?;
    if s.ranges.is_empty() {
        return Err(Error::input(file, field + ".ranges", "has no interval"));
    }
    for (j, &[a, b]) in s.ranges.iter().enumerate() {
        if a > b || b >= k {
            return Err(Error::input(
                file,
                format!("{field}.ranges[{j}]"),
                format!("[{a}, {b}] is not an interval of cells 0..{}", k - 1),
            ));
        }
    }
    rate(&serde_json::json!(s.rate), file, &format!("{field}.rate"))?;
    Ok(Subscription {
        ranges: normalise(&s.ranges),
        rate: s.rate,
    })
}

fn map_spec(v: &Value, k: usize, file: &str) -> Result<MapSpec> {
    let m: MapSpec =
        serde_json::from_value(v.clone()).map_err(|e| Error::input(file, "map", e.to_string()))?;
    if m.width.checked_mul(m.height) != Some(k) {
        let msg = format!("{} × {} is not the {k} cells", m.width, m.height);
        return Err(Error::input(file, "map", msg));
    }
    Ok(m)
}

/// The instance as a file value.
pub fn to_file_value(inst: &RangesInstance) -> Value {
    let mut v = serde_json::json!({
        "problem": "ranges",
        "version": 1,
        "name": inst.name,
        "nodes": inst.nodes,
        "cells": inst.cells(),
        "publish": inst.publish,
        "subscriptions": inst.subscriptions,
    });
    if let Some(m) = &inst.map {
        v["map"] = serde_json::json!(m);
    }
    if let Some(s) = &inst.source {
        v["source"] = serde_json::json!(s);
    }
    v
}

/// Writes an instance file (one JSON document, compact arrays).
pub fn write_ranges(path: &Path, inst: &RangesInstance) -> Result<()> {
    let text = serde_json::to_string(&to_file_value(inst))
        .map_err(|e| Error::Usage(format!("cannot serialise the instance: {e}")))?;
    std::fs::write(path, text + "\n").map_err(|e| Error::io(path, e))
}

/// Reads a ranges solution (`{"starts": […]}` or `{"owner": […]}`) from a
/// solution file written by `solve` or from the bare object. Lengths and
/// index ranges are the evaluator's to check; a value that is no index is an
/// error naming it (`solution.owner[17]`).
pub fn read_ranges_solution(path: &Path) -> Result<RangesSolution> {
    let file = path.display().to_string();
    let text = crate::io::read_text(path)?;
    ranges_solution_from_value(crate::io::json_strict::parse_value(&text, &file)?, &file)
}

/// A ranges solution from a solution file's JSON (see
/// [`read_ranges_solution`]); `file` names it in errors.
pub fn ranges_solution_from_value(value: Value, file: &str) -> Result<RangesSolution> {
    let file = file.to_string();
    let v: Value = solution_from_value(value, &file)?;
    let obj = v.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
        Error::input(
            &file,
            "solution",
            "expected exactly one of {\"starts\": [...]} or {\"owner\": [...]}",
        )
    })?;
    let (key, arr) = match obj.iter().next() {
        Some((key, Value::Array(arr))) if key == "starts" || key == "owner" => (key, arr),
        Some((key, _)) if key == "starts" || key == "owner" => {
            return Err(Error::input(
                &file,
                format!("solution.{key}"),
                "expected an array",
            ))
        }
        _ => {
            return Err(Error::input(
                &file,
                "solution",
                "unknown field: expected \"starts\" or \"owner\"",
            ))
        }
    };
    let values = arr
        .iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_u64()
                .and_then(|u| usize::try_from(u).ok())
                .ok_or_else(|| {
                    let msg = format!("{x} is not an index");
                    Error::input(&file, format!("solution.{key}[{i}]"), msg)
                })
        })
        .collect::<Result<Vec<usize>>>()?;
    Ok(if key == "starts" {
        RangesSolution::Split(Starts { starts: values })
    } else {
        RangesSolution::Owners(Owners { owner: values })
    })
}
