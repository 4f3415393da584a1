//! Writing and reading result sets: JSON Lines (the source of truth, appended
//! row by row during a run) and CSV (regenerated from the rows), through one
//! [`Exporter`] trait in the manner of hyperfine's exporters.

use crate::bench::row::{BenchRow, FIXED_COLUMNS};
use crate::error::{Error, Result};
use serde_json::Value;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;

/// Turns a result set into the bytes of one file format.
pub trait Exporter {
    /// Serialises `rows`.
    fn serialize(&self, rows: &[BenchRow]) -> Result<Vec<u8>>;
}

/// One JSON object per line.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonlExporter;

/// CSV with a header: the fixed columns, then every feature/metric column in
/// order of first appearance (a mixed-problem set has the union; cells of
/// columns a row lacks are empty).
#[derive(Debug, Clone, Copy, Default)]
pub struct CsvExporter;

impl Exporter for JsonlExporter {
    fn serialize(&self, rows: &[BenchRow]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        for r in rows {
            out.extend_from_slice(jsonl_line(r)?.as_bytes());
        }
        Ok(out)
    }
}

/// A row as one JSON line (with the trailing newline).
pub fn jsonl_line(row: &BenchRow) -> Result<String> {
    let mut s = serde_json::to_string(row)
        .map_err(|e| Error::Usage(format!("cannot serialise a result row: {e}")))?;
    s.push('\n');
    Ok(s)
}

/// The CSV header for `rows`.
pub fn csv_columns(rows: &[BenchRow]) -> Vec<String> {
    let mut cols: Vec<String> = FIXED_COLUMNS.iter().map(|s| s.to_string()).collect();
    let mut seen: std::collections::HashSet<String> = cols.iter().cloned().collect();
    for r in rows {
        for k in r.extra.keys() {
            if seen.insert(k.clone()) {
                cols.push(k.clone());
            }
        }
    }
    cols
}

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Exporter for CsvExporter {
    fn serialize(&self, rows: &[BenchRow]) -> Result<Vec<u8>> {
        let cols = csv_columns(rows);
        let mut w = csv::Writer::from_writer(Vec::new());
        let err = |e: csv::Error| Error::Usage(format!("cannot write CSV: {e}"));
        w.write_record(&cols).map_err(err)?;
        for r in rows {
            let obj = serde_json::to_value(r)
                .map_err(|e| Error::Usage(format!("cannot serialise a result row: {e}")))?;
            let rec: Vec<String> = cols
                .iter()
                .map(|c| obj.get(c).map(cell).unwrap_or_default())
                .collect();
            w.write_record(&rec).map_err(err)?;
        }
        w.into_inner()
            .map_err(|e| Error::Usage(format!("cannot write CSV: {e}")))
    }
}

/// Writes `bytes` to `path` atomically (a temporary file renamed over it), so
/// an interrupt never leaves a half-written result file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// Exports `rows` with `exporter` to `path`.
pub fn export(exporter: &dyn Exporter, rows: &[BenchRow], path: &Path) -> Result<()> {
    write_atomic(path, &exporter.serialize(rows)?)
}

/// Appends rows to a JSON Lines file, flushing after each so an interrupted
/// run keeps every completed row.
#[derive(Debug)]
pub struct JsonlAppender {
    file: File,
    path: std::path::PathBuf,
}

impl JsonlAppender {
    /// Opens (creating) `path` for appending.
    pub fn open(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        Ok(JsonlAppender {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Appends one row and flushes it to the OS.
    pub fn append(&mut self, row: &BenchRow) -> Result<()> {
        let line = jsonl_line(row)?;
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// What [`read_jsonl`] found.
#[derive(Debug, Default)]
pub struct JsonlRead {
    /// The rows, in file order.
    pub rows: Vec<BenchRow>,
    /// True when the last line was cut short (an interrupted write) and was
    /// dropped.
    pub dropped_partial_line: bool,
}

/// Reads a results file. A missing file is an empty set. An unreadable last
/// line is dropped (an interrupt mid-write); any other bad line is an input
/// error naming the line.
pub fn read_jsonl(path: &Path) -> Result<JsonlRead> {
    let mut out = JsonlRead::default();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io(path, e)),
    };
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<std::io::Result<_>>()
        .map_err(|e| Error::io(path, e))?;
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<BenchRow>(line) {
            Ok(r) => out.rows.push(r),
            Err(_) if i == last => out.dropped_partial_line = true,
            Err(e) => {
                return Err(Error::input(
                    path.display().to_string(),
                    format!("line {}", i + 1),
                    e.to_string(),
                ))
            }
        }
    }
    Ok(out)
}
