//! Parser equivalence (issue 25): the fast CSV path and the reference parser
//! give bit-identical matrices and identical errors on generated and mutated
//! files, and the fast path is really taken on plain numeric CSV (so the
//! comparison is not vacuous). Inline JSON matrices, now read into a flat
//! buffer, give what a simple rows-of-cells reader gives.

use proptest::prelude::*;
use serverpick::net::csv_fast::{parse_csv, parse_fast, parse_reference, FlatMatrix};
use serverpick::net::matrix::{check_latency, read_matrix, Matrix, MatrixSource};
use std::path::Path;

/// Bit patterns, so `NaN` (missing) compares equal to itself and `-0.0`
/// differs from `0.0`.
fn bits(m: &FlatMatrix) -> (Vec<u64>, Vec<usize>) {
    (
        m.values.iter().map(|v| v.to_bits()).collect(),
        m.row_ends.clone(),
    )
}

/// The fast path's answer (and `parse_csv`'s) against the reference's.
fn assert_equivalent(bytes: &[u8]) {
    let reference = parse_reference(bytes, "m.csv");
    let full = parse_csv(bytes, "m.csv");
    match (&reference, &full) {
        (Ok(r), Ok(f)) => assert_eq!(bits(&FlatMatrix::from_matrix(r)), bits(f)),
        (Err(r), Err(f)) => assert_eq!(r.to_string(), f.to_string()),
        _ => panic!("reference {reference:?} but parse_csv {full:?} on {bytes:?}"),
    }
    if let Some(fast) = parse_fast(bytes) {
        let r = reference.unwrap_or_else(|e| panic!("fast path accepted {bytes:?}: {e}"));
        assert_eq!(bits(&FlatMatrix::from_matrix(&r)), bits(&fast), "{bytes:?}");
    }
}

/// A value as a file might spell it.
fn cell() -> impl Strategy<Value = String> {
    let num = (0u32..5_000_000, 0u32..7, 0u8..8).prop_map(|(n, scale, form)| {
        let v = f64::from(n) / 10f64.powi(scale as i32);
        match form {
            0 => format!("{v}"),
            1 => format!("{v:e}"),
            2 => format!("{v:E}"),
            3 => format!("+{v}"),
            4 => format!(" {v}\t"),
            5 => format!("{n}."),
            6 => format!("{:.17}", v),
            _ => format!("{v:.3}"),
        }
    });
    prop_oneof![
        8 => num,
        1 => Just(String::new()),
        1 => Just("-0".to_string()),
        1 => Just(".5".to_string()),
        1 => Just(" ".to_string()),
    ]
}

/// A plain numeric CSV: rows of cells, `\n` or `\r\n`, blank lines.
fn plain_csv() -> impl Strategy<Value = String> {
    let row = prop::collection::vec(cell(), 1..8).prop_map(|c| c.join(","));
    (
        prop::collection::vec(row, 0..30),
        any::<bool>(),
        any::<bool>(),
        0usize..3,
    )
        .prop_map(|(rows, crlf, last_newline, blanks)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut text = nl.repeat(blanks);
            text.push_str(&rows.join(nl));
            if last_newline {
                text.push_str(nl);
            }
            text
        })
}

/// Bytes a mutation inserts: separators, quotes, odd whitespace, letters of
/// `inf`/`nan`, signs, non-ASCII and invalid UTF-8.
const INSERTS: &[&[u8]] = &[
    b"\"",
    b",",
    b"\r",
    b"\n",
    b" ",
    b"\t",
    b"-",
    b"+",
    b"e",
    b"E",
    b".",
    b"i",
    b"n",
    b"f",
    b"inf",
    b"NaN",
    b"infinity",
    b"1e400",
    b"1e9",
    b"1000000001",
    b"\x0b",
    b"\x0c",
    "\u{a0}".as_bytes(),
    b"\xff",
    b"\xef\xbb\xbf",
    b"#",
    b"0x1",
    b"_",
    b"9",
];

/// Up to four inserts or deletes at positions given as fractions.
fn mutations() -> impl Strategy<Value = Vec<(f64, Option<usize>)>> {
    prop::collection::vec(
        (0.0f64..1.0, prop::option::weighted(0.8, 0..INSERTS.len())),
        0..4,
    )
}

fn mutate(text: &str, muts: &[(f64, Option<usize>)]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for &(at, what) in muts {
        let pos = ((bytes.len() as f64) * at) as usize;
        match what {
            Some(k) => {
                let pos = pos.min(bytes.len());
                bytes.splice(pos..pos, INSERTS[k].iter().copied());
            }
            None if pos < bytes.len() => {
                bytes.remove(pos);
            }
            None => {}
        }
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn plain_csv_takes_the_fast_path(text in plain_csv()) {
        prop_assert!(parse_fast(text.as_bytes()).is_some(), "fast path gave up on {text:?}");
        assert_equivalent(text.as_bytes());
    }

    #[test]
    fn mutated_csv_parses_alike(text in plain_csv(), muts in mutations()) {
        assert_equivalent(&mutate(&text, &muts));
    }
}

/// Large enough for several chunks, parsed in parallel; an error late in the
/// file and one early in another chunk: the earliest record is named.
#[test]
fn chunked_files_match_the_reference() {
    let mut text = String::new();
    for i in 0..120_000u32 {
        let row: Vec<String> = (0..6)
            .map(|j| format!("{}.{}", i % 997, j * 7 + 1))
            .collect();
        text.push_str(&row.join(","));
        text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        if i % 1000 == 0 {
            text.push('\n');
        }
    }
    assert!(text.len() > 4 << 20);
    let fast = parse_fast(text.as_bytes()).expect("plain CSV takes the fast path");
    assert_eq!(fast.rows(), 120_000);
    assert_equivalent(text.as_bytes());
    let mut bad = text.clone().into_bytes();
    let late = bad.len() - 10;
    bad[late] = b'x';
    let early = bad.len() / 3;
    bad[early] = b'-';
    assert!(parse_fast(&bad).is_none());
    assert_equivalent(&bad);
    let e = parse_csv(&bad, "m.csv").unwrap_err().to_string();
    assert!(e.starts_with("m.csv: row "), "{e}");
}

/// The inline reader as it was: rows of cells, each `null` or a latency.
fn reference_inline(v: &serde_json::Value, file: &str) -> serverpick::error::Result<Matrix> {
    let err = |f: String, m: String| serverpick::error::Error::input(file, f, m);
    let serde_json::Value::Array(rows) = v else {
        return Err(err("delay".into(), "not an array".into()));
    };
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let field = format!("delay[{i}]");
        let serde_json::Value::Array(cells) = row else {
            return Err(err(field, "expected an array of numbers".into()));
        };
        let mut r = Vec::new();
        for (j, c) in cells.iter().enumerate() {
            let at = format!("{field}[{j}]");
            r.push(match c {
                serde_json::Value::Null => None,
                serde_json::Value::Number(x) => {
                    Some(check_latency(x.as_f64().unwrap_or(f64::NAN), &at, file)?)
                }
                other => {
                    let msg = format!("expected a latency (number) or null, found {other}");
                    return Err(err(at, msg));
                }
            });
        }
        out.push(r);
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn inline_json_reads_like_rows_of_cells(text in plain_csv(), muts in mutations()) {
        // The CSV's rows as JSON rows, then mutated as text.
        let rows: Vec<String> = text
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let cells: Vec<String> = l
                    .split(',')
                    .map(|c| match c.trim() { "" => "null".into(), t => t.trim_start_matches('+').to_string() })
                    .collect();
                format!("[{}]", cells.join(", "))
            })
            .collect();
        let json = format!("[{}]", rows.join(",\n"));
        let json = String::from_utf8_lossy(&mutate(&json, &muts)).into_owned();
        let value = match serde_json::from_str::<serde_json::Value>(&json) {
            Ok(v @ serde_json::Value::Array(_)) => v,
            _ => return Ok(()), // not an array of rows any more: not the row reader's case
        };
        let src = MatrixSource { file: "i.json", base_dir: Path::new(".") };
        let got = read_matrix(&value, "delay", &src);
        match (reference_inline(&value, "i.json"), got) {
            (Ok(r), Ok(g)) => prop_assert_eq!(
                bits(&FlatMatrix::from_matrix(&r)),
                bits(&FlatMatrix::from_matrix(&g))
            ),
            (Err(r), Err(g)) => prop_assert_eq!(r.to_string(), g.to_string()),
            (r, g) => prop_assert!(false, "reference {:?} but read_matrix {:?}", r, g),
        }
    }
}
