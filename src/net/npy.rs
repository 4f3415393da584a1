//! Matrices from numpy's binary `.npy` files (`{"npy": "delay.npy"}`), read
//! through the `npyz` crate: 2-D, C order, `float64` or `float32` (either
//! byte order). `NaN` is a missing value (what an empty CSV cell or a JSON
//! `null` is); every other value must pass the latency checks of
//! [`crate::net::matrix`]. The file's size is checked against the read limit
//! before it is read, and its shape against its size before anything is
//! allocated, so a header that declares more than the file holds is an error,
//! not an allocation.

use crate::error::{Error, Result};
use crate::net::matrix::{check_latency, is_latency, FlatMatrix};
use npyz::{DType, NpyFile, Order, WriterBuilder};
use std::io::BufReader;
use std::path::Path;

/// Reads the `.npy` matrix at `path` (a regular file of at most `limit`
/// bytes); errors name `file` and `field`, or the `.npy` file and the cell.
pub fn read_npy(
    path: &Path,
    field: &str,
    file: &str,
    limit: u64,
    shape: &str,
) -> Result<FlatMatrix> {
    let shown = path.display().to_string();
    let bad = |msg: String| Error::input(file, field, format!("{shown}: {msg}"));
    let meta = std::fs::metadata(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(bad("not a regular file (a .npy matrix must be one)".into()));
    }
    if meta.len() > limit {
        let len = meta.len();
        return Err(bad(format!(
            "has {len} bytes, more than the {limit} allowed{shape}"
        )));
    }
    let reader = std::fs::File::open(path).map_err(|e| bad(format!("cannot read: {e}")))?;
    let npy =
        NpyFile::new(BufReader::new(reader)).map_err(|e| bad(format!("not a .npy file ({e})")))?;
    let (rows, cols) = match npy.shape() {
        [r, c] => (*r, *c),
        s => return Err(bad(format!("has shape {s:?}; a matrix needs 2 dimensions"))),
    };
    if npy.order() == Order::Fortran {
        return Err(bad(
            "is in Fortran order; save it in C order (numpy.ascontiguousarray)".into(),
        ));
    }
    let width = item_bytes(&npy.dtype()).ok_or_else(|| {
        bad(format!(
            "has dtype {}; expected float64 or float32",
            dtype_text(&npy.dtype())
        ))
    })?;
    let cells = rows.checked_mul(cols).filter(|n| {
        n.checked_mul(width)
            .is_some_and(|bytes| bytes <= meta.len())
    });
    let Some(cells) = cells else {
        return Err(bad(format!(
            "declares {rows} × {cols} values, more than its {} bytes hold",
            meta.len()
        )));
    };
    let values = if width == 8 {
        read_values::<f64>(npy, cells, &bad)?
    } else {
        read_values::<f32>(npy, cells, &bad)?
    };
    to_matrix(values, cols, &shown)
}

/// Bytes per value of a float dtype (`<f8`, `>f4`, …); `None` for others.
fn item_bytes(dtype: &DType) -> Option<u64> {
    let DType::Plain(t) = dtype else { return None };
    match t.to_string().trim_start_matches(['<', '>', '|', '=']) {
        "f8" => Some(8),
        "f4" => Some(4),
        _ => None,
    }
}

/// A dtype as numpy spells it (`<i8`), without the header's quotes.
fn dtype_text(dtype: &DType) -> String {
    match dtype {
        DType::Plain(t) => t.to_string(),
        other => other.descr(),
    }
}

fn read_values<T>(
    npy: NpyFile<BufReader<std::fs::File>>,
    cells: u64,
    bad: &dyn Fn(String) -> Error,
) -> Result<Vec<f64>>
where
    T: npyz::Deserialize + Into<f64>,
{
    let data = npy
        .data::<T>()
        .map_err(|e| bad(format!("cannot read its values: {e}")))?;
    let mut out = Vec::with_capacity(usize::try_from(cells).unwrap_or(0));
    for v in data {
        let v = v.map_err(|e| bad(format!("truncated or unreadable ({e})")))?;
        out.push(v.into());
    }
    if out.len() as u64 != cells {
        return Err(bad(format!(
            "holds {} values, its header declares {cells}",
            out.len()
        )));
    }
    Ok(out)
}

/// Row-major values as a flat matrix (`NaN` = missing), every other value
/// checked as a latency (the first bad one in row-major order is named).
fn to_matrix(values: Vec<f64>, cols: u64, shown: &str) -> Result<FlatMatrix> {
    let cols = usize::try_from(cols).unwrap_or(usize::MAX);
    if cols == 0 {
        return Ok(FlatMatrix::default());
    }
    if let Some(at) = values.iter().position(|&v| !v.is_nan() && !is_latency(v)) {
        let (i, j) = (at / cols, at % cols);
        check_latency(values[at], &format!("row {i} column {j}"), shown)?;
    }
    Ok(FlatMatrix::rectangular(values, cols))
}

/// Writes a `rows × cols` matrix (row-major `values`) as a float64, C-order
/// `.npy` file.
pub fn write_npy(
    path: &Path,
    shape: (usize, usize),
    values: impl Iterator<Item = f64>,
) -> Result<()> {
    let io = |e: std::io::Error| Error::io(path, e);
    let file = std::fs::File::create(path).map_err(io)?;
    let mut w = npyz::WriteOptions::<f64>::new()
        .default_dtype()
        .shape(&[shape.0 as u64, shape.1 as u64])
        .writer(std::io::BufWriter::new(file))
        .begin_nd()
        .map_err(io)?;
    w.extend(values).map_err(io)?;
    w.finish().map_err(io)
}
