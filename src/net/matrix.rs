//! Matrix fields: inline JSON arrays of rows, `{"csv": "relative/path.csv"}`
//! (formats.md "Large matrices": headerless CSV, empty cell = null, path
//! relative to the JSON file) or `{"npy": "relative/path.npy"}` (numpy's
//! binary format, [`crate::net::npy`]: `NaN` = null). Both side files follow
//! the same path policy and size limit.
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
//!
//! # CSV files
//!
//! A `{"csv": path}` is read only when it is a regular file (not a directory,
//! FIFO or device) and only up to a size derived from the declared shape:
//! [`CSV_CELL_BYTES`] (32) bytes a cell plus 2 a row plus [`CSV_SLACK_BYTES`]
//! (4096); when the row count is not declared (`access`, `delay`: the CSV
//! defines it) at most [`MAX_CSV_ROWS`] rows are allowed for. A larger file
//! is an input error before it is read.
//!
//! Path policy: the path must be relative and stay inside the instance's
//! folder: absolute paths, `..` components and symlinks resolving outside the
//! folder are refused (without reading the file, so nothing of it is echoed
//! in errors). Setting the environment variable `SERVERPICK_ALLOW_ANY_PATH=1`
//! lifts the policy (any path the process can read; the size and
//! regular-file checks remain).

use crate::error::{Error, Result};
pub use crate::net::csv_fast::FlatMatrix;
use serde_json::Value;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// Bytes allowed per CSV cell (a value and its separator) when bounding a read.
pub const CSV_CELL_BYTES: usize = 32;
/// Bytes allowed on top of the shape-derived size of a CSV file.
pub const CSV_SLACK_BYTES: usize = 4096;
/// Rows allowed for when a CSV matrix's row count is not declared.
pub const MAX_CSV_ROWS: usize = 10_000_000;
/// Read limit for a CSV matrix of unknown shape ([`read_matrix`]): 1 GiB.
pub const MAX_CSV_BYTES_UNSHAPED: u64 = 1 << 30;
/// Environment variable that lifts the CSV path policy when set to `1`.
pub const ALLOW_ANY_PATH_ENV: &str = "SERVERPICK_ALLOW_ANY_PATH";

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
/// expected sizes. A CSV is read up to [`MAX_CSV_BYTES_UNSHAPED`]; prefer
/// [`read_matrix_shaped`], which bounds it by the declared shape.
pub fn read_matrix(value: &Value, field: &str, src: &MatrixSource<'_>) -> Result<Matrix> {
    read_matrix_limited(value, field, src, MAX_CSV_BYTES_UNSHAPED, "").map(|m| m.to_matrix())
}

/// [`read_matrix`] for a matrix declared to have `cols` columns and, when
/// known, `rows` rows: a CSV larger than that shape allows (see the module
/// doc) is refused before it is read. Shape checks of the values read are
/// still left to the caller.
pub fn read_matrix_shaped(
    value: &Value,
    field: &str,
    src: &MatrixSource<'_>,
    rows: Option<usize>,
    cols: usize,
) -> Result<Matrix> {
    read_matrix_flat(value, field, src, rows, cols).map(|m| m.to_matrix())
}

/// [`read_matrix_shaped`] into one flat row-major buffer (`NaN` = missing):
/// the form large matrices are read in, without a `Vec` per row.
pub fn read_matrix_flat(
    value: &Value,
    field: &str,
    src: &MatrixSource<'_>,
    rows: Option<usize>,
    cols: usize,
) -> Result<FlatMatrix> {
    let r = rows.unwrap_or(MAX_CSV_ROWS);
    let limit = cols
        .saturating_mul(CSV_CELL_BYTES)
        .saturating_add(2)
        .saturating_mul(r)
        .saturating_add(CSV_SLACK_BYTES);
    let shape = match rows {
        Some(r) => format!(" (the size a {r} × {cols} matrix needs)"),
        None => format!(" (the size {MAX_CSV_ROWS} rows of {cols} values need)"),
    };
    read_matrix_limited(
        value,
        field,
        src,
        u64::try_from(limit).unwrap_or(u64::MAX),
        &shape,
    )
}

/// What a matrix field may be.
const EXPECTED: &str = "expected an array of rows, {\"csv\": \"path\"} or {\"npy\": \"path\"}";

fn read_matrix_limited(
    value: &Value,
    field: &str,
    src: &MatrixSource<'_>,
    limit: u64,
    shape: &str,
) -> Result<FlatMatrix> {
    match value {
        Value::Array(rows) => {
            let mut out = FlatMatrix::default();
            for (i, row) in rows.iter().enumerate() {
                read_row(row, &format!("{field}[{i}]"), src.file, &mut out.values)?;
                out.row_ends.push(out.values.len());
            }
            Ok(out)
        }
        Value::Object(obj) if obj.len() == 1 => match obj.iter().next() {
            Some((key, Value::String(rel))) if key == "csv" || key == "npy" => {
                let path = resolve_side_path(src, rel, field, key)?;
                if key == "csv" {
                    read_csv(&path, field, src.file, limit, shape)
                } else {
                    crate::net::npy::read_npy(&path, field, src.file, limit, shape)
                }
            }
            _ => Err(Error::input(src.file, field, EXPECTED)),
        },
        _ => Err(Error::input(src.file, field, EXPECTED)),
    }
}

/// One inline row's cells appended to `out` (`NaN` for `null`).
fn read_row(row: &Value, field: &str, file: &str, out: &mut Vec<f64>) -> Result<()> {
    let Value::Array(cells) = row else {
        return Err(Error::input(file, field, "expected an array of numbers"));
    };
    out.reserve(cells.len());
    for (j, cell) in cells.iter().enumerate() {
        let v = match cell {
            Value::Null => f64::NAN,
            Value::Number(x) => {
                let v = x.as_f64().unwrap_or(f64::NAN);
                check_latency(v, &format!("{field}[{j}]"), file)?
            }
            other => {
                return Err(Error::input(
                    file,
                    format!("{field}[{j}]"),
                    format!("expected a latency (number) or null, found {other}"),
                ))
            }
        };
        out.push(v);
    }
    Ok(())
}

/// The largest latency an instance may hold, in ms (1e9 ms, about 11.6
/// days; see the module doc).
pub const MAX_LATENCY_MS: f64 = 1e9;

/// True when `v` passes [`check_latency`] (without building an error).
pub fn is_latency(v: f64) -> bool {
    (0.0..=MAX_LATENCY_MS).contains(&v)
}

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
                "{v:e} ms is above the delay limit of {MAX_LATENCY_MS:e} ms (about 11.6 days): such values lose precision in the engines' sums"
            ),
        ))
    } else {
        Ok(v)
    }
}

/// True when `SERVERPICK_ALLOW_ANY_PATH=1` lifts the CSV path policy.
fn any_path_allowed() -> bool {
    std::env::var_os(ALLOW_ANY_PATH_ENV).is_some_and(|v| v == "1")
}

/// Resolves a `{"csv": rel}` (or `{"npy": rel}`, `kind`) path against the
/// instance's folder under the path policy of the module doc.
fn resolve_side_path(
    src: &MatrixSource<'_>,
    rel: &str,
    field: &str,
    kind: &str,
) -> Result<PathBuf> {
    let base = if src.base_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        src.base_dir
    };
    let joined = base.join(rel);
    if any_path_allowed() {
        return Ok(joined);
    }
    let hint = format!(
        "only paths inside the instance's folder are read (set {ALLOW_ANY_PATH_ENV}=1 to allow any path)"
    );
    let rel_path = Path::new(rel);
    if rel_path.is_absolute() || rel_path.has_root() {
        return Err(Error::input(
            src.file,
            field,
            format!("{kind} path '{rel}' is absolute: {hint}"),
        ));
    }
    if rel_path
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(Error::input(
            src.file,
            field,
            format!("{kind} path '{rel}' leaves the instance's folder (..): {hint}"),
        ));
    }
    // A symlink may still point outside; compare the resolved paths. A path
    // that does not resolve is reported when it is opened.
    if let (Ok(b), Ok(p)) = (base.canonicalize(), joined.canonicalize()) {
        if !p.starts_with(&b) {
            return Err(Error::input(
                src.file,
                field,
                format!(
                    "{kind} path '{rel}' resolves outside the instance's folder (a symlink): {hint}"
                ),
            ));
        }
    }
    Ok(joined)
}

/// Reads a CSV matrix: a regular file of at most `limit` bytes, read whole
/// (one read; no memory map: the crate has no `unsafe`) and parsed by
/// [`crate::net::csv_fast`].
fn read_csv(path: &Path, field: &str, file: &str, limit: u64, shape: &str) -> Result<FlatMatrix> {
    let shown = path.display().to_string();
    let cannot = |e: std::io::Error| Error::input(file, field, format!("cannot read {shown}: {e}"));
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(Error::input(
            file,
            field,
            format!("{shown} is not a regular file (a CSV matrix must be one)"),
        ));
    }
    let too_big = |len: u64| {
        Error::input(
            file,
            field,
            format!("{shown} has {len} bytes, more than the {limit} allowed{shape}"),
        )
    };
    if meta.len() > limit {
        return Err(too_big(meta.len()));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(cannot)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(bytes.len() as u64));
    }
    crate::net::csv_fast::parse_csv(&bytes, &shown)
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
    let text = crate::io::read_text(path)?;
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
