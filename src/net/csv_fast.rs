//! Fast CSV matrices: the bytes of a `{"csv": path}` side file parsed in
//! line-aligned chunks in parallel (rayon), each cell with `fast-float2`,
//! into one flat row-major buffer ([`FlatMatrix`]).
//!
//! The fast path only ever *accepts*: it handles the plain shape numeric CSV
//! has (cells of a number or nothing, `,` between them, spaces or tabs
//! around them, `\n` or `\r\n` line ends, blank lines skipped) and gives up
//! on anything else (a quote, another byte inside a cell, a value the
//! latency check refuses, a lone `\r`). Then the whole file is parsed by
//! the reference parser ([`parse_reference`], the `csv` crate and
//! `str::parse::<f64>`), which gives the result or the error. So errors are
//! the reference's by construction (the first bad record in file order), and
//! the fast path's results are bit-identical to the reference's (both parse
//! with correctly rounded Eisel–Lemire; `tests/csv_equivalence.rs`
//! checks it on mutated files).
//!
//! The file is read with one `std::fs::read`-style read into memory rather
//! than memory-mapped: the crate forbids `unsafe`, and `memmap2::Mmap::map`
//! is `unsafe`.

use crate::error::{Error, Result};
use crate::net::matrix::{check_latency, is_latency, Matrix};
use rayon::prelude::*;

/// A matrix as one row-major buffer: `values` with `NaN` for a missing
/// value (no latency is `NaN`: the checks refuse it), rows ending at
/// `row_ends` (rows may differ in length; callers check shapes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlatMatrix {
    /// Every row's cells, one after the other; `NaN` = missing.
    pub values: Vec<f64>,
    /// Exclusive end of each row in `values`.
    pub row_ends: Vec<usize>,
}

impl FlatMatrix {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.row_ends.len()
    }

    /// Row `i`'s cells (`NaN` = missing).
    pub fn row(&self, i: usize) -> &[f64] {
        let start = if i == 0 { 0 } else { self.row_ends[i - 1] };
        &self.values[start..self.row_ends[i]]
    }

    /// Every row, in order.
    pub fn iter_rows(&self) -> impl Iterator<Item = &[f64]> + '_ {
        (0..self.rows()).map(move |i| self.row(i))
    }

    /// A `rows × cols` matrix from row-major `values`.
    pub fn rectangular(values: Vec<f64>, cols: usize) -> Self {
        let rows = values.len().checked_div(cols).unwrap_or(0);
        FlatMatrix {
            values,
            row_ends: (1..=rows).map(|i| i * cols).collect(),
        }
    }

    /// The flat form of rows of optional values.
    pub fn from_matrix(m: &[Vec<Option<f64>>]) -> Self {
        let mut out = FlatMatrix::default();
        for row in m {
            out.values.extend(row.iter().map(|c| c.unwrap_or(f64::NAN)));
            out.row_ends.push(out.values.len());
        }
        out
    }

    /// Rows of optional values (`None` for `NaN`).
    pub fn to_matrix(&self) -> Matrix {
        self.iter_rows()
            .map(|r| r.iter().map(|&v| (!v.is_nan()).then_some(v)).collect())
            .collect()
    }
}

/// Parses CSV `bytes` (of the file `shown`): the fast path, or the reference
/// parser when the fast path gives up (always when there is an error).
pub fn parse_csv(bytes: &[u8], shown: &str) -> Result<FlatMatrix> {
    match parse_fast(bytes) {
        Some(m) => Ok(m),
        None => parse_reference(bytes, shown).map(|m| FlatMatrix::from_matrix(&m)),
    }
}

/// The reference parser: the `csv` crate (no headers, flexible rows, cells
/// trimmed) and `str::parse::<f64>`; empty cell = missing. Errors name the
/// file `shown`, the record (`row i`) and the column.
pub fn parse_reference(bytes: &[u8], shown: &str) -> Result<Matrix> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let mut rows = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        let rec = rec.map_err(|e| Error::input(shown, format!("row {i}"), e.to_string()))?;
        let row = rec
            .iter()
            .enumerate()
            .map(|(j, cell)| csv_cell(cell, i, j, shown))
            .collect::<Result<Vec<_>>>()?;
        rows.push(row);
    }
    Ok(rows)
}

/// One CSV cell: empty = no value, else a latency (errors name the row and
/// column of `shown`).
fn csv_cell(cell: &str, i: usize, j: usize, shown: &str) -> Result<Option<f64>> {
    if cell.is_empty() {
        return Ok(None);
    }
    let at = format!("row {i} column {j}");
    let v: f64 = cell
        .parse()
        .map_err(|_| Error::input(shown, &at, format!("'{cell}' is not a number")))?;
    check_latency(v, &at, shown).map(Some)
}

/// Bytes below which a file is parsed in one chunk (no threads).
const MIN_CHUNK_BYTES: usize = 1 << 20;

/// The fast path: `None` when it meets anything it does not handle (see the
/// module doc), never a different result than [`parse_reference`].
pub fn parse_fast(bytes: &[u8]) -> Option<FlatMatrix> {
    let chunks = line_chunks(bytes, rayon::current_num_threads() * 4);
    if chunks.len() == 1 {
        return parse_chunk(bytes).map(Part::into_flat);
    }
    let parts: Vec<Part> = chunks
        .par_iter()
        .map(|c| parse_chunk(c))
        .collect::<Option<_>>()?;
    let total = parts.iter().map(|p| p.values.len()).sum();
    // One buffer, filled in parallel (its pages are first touched by the
    // threads that copy into them).
    let mut values = vec![0.0; total];
    let mut slots = Vec::with_capacity(parts.len());
    let mut rest = values.as_mut_slice();
    for p in &parts {
        let (head, tail) = rest.split_at_mut(p.values.len());
        slots.push(head);
        rest = tail;
    }
    slots
        .into_par_iter()
        .zip(parts.par_iter())
        .for_each(|(slot, p)| slot.copy_from_slice(&p.values));
    let mut row_ends = Vec::with_capacity(parts.iter().map(|p| p.row_lens.len()).sum());
    let mut end = 0;
    for p in &parts {
        row_ends.extend(p.row_lens.iter().map(|&l| {
            end += l;
            end
        }));
    }
    let out = FlatMatrix { values, row_ends };
    Some(out)
}

/// `bytes` cut into at most `n` pieces of at least [`MIN_CHUNK_BYTES`], each
/// ending just after a `\n` (or at the end).
fn line_chunks(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    let n = n.clamp(1, (bytes.len() / MIN_CHUNK_BYTES).max(1));
    let step = bytes.len() / n + 1;
    let mut out = Vec::with_capacity(n);
    let mut rest = bytes;
    while !rest.is_empty() {
        let cut = if rest.len() <= step {
            rest.len()
        } else {
            rest[step..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |p| step + p + 1)
        };
        let (head, tail) = rest.split_at(cut);
        out.push(head);
        rest = tail;
    }
    if out.is_empty() {
        out.push(bytes);
    }
    out
}

/// One chunk's rows: cells one after the other, and each row's length.
struct Part {
    values: Vec<f64>,
    row_lens: Vec<usize>,
}

impl Part {
    fn into_flat(self) -> FlatMatrix {
        let mut end = 0;
        let row_ends = self
            .row_lens
            .iter()
            .map(|&l| {
                end += l;
                end
            })
            .collect();
        FlatMatrix {
            values: self.values,
            row_ends,
        }
    }
}

/// The rows of whole lines; `None` when the fast path gives up. One pass:
/// each cell is read where it starts (`fast-float2` stops at the first byte
/// that is not part of a number), then a separator must follow.
fn parse_chunk(chunk: &[u8]) -> Option<Part> {
    let mut part = Part {
        values: Vec::with_capacity(chunk.len() / 6),
        row_lens: Vec::new(),
    };
    let mut p = 0;
    while p < chunk.len() {
        match (chunk[p], chunk.get(p + 1)) {
            (b'\n', _) => p += 1, // a blank line is no record
            (b'\r', Some(b'\n')) => p += 2,
            _ => {
                let before = part.values.len();
                p = parse_line(chunk, p, &mut part.values)?;
                part.row_lens.push(part.values.len() - before);
            }
        }
    }
    Some(part)
}

/// The cells of the line starting at `p` appended to `out`; the position
/// after its line end.
fn parse_line(chunk: &[u8], mut p: usize, out: &mut Vec<f64>) -> Option<usize> {
    loop {
        p = skip_blanks(chunk, p);
        let v = match chunk.get(p) {
            None | Some(b',' | b'\n' | b'\r') => f64::NAN, // empty = missing
            Some(_) => {
                let (v, used) = fast_float2::parse_partial::<f64, _>(&chunk[p..]).ok()?;
                if !is_latency(v) {
                    return None;
                }
                p += used;
                v
            }
        };
        out.push(v);
        p = skip_blanks(chunk, p);
        match (chunk.get(p), chunk.get(p + 1)) {
            (Some(b','), _) => p += 1,
            (Some(b'\n'), _) => return Some(p + 1),
            (Some(b'\r'), Some(b'\n')) => return Some(p + 2),
            (None, _) => return Some(p),
            _ => return None,
        }
    }
}

/// The first position at or after `p` that is not a space or a tab.
fn skip_blanks(chunk: &[u8], mut p: usize) -> usize {
    while matches!(chunk.get(p), Some(b' ' | b'\t')) {
        p += 1;
    }
    p
}
