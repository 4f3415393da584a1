//! Matrix fields: inline JSON arrays of rows, or `{"csv": "relative/path.csv"}`
//! (formats.md "Large matrices": headerless CSV, empty cell = null, path
//! relative to the JSON file).
//!
//! # Delay limit
//!
//! Every latency read from an instance (SPD `access`, `links` and
//! `server_latency`, CMA `delay`, inline or CSV) must be finite, `>= 0` and at
//! most [`MAX_LATENCY_MS`] = `1e9` ms (about 11.6 days). Real network delays
//! are below a minute, so nothing measured is refused, while the limit keeps
//! sums exact enough for the engines: a total over a million clients stays
//! below `1e15 < 2^53`, so integer-millisecond sums are exact in `f64` and the
//! engines' relative tolerances (`1e-9 ·` the largest delay) stay far above
//! the rounding error. Above about `1e10` ms j-sa, and above about `4e13` ms
//! exact-flow, were seen to return wrong optima. A larger value is an input
//! error naming the file, the field and the index.

use crate::error::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// A matrix of optional latencies, rows of cells.
pub type Matrix = Vec<Vec<Option<f64>>>;

/// Where a matrix is read from, for error messages and CSV paths.
pub struct MatrixSource<'a> {
    /// File name shown in errors.
    pub file: &'a str,
    /// Directory CSV paths are relative to.
    pub base_dir: &'a Path,
}

/// Reads the matrix in `value` (field `field`). Cells must be `null` or finite
/// numbers `>= 0`; shape checks are left to the caller, which knows the
/// expected sizes.
pub fn read_matrix(value: &Value, field: &str, src: &MatrixSource<'_>) -> Result<Matrix> {
    match value {
        Value::Array(rows) => rows
            .iter()
            .enumerate()
            .map(|(i, row)| read_row(row, &format!("{field}[{i}]"), src.file))
            .collect(),
        Value::Object(obj) => {
            let Some(Value::String(rel)) = obj.get("csv") else {
                return Err(Error::input(
                    src.file,
                    field,
                    "expected an array of rows or {\"csv\": \"path\"}",
                ));
            };
            if obj.len() != 1 {
                return Err(Error::input(
                    src.file,
                    field,
                    "only the key \"csv\" is allowed here",
                ));
            }
            read_csv(&src.base_dir.join(rel), field, src.file)
        }
        _ => Err(Error::input(
            src.file,
            field,
            "expected an array of rows or {\"csv\": \"path\"}",
        )),
    }
}

fn read_row(row: &Value, field: &str, file: &str) -> Result<Vec<Option<f64>>> {
    let Value::Array(cells) = row else {
        return Err(Error::input(file, field, "expected an array of numbers"));
    };
    cells
        .iter()
        .enumerate()
        .map(|(j, cell)| match cell {
            Value::Null => Ok(None),
            Value::Number(x) => {
                let v = x.as_f64().unwrap_or(f64::NAN);
                check_latency(v, &format!("{field}[{j}]"), file).map(Some)
            }
            other => Err(Error::input(
                file,
                format!("{field}[{j}]"),
                format!("expected a latency (number) or null, found {other}"),
            )),
        })
        .collect()
}

/// The largest latency an instance may hold, in ms (1e9 ms, about 11.6
/// days; see the module doc).
pub const MAX_LATENCY_MS: f64 = 1e9;

/// A latency must be finite, `>= 0` and at most [`MAX_LATENCY_MS`].
pub fn check_latency(v: f64, field: &str, file: &str) -> Result<f64> {
    if !(v.is_finite() && v >= 0.0) {
        Err(Error::input(
            file,
            field,
            format!("{v} is not a finite latency >= 0"),
        ))
    } else if v > MAX_LATENCY_MS {
        Err(Error::input(
            file,
            field,
            format!(
                "{v} ms is above the delay limit of {MAX_LATENCY_MS:e} ms (about 11.6 days): such values lose precision in the engines' sums"
            ),
        ))
    } else {
        Ok(v)
    }
}

fn read_csv(path: &Path, field: &str, file: &str) -> Result<Matrix> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| Error::input(file, field, format!("cannot read {}: {e}", path.display())))?;
    let shown = path.display().to_string();
    let mut rows = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        let rec = rec.map_err(|e| Error::input(&shown, format!("row {i}"), e.to_string()))?;
        let mut row = Vec::with_capacity(rec.len());
        for (j, cell) in rec.iter().enumerate() {
            if cell.is_empty() {
                row.push(None);
                continue;
            }
            let v: f64 = cell.parse().map_err(|_| {
                Error::input(
                    &shown,
                    format!("row {i} column {j}"),
                    format!("'{cell}' is not a number"),
                )
            })?;
            row.push(Some(check_latency(
                v,
                &format!("row {i} column {j}"),
                &shown,
            )?));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Writes `rows` as a headerless CSV (empty cell = null).
pub fn write_csv(path: &Path, rows: &[Vec<Option<f64>>]) -> Result<()> {
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|c| c.map(|v| format!("{v}")).unwrap_or_default())
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    std::fs::write(path, out).map_err(|e| Error::io(path, e))
}

/// Reads a measured latency matrix such as the PlanetLab or Seattle data:
/// rows of whitespace- or comma-separated finite numbers, square. Values are
/// returned as measured (callers decide what a non-positive value means).
pub fn read_measured_matrix(path: &Path) -> Result<Vec<Vec<f64>>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let file = path.display().to_string();
    let mut rows = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let row = line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .enumerate()
            .map(|(j, t)| match t.parse::<f64>() {
                Ok(v) if v.is_finite() => Ok(v),
                _ => Err(Error::input(
                    &file,
                    format!("line {} column {}", i + 1, j + 1),
                    format!("'{t}' is not a finite number"),
                )),
            })
            .collect::<Result<Vec<f64>>>()?;
        rows.push(row);
    }
    let n = rows.len();
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != n) {
        return Err(Error::input(
            &file,
            format!("line {}", i + 1),
            format!("has {} values, expected {n} (a square matrix)", r.len()),
        ));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measured_matrices_are_square_finite_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m.txt");
        std::fs::write(&p, "0\t1.5\n1.5 0\n").unwrap();
        assert_eq!(
            read_measured_matrix(&p).unwrap(),
            vec![vec![0.0, 1.5], vec![1.5, 0.0]]
        );
        std::fs::write(&p, "0,1\n1,NaN\n").unwrap();
        let e = read_measured_matrix(&p).unwrap_err().to_string();
        assert!(e.contains("line 2 column 2"), "{e}");
        std::fs::write(&p, "0 1 2\n1 0\n").unwrap();
        let e = read_measured_matrix(&p).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("square"), "{e}");
    }
}
