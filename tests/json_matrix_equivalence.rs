//! Parser equivalence for inline JSON matrices (issue 25): a CMA file whose
//! `delay` is read by the fast path (`io::json_matrix`) gives the same
//! instance, bit for bit, or the same error as the slow path. The slow path
//! is forced by spelling the key `"del\u0061y"` (the fast path does not
//! match escaped keys; serde reads the same key), on a line of its own so
//! that line and column of every later syntax error stay the same. SPD
//! files' `access` and `server_latency` take the same fast path with
//! `null` allowed (a missing value), checked the same way.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serverpick::io::json_matrix::{
    take_inline_matrix, take_inline_matrix_in_pieces, take_inline_matrix_in_pieces_of, Cells,
};
use serverpick::problems::cma::file::parse_cma;
use serverpick::problems::spd::file::parse_spd;
use std::path::Path;

/// The file text around `matrix`, with the key spelled plainly or escaped.
fn file(matrix: &str, escaped: bool) -> String {
    let key = if escaped {
        "\"del\\u0061y\""
    } else {
        "\"delay\""
    };
    format!(
        "{{\"problem\": \"cma\", \"version\": 1, \"name\": \"m\", \"mirrors\": 3,\n{key}:\n{matrix},\n\"capacity\": [9, 9, 9]}}"
    )
}

/// Both paths give the same instance (delays compared as bits) or the same
/// error; returns whether the fast path took the matrix.
fn assert_equivalent(matrix: &str) -> bool {
    let fast_text = file(matrix, false);
    let fast = parse_cma(&fast_text, "m.json", Path::new("."));
    let slow = parse_cma(&file(matrix, true), "m.json", Path::new("."));
    match (&fast, &slow) {
        (Ok(f), Ok(s)) => {
            let bits = |m: &[f64]| m.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(f.delay_matrix()), bits(s.delay_matrix()), "{matrix}");
            assert_eq!(f.clients(), s.clients());
        }
        (Err(f), Err(s)) => assert_eq!(f.to_string(), s.to_string(), "{matrix}"),
        _ => panic!("fast {fast:?} but slow {slow:?} on {matrix}"),
    }
    assert_pieces_alike(&fast_text);
    take_inline_matrix(&fast_text, "delay").is_some()
}

/// The parallel pieces give the sequential parse's result (bits, row ends
/// and the shortened text) or its refusal, for any number of pieces.
fn assert_pieces_alike(text: &str) {
    let one = take_inline_matrix_in_pieces(text, "delay", 1);
    let bits = |r: &Option<(String, serverpick::net::csv_fast::FlatMatrix)>| {
        r.as_ref().map(|(short, m)| {
            let v: Vec<u64> = m.values.iter().map(|v| v.to_bits()).collect();
            (short.clone(), v, m.row_ends.clone())
        })
    };
    for pieces in [2, 3, 5, 8, 13] {
        let many = take_inline_matrix_in_pieces(text, "delay", pieces);
        assert_eq!(bits(&many), bits(&one), "{pieces} pieces on {text}");
    }
}

/// A delay as a file might spell it (JSON's forms and some it refuses).
fn cell() -> impl Strategy<Value = String> {
    let num = (0u32..5_000_000, 0u32..7, 0u8..7).prop_map(|(n, scale, form)| {
        let v = f64::from(n) / 10f64.powi(scale as i32);
        match form {
            0 => format!("{v}"),
            1 => format!("{v:e}"),
            2 => format!("{v:E}"),
            3 => format!("{n}"),
            4 => format!("{:.17}", v),
            5 => format!(" {v}\n"),
            _ => format!("{v:.3}"),
        }
    });
    prop_oneof![
        90 => num,
        1 => Just("-0".to_string()),
        1 => Just("-0.0".to_string()),
        1 => Just("null".to_string()),
        1 => Just("\"5\"".to_string()),
        1 => Just("01".to_string()),
        1 => Just(".5".to_string()),
        1 => Just("+1".to_string()),
        1 => Just("-3".to_string()),
        1 => Just("1e999".to_string()),
        1 => Just("2e9".to_string()),
        1 => Just("[1]".to_string()),
        1 => Just("18446744073709551617".to_string()),
    ]
}

/// Rows of three cells (one per mirror; mutations make them ragged),
/// `[[…], …]`.
fn matrix() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::collection::vec(cell(), 3), 1..6).prop_map(|rows| {
        let rows: Vec<String> = rows.iter().map(|r| format!("[{}]", r.join(", "))).collect();
        format!("[{}]", rows.join(",\n "))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn generated_matrices_read_alike(m in matrix()) {
        assert_equivalent(&m);
    }

    #[test]
    fn mutated_matrices_read_alike(m in matrix(), at in any::<prop::sample::Index>(),
                                    with in prop::sample::select(vec![
                                        "", " ", ",", "[", "]", "]]", "-", ".", "e", "0", "9",
                                        "null", "\"", "}", "{", "\n",
                                    ])) {
        let cut = at.index(m.len() + 1);
        let mutated = format!("{}{}{}", &m[..cut], with, &m[cut.min(m.len())..]);
        assert_equivalent(&mutated);
    }

    /// Row-like text after the matrix (`, [` in later fields) never joins
    /// it: a piece starting there is not reached from the matrix.
    #[test]
    fn pieces_ignore_row_like_text_after_the_matrix(m in matrix(), tail in prop::sample::select(vec![
        "", ", [1, 2, 3]", ",[[4], [5, [6]]]", ", [\"a\", [7]], [8]",
    ])) {
        let text = format!("{{\"delay\": {m}, \"x\": [0{tail}], \"y\": [[9]{tail}]}}");
        assert_pieces_alike(&text);
    }
}

/// An SPD file (3 servers) with `matrix` as its `access` (over a link
/// network) or as its `server_latency` (with a fixed access matrix), the
/// key spelled plainly or escaped.
fn spd_file(matrix: &str, as_access: bool, escaped: bool) -> String {
    let key = match (as_access, escaped) {
        (true, false) => "\"access\"",
        (true, true) => "\"acc\\u0065ss\"",
        (false, false) => "\"server_latency\"",
        (false, true) => "\"server_l\\u0061tency\"",
    };
    let other = if as_access {
        "\"links\": [[0, 1, 5], [1, 2, 7.5]]"
    } else {
        "\"access\": [[1, 2, 3], [4, null, 6]]"
    };
    format!(
        "{{\"problem\": \"spd\", \"version\": 1, \"name\": \"s\", \"model\": \"p2p\",\n\
         \"bound\": 1000, \"servers\": 3,\n{key}:\n{matrix},\n{other}}}"
    )
}

/// The SPD form of [`assert_equivalent`]: the same instance (every field,
/// through its debug form, which spells each float exactly) or the same
/// error; returns whether the fast path took the matrix.
fn assert_spd_equivalent(matrix: &str, as_access: bool) -> bool {
    let fast_text = spd_file(matrix, as_access, false);
    let fast = parse_spd(&fast_text, "s.json", Path::new("."));
    let slow = parse_spd(&spd_file(matrix, as_access, true), "s.json", Path::new("."));
    match (&fast, &slow) {
        (Ok(f), Ok(s)) => assert_eq!(format!("{f:?}"), format!("{s:?}"), "{matrix}"),
        (Err(f), Err(s)) => assert_eq!(f.to_string(), s.to_string(), "{matrix}"),
        _ => panic!("fast {fast:?} but slow {slow:?} on {matrix}"),
    }
    let key = if as_access {
        "access"
    } else {
        "server_latency"
    };
    let one = take_inline_matrix_in_pieces_of(&fast_text, key, 1, Cells::LatenciesOrNull);
    for pieces in [2, 3, 5] {
        let many = take_inline_matrix_in_pieces_of(&fast_text, key, pieces, Cells::LatenciesOrNull);
        let bits = |r: &Option<(String, serverpick::net::csv_fast::FlatMatrix)>| {
            r.as_ref().map(|(t, m)| {
                let v: Vec<u64> = m.values.iter().map(|v| v.to_bits()).collect();
                (t.clone(), v, m.row_ends.clone())
            })
        };
        assert_eq!(bits(&many), bits(&one), "{pieces} pieces on {fast_text}");
    }
    one.is_some()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn spd_matrices_read_alike(m in matrix(), as_access in any::<bool>()) {
        assert_spd_equivalent(&m, as_access);
    }

    #[test]
    fn mutated_spd_matrices_read_alike(m in matrix(), as_access in any::<bool>(),
                                        at in any::<prop::sample::Index>(),
                                        with in prop::sample::select(vec![
                                            "", " ", ",", "[", "]", "-", ".", "e", "0",
                                            "null", "nul", "nulll", "\"", "}", "\n",
                                        ])) {
        let cut = at.index(m.len() + 1);
        let mutated = format!("{}{}{}", &m[..cut], with, &m[cut.min(m.len())..]);
        assert_spd_equivalent(&mutated, as_access);
    }
}

#[test]
fn most_generated_spd_files_are_valid_instances() {
    // Guards the SPD comparison as the CMA one is guarded below.
    let runner = &mut proptest::test_runner::TestRunner::deterministic();
    let valid = (0..200)
        .filter(|_| {
            let m = matrix().new_tree(runner).expect("a case").current();
            parse_spd(&spd_file(&m, true, false), "s.json", Path::new(".")).is_ok()
        })
        .count();
    assert!(
        valid >= 40,
        "only {valid} of 200 generated SPD files are valid"
    );
}

#[test]
fn spd_fast_path_reads_null_as_missing() {
    let m = "[[1, null, 3], [null, 2, 0]]";
    assert!(assert_spd_equivalent(m, true));
    let inst = parse_spd(&spd_file(m, true, false), "s.json", Path::new(".")).expect("reads");
    assert!(inst.access(0, 1).is_infinite() && inst.access(1, 0).is_infinite());
    assert_eq!(inst.access(1, 2), 0.0);
    assert!(assert_spd_equivalent(
        "[[0, 5, null], [5, 0, 7], [null, 7, 0]]",
        false
    ));
    // `nul`, `nulll` and `null1` are not `null`: the slow path decides.
    for bad in ["[[1, nul, 3]]", "[[1, nulll, 3]]", "[[1, null1, 3]]"] {
        assert!(!assert_spd_equivalent(bad, true), "{bad}");
    }
    // CMA delays still refuse null on the fast path.
    assert!(take_inline_matrix(&file("[[1, null, 3]]", false), "delay").is_none());
}

#[test]
fn the_fast_path_is_taken_on_plain_matrices() {
    let plain = "[[1, 2.5, 3e1], [0, -0, 7]]";
    assert!(assert_equivalent(plain));
    let inst = parse_cma(&file(plain, false), "m.json", Path::new(".")).expect("reads");
    // serde_json reads `-0` as -0.0; so must the fast path.
    assert!(inst.delay(1, 1).is_sign_negative());
    assert!(assert_equivalent("[]"));
    assert!(!assert_equivalent("[[1, null, 3]]"));
}

#[test]
fn most_generated_files_are_valid_instances() {
    // Guards the comparison against comparing one header error with itself.
    let runner = &mut proptest::test_runner::TestRunner::deterministic();
    let valid = (0..200)
        .filter(|_| {
            let m = matrix().new_tree(runner).expect("a case").current();
            parse_cma(&file(&m, false), "m.json", Path::new(".")).is_ok()
        })
        .count();
    assert!(valid >= 40, "only {valid} of 200 generated files are valid");
}
