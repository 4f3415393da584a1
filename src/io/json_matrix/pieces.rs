//! The parallel form of the inline-matrix fast path (see
//! [`super::take_inline_matrix_in_pieces`]).

use super::{row, ws, Cells};
use crate::net::csv_fast::FlatMatrix;
use rayon::prelude::*;

/// How a piece's parse ended.
enum Stop {
    /// At the next piece's start (the position of its first row).
    AtNext,
    /// At the matrix's closing `]`: the position after it.
    End(usize),
}

/// The rows of one piece and how it ended; `None` on anything the
/// sequential parse would refuse (or a start that is not a row).
type Piece = Option<(FlatMatrix, Stop)>;

/// The matrix starting at `p` (`[`), parsed in `pieces` parallel pieces
/// (one piece: sequentially): the position after it and its rows, the
/// same for any number of pieces.
pub(super) fn matrix(
    b: &[u8],
    p: usize,
    pieces: usize,
    cells: Cells,
) -> Option<(usize, FlatMatrix)> {
    if b.get(p) != Some(&b'[') {
        return None;
    }
    let first = ws(b, p + 1);
    if b.get(first) == Some(&b']') {
        return Some((first + 1, FlatMatrix::default()));
    }
    let mut starts = vec![first];
    for c in 1..pieces {
        let at = first + (b.len() - first) * c / pieces;
        if let Some(s) = row_start_from(b, at.max(first + 1)) {
            if s > *starts.last()? {
                starts.push(s);
            }
        }
    }
    let parts: Vec<Piece> = (0..starts.len())
        .into_par_iter()
        .map(|c| parse_piece(b, (starts[c], starts.get(c + 1).copied()), cells))
        .collect();
    stitch(parts)
}

/// The first position at or after `at` holding a `[` whose previous
/// non-whitespace byte is `,` (inside the matrix, exactly the rows after
/// the first).
fn row_start_from(b: &[u8], at: usize) -> Option<usize> {
    let mut q = at;
    loop {
        q += b.get(q..)?.iter().position(|&c| c == b'[')?;
        let before = b[..q]
            .iter()
            .rposition(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
        if before.is_some_and(|i| b[i] == b',') {
            return Some(q);
        }
        q += 1;
    }
}

/// Rows from `start` until the matrix ends or the next row would begin at
/// `next`.
fn parse_piece(b: &[u8], (start, next): (usize, Option<usize>), cells: Cells) -> Piece {
    // About one value per 4 bytes at most (`0,` is the shortest cell
    // with its comma: 2 bytes; typical cells take 6 to 20).
    let mut out = FlatMatrix {
        values: Vec::with_capacity((next.unwrap_or(b.len()) - start) / 4),
        row_ends: Vec::new(),
    };
    let mut q = start;
    loop {
        q = row(b, q, &mut out.values, cells)?;
        out.row_ends.push(out.values.len());
        q = ws(b, q);
        match b.get(q)? {
            b',' => q = ws(b, q + 1),
            b']' => return Some((out, Stop::End(q + 1))),
            _ => return None,
        }
        match next {
            Some(n) if q == n => return Some((out, Stop::AtNext)),
            Some(n) if q > n => return None,
            _ => {}
        }
    }
}

/// The pieces joined in order up to the one that reached the matrix's end;
/// `None` when a piece needed for that failed.
fn stitch(parts: Vec<Piece>) -> Option<(usize, FlatMatrix)> {
    let mut all = FlatMatrix::default();
    for part in parts {
        let (m, stop) = part?;
        let base = all.values.len();
        all.values.extend_from_slice(&m.values);
        all.row_ends.extend(m.row_ends.iter().map(|e| e + base));
        if let Stop::End(end) = stop {
            return Some((end, all));
        }
    }
    None
}
