//! Every class of invalid SPD input gives an error naming file, field and
//! index — never a panic.

use serverpick::problems::read_instance;
use serverpick::Error;
use std::path::PathBuf;

const GOOD: &str = r#"{
  "problem": "spd", "version": 1, "model": "cs", "bound": 100.0, "servers": 3,
  "links": [[0, 1, 5.0], [1, 2, 5.0]],
  "access": [[10, 20, 30], [30, 20, 10]]
}"#;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Reads `text` (the GOOD instance with `from` replaced by `to`) and returns
/// the error message.
fn error_for(from: &str, to: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    assert!(GOOD.contains(from), "fixture lacks {from}");
    let p = write(&dir, "bad.json", &GOOD.replacen(from, to, 1));
    match read_instance(&p) {
        Ok(_) => panic!("accepted: {to}"),
        Err(e) => {
            assert!(matches!(e, Error::Input(_)), "not an input error: {e}");
            let msg = e.to_string();
            assert!(msg.contains("bad.json"), "no file name in: {msg}");
            msg
        }
    }
}

#[test]
fn good_instance_reads() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(&dir, "good.json", GOOD);
    assert!(read_instance(&p).is_ok());
}

#[test]
fn unknown_field_is_rejected() {
    let msg = error_for(r#""bound": 100.0"#, r#""bound": 100.0, "bund": 3"#);
    assert!(msg.contains("bund"), "{msg}");
}

#[test]
fn access_row_of_wrong_length() {
    let msg = error_for("[30, 20, 10]", "[30, 20]");
    assert!(msg.contains("access[1]: has 2 values, expected 3"), "{msg}");
}

#[test]
fn negative_and_non_numeric_latencies() {
    assert!(error_for("[30, 20, 10]", "[30, -2, 10]").contains("access[1][1]"));
    assert!(error_for("[30, 20, 10]", r#"[30, "x", 10]"#).contains("access[1][1]"));
    assert!(error_for("[1, 2, 5.0]", "[1, 2, -5.0]").contains("links[1][2]"));
}

#[test]
fn link_to_a_missing_server() {
    let msg = error_for("[1, 2, 5.0]", "[1, 7, 5.0]");
    assert!(
        msg.contains("links[1][1]") && msg.contains("not a server index"),
        "{msg}"
    );
}

#[test]
fn bound_must_be_given_exactly_once() {
    assert!(error_for(
        r#""bound": 100.0"#,
        r#""bound": 100.0, "bound_factor": 1.2"#
    )
    .contains("exactly one"));
    assert!(error_for(r#""bound": 100.0, "#, "").contains("exactly one"));
    assert!(error_for(r#""bound": 100.0"#, r#""bound_factor": -1"#).contains("bound_factor"));
}

#[test]
fn links_and_matrix_are_exclusive_and_matrix_must_be_symmetric() {
    let both = error_for(
        r#""access""#,
        r#""server_latency": [[0,1,2],[1,0,1],[2,1,0]], "access""#,
    );
    assert!(
        both.contains("exactly one of links or server_latency"),
        "{both}"
    );
    let asym = error_for(
        r#""links": [[0, 1, 5.0], [1, 2, 5.0]]"#,
        r#""server_latency": [[0, 5, null], [6, 0, 5], [null, 5, 0]]"#,
    );
    assert!(
        asym.contains("server_latency[0][1]") && asym.contains("undirected"),
        "{asym}"
    );
}

#[test]
fn client_without_any_access() {
    let msg = error_for("[30, 20, 10]", "[null, null, null]");
    assert!(
        msg.contains("access[1]") && msg.contains("no access"),
        "{msg}"
    );
}

#[test]
fn bad_start() {
    let short = error_for(
        r#""bound": 100.0"#,
        r#""bound": 100.0, "start": {"root": 0, "assign": [0]}"#,
    );
    assert!(
        short.contains("start.assign: has 1 entries, expected 2"),
        "{short}"
    );
    let rootless = error_for(
        r#""bound": 100.0"#,
        r#""bound": 100.0, "start": {"assign": [0, 2]}"#,
    );
    assert!(rootless.contains("start.root"), "{rootless}");
    let far = error_for(
        r#""bound": 100.0"#,
        r#""bound": 100.0, "start": {"root": 0, "assign": [0, 9]}"#,
    );
    assert!(far.contains("start.assign[1]"), "{far}");
}

#[test]
fn version_problem_and_syntax() {
    assert!(error_for(r#""version": 1"#, r#""version": 2"#).contains("version"));
    assert!(error_for(r#""problem": "spd""#, r#""problem": "tsp""#).contains("'tsp'"));
    assert!(error_for(r#""model": "cs""#, r#""model": "mesh""#).contains("mesh"));
    let msg = error_for("]]\n}", "]\n}");
    assert!(msg.contains("line"), "{msg}");
}

#[test]
fn csv_matrices_are_read_and_their_errors_located() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir, "acc.csv", "10,20,30\n30,,10\n");
    let ok = GOOD.replacen("[[10, 20, 30], [30, 20, 10]]", r#"{"csv": "acc.csv"}"#, 1);
    let inst = read_instance(&write(&dir, "ok.json", &ok)).unwrap();
    let Some(serverpick::problems::spd::Instance(inst)) =
        inst.as_any()
            .downcast_ref::<serverpick::problems::spd::Instance>()
    else {
        panic!("not an SPD instance")
    };
    assert!(inst.access(1, 1).is_infinite());
    write(&dir, "bad.csv", "10,20,30\n30,abc,10\n");
    let bad = GOOD.replacen("[[10, 20, 30], [30, 20, 10]]", r#"{"csv": "bad.csv"}"#, 1);
    let err = read_instance(&write(&dir, "bad.json", &bad))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("bad.csv") && err.contains("row 1 column 1"),
        "{err}"
    );
    let missing = GOOD.replacen("[[10, 20, 30], [30, 20, 10]]", r#"{"csv": "nope.csv"}"#, 1);
    let err = read_instance(&write(&dir, "m.json", &missing))
        .unwrap_err()
        .to_string();
    assert!(err.contains("access") && err.contains("nope.csv"), "{err}");
}
