//! A fast path for large inline numeric matrices in JSON instance files.
//!
//! [`take_inline_matrix`] finds a top-level field (`"delay": [[…], …]`) in
//! the file's text, parses its rows of plain JSON numbers straight from the
//! bytes (`fast-float2`, correctly rounded like serde_json with
//! `float_roundtrip`), and returns the text with that value replaced by `[]`,
//! which the strict reader ([`super::json_strict`]) then parses as before.
//! Building a `serde_json::Value` per cell is the slow part of the general
//! reader: `cargo bench --bench input` reads a 40,000 × 50 inline matrix
//! at 141 MiB/s through `Value`s and at 681 MiB/s here (one thread).
//!
//! It gives up (`None`) at anything but a well-formed array of arrays of
//! JSON numbers that are valid latencies. Matrices whose cells may be
//! missing ([`Cells::LatenciesOrNull`]: SPD's `access` and
//! `server_latency`) also take `null`, read as `NaN` as the slow path
//! reads it. Anything else (`null` where it is not allowed, a string, a
//! nested value, `NaN`, a negative or too large delay, a number JSON does
//! not allow such as `01`, `.5` or `+1`, an escaped key) sends the caller
//! to the slow path, so every error message stays the one it gives. The
//! caller also falls back when the shortened text does not parse, so
//! syntax errors keep their line and column. `O(bytes)`.

use crate::net::csv_fast::FlatMatrix;

use crate::net::matrix::is_latency;

mod pieces;

/// The text with the top-level field `key`'s inline matrix replaced by `[]`,
/// and that matrix; `None` when the fast path does not apply (see the
/// module doc).
pub fn take_inline_matrix(text: &str, key: &str) -> Option<(String, FlatMatrix)> {
    take_inline_matrix_of(text, key, Cells::Latencies)
}

/// What a matrix's cells may be on the fast path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cells {
    /// Latencies only (CMA delays: a `null` sends the file to the slow
    /// path, which refuses it).
    Latencies,
    /// Latencies or `null` (a missing value, `NaN` in the matrix, as the
    /// slow path reads it: SPD access and server latencies).
    LatenciesOrNull,
}

/// [`take_inline_matrix`] for matrices whose cells may be `cells`.
pub fn take_inline_matrix_of(text: &str, key: &str, cells: Cells) -> Option<(String, FlatMatrix)> {
    let pieces = if text.len() >= PARALLEL_FROM {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    take_inline_matrix_in_pieces_of(text, key, pieces, cells)
}

/// Texts from this size on are parsed in one piece per thread.
const PARALLEL_FROM: usize = 4 << 20;

/// [`take_inline_matrix`] with the matrix's text split into `pieces`
/// parsed in parallel (rayon). Each piece after the first starts at the
/// first row opening (`[` after `,`) past its share of the bytes and
/// parses whole rows up to the next piece's start; a piece counts only
/// when the one before it stopped exactly at its start, which proves that
/// the start is a row of the matrix (a start past the matrix's end is
/// never reached that way). The result, and every refusal, is the
/// sequential parse's. `O(bytes / pieces)` wall.
pub fn take_inline_matrix_in_pieces(
    text: &str,
    key: &str,
    pieces: usize,
) -> Option<(String, FlatMatrix)> {
    take_inline_matrix_in_pieces_of(text, key, pieces, Cells::Latencies)
}

/// [`take_inline_matrix_in_pieces`] for matrices whose cells may be `cells`.
pub fn take_inline_matrix_in_pieces_of(
    text: &str,
    key: &str,
    pieces: usize,
    cells: Cells,
) -> Option<(String, FlatMatrix)> {
    let b = text.as_bytes();
    let start = find_top_level(b, key)?;
    let (end, matrix) = pieces::matrix(b, start, pieces.max(1), cells)?;
    let mut short = String::with_capacity(text.len() - (end - start) + 2);
    short.push_str(&text[..start]);
    short.push_str("[]");
    short.push_str(&text[end..]);
    Some((short, matrix))
}

/// The top-level field `key`'s value when it is a string without escapes,
/// found without parsing the rest of the text (which is not checked: the
/// caller's strict reader does that). `instance`'s `"problem"` this way
/// costs nothing next to a large matrix.
pub fn top_level_string(text: &str, key: &str) -> Option<String> {
    let b = text.as_bytes();
    let p = find_top_level(b, key)?;
    let (start, end) = string(b, p)?;
    let raw = &text[start + 1..end - 1];
    (!raw.contains('\\')).then(|| raw.to_string())
}

/// The position of the first top-level field `key`'s value (keys with
/// escapes are not matched: the fast paths then give up).
fn find_top_level(b: &[u8], key: &str) -> Option<usize> {
    let mut p = ws(b, 0);
    if b.get(p) != Some(&b'{') {
        return None;
    }
    p += 1;
    loop {
        p = ws(b, p);
        let (k_start, k_end) = string(b, p)?;
        p = ws(b, k_end);
        if b.get(p) != Some(&b':') {
            return None;
        }
        p = ws(b, p + 1);
        let raw = &b[k_start + 1..k_end - 1];
        if raw.contains(&b'\\') {
            return None;
        }
        if raw == key.as_bytes() {
            return Some(p);
        }
        p = ws(b, skip_value(b, p)?);
        match b.get(p) {
            Some(b',') => p += 1,
            _ => return None,
        }
    }
}

/// Skips JSON whitespace.
pub(super) fn ws(b: &[u8], mut p: usize) -> usize {
    while matches!(b.get(p), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        p += 1;
    }
    p
}

/// The string starting at `p`: its start and the position after its
/// closing quote.
fn string(b: &[u8], p: usize) -> Option<(usize, usize)> {
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let mut q = p + 1;
    loop {
        match b.get(q)? {
            b'\\' => q += 2,
            b'"' => return Some((p, q + 1)),
            _ => q += 1,
        }
    }
}

/// The position after the value starting at `p` (not validated: the strict
/// reader does that).
fn skip_value(b: &[u8], p: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut q = p;
    loop {
        match b.get(q)? {
            b'"' => q = string(b, q)?.1,
            b'[' | b'{' => {
                depth += 1;
                q += 1;
            }
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                q += 1;
            }
            b',' if depth == 0 => return Some(q),
            _ => q += 1,
        }
        if depth == 0 && !matches!(b.get(q), Some(b) if is_scalar_byte(*b)) {
            return Some(q);
        }
    }
}

/// Bytes that continue a number or literal (`true`, `null`, `-1.5e3`).
fn is_scalar_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.')
}

/// The row starting at `p` (`[`) appended to `out` (`null`, where `cells`
/// allows it, as `NaN`); the position after it.
pub(super) fn row(b: &[u8], p: usize, out: &mut Vec<f64>, cells: Cells) -> Option<usize> {
    if b.get(p) != Some(&b'[') {
        return None;
    }
    let mut q = ws(b, p + 1);
    if b.get(q) == Some(&b']') {
        return Some(q + 1);
    }
    loop {
        let len = if cells == Cells::LatenciesOrNull && is_null(&b[q..]) {
            out.push(f64::NAN);
            4
        } else {
            let len = json_number(&b[q..])?;
            let v: f64 = fast_float2::parse(&b[q..q + len]).ok()?;
            if !is_latency(v) {
                return None;
            }
            out.push(v);
            len
        };
        q = ws(b, q + len);
        match b.get(q)? {
            b',' => q = ws(b, q + 1),
            b']' => return Some(q + 1),
            _ => return None,
        }
    }
}

/// True when `b` starts with the literal `null` (and nothing longer).
fn is_null(b: &[u8]) -> bool {
    b.starts_with(b"null") && !b.get(4).copied().is_some_and(is_scalar_byte)
}

/// The length of the JSON number at the start of `b`
/// (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), `None` when none.
fn json_number(b: &[u8]) -> Option<usize> {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut p = usize::from(b.first() == Some(&b'-'));
    match b.get(p)? {
        b'0' => p += 1,
        b'1'..=b'9' => p += digits(p),
        _ => return None,
    }
    if b.get(p) == Some(&b'.') {
        let d = digits(p + 1);
        if d == 0 {
            return None;
        }
        p += 1 + d;
    }
    if matches!(b.get(p), Some(b'e' | b'E')) {
        p += 1;
        if matches!(b.get(p), Some(b'+' | b'-')) {
            p += 1;
        }
        let d = digits(p);
        if d == 0 {
            return None;
        }
        p += d;
    }
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_matrix_is_taken_and_the_rest_kept() {
        let text = r#"{"name": "x", "delay": [[1, 2.5], [3e1, -0, 0.0]], "capacity": [2, 2]}"#;
        let (short, m) = take_inline_matrix(text, "delay").expect("fast path");
        assert_eq!(short, r#"{"name": "x", "delay": [], "capacity": [2, 2]}"#);
        assert_eq!(m.values, vec![1.0, 2.5, 30.0, 0.0, 0.0]);
        assert_eq!(m.row_ends, vec![2, 5]);
        // `-0` is -0.0, as serde_json reads it.
        assert!(m.values[3].is_sign_negative());
    }

    #[test]
    fn anything_unusual_gives_up() {
        for bad in [
            r#"{"delay": [[1, null]]}"#,
            r#"{"delay": [[1, "2"]]}"#,
            r#"{"delay": [[1, 01]]}"#,
            r#"{"delay": [[1, .5]]}"#,
            r#"{"delay": [[1, +1]]}"#,
            r#"{"delay": [[1, 1.]]}"#,
            r#"{"delay": [[1, -1]]}"#,
            r#"{"delay": [[1, 1e999]]}"#,
            r#"{"delay": [[1, [2]]]}"#,
            r#"{"delay": [[1, 2]"#,
            r#"{"del\u0061y": [[1, 2]]}"#,
            r#"{"delay": {"csv": "d.csv"}}"#,
            r#"[1, 2]"#,
        ] {
            assert!(take_inline_matrix(bad, "delay").is_none(), "{bad}");
        }
    }

    #[test]
    fn the_problem_field_is_found_without_parsing_the_rest() {
        let text = r#"{"delay": [[1, 2]], "problem": "cma", "x": oops"#;
        assert_eq!(top_level_string(text, "problem").as_deref(), Some("cma"));
        assert_eq!(
            top_level_string(r#"{"problem": "c\u006da"}"#, "problem"),
            None
        );
        assert_eq!(top_level_string(r#"{"problem": 3}"#, "problem"), None);
        assert_eq!(
            top_level_string(r#"{"a": {"problem": "cma"}}"#, "problem"),
            None
        );
    }

    #[test]
    fn other_fields_are_skipped_whatever_they_hold() {
        let text =
            r#"{"a": {"delay": [[9]]}, "b": "],[\"", "c": [true, null, -1.5e3], "delay": [[4]]}"#;
        let (short, m) = take_inline_matrix(text, "delay").expect("fast path");
        assert!(short.ends_with(r#""delay": []}"#), "{short}");
        assert_eq!(m.values, vec![4.0]);
    }
}
